"""status.py - every status code of the /run contract, over real HTTP
through nginx (issue 2): 200, 400 (each reason), 404, 405, 413 (nginx and
output), 415, plus exit codes for signals and invalid UTF-8 in the output.
429, /shutdown and the backend's own 413 have their own files.

One service: RUN_INPUT_MAX and RUN_OUTPUT_MAX are small (64 KiB) so the
limits are cheap to cross; python and cpp are loaded (cpp only for the
"checker_text is required" answer, nothing compiles).
"""

import json

import rchttp
import tap

LIMIT = 65536
ADD = "def solution(a, b):\n    print('hello')\n    return a + b\n"

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_INPUT_MAX": LIMIT, "RUN_OUTPUT_MAX": LIMIT,
                              "RUN_CONCURRENCY": 2},
                         languages="python,cpp").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def expect_error(resp, status, message, name):
    good, why = rchttp.json_error(resp, status, message)
    t.ok(good, name, why)


def run(body, **kw):
    return svc.post_json("/run", body, **kw)


# -- the plain endpoints --------------------------------------------------------

r = svc.get("/health")
t.eq((r.status, r.body), (200, b"ok\n"), "GET /health is 200 ok\\n")

rid = r.headers.get("x-request-id", "")
t.ok(len(rid) >= 16, "every answer names its request: X-Request-Id", lambda: repr(r.headers))
mine = "0123456789abcdef0123456789abcdef"
r = svc.get("/no/such/path", headers={"X-Request-Id": mine})
t.eq(r.headers.get("x-request-id"), mine, "a client's 32-hex X-Request-Id comes back (an error too)")
r = svc.get("/health", headers={"X-Request-Id": "not-hex"})
t.ok(r.headers.get("x-request-id") not in (None, "not-hex"),
     "any other X-Request-Id is replaced by nginx's own", lambda: repr(r.headers))

expect_error(svc.get("/no/such/path"), 404, None, "GET unknown path: 404 JSON")
expect_error(svc.post_json("/nope", {}), 404, None, "POST unknown path: 404 JSON")
expect_error(svc.get("/run"), 405, None, "GET /run: 405 JSON")
expect_error(svc.request("DELETE", "/run"), 405, None, "DELETE /run: 405 JSON")
expect_error(svc.post_json("/health", {}), 405, None, "POST /health: 405 JSON")

# -- a successful run -------------------------------------------------------------

r = run(rchttp.run_body(ADD, asserts={"arguments": [[1, 2], [40, 2]]}, timeout="20s"))
body = r.json or {}
t.eq(r.status, 200, "python a+b: 200", lambda: repr(r))
t.eq(list(body.keys()), ["exit_code", "stdout", "stderr"], "answer keys in Codebattle's order")
t.eq(body.get("exit_code"), 0, "python a+b: exit_code 0", lambda: repr(r))
t.eq(rchttp.checker_results(body.get("stdout", "")), [3, 42], "python a+b: results 3 and 42",
     lambda: repr(r))
t.ok("hello" in body.get("stdout", ""), "python a+b: the solution's print is in stdout",
     lambda: repr(r))

# Without a timeout field the default (30s) applies; the job is quick anyway.
r = run({"lang_slug": "python", "solution_text": ADD,
         "asserts": json.dumps({"arguments": [[2, 2]]})})
t.eq((r.status, (r.json or {}).get("exit_code")), (200, 0),
     "no timeout and no checker_text key: 200, exit 0", lambda: repr(r))

# Unknown fields are ignored, as runner-zig does.
r = run(rchttp.run_body(ADD, asserts={"arguments": [[2, 3]]}, timeout="500ms", extra_field=[1]))
t.eq(r.status, 200, "unknown field ignored: 200", lambda: repr(r))

# -- 400: malformed JSON and wrong shapes --------------------------------------------

for name, raw in [
    ("empty body", b""),
    ("not JSON", b"not json"),
    ("truncated JSON", b'{"lang_slug": "python", "solution_text": "x'),
    ("trailing garbage", b'{"lang_slug": "python", "solution_text": "x"} xx'),
    ("top level array", b'["python"]'),
    ("top level string", b'"python"'),
    ("NUL byte in JSON", b'{"lang_slug": "python",\x00 "solution_text": "x"}'),
    ("invalid UTF-8 in a string", b'{"lang_slug": "python", "solution_text": "\xff\xfe"}'),
]:
    expect_error(run(raw), 400, None, "malformed JSON (%s): 400" % name)

