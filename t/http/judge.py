"""judge.py - POST /v1/judge (issue 26) over real HTTP: a submission
compiled once and run on every test, each in a fresh sandbox.

- accepted and wrong-answer C++ over 20 tests; every verdict (time limit by
  CPU and by wall, idle, memory, output, runtime error by exit code and by
  signal, compile error), each from the sandbox's one outcome;
- every comparison mode, a float tolerance that exact fails, presentation
  errors; a whole output compared while only RUN_JUDGE_ECHO_KB is echoed;
- a testlib-style C++ checker (its header sent as one of its files):
  accepted, wrong answer, presentation error, partial points, its crash as
  checker_error with the program's own exit code;
- an interactive guessing game: binary search accepted, a linear scan
  gets the interactor's wrong answer, a silent program the pair's idle
  clock;
- base64 in and out with a program writing bytes 0 to 255 (/v1/execute
  too), strict fields at any depth;
- stopOnFailure, SSE events, a fresh sandbox per test (no file, process or
  write to the build of another test), compiled once for 50 tests (the
  request log's "compiles"), RUN_JUDGE_MAX_TESTS, RUN_JUDGE_INPUT_MAX
  (nginx's and runcell's 413), RUN_JUDGE_WALL_MAX (503), no build
  directory left behind;
- a+b accepted and wrong in python, js, java, c, cpp, rust and golang.
"""

import base64
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import judge_progs as P  # noqa: E402
import rchttp  # noqa: E402
import tap  # noqa: E402

LANGS = ("python", "js", "java", "c", "cpp", "rust", "golang")

t = tap.Tap()
if os.geteuid() != 0:
    t.skip("needs root (the sandbox)", name="judge")
    t.exit()
try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 3, "RUN_JUDGE_PARALLEL": 2,
                              "RUN_JUDGE_MAX_TESTS": 60, "RUN_JUDGE_INPUT_MAX": "2m"},
                         languages=",".join(LANGS), start_timeout=120).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def cpp(src, name="main.cpp"):
    return {"language": "cpp", "files": [{"name": name, "content": src}]}


def judge(body, headers=None, timeout=300):
    r = svc.post_json("/v1/judge", body, headers=headers, timeout=timeout)
    return r, (r.json or {})


def verdicts(j):
    return [x.get("verdict") for x in j.get("tests", [])]


def b64(data):
    return {"base64": base64.b64encode(data).decode()}


def unb64(v):
    return base64.b64decode(v["base64"]) if isinstance(v, dict) else v.encode()


def last_log():
    lines = svc.logged_requests("/v1/judge")
    return lines[-1] if lines else {}


# -- a+b over 20 tests --------------------------------------------------------

tests = [{"name": "t%d" % i, "stdin": "%d %d\n" % (i, 2 * i), "expected": "%d\n" % (3 * i)}
         for i in range(20)]
r, j = judge(dict(cpp(P.AB_CPP), tests=tests))
t.ok(r.status == 200 and j.get("verdict") == "accepted" and j.get("passed") == 20
     and j.get("total") == 20 and j.get("score") == 1, "C++ a+b: accepted on 20 tests", repr(r))
t.ok(verdicts(j) == ["accepted"] * 20 and [x["name"] for x in j["tests"]] == ["t%d" % i for i in range(20)]
     and j["tests"][5]["stdout"] == "15\n", "the tests in request order, each with its output", repr(r))
t.ok((j.get("compile") or {}).get("exitCode") == 0, "the compile step is in the answer", repr(j.get("compile")))
t.eq(last_log().get("compiles"), 1, "the request log counts one compile")

r, j = judge(dict(cpp(P.AB_WRONG_CPP), tests=tests))
t.ok(r.status == 200 and j.get("verdict") == "wrong_answer" and j.get("passed") == 1
     and verdicts(j) == ["accepted"] + ["wrong_answer"] * 19 and j.get("score") == 0.05,
     "C++ a-b: wrong answer on 19 of 20 (0 - 0 passes)", repr(r))

# -- every way a program ends ---------------------------------------------------

