"""processes.py - /v1/processes: programs that live across requests (issue 27,
part 2), over real HTTP through nginx.

Checked:
  - POST /v1/processes answers 201 {"id": 32 hex, "events": its path};
  - stdin drives a REPL-style loop over 3 turns: each line sent is answered
    by its own stdout event before the next is sent;
  - {"data": ..., "eof": true} reaches the program as end of input;
  - signals are delivered (a handler prints), SIGKILL ends it with its
    signal; a signal outside the list is a 400;
  - the idle clock ends a program that waits with nobody typing
    (idleTimedOut, slot freed), and never one that keeps receiving stdin
    past several idle periods;
  - every event has an id; a late subscriber gets everything from the
    start; one that reconnects with Last-Event-ID gets exactly what came
    after it;
  - "tty": true gives a terminal: isatty, a private /dev/pts, a shell's
    prompt, resize; resize without one is a 409;
  - GET reads compiling/running/exited, the result plus "state" once
    exited; kept RUN_PROCESS_KEEP_S, then 404; DELETE kills (reads as
    exited with SIGKILL); stdin after exit is a 409;
  - a program that does not read: stdin POSTs return 409 "stdin is full",
    never hang;
  - RUN_MAX_PROCESSES caps live processes (429), kept ones do not count;
    processes count against RUN_CONCURRENCY (a job gets 429);
  - a process in a session runs in its directory: what it writes stays;
  - unknown ids are 404, bad bodies 400, all as JSON;
  - SIGTERM to the service with a process running: its program is killed,
    its subscriber reads the exit event, no supervisor is left.
Needs root (the sandbox), python, c and bash.
"""

import signal
import subprocess
import time

import rchttp
import rcsse
import tap

t = tap.Tap()

KEEP_S = 3
try:
    # No queue (RUN_QUEUE_ROUTES=none): a job finding every slot held by
    # processes is a 429 at once (the queue is t/abuse/front.py's).
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 3, "RUN_SPARE_WORKERS": 8, "RUN_QUEUE_ROUTES": "none",
                              "RUN_MAX_PROCESSES": 2, "RUN_PROCESS_KEEP_S": KEEP_S},
                         languages="python,c,bash").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def start(code, lang="python", name="main.py", expect=201, **extra):
    b = {"language": lang, "files": [{"name": name, "content": code}]}
    b.update(extra)
    r = svc.post_json("/v1/processes", b, timeout=60)
    if r.status != expect:
        t.diag("start: %r" % r)
    return r


def events(pid, last=None):
    headers = {"Last-Event-ID": str(last)} if last is not None else None
    return rcsse.Stream(svc.port, "/v1/processes/%s/events" % pid, headers=headers)


def stdin(pid, data=None, eof=None, raw=None):
    if raw is not None:
        return svc.request("POST", "/v1/processes/%s/stdin" % pid, body=raw)
    b = {}
    if data is not None:
        b["data"] = data
    if eof is not None:
        b["eof"] = eof
    return svc.post_json("/v1/processes/%s/stdin" % pid, b)


def status(pid):
    return svc.get("/v1/processes/" + pid)


# -- create, REPL over 3 turns ------------------------------------------------

repl = ("import sys\n"
        "total = 0\n"
        "for line in sys.stdin:\n"
        "    total += int(line)\n"
        "    print('total', total, flush=True)\n")
r = start(repl)
pid = (r.json or {}).get("id", "")
t.ok(r.status == 201 and len(pid) == 32 and all(c in "0123456789abcdef" for c in pid)
     and r.json.get("events") == "/v1/processes/%s/events" % pid,
     "POST /v1/processes: 201 {id: 128 bits in hex, events: its stream}", repr(r))
ev = events(pid)
t.eq(ev.status, 200, "GET .../events: 200 text/event-stream")
turns = []
for n in (5, 10, 27):
    w = stdin(pid, raw=("%d\n" % n).encode())
    got = ev.until(lambda e: e["event"] == "stdout", 20)
    turns.append((w.status, rcsse.output(got)))
t.eq(turns, [(204, "total 5\n"), (204, "total 15\n"), (204, "total 42\n")],
     "stdin drives a REPL over 3 turns: each line is answered before the next is sent")