for field, value in [
    ("solution_text", 123),
    ("solution_text", None),
    ("lang_slug", 5),
    ("lang_slug", None),
    ("timeout", 30),
    ("asserts", {"arguments": [[1, 2]]}),
    ("checker_text", 7),
]:
    body = rchttp.run_body(ADD, timeout="2s")
    body[field] = value
    expect_error(run(body), 400, None, "wrong type %s=%s: 400" % (field, json.dumps(value)))

body = rchttp.run_body(ADD)
del body["solution_text"]
expect_error(run(body), 400, None, "missing solution_text: 400")
body = rchttp.run_body(ADD)
del body["lang_slug"]
expect_error(run(body), 400, None, "missing lang_slug: 400")

expect_error(run(rchttp.run_body(ADD, lang="brainfuck")), 400, 'unsupported lang_slug "brainfuck"',
             "unknown lang_slug: 400 naming the value")
expect_error(run(rchttp.run_body(ADD, lang="")), 400, 'unsupported lang_slug ""',
             "empty lang_slug: 400 unsupported lang_slug")

cpp = {"lang_slug": "cpp", "solution_text": "int solution(int a, int b) { return a + b; }",
       "asserts": json.dumps({"arguments": [[1, 2]]})}
expect_error(run(cpp), 400, "checker_text is required", "cpp without checker_text: 400")
expect_error(run(dict(cpp, checker_text=None)), 400, "checker_text is required",
             "cpp with checker_text null: 400")

for bad in ["abc", "10x", "-1s", "0s", "", "1.5.5s", "s", "ms", "99999999999999999999s", "11m",
            " 2s", "2S", "1h"]:
    expect_error(run(rchttp.run_body(ADD, timeout=bad)), 400, None,
                 "invalid timeout %r: 400" % bad)

expect_error(run(rchttp.run_body(ADD, timeout="2S")), 400,
             'invalid timeout "2S": expected a number and a unit, ms, s, m or h, such as "500ms", '
             '"2s" or "1m"', "2S: the documented pattern is lower case")
expect_error(run(rchttp.run_body(ADD, timeout="1h")), 400,
             "invalid timeout: 3600000 ms is above the maximum this server allows "
             "(RUN_TIMEOUT_MAX, 600000 ms)", "1h: above the maximum, says so")

# -- 415 before the backend ---------------------------------------------------------

good = rchttp.run_body(ADD, asserts={"arguments": [[1, 1]]}, timeout="20s")
for enc in ["gzip", "GZIP", "deflate", "br", "gzip, identity", "x-custom"]:
    expect_error(run(good, headers={"Content-Encoding": enc}), 415, None,
                 "Content-Encoding %s: 415 JSON" % enc)
for enc in ["identity", "Identity"]:
    r = run(good, headers={"Content-Encoding": enc})
    t.eq(r.status, 200, "Content-Encoding %s: accepted" % enc, lambda: repr(r))

# -- 413 from nginx: body over RUN_INPUT_MAX --------------------------------------

def padded(size):
    """A valid /run body of exactly size bytes (the padding is a comment)."""
    base = rchttp.run_body(ADD + "# ", asserts={"arguments": [[1, 1]]}, timeout="20s")
    empty = len(json.dumps(base).encode())
    base["solution_text"] += "x" * (size - empty)
    data = json.dumps(base).encode()
    assert len(data) == size, (len(data), size)
    return data