endings = [
    ("ok", {}, "accepted", None),
    ("cpu", {"cpuMs": 300, "wallTimeMs": 10000, "idleMs": 10000}, "time_limit", "cpu"),
    ("wall", {"wallTimeMs": 500, "idleMs": 10000}, "time_limit", "wall"),
    ("idle", {"idleMs": 400, "wallTimeMs": 10000}, "idle_limit", "idle"),
    ("mem", {"memoryMb": 64}, "memory_limit", "memory"),
    ("out", {"outputKb": 64}, "output_limit", "output"),
    ("exit", {}, "runtime_error", None),
    ("segv", {}, "runtime_error", None),
]
r, j = judge(dict(cpp(P.ENDINGS), tests=[{"name": m, "stdin": m, "expected": "42\n", "limits": lim}
                                         for m, lim, _, _ in endings]))
got = [(x.get("name"), x.get("verdict"), x.get("limit")) for x in j.get("tests", [])]
t.eq(got, [(m, v, lim) for m, _, v, lim in endings], "every ending its verdict and limit", repr(r))
byname = {x["name"]: x for x in j.get("tests", [])}
t.ok(byname.get("exit", {}).get("exitCode") == 3 and byname["exit"].get("signal") is None
     and byname["exit"].get("stderr") == "exiting 3\n", "runtime error by exit code: exitCode 3", repr(byname.get("exit")))
t.ok(byname.get("segv", {}).get("exitCode") is None and byname["segv"].get("signal") == "SIGSEGV",
     "runtime error by signal: SIGSEGV", repr(byname.get("segv")))
t.ok(byname.get("cpu", {}).get("cpuMs", 0) >= 300 and byname.get("out", {}).get("stdoutTruncated") is True,
     "the CPU clock's usage and the cut echo of a flood", repr((byname.get("cpu"), byname.get("out", {}).keys())))
t.eq(j.get("verdict"), "time_limit", "the submission's verdict is its first failing test's")

r, j = judge(dict(cpp("int main() { return nope; }"), tests=[{"stdin": "1"}, {"stdin": "2"}]))
t.ok(r.status == 200 and j.get("verdict") == "compile_error" and verdicts(j) == ["skipped", "skipped"]
     and "nope" in (j.get("compile") or {}).get("stderr", "") and j.get("passed") == 0,
     "compile error: 200, the diagnostics, every test skipped", repr(r))

# -- comparison modes -----------------------------------------------------------

ECHO = "import sys\nsys.stdout.write(sys.stdin.read())\n"


def compare(mode, out, expected):
    body = {"language": "python", "files": [{"name": "main.py", "content": ECHO}],
            "tests": [{"stdin": out, "expected": expected}]}
    if mode is not None:
        body["compare"] = mode
    r, j = judge(body)
    return (verdicts(j) or [repr(r)])[0]


cases = [
    ("exact", "3\n", "3\n", "accepted"),
    ("exact", "3", "3\n", "presentation_error"),
    ("exact", "4\n", "3\n", "wrong_answer"),
    (None, "1 2  \n3\n\n\n", "1 2\n3", "accepted"),
    ("lines", "1  2\n3\n", "1 2\n3\n", "presentation_error"),
    ("lines", "1 2\n4\n", "1 2\n3\n", "wrong_answer"),
    ("tokens", "1\n2   3\n", "1 2 3", "accepted"),
    ("tokens", "1 2", "1 2 3", "wrong_answer"),
    ({"float": 1e-6}, "0.3333333\n", "0.333333333\n", "accepted"),
    ("exact", "0.3333333\n", "0.333333333\n", "wrong_answer"),
    ({"float": 1e-6}, "0.3334\n", "0.333333333\n", "wrong_answer"),
]
got = [compare(m, o, e) for m, o, e, _ in cases]
t.eq(got, [v for _, _, _, v in cases], "every comparison mode, a float tolerance exact fails")