t.eq(status(pid).json, {"state": "running"}, "GET /v1/processes/{id} while it runs: running")
w = stdin(pid, eof=True)
rest = ev.rest(30)
ex = rest[-1] if rest else {}
t.ok(w.status == 204 and ex.get("event") == "exit" and ex["data"].get("exitCode") == 0
     and ex["data"].get("stdout") == "total 5\ntotal 15\ntotal 42\n",
     "eof ends its input: it exits 0, the exit event is its result", lambda: repr(rest))
ids = [e["id"] for e in ev.events]
t.ok(ids == list(range(1, len(ids) + 1)), "every event has an id, 1, 2, 3, ...", repr(ids))
s = status(pid)
t.ok(s.status == 200 and s.json.get("state") == "exited"
     and {k: v for k, v in s.json.items() if k != "state"} == ex["data"],
     "once exited, GET is the exit event's object plus state: exited", repr(s))
late = events(pid).rest(20)
t.eq([e["raw"] for e in late], [e["raw"] for e in ev.events],
     "a subscriber that joins after the end gets every event from the start")
w = stdin(pid, raw=b"1\n")
good, why = rchttp.json_error(w, 409)
t.ok(good, "stdin after exit: 409", why)

# -- eof reaches the program --------------------------------------------------

r = start("import sys\ndata = sys.stdin.read()\nprint(len(data), repr(data[-3:]))\n")
pid = r.json["id"]
w1 = stdin(pid, data="abc\n")
w2 = stdin(pid, data="\u00e9\u00e9\n", eof=True)
out = events(pid).rest(30)
t.ok((w1.status, w2.status) == (204, 204) and rcsse.output(out) == "7 '\u00e9\u00e9\\n'\n",
     "JSON stdin with eof: the program reads everything, then end of file",
     lambda: repr(out))

# -- signals ------------------------------------------------------------------

sig_prog = ("import signal, sys, time\n"
            "signal.signal(signal.SIGUSR1, lambda *a: print('usr1', flush=True))\n"
            "signal.signal(signal.SIGINT, lambda *a: print('int', flush=True))\n"
            "print('ready', flush=True)\n"
            "while True:\n"
            "    time.sleep(0.05)\n")
r = start(sig_prog)
pid = r.json["id"]
ev = events(pid)
ev.until(lambda e: e["event"] == "stdout", 20)
got = []
for name in ("SIGUSR1", "SIGINT"):
    w = svc.post_json("/v1/processes/%s/signal" % pid, {"signal": name})
    got.append((w.status, rcsse.output(ev.until(lambda e: e["event"] == "stdout", 20))))
t.eq(got, [(204, "usr1\n"), (204, "int\n")], "SIGUSR1 and SIGINT reach the program's handlers")
w = svc.post_json("/v1/processes/%s/signal" % pid, {"signal": "SIGSTOP"})
good, why = rchttp.json_error(w, 400)
t.ok(good, "a signal outside the list (SIGSTOP) is a 400", why)
w = svc.post_json("/v1/processes/%s/signal" % pid, {"signal": "SIGKILL"})
ex = ev.rest(30)[-1:]
t.ok(w.status == 204 and ex and ex[0]["event"] == "exit" and ex[0]["data"]["signal"] == "SIGKILL"
     and ex[0]["data"]["exitCode"] is None, "SIGKILL ends it: exit event with signal SIGKILL",
     lambda: repr(ex))

# -- the idle clock -------------------------------------------------------------

r = start("input()\n", limits={"idleMs": 1000})
pid = r.json["id"]
ex = events(pid).rest(30)[-1:]
t.ok(ex and ex[0]["data"].get("idleTimedOut") is True and ex[0]["data"].get("limit") == "idle",
     "nobody types: the idle clock ends it (idleTimedOut)", lambda: repr(ex))
t.ok(rchttp.wait_until(lambda: rcsse.busy_slots(svc) == 0, 10),
     "and its slot is free (runcell_busy_slots 0)")
r = start("import sys\nfor i in range(8):\n    sys.stdin.readline()\nprint('fed')\n",
          limits={"idleMs": 1000})