r = run(padded(LIMIT))
t.eq(r.status, 200, "body of exactly RUN_INPUT_MAX bytes: 200", lambda: repr(r))
expect_error(run(padded(LIMIT + 1)), 413, None, "body of RUN_INPUT_MAX+1 bytes: 413 JSON")
expect_error(run(padded(4 * LIMIT)), 413, None, "body of 4*RUN_INPUT_MAX: 413 JSON")
chunked = padded(2 * LIMIT)
r = svc.raw(b"POST /run HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + b"%x\r\n" % len(chunked) + chunked + b"\r\n0\r\n\r\n")
expect_error(r, 413, None, "chunked body over RUN_INPUT_MAX: 413 JSON")

# -- 413 for output over RUN_OUTPUT_MAX --------------------------------------------

def writer(fd, count):
    return "import os\nos.write(%d, b'y' * %d)\ndef solution(a, b):\n    return a + b\n" % (fd, count)


expect_error(run(rchttp.run_body(writer(1, 4 * LIMIT), asserts={"arguments": [[1, 1]]},
                                 timeout="20s")),
             413, "output too large", "stdout over RUN_OUTPUT_MAX: 413 output too large")
expect_error(run(rchttp.run_body(writer(2, 4 * LIMIT), asserts={"arguments": [[1, 1]]},
                                 timeout="20s")),
             413, "output too large", "stderr over RUN_OUTPUT_MAX: 413 output too large")
r = run(rchttp.run_body(writer(2, LIMIT), asserts={"arguments": [[1, 1]]}, timeout="20s"))
t.ok(r.status == 200 and len((r.json or {}).get("stderr", "")) == LIMIT,
     "stderr of exactly RUN_OUTPUT_MAX bytes: 200 with all of it", lambda: repr(r))
# A program that never stops writing must not wait for its timeout.
for fd in ("OUT", "2"):
    src = rchttp.REAL_STDOUT + "import os\nwhile True:\n    os.write(%s, b'z' * 65536)\n" % fd
    r = run(rchttp.run_body(src, timeout="30s"), timeout=60)
    expect_error(r, 413, "output too large", "endless writer on fd %s: 413 output too large" % fd)
    t.ok(r.status == 413 and r.elapsed < 15, "endless writer on fd %s stopped early (%d after "
         "%.1fs, timeout 30s)" % (fd, r.status, r.elapsed))

# -- exit codes --------------------------------------------------------------------

for sig, code in [("SIGSEGV", 139), ("SIGKILL", 137), ("SIGABRT", 134)]:
    src = "import os, signal\nos.kill(os.getpid(), signal.%s)\n" % sig
    r = run(rchttp.run_body(src, timeout="20s"))
    t.eq((r.status, (r.json or {}).get("exit_code")), (200, code),
         "program killed by %s: exit_code %d" % (sig, code), lambda: repr(r))

r = run(rchttp.run_body("import os\nos._exit(3)\n", timeout="20s"))
t.eq((r.status, (r.json or {}).get("exit_code")), (200, 3), "os._exit(3): exit_code 3",
     lambda: repr(r))

# -- output that is not UTF-8 still gives valid JSON ---------------------------

src = rchttp.REAL_STDOUT + (
    "import os\n"
    "os.write(OUT, b'A\\xff\\xfeB\\xc3(C\\xed\\xa0\\x80D\\xf0\\x28\\x8c\\x28E\\n')\n"
    "os.write(OUT, b'N\\x00N\\x1b[31mR\\n')\n"
    "os.write(2, b'F\\xc0\\xafG\\n')\n"
    "os._exit(0)\n")
r = run(rchttp.run_body(src, timeout="20s"))
body = r.json
t.ok(r.status == 200 and isinstance(body, dict),
     "invalid UTF-8 output: 200 and strictly valid UTF-8 JSON", lambda: repr(r))
body = body or {}
out, err = body.get("stdout", ""), body.get("stderr", "")
t.ok(all(c in out for c in "ABCDE") and out.index("A") < out.index("E"),
     "invalid UTF-8 output: the valid characters survive in order", lambda: repr(out))
t.ok("N\x00N" in out and "\x1b[31mR" in out, "NUL and control bytes survive as JSON escapes",
     lambda: repr(out))
t.ok("F" in err and "G" in err, "invalid UTF-8 on stderr: valid characters survive",
     lambda: repr(err))

# -- the service is still fine after all of that ------------------------------------

r = svc.get("/health")
t.eq((r.status, r.body), (200, b"ok\n"), "GET /health still 200 at the end")
t.ok(svc.fcgi.poll() is None, "runcell-fcgi still running", svc.fcgi_log_tail)

svc.stop()
t.exit()
