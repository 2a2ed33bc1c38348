"""strict_input.py - issue 16, over real HTTP: request bodies are strict
JSON, names carry no NUL, and a /run solution's fd-1 output survives a
kill or a hard exit.

- /run and /v1/execute: a trailing comma, a comment, single quotes, NaN,
  garbage after the value and a duplicate key are each a 400 "invalid
  JSON..." and nothing runs; the same body without the defect is a 200.
- lang_slug / language / files[].name with an escaped NUL ("\\u0000") are
  a 400 (json-c's C string would stop at the NUL and run python).
- python /run: os.write(1, ...) then the timeout, or then os._exit, keeps
  the write in stdout (the checker held fd 1 in a scratch file before).
"""

import json

import rchttp
import tap

t = tap.Tap()
try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}, languages="python").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

ADD = "def solution(a, b):\n    return a + b\n"
GOOD_RUN = json.dumps(rchttp.run_body(ADD, asserts={"arguments": [[1, 2]]}, timeout="10s"))
GOOD_EXEC = json.dumps({"language": "python",
                        "files": [{"name": "main.py", "content": "print(1)"}]})


def bad_json(path, good, name_prefix):
    r = svc.post_json(path, good)
    t.eq(r.status, 200, "%s: the well-formed body is 200" % name_prefix, r)
    variants = [
        ("trailing comma", good[:-1] + ",}"),
        ("block comment", good[:-1] + "/* x */}"),
        ("line comment after the value", good + "// x"),
        ("garbage after the value", good + " x"),
        ("single quotes", good.replace('"', "'")),
        ("NaN", good[:-1] + ',"n":NaN}'),
        ("duplicate key", good[:-1] + ',"files":1,"lang_slug":1,"language":1}'),
    ]
    for what, body in variants:
        r = svc.post_json(path, body)
        good_err, why = rchttp.json_error(r, 400, None)
        t.ok(good_err and b"invalid JSON" in r.body, "%s: %s is 400 invalid JSON" % (name_prefix, what),
             why + " " + repr(r))


bad_json("/run", GOOD_RUN, "/run")
bad_json("/v1/execute", GOOD_EXEC, "/v1/execute")

r = svc.post_json("/run", GOOD_RUN.replace('"python"', '"python\\u0000evil"'))
t.ok(rchttp.json_error(r, 400, None)[0] and b"NUL" in r.body,
     "/run: lang_slug \"python\\u0000evil\" is 400", r)
r = svc.post_json("/v1/execute", GOOD_EXEC.replace('"python"', '"python\\u0000evil"'))
t.ok(rchttp.json_error(r, 400, None)[0] and b"NUL" in r.body,
     "/v1/execute: language \"python\\u0000evil\" is 400", r)
r = svc.post_json("/v1/execute", GOOD_EXEC.replace('"main.py"', '"main.py\\u0000.txt"'))
t.ok(rchttp.json_error(r, 400, None)[0] and b"NUL" in r.body,
     "/v1/execute: a file name with NUL is 400", r)

MARK = "written-before-the-end"
for what, code, want_exit in [
        ("timeout", "import os\ndef solution(a, b):\n    os.write(1, b'%s\\n')\n"
                    "    while True:\n        pass\n" % MARK, None),
        ("os._exit", "import os\ndef solution(a, b):\n    os.write(1, b'%s\\n')\n"
                     "    os._exit(7)\n" % MARK, 7)]:
    r = svc.post_json("/run", rchttp.run_body(code, asserts={"arguments": [[1, 2]]}, timeout="2s"))
    body = r.json or {}
    t.eq((r.status, body.get("exit_code")), (200, want_exit),
         "python /run fd-1 write then %s: 200, exit_code %r" % (what, want_exit), r)
    t.ok(MARK in body.get("stdout", ""), "python /run fd-1 write then %s: the write is in stdout"
         % what, r)

svc.stop()
t.exit()