pid = r.json["id"]
ev = events(pid)
fed = []
for i in range(8):
    time.sleep(0.4)
    fed.append(stdin(pid, raw=b"x\n").status)
ex = ev.rest(30)[-1:]
t.ok(fed == [204] * 8 and ex and ex[0]["data"].get("idleTimedOut") is False
     and ex[0]["data"].get("exitCode") == 0 and ex[0]["data"].get("wallMs", 0) > 1000,
     "a program that keeps receiving stdin (3.2 s, idle clock 1 s) is never idle-killed",
     lambda: repr((fed, ex)))

# -- Last-Event-ID ----------------------------------------------------------------

r = start("import sys\nfor line in sys.stdin:\n    print('echo', line.strip(), flush=True)\n")
pid = r.json["id"]
ev = events(pid)
for word in ("a", "b"):
    stdin(pid, raw=(word + "\n").encode())
    ev.until(lambda e: e["event"] == "stdout", 20)
seen = ev.events[-1]["id"]
ev.close()
for word in ("c", "d"):
    stdin(pid, raw=(word + "\n").encode())
stdin(pid, eof=True)
again = events(pid, last=seen).rest(30)
t.ok(again and again[0]["id"] == seen + 1 and rcsse.output(again) == "echo c\necho d\n"
     and again[-1]["event"] == "exit",
     "reconnecting with Last-Event-ID: %d gets exactly what came after it" % seen,
     lambda: repr(again))

# -- tty ------------------------------------------------------------------------------

shell = "PS1='rc$ ' exec bash --norc --noprofile -i\n"
r = start(shell, "bash", "main.sh", tty=True)
pid = r.json["id"]
ev = events(pid)
prompt = ev.until(lambda e: "rc$ " in rcsse.output(ev.events), 20)
t.ok("rc$ " in rcsse.output(ev.events), "tty: a shell prints its prompt",
     lambda: repr(rcsse.output(ev.events)))
w = svc.post_json("/v1/processes/%s/resize" % pid, {"rows": 33, "cols": 101})
t.eq(w.status, 204, "resize: 204")
stdin(pid, raw=b"[ -t 0 ] && echo IS-A-TTY; ls /dev/pts; stty size; echo $((6*7))\n")
ev.until(lambda e: "42" in rcsse.output(ev.events).split("echo $((6*7))")[-1], 20)
text = rcsse.output(ev.events)
t.ok("IS-A-TTY" in text.split("echo IS-A-TTY")[-1], "isatty(0) is true", repr(text))
t.ok("0  ptmx" in text or "0\tptmx" in text or "0 ptmx" in " ".join(text.split()),
     "/dev/pts is the job's own devpts: its one terminal and ptmx", repr(text))
t.ok("33 101" in text, "stty size after resize: 33 101", repr(text))
t.ok("\r\n" in text, "stdout events carry the terminal's bytes (CR LF)", repr(text[:200]))
stdin(pid, raw=b"grep -E '^(NoNewPrivs|Seccomp):' /proc/self/status | tr -d ' \\t'; "
      b"python3 -c 'import fcntl, termios; fcntl.ioctl(0, termios.TIOCSTI, b\"x\")' 2>&1 "
      b"| tail -n1; echo DONE-$((1+1))\n")
ev.until(lambda e: "DONE-2" in rcsse.output(ev.events), 20)
text = rcsse.output(ev.events).split("DONE-$((1+1))")[-1]
t.ok("NoNewPrivs:1" in text and "Seccomp:2" in text and "Operation not permitted" in text,
     "on its terminal the job keeps no_new_privs and its seccomp filter: TIOCSTI is refused",
     repr(text))
stdin(pid, raw=b"exit 5\n")
ex = ev.rest(30)[-1:]
t.ok(ex and ex[0]["data"].get("exitCode") == 5, "the shell exits with its status", repr(ex))
r = start("import time\ntime.sleep(60)\n", limits={"idleMs": 20000})
pid = r.json["id"]
w = svc.post_json("/v1/processes/%s/resize" % pid, {"rows": 10, "cols": 10})
good, why = rchttp.json_error(w, 409)
t.ok(good, "resize of a process without a terminal: 409", why)