big = "".join(chr(ord("a") + i % 26) for i in range(10000)) + "\n"
r, j = judge(dict(cpp(P.ENDINGS), tests=[{"stdin": "big", "expected": big}]))
x = (j.get("tests") or [{}])[0]
t.ok(x.get("verdict") == "accepted" and x.get("stdoutTruncated") is True and x.get("stdout") == big[:4096],
     "a 10 KB output compared whole, echoed cut to RUN_JUDGE_ECHO_KB", repr(r)[:300])

# -- a testlib-style checker ----------------------------------------------------

checker = {"language": "cpp", "files": [{"name": "checker.cpp", "content": P.CHECKER_CPP},
                                        {"name": "testlib.h", "content": P.MINI_TESTLIB}]}
ck_tests = [{"name": n, "stdin": "%d %d\n" % (a, b), "expected": "%d %d\n" % (a + b, a * b)}
            for n, a, b in (("ok", 2, 3), ("partial", 7, 1), ("pe", 8, 1), ("wa", 9, 1), ("crash", 13, 1))]
r, j = judge(dict(cpp(P.SUM_PROD_CPP), checker=checker, tests=ck_tests))
got = {x["name"]: x for x in j.get("tests", [])}
t.eq([(n, got.get(n, {}).get("verdict"), got.get(n, {}).get("score")) for n in
      ("ok", "partial", "pe", "wa", "crash")],
     [("ok", "accepted", 1), ("partial", "partial", 0.5), ("pe", "presentation_error", 0),
      ("wa", "wrong_answer", 0), ("crash", "checker_error", 0)],
     "checker: accepted, partial 0.5, presentation error, wrong answer, its crash", repr(r)[:600])
t.ok(got.get("wa", {}).get("message") == "sum 11, expected 10\n" and "the sum only" in got.get("partial", {}).get("message", ""),
     "the checker's stderr is the test's message", repr(got.get("wa")))
t.ok(got.get("crash", {}).get("exitCode") == 0 and got["crash"].get("signal") is None,
     "checker_error keeps the program's own exit code", repr(got.get("crash")))
t.ok(j.get("score") == 0.3 and j.get("verdict") == "partial" and (j.get("checkerCompile") or {}).get("exitCode") == 0,
     "score is the mean (1 + 0.5) / 5; the checker's compile is shown", repr({k: j.get(k) for k in ("score", "verdict")}))
t.eq(last_log().get("compiles"), 2, "program and checker: two compiles, whatever the tests")

bad = dict(checker, files=[{"name": "checker.cpp", "content": "int main() { return nope; }"}])
r, j = judge(dict(cpp(P.SUM_PROD_CPP), checker=bad, tests=ck_tests[:2]))
t.ok(j.get("verdict") == "checker_error" and verdicts(j) == ["skipped", "skipped"]
     and "nope" in (j.get("checkerCompile") or {}).get("stderr", ""),
     "a checker that does not compile: checker_error, nothing run", repr(r)[:400])

# -- an interactive problem -----------------------------------------------------

interactor = {"language": "cpp", "files": [{"name": "interactor.cpp", "content": P.INTERACTOR_CPP}]}
secrets = [{"name": "s%d" % s, "stdin": "%d\n" % s} for s in (1, 500, 777, 1000)]
r, j = judge(dict(cpp(P.GUESS_BINARY), interactor=interactor, tests=secrets))
t.ok(j.get("verdict") == "accepted" and verdicts(j) == ["accepted"] * 4
     and j["tests"][1].get("message", "").startswith("found in"),
     "interactive: binary search accepted, the interactor's stderr the message", repr(r)[:600])
r, j = judge(dict(cpp(P.GUESS_LINEAR), interactor=interactor, tests=secrets))
t.ok(verdicts(j) == ["accepted", "wrong_answer", "wrong_answer", "wrong_answer"]
     and j["tests"][1].get("message") == "too many guesses\n",
     "interactive: asking too often is the interactor's wrong answer", repr(r)[:600])
r, j = judge(dict(cpp(P.GUESS_SILENT), interactor=interactor, limits={"idleMs": 500, "wallTimeMs": 20000},
                  tests=secrets[:2]))
