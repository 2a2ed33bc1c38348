"""stream.py - POST /v1/execute with Accept: text/event-stream (issue 27, part 1).

Checked over real HTTP through nginx:
  - the answer is 200 text/event-stream at once; events come as the
    program produces them: a program that prints, sleeps 1 s and prints
    again is still running (its marker process exists) when its first
    line arrives as an event;
  - the events are stage, stdout/stderr, then one result whose data is
    exactly the object the unstreamed request answers for the same job,
    its stdout the concatenation of the stdout events;
  - a compiled language sends stage compile, then stage run; a compile
    error shows in the stream and in the result's stage;
  - output limits are the unstreamed ones (outputKb: truncated, and no
    more streamed than the budget);
  - a character cut in two by the pipe reaches the client whole;
  - refusals come before any stream, as JSON: a bad body (400), tty (400),
    every slot busy (429, with no queue); a plain Accept gets the JSON answer;
  - a client that disconnects ends the job: its process is gone and
    runcell_busy_slots is back to 0, long before the program's own end.
Needs root (the sandbox), python and c toolchains.
"""

import json
import time
import uuid

import rchttp
import rcsse
import tap

t = tap.Tap()

try:
    # No queue (RUN_QUEUE_ROUTES=none): a request finding every slot busy
    # is answered at once, which is what the 429 check below needs; the
    # queue itself is t/abuse/front.py's.
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2, "RUN_SPARE_WORKERS": 4,
                              "RUN_QUEUE_ROUTES": "none"},
                         languages="python,c").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def body(code, lang="python", name="main.py", **extra):
    b = {"language": lang, "files": [{"name": name, "content": code}]}
    b.update(extra)
    return b


def stream(b, headers=None):
    return rcsse.Stream(svc.port, "/v1/execute", method="POST", body=b, headers=headers)


# -- events as the program produces them --------------------------------------

marker = "rc-stream-" + uuid.uuid4().hex
prog = ("import sys, time\n"
        "print('first', flush=True)\n"
        "time.sleep(1)\n"
        "print('second')\n"
        "sys.stderr.write('oops\\n')\n")
s = stream(body(prog, args=[marker]))
t.eq((s.status, s.headers.get("content-type")), (200, "text/event-stream"),
     "Accept: text/event-stream: 200 text/event-stream")
first = s.until(lambda e: e["event"] == "stdout", 20)
alive = bool(rchttp.pids_with_marker(marker))
t.ok(first and first[-1]["data"] == {"data": "first\n"} and alive,
     "the first line arrives as an event while the program still runs",
     lambda: "events %r, program alive %s" % (first, alive))
events = first + s.rest(30)
names = [e["event"] for e in events]
t.eq(names[0], "stage", "the first event is stage", names)
t.eq(events[0]["data"], {"stage": "run"}, "an interpreted language's stage is run")
t.ok(names[-1] == "result" and names.count("result") == 1, "one result event, last", names)
t.ok(set(names[1:-1]) <= {"stdout", "stderr"}, "between them only stdout and stderr", names)
t.eq(rcsse.output(events), "first\nsecond\n", "stdout events carry the program's stdout")
t.eq(rcsse.output(events, "stderr"), "oops\n", "stderr events carry its stderr")
streamed = events[-1]["data"] or {}
plain = svc.post_json("/v1/execute", body(prog, args=[marker]), timeout=60)
volatile = ("wallMs", "cpuMs", "memoryPeakKb")
same = {k: v for k, v in streamed.items() if k not in volatile}
want = {k: v for k, v in (plain.json or {}).items() if k not in volatile}
t.ok(plain.status == 200 and same == want and set(streamed) == set(plain.json or {}),
     "the result event is the object the unstreamed request answers",
     lambda: "streamed %r\nplain %r" % (streamed, plain))
t.eq((streamed.get("stdout"), streamed.get("exitCode")), ("first\nsecond\n", 0),
     "its stdout is the stdout events joined")
t.ok(events[-1]["raw"] == json.dumps(streamed, separators=(",", ":"), ensure_ascii=False)
     or json.loads(events[-1]["raw"]) == streamed, "the result's data is one JSON object")

# -- compiled language ----------------------------------------------------------

c_ok = "#include <stdio.h>\nint main(void){puts(\"hi\");return 3;}\n"
events = stream(body(c_ok, "c", "main.c")).rest(90)
stages = [e["data"]["stage"] for e in events if e["event"] == "stage"]
t.eq(stages, ["compile", "run"], "a compiled language: stage compile, then stage run")
t.ok(events and events[-1]["event"] == "result" and events[-1]["data"]["exitCode"] == 3
     and events[-1]["data"]["stage"] == "run" and "compile" in events[-1]["data"],
     "its result has the run's exit code and the compile step", lambda: repr(events[-1:]))