# -- stdin is full, never a hang ----------------------------------------------------

chunk = b"x" * (512 * 1024)
answers = []
for _ in range(8):
    w = svc.request("POST", "/v1/processes/%s/stdin" % pid, body=chunk, timeout=20)
    answers.append(w.status)
    if w.status != 204:
        break
t.ok(answers[-1] == 409 and (w.json or {}).get("error") == "stdin is full" and 204 in answers,
     "a program that does not read: stdin POSTs are taken until 409 stdin is full",
     lambda: repr((answers, w)))

# -- delete, keep, limits -------------------------------------------------------------

w = svc.request("DELETE", "/v1/processes/" + pid)
s = rchttp.wait_until(lambda: (status(pid).json or {}).get("state") == "exited", 10)
s = status(pid).json or {}
t.ok(w.status == 204 and s.get("state") == "exited" and s.get("signal") == "SIGKILL",
     "DELETE: 204, and it reads as exited by SIGKILL", lambda: repr((w, s)))
gone = rchttp.wait_until(lambda: status(pid).status == 404, KEEP_S + 10)
t.ok(gone, "after RUN_PROCESS_KEEP_S it is gone: 404")

sleeper = "import time\ntime.sleep(60)\n"
a = start(sleeper, limits={"idleMs": 60000, "wallTimeMs": 60000})
b = start(sleeper, limits={"idleMs": 60000, "wallTimeMs": 60000})
c = start(sleeper, expect=429)
good, why = rchttp.json_error(c, 429)
t.ok(a.status == 201 and b.status == 201 and good,
     "RUN_MAX_PROCESSES=2: a third live process is a 429", why)
j = svc.post_json("/v1/execute", {"language": "python",
                                  "files": [{"name": "main.py", "content": "print(1)"}]})
t.eq(j.status, 200, "one slot of three is still free for a job")
blocker = rcsse.Stream(svc.port, "/v1/execute", method="POST",
                       body={"language": "python", "files": [{"name": "main.py",
                             "content": "import time\nprint(1, flush=True)\ntime.sleep(60)"}]})
blocker.until(lambda e: e["event"] == "stdout", 20)
j = svc.post_json("/v1/execute", {"language": "python",
                                  "files": [{"name": "main.py", "content": "print(1)"}]})
good, why = rchttp.json_error(j, 429, "runner busy")
t.ok(good, "two processes and a job hold the three slots: the next job is a 429", why)
blocker.close()
for p in (a, b):
    svc.request("DELETE", "/v1/processes/" + p.json["id"])
rchttp.wait_until(lambda: all((status(p.json["id"]).json or {}).get("state") == "exited"
                              for p in (a, b)), 10)
d = start("print('after')\n")
t.ok(d.status == 201 and status(a.json["id"]).status == 200,
     "exited processes that are only kept do not count: a new one starts", repr(d))

# -- compiled, sessions ----------------------------------------------------------------

r = start("#include <stdio.h>\nint main(void){int a,b;scanf(\"%d %d\",&a,&b);"
          "printf(\"%d\\n\",a+b);return 0;}\n", "c", "main.c")
pid = r.json["id"]
st1 = status(pid).json
stdin(pid, data="40 2\n", eof=True)
out = events(pid).rest(60)
t.ok([e["data"]["stage"] for e in out if e["event"] == "stage"] == ["compile", "run"]
     and rcsse.output(out) == "42\n",
     "a compiled language: stage compile, stage run; stdin typed while it compiled is kept",
     lambda: repr((st1, out)))

sid = (svc.request("POST", "/sessions").json or {}).get("session_id", "")
r = svc.post_json("/sessions/%s/processes" % sid,
                  {"language": "python", "files": [{"name": "main.py", "content":
                   "import sys\nopen('kept.txt', 'w').write(sys.stdin.readline())\nprint('ok')\n"}]})
spid = (r.json or {}).get("id", "")
t.ok(r.status == 201 and len(spid) == 64 and spid.startswith(sid),
     "POST /sessions/{id}/processes: 201, an id routed as its session", repr(r))