t.ok(verdicts(j) == ["idle_limit", "idle_limit"],
     "interactive: a program that never answers is caught by the pair's idle clock", repr(r)[:400])
flooder = {"language": "python", "files": [{"name": "interactor.py", "content": P.FLOOD_INTERACTOR_PY}]}
r, j = judge(dict(cpp(P.GUESS_SILENT), interactor=flooder, limits={"idleMs": 500, "wallTimeMs": 20000},
                  tests=secrets[:1]))
h = svc.get("/health")
t.ok(verdicts(j) == ["idle_limit"] and h.status == 200,
     "interactive: a program that never reads blocks its interactor, not the worker: idle_limit",
     repr(r)[:400])
r, j = judge(dict(cpp(P.GUESS_SILENT), interactor=interactor, limits={"wallTimeMs": 700, "idleMs": 20000},
                  tests=secrets[:1]))
t.ok(verdicts(j) == ["time_limit"] and j["tests"][0].get("limit") == "wall",
     "interactive: and by the wall clock", repr(r)[:400])
t.eq(last_log().get("compiles"), 2, "program and interactor: two compiles")

# -- bytes ------------------------------------------------------------------------

every = bytes(range(256))
r, j = judge(dict(cpp(P.BYTES_CPP), compare="exact", tests=[{"stdin": b64(b"\x00\xff\x10"), "expected": b64(every)}]))
x = (j.get("tests") or [{}])[0]
t.ok(x.get("verdict") == "accepted" and isinstance(x.get("stdout"), dict) and unb64(x["stdout"]) == every
     and x.get("stderr") == "3", "base64 in, bytes 0 to 255 out as {\"base64\": ...}", repr(r)[:400])
r, j = judge(dict(cpp(P.BYTES_CPP), encoding="base64", tests=[{"stdin": "ab"}]))
x = (j.get("tests") or [{}])[0]
t.ok(unb64(x.get("stderr", {"base64": ""})) == b"2" and isinstance(x.get("stderr"), dict)
     and unb64(j.get("compile", {}).get("stdout", {"base64": ""})) == b"",
     "\"encoding\": \"base64\": every output in base64", repr(r)[:300])
r = svc.post_json("/v1/execute", dict(cpp(P.BYTES_CPP), stdin=b64(b"\x00\xff")))
x = r.json or {}
t.ok(r.status == 200 and unb64(x.get("stdout", {"base64": ""})) == every and x.get("stderr") == "2",
     "/v1/execute: base64 stdin, binary stdout as {\"base64\": ...}", repr(r)[:300])
r = svc.post_json("/v1/execute", dict(cpp(P.BYTES_CPP), stdn="x"))
t.ok(*rchttp.json_error(r, 400, "stdn is not a known field"))
r = svc.post_json("/v1/execute", dict(cpp(P.BYTES_CPP), compileLimits={"wallTimeMs": 1}))
t.ok(r.status == 200 and (r.json or {}).get("stage") == "compile"
     and (r.json or {}).get("compile", {}).get("limit") == "wall",
     "/v1/execute: compileLimits bound the compile step", repr(r)[:300])

r, _ = judge(dict(cpp(P.AB_CPP), tests=[{"stdn": "1 2"}]))
t.ok(*rchttp.json_error(r, 400, "tests[0].stdn is not a known field"))
r, _ = judge(dict(cpp(P.AB_CPP), tests=[{"stdin": "1 2", "limits": {"cpums": 5}}]))
ok, why = rchttp.json_error(r, 400)
t.ok(ok and "tests[0].limits.cpums" in (r.json or {}).get("error", ""), "an unknown limit is named", why)

# -- stopOnFailure ------------------------------------------------------------------

sof = [{"stdin": "1 1", "expected": "2"}, {"stdin": "2 2", "expected": "4"}, {"stdin": "3 3", "expected": "7"}]
sof += [{"stdin": "%d 1" % (100 + i), "expected": "%d" % (101 + i)} for i in range(5)]
r, j = judge(dict(cpp(P.AB_CPP), stopOnFailure=True, tests=sof))
v = verdicts(j)
t.ok(v[:3] == ["accepted", "accepted", "wrong_answer"] and v[3:] == ["skipped"] * 5
     and j.get("verdict") == "wrong_answer", "stopOnFailure: every test after the first failure skipped", repr(v))