events = stream(body("int main(void){return nope;}\n", "c", "main.c")).rest(90)
res = events[-1]["data"] if events else {}
t.ok([e["data"]["stage"] for e in events if e["event"] == "stage"] == ["compile"]
     and "nope" in rcsse.output(events, "stderr") and res.get("stage") == "compile"
     and res.get("compile", {}).get("exitCode") not in (0, None),
     "a compile error: its messages stream as stderr, the result's stage is compile",
     lambda: repr(events))

# -- limits, text ----------------------------------------------------------------

flood = "import sys\nfor i in range(2000):\n    sys.stdout.write('x' * 99 + '\\n')\n"
s = stream(body(flood, limits={"outputKb": 4}))
events = s.rest(60)
out = rcsse.output(events)
res = events[-1]["data"] if events else {}
t.ok(res.get("truncated") is True and len(out) <= 4096 and out == res.get("stdout"),
     "outputKb holds for the stream too: truncated, no more streamed than the budget (%d bytes)"
     % len(out), lambda: "%d %r %r" % (s.status, s.body, res)[:500])

split = ("import os, time\n"
         "os.write(1, b'caf\\xc3')\n"
         "time.sleep(0.3)\n"
         "os.write(1, b'\\xa9!')\n")
events = stream(body(split)).rest(30)
t.ok(rcsse.output(events) == "caf\u00e9!" and "\ufffd" not in rcsse.output(events),
     "a character cut in two by the pipe arrives whole",
     lambda: repr([e["raw"] for e in events]))

# -- refusals are JSON, before any stream ----------------------------------------

s = stream({"language": "python"})
good, why = rchttp.json_error(rchttp.Response(s.status, "", s.headers, s.body, 0), 400)
t.ok(good, "a bad body with Accept: text/event-stream is a JSON 400", why)
s = stream(body("print(1)", tty=True))
t.ok(s.status == 400 and "tty" in (s.json or {}).get("error", ""),
     "tty on /v1/execute is a 400 naming it", lambda: repr(s.body))
r = svc.post_json("/v1/execute", body("print(7)"), headers={"Accept": "*/*"})
t.ok(r.status == 200 and r.headers.get("content-type", "").startswith("application/json")
     and (r.json or {}).get("stdout") == "7\n", "Accept */*: the JSON answer, not a stream", repr(r))

# nginx must not keep the FastCGI connection of a stream for the next request
# (nginx/runcell.conf.in, keepalive_requests): a POST taken on it would fail.
codes = []
for _ in range(40):
    stream(body("print(2)")).rest(30)
    codes.append(svc.post_json("/v1/execute", body("print(3)"), timeout=30).status)
t.eq(codes, [200] * 40, "a request right after a stream is answered (40 in a row)")

# -- a client that leaves --------------------------------------------------------

long_marker = "rc-stream-gone-" + uuid.uuid4().hex
long_prog = "import time\nprint('up', flush=True)\ntime.sleep(60)\n"
holders = [stream(body(long_prog, args=[long_marker], limits={"wallTimeMs": 90000, "idleMs": 90000}))
           for _ in range(2)]
up = [h.until(lambda e: e["event"] == "stdout", 20) for h in holders]
t.ok(all(u and u[-1]["data"]["data"] == "up\n" for u in up) and rcsse.busy_slots(svc) == 2,
     "two streamed jobs hold both slots", lambda: repr(up))
s = stream(body("print(1)"))
good, why = rchttp.json_error(rchttp.Response(s.status, "", s.headers, s.body, 0), 429,
                              "runner busy")
t.ok(good, "a third, every slot busy: 429 runner busy as JSON, no stream", why)

t0 = time.monotonic()
for h in holders:
    h.close()
freed = rchttp.wait_until(lambda: rcsse.busy_slots(svc) == 0, 15)
took = time.monotonic() - t0
gone = rchttp.wait_until(lambda: not rchttp.pids_with_marker(long_marker), 15)
t.ok(freed and gone,
     "the clients disconnect: their programs are killed and runcell_busy_slots is 0 again "
     "(after %.2f s; the programs would have run 60 s)" % took,
     lambda: "busy %r, alive %r" % (rcsse.busy_slots(svc), rchttp.pids_with_marker(long_marker)))
r = svc.post_json("/v1/execute", body("print(8)"), timeout=30)
t.eq((r.status, (r.json or {}).get("stdout")), (200, "8\n"), "and the slots serve the next job")
log = svc.logged_requests("/v1/execute")
t.ok(any(line.get("outcome") == "client_gone" for line in log),
     "the request log says the client went away")

t.ok("worker_exited" not in svc.fcgi_log_tail(100000), "no worker died on the way")
svc.stop()
t.exit()
