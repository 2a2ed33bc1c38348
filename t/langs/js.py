"""js.py - the js language end to end, judged like Codebattle's client
(see langtest.py: a+b ok / a-b / syntax error / exception / prints /
all data types / timeout).  Then the execute command (issue 29, point
11), over /v1/execute and a session: the program reads the request's
stdin and gets its script path in process.argv[1], as a CommonJS script
and as an ES module (import syntax, top-level await, an imported .js
module without a package.json), and `import` in a string or a comment
does not make a module."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import langtest  # noqa: E402

sys.path.insert(0, os.path.join(langtest.SRCDIR, "t", "sessions"))
import sesslib  # noqa: E402

STDIN = "3 4\nsecond line \u00e9\n"

# Each program prints one JSON line: what it read, its argv from [1] on,
# and whether it is the entry module.
CJS = ("const fs = require('fs');\n"
       "const input = fs.readFileSync(0, 'utf8');\n"
       "console.log(JSON.stringify({input, argv: process.argv.slice(1),"
       " main: require.main === module}));\n")
ESM = ("import { readFileSync } from 'fs';\n"
       "import { twice } from './lib/twice.js';\n"
       "const input = readFileSync(0, 'utf8');\n"
       "const n = await Promise.resolve(twice(21));\n"
       "console.log(JSON.stringify({input, argv: process.argv.slice(1), n,"
       " url: import.meta.url}));\n")
TWICE = "export const twice = (x) => 2 * x;\n"
# The usual way to read a contest's input: line by line, as it streams in.
READLINE = ("const rl = require('readline').createInterface({ input: process.stdin });\n"
            "let sum = 0;\n"
            "rl.on('line', (l) => { for (const w of l.split(' ')) sum += Number(w) || 0; });\n"
            "rl.on('close', () => console.log('sum', sum));\n")
NOT_A_MODULE = ("// import x from 'y'; export default 1;\n"
                "const s = \"import fs from 'fs'\";\n"
                "console.log(typeof require, typeof module, s.length);\n")


def execute(svc, files, stdin=None, args=None):
    body = {"language": "js", "files": [{"name": n, "content": c} for n, c in files]}
    if stdin is not None:
        body["stdin"] = stdin
    if args is not None:
        body["args"] = args
    r = svc.post_json("/v1/execute", body, timeout=120)
    return r, (r.json or {})


def first_json(text):
    for line in (text or "").splitlines():
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None


def extra(t, submit, runner):
    svc = getattr(runner, "svc", None)
    if svc is None:
        t.skip("the /v1/execute and session cases need the service (RC_LANGS_MODE=direct)",
               count=7, name="js execute")
        return

    r, j = execute(svc, [("main.js", CJS)], STDIN, ["a", "b c"])
    got = first_json(j.get("stdout"))
    t.eq((r.status, j.get("exitCode"), got),
         (200, 0, {"input": STDIN, "argv": ["/sandbox/main.js", "a", "b c"], "main": True}),
         "js CommonJS: stdin reaches the program, argv[1] is the script path,"
         " require.main is the entry", repr(r))

    r, j = execute(svc, [("main.js", ESM), ("lib/twice.js", TWICE)], STDIN, ["x"])
    got = first_json(j.get("stdout"))
    t.eq((r.status, j.get("exitCode"), got),
         (200, 0, {"input": STDIN, "argv": ["/sandbox/main.js", "x"], "n": 42,
                   "url": "file:///sandbox/main.js"}),
         "js ES module (import, top-level await, an imported .js module): stdin reaches"
         " the program, argv[1] is the script path", repr(r))

    r, j = execute(svc, [("main.js", READLINE)], "1 2 3\n4 5\n")
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "sum 15\n"),
         "js: a readline loop over process.stdin reads the request's stdin", repr(r))

    r, j = execute(svc, [("main.js", NOT_A_MODULE)])
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "function object 19\n"),
         "js: import/export in a comment or a string leave the program CommonJS", repr(r))

    r, j = execute(svc, [("main.js", "const x = ;\n")])
    t.ok(r.status == 200 and j.get("exitCode") == 1 and "SyntaxError" in j.get("stderr", "")
         and "/sandbox/main.js:1" in j.get("stderr", ""),
         "js: a syntax error names the script and exits 1", repr(r))

    # A session: the code is staged in /tmp, yet runs as /sandbox/main.js,
    # where relative imports resolve.
    c = sesslib.Client(svc)
    sid = c.create(files=[("lib/twice.js", TWICE.encode())])
    try:
        code = ("import { twice } from './lib/twice.js';\n"
                "console.log(process.argv[1], import.meta.url, await Promise.resolve(twice(4)));\n")
        st, info, _, resp = c.run(sid, "javascript", code)
        t.ok(st == 200 and (info or {}).get("return_code") == 0
             and "/sandbox/main.js file:///sandbox/main.js 8" in (info or {}).get("output", ""),
             "js session: an ES module runs as /sandbox/main.js and imports a session file",
             lambda: repr(info or resp))
        code = "console.log(process.argv[1], require.main === module);\n"
        st, info, _, resp = c.run(sid, "javascript", code)
        t.ok(st == 200 and (info or {}).get("return_code") == 0
             and "/sandbox/main.js true" in (info or {}).get("output", ""),
             "js session: a CommonJS script runs as /sandbox/main.js, require.main is the entry",
             lambda: repr(info or resp))
    finally:
        c.delete(sid)


langtest.main("js", extra)