r, j = judge(dict(cpp(P.AB_CPP), tests=sof))
t.eq(verdicts(j), ["accepted", "accepted", "wrong_answer"] + ["accepted"] * 5, "without it every test runs")

# -- Server-Sent Events -------------------------------------------------------------

r = svc.post_json("/v1/judge", dict(cpp(P.AB_CPP), tests=tests[:3]), headers={"Accept": "text/event-stream"})
events = []
for block in r.text.split("\n\n"):
    fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
    if "event" in fields:
        events.append((fields["event"], json.loads(fields.get("data", "null"))))
names = [e for e, _ in events]
t.ok(r.status == 200 and r.headers.get("content-type", "").startswith("text/event-stream")
     and names == ["test", "test", "test", "result"]
     and sorted(d["index"] for e, d in events if e == "test") == [0, 1, 2]
     and events[-1][1].get("verdict") == "accepted" and len(events[-1][1].get("tests", [])) == 3,
     "Accept: text/event-stream: a test event per test, then the result", repr(r)[:500])

# A client that leaves ends the judging: its jobs are killed, not waited for.
slow = json.dumps({"language": "python", "files": [{"name": "main.py", "content": "import time\ntime.sleep(30)\n"}],
                   "limits": {"wallTimeMs": 60000, "idleMs": 60000}, "tests": [{}, {}, {}]}).encode()
before = len(svc.logged_requests("/v1/judge"))
with socket.create_connection(("127.0.0.1", svc.port)) as sock:
    sock.sendall(b"POST /v1/judge HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                 b"Content-Length: %d\r\n\r\n" % len(slow) + slow)
    time.sleep(1.5)
rchttp.wait_until(lambda: len(svc.logged_requests("/v1/judge")) > before, 20)
line = last_log()
t.ok(line.get("outcome") == "client_gone" and line.get("duration_ms", 1e9) < 10000,
     "a client that leaves ends the judging at once", repr(line))

# -- a fresh sandbox per test -------------------------------------------------------

iso = {"language": "c", "files": [{"name": "main.c", "content": P.ISOLATION_C}],
       "tests": [{"stdin": ""} for _ in range(12)]}
r, j = judge(iso)
outs = [(x.get("stdout") or "").rsplit(" ", 2)[0] for x in j.get("tests", [])]
t.ok(outs == ["found 0 procs 1"] * 12, "on two slots: no test finds another's files or processes", repr(r)[:600])

# -- compiled once for 50 tests -----------------------------------------------------

fifty = [{"stdin": "%d 1" % i, "expected": "%d" % (i + 1)} for i in range(50)]
r, j = judge(dict(cpp(P.AB_CPP), tests=fifty))
t.ok(j.get("passed") == 50 and last_log().get("compiles") == 1, "50 tests, one compile in the request log",
     repr(last_log()))

# -- bounds of a request ------------------------------------------------------------

r, _ = judge(dict(cpp(P.AB_CPP), tests=fifty + fifty[:11]))
t.ok(*rchttp.json_error(r, 400, "tests: at most 60 tests (RUN_JUDGE_MAX_TESTS)"))
blob = "x" * (1536 * 1024)
r, j = judge(dict(cpp(P.COUNT_CPP), tests=[{"stdin": blob, "expected": str(len(blob))}]))
t.ok(r.status == 200 and verdicts(j) == ["accepted"],
     "a 1.5 MiB judge body passes (RUN_JUDGE_INPUT_MAX 2m, above RUN_INPUT_MAX)", repr(r)[:200])
r = svc.post_json("/v1/execute", dict(cpp(P.COUNT_CPP), stdin=blob))
t.ok(*rchttp.json_error(r, 413))
r, _ = judge(dict(cpp(P.COUNT_CPP), tests=[{"stdin": blob * 2}]))
t.ok(*rchttp.json_error(r, 413))

# -- a+b in every language ----------------------------------------------------------

langs = {x["language"]: x for x in (svc.get("/v1/languages").json or {}).get("languages", [])}
ab_tests = [{"stdin": "%d %d\n" % (a, b), "expected": "%d\n" % (a + b)} for a, b in ((1, 2), (40, 2), (-5, 3))]
for lang in LANGS:
    if not langs.get(lang, {}).get("available"):
        t.skip("%s is not installed here (langs/install-toolchains %s)" % (lang, lang), count=2, name=lang)
        continue
    name, src = P.AB[lang]
    r, j = judge({"language": lang, "files": [{"name": name, "content": src}], "tests": ab_tests})
    t.ok(j.get("verdict") == "accepted" and j.get("passed") == 3, "%s: a+b accepted" % lang, repr(r)[:600])
    name, src = P.wrong(lang)
    r, j = judge({"language": lang, "files": [{"name": name, "content": src}], "tests": ab_tests})
    t.ok(j.get("verdict") == "wrong_answer" and j.get("passed") == 0, "%s: a-b wrong answer" % lang,
         repr(r)[:600])

# -- nothing left behind --------------------------------------------------------------


def build_dirs():
    d = os.path.join(svc.tmp, "state", "judge")
    return os.listdir(d) if os.path.isdir(d) else ["(no %s)" % d]


def build_mounts():
    """Build directories mounted in the service's namespace or in a slot
    init's (each init clears its last job once the answer is out)."""
    found = []
    for pid in rchttp.descendants_of(svc.master_pid()) + [svc.master_pid()]:
        try:
            with open("/proc/%d/mountinfo" % pid) as f:
                found += [line for line in f if "runcell-build" in line]
        except OSError:
            pass
    return found


t.eq(build_dirs(), [], "no build directory is left")
t.eq(rchttp.wait_until(lambda: not build_mounts(), 10) and [] or build_mounts(), [],
     "no build directory's tmpfs is left mounted, in the service or a slot")
svc.stop()

# -- one slot: RUN_JUDGE_WALL_MAX, runcell's own 413, isolation ---------------------

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1, "RUN_JUDGE_WALL_MAX": "4s", "RUN_JUDGE_INPUT_MAX": "1m"},
                         languages="python,c", nginx_judge_body_max="8m").start()