stdin(spid, raw=b"written by a process\n")
out = events(spid).rest(30)
f = svc.get("/sessions/%s/files/kept.txt" % sid)
t.ok(rcsse.output(out) == "ok\n" and f.status == 200 and f.body == b"written by a process\n",
     "it runs in the session's directory: the file it wrote stays in the session",
     lambda: repr((out, f)))
other = "0" * 32 + spid[32:]
good, why = rchttp.json_error(svc.get("/v1/processes/" + other), 404, "process not found")
t.ok(good and svc.get("/v1/processes/" + spid).status == 200,
     "its own 128 bits under another session's id are no process: 404", why)
r = svc.post_json("/sessions/%s/processes" % ("0" * 32), {"language": "python",
                  "files": [{"name": "main.py", "content": "1"}]})
good, why = rchttp.json_error(r, 404, "session not found")
t.ok(good, "a process in a session that does not exist: 404", why)

# -- errors --------------------------------------------------------------------------------

for path in ("/v1/processes/" + "0" * 32, "/v1/processes/" + "0" * 32 + "/events",
             "/v1/processes/not-an-id"):
    good, why = rchttp.json_error(svc.get(path), 404, "process not found")
    t.ok(good, "GET %s: 404 process not found" % path, why)
for path, b in (("/stdin", {"data": "x"}), ("/signal", {"signal": "SIGINT"}),
                ("/resize", {"rows": 1, "cols": 1})):
    w = svc.post_json("/v1/processes/" + "f" * 32 + path, b)
    good, why = rchttp.json_error(w, 404, "process not found")
    t.ok(good, "POST %s of an unknown id: 404" % path, why)
good, why = rchttp.json_error(svc.request("DELETE", "/v1/processes/" + "e" * 32), 404)
t.ok(good, "DELETE of an unknown id: 404", why)
r = start("input()\n", limits={"idleMs": 5000})
pid = r.json["id"]
bad = [
    ("/v1/processes", {"language": "python"}),
    ("/v1/processes", {"language": "python", "tty": "yes",
                       "files": [{"name": "main.py", "content": "1"}]}),
    ("/v1/processes/%s/stdin" % pid, {"data": 5}),
    ("/v1/processes/%s/stdin" % pid, {"data": "x", "more": 1}),
    ("/v1/processes/%s/stdin" % pid, "{not json"),
    ("/v1/processes/%s/signal" % pid, {"signal": 9}),
    ("/v1/processes/%s/signal" % pid, {}),
    ("/v1/processes/%s/resize" % pid, {"rows": 0, "cols": 80}),
    ("/v1/processes/%s/resize" % pid, {"rows": 24}),
]
for path, b in bad:
    good, why = rchttp.json_error(svc.post_json(path, b), 400)
    t.ok(good, "bad body %s to %s: 400 with a message" % (str(b)[:40], path.split(pid)[-1]), why)
svc.request("DELETE", "/v1/processes/" + pid)

t.ok("worker_exited" not in svc.fcgi_log_tail(100000), "no worker died on the way")

# -- the service stops with a process running ---------------------------------------


def supervisors():
    out = []
    for p in rchttp.descendants_of(svc.master_pid()):
        try:
            with open("/proc/%d/comm" % p) as f:
                if f.read().strip() == "runcell-proc":
                    out.append(p)
        except OSError:
            pass
    return out


r = start("import time\nprint('up', flush=True)\ntime.sleep(60)\n",
          limits={"idleMs": 60000, "wallTimeMs": 60000})
ev = events(r.json["id"])
ev.until(lambda e: e["event"] == "stdout", 20)
sups = supervisors()
svc.fcgi.send_signal(signal.SIGTERM)  # nginx stays up: the stream can end properly
rest = ev.rest(20)
try:
    status = svc.fcgi.wait(timeout=30)
except subprocess.TimeoutExpired:
    status = None
t.ok(sups and status == 0 and not any(rchttp.pid_alive(p) for p in sups)
     and rest and rest[-1]["event"] == "exit" and rest[-1]["data"]["signal"] == "SIGKILL",
     "SIGTERM with a process running: the program is killed, its subscriber gets the exit "
     "event, no supervisor is left, runcell-fcgi exits 0", lambda: repr((sups, status, rest[-1:])))
svc.stop()
t.exit()
