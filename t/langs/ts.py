"""ts.py - the ts language end to end, judged like Codebattle's client
(see langtest.py: a+b ok / a-b / syntax error / exception / prints /
all data types / timeout).  Then the execute command (issue 29, point
11): over /v1/execute the program reads the request's stdin, gets its
script path in process.argv[1] and is require.main."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import langtest  # noqa: E402

STDIN = "3 4\nsecond line\n"
PROGRAM = ("const fs = require('fs');\n"
           "const input: string = fs.readFileSync(0, 'utf8');\n"
           "console.log(JSON.stringify({input, argv: process.argv.slice(1),"
           " main: require.main === module}));\n")


def extra(t, submit, runner):
    svc = getattr(runner, "svc", None)
    if svc is None:
        t.skip("the /v1/execute case needs the service (RC_LANGS_MODE=direct)", name="ts execute")
        return
    r = svc.post_json("/v1/execute", {"language": "ts", "stdin": STDIN, "args": ["a", "b c"],
                                      "files": [{"name": "main.ts", "content": PROGRAM}]},
                      timeout=120)
    j = r.json or {}
    try:
        got = json.loads(j.get("stdout") or "")
    except ValueError:
        got = None
    t.eq((r.status, j.get("exitCode"), got),
         (200, 0, {"input": STDIN, "argv": ["/sandbox/main.ts", "a", "b c"], "main": True}),
         "ts: stdin reaches the program, argv[1] is the script path, require.main is the entry",
         repr(r))


langtest.main("ts", extra)