except rchttp.StartError as e:
    t.bail("second service did not start: %s" % e)
r, _ = judge({"language": "python", "files": [{"name": "main.py", "content": "import time\ntime.sleep(30)\n"}],
              "limits": {"wallTimeMs": 60000, "idleMs": 60000}, "tests": [{"stdin": ""}]})
ok, why = rchttp.json_error(r, 503)
t.ok(ok and "RUN_JUDGE_WALL_MAX" in (r.json or {}).get("error", ""),
     "RUN_JUDGE_WALL_MAX ends the judging: 503", why)
r, _ = judge({"language": "python", "files": [{"name": "main.py", "content": "pass"}],
              "tests": [{"stdin": "x" * (2 << 20)}]})
t.ok(*rchttp.json_error(r, 413, "payload too large"))
# One slot: every test on the slot (and uid) of the one before, and of the
# compile, whose binary each deletes.
r, j = judge(iso)
outs = [x.get("stdout") for x in j.get("tests", [])]
t.ok(outs == ["found 0 procs 1 unlinked 1\n"] * 12,
     "on one slot: no test finds the files or processes of the one before, and each runs the build "
     "the one before deleted", repr(outs))
r, _ = judge({"language": "c", "files": [{"name": "main.c", "content": "int main(void) { return 0; }"}],
              "interactor": {"language": "python", "files": [{"name": "i.py", "content": "pass"}]},
              "tests": [{}]})
ok, why = rchttp.json_error(r, 501)
t.ok(ok and "RUN_CONCURRENCY" in (r.json or {}).get("error", ""), "an interactor on one slot: 501 at once", why)
t.eq(build_dirs(), [], "no build directory is left after them")
svc.stop()
t.exit()
