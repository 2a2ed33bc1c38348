"""Sessions harness group "languages": all nine languages of the document;
module styles for javascript, type syntax for typescript (CommonJS, so
top-level await fails); for each compiled language a hello world, a
compile error with diagnostics, and nothing left in the session."""

from sesslib import Client, start_or_bail, tap

t = tap.Tap()
svc = start_or_bail(t, {"EXECUTION_TIMEOUT": "60", "MAX_MEMORY": "1g", "RUN_CONCURRENCY": "2"})
c = Client(svc)

HELLO = {
    "python": 'print("hello from python")',
    "bash": 'echo "hello from bash"',
    "javascript": 'console.log("hello from javascript")',
    "typescript": 'const who: string = "typescript";\nconsole.log(`hello from ${who}`);',
    "c": '#include <stdio.h>\nint main(void){puts("hello from c");return 0;}',
    "cpp": '#include <iostream>\nint main(){std::cout<<"hello from cpp"<<std::endl;}',
    "java": 'public class Main { public static void main(String[] a) {'
            ' System.out.println("hello from java"); } }',
    "csharp": 'using System; class P { static void Main() { Console.WriteLine("hello from csharp"); } }',
    "rust": 'fn main() { println!("hello from rust"); }',
}
BROKEN = {
    "c": ('int main(void){ return undefined_name; }', "undefined_name"),
    "cpp": ('int main(){ return undefined_name; }', "undefined_name"),
    "java": ('public class Main { public static void main(String[] a) { int x = "s"; } }',
             "error"),
    "csharp": ('class P { static void Main() { int x = "s"; } }', "error"),
    "rust": ('fn main() { let x: i32 = "s"; }', "error"),
}


def hello(lang):
    sid = c.create()
    st, info, files, r = c.run(sid, lang, HELLO[lang])
    ok = st == 200 and info["return_code"] == 0 and ("hello from " + lang) in info["output"]
    t.ok(ok, "%s: hello world" % lang, lambda: repr(info or r))
    t.eq(files, {}, "%s: no files returned" % lang)
    t.eq(c.listing(sid, ""), {}, "%s: nothing left in the session" % lang)
    c.delete(sid)


def broken(lang):
    code, needle = BROKEN[lang]
    sid = c.create()
    st, info, files, r = c.run(sid, lang, code)
    t.ok(st == 200 and info["return_code"] != 0 and needle in info["output"],
         "%s: a compile error fails with diagnostics" % lang, lambda: repr(info or r))
    t.eq(c.listing(sid, ""), {}, "%s: a failed build leaves nothing in the session" % lang)
    c.delete(sid)


def javascript_modules():
    sid = c.create(files=[("lib/helper.js", b"module.exports = { twice: (x) => 2 * x };\n"),
                          ("mod.mjs", b"export const answer = 42;\n")])
    st, info, _, r = c.run(sid, "javascript",
                           "const h = require('./lib/helper.js');\nconsole.log('cjs', h.twice(21));")
    t.ok(st == 200 and info["return_code"] == 0 and "cjs 42" in info["output"],
         "javascript: CommonJS require of a session file", lambda: repr(info or r))
    st, info, _, r = c.run(sid, "javascript",
                           "import { answer } from './mod.mjs';\n"
                           "const v = await Promise.resolve(answer);\nconsole.log('esm', v);")
    t.ok(st == 200 and info["return_code"] == 0 and "esm 42" in info["output"],
         "javascript: ES module import and top-level await", lambda: repr(info or r))
    c.delete(sid)


def typescript_syntax():
    sid = c.create(files=[("util.js", b"exports.greet = (n) => 'hi ' + n;\n")])
    code = ("interface P { name: string }\n"
            "enum Color { Red = 1, Green }\n"
            "namespace NS { export const k: number = 7; }\n"
            "const u = require('./util.js');\n"
            "import * as path from 'path';\n"
            "const p: P = { name: 'ts' };\n"
            "console.log(u.greet(p.name), Color.Green, NS.k, path.basename('/a/b'));\n"
            "console.log(typeof module, typeof exports);\n")
    st, info, _, r = c.run(sid, "typescript", code)
    t.ok(st == 200 and info["return_code"] == 0 and "hi ts 2 7 b" in info["output"]
         and "object object" in info["output"],
         "typescript: interfaces, enums, namespaces, require and import run as CommonJS",
         lambda: repr(info or r))
    st, info, _, r = c.run(sid, "typescript", "const x: number = 1;\nconst y: string = x;\n"
                                               "console.log('ran', y);")
    t.ok(st == 200 and info["return_code"] == 0 and "ran 1" in info["output"],
         "typescript: types are stripped, not checked", lambda: repr(info or r))
    st, info, _, r = c.run(sid, "typescript", "await Promise.resolve(1);\nconsole.log('TLA_RAN');")
    t.ok(st == 200 and info["return_code"] != 0 and "TLA_RAN" not in info["output"],
         "typescript: top-level await fails (CommonJS)", lambda: repr(info or r))
    t.eq(sorted(c.listing(sid, "")), ["util.js"], "typescript: nothing left in the session")
    c.delete(sid)


def python_import():
    sid = c.create(files=[("helper.py", b"VALUE = 'from helper'\n"), ("data.txt", b"payload")])
    st, info, _, r = c.run(sid, "python", "import helper\nprint(helper.VALUE, open('data.txt').read())")
    t.ok(st == 200 and "from helper payload" in (info or {}).get("output", ""),
         "python: imports and relative paths resolve in the session", lambda: repr(info or r))
    t.eq(sorted(c.listing(sid, "")), ["data.txt", "helper.py"], "python: no __pycache__ left")
    st, info, _, r = c.run(sid, "bash", "cat data.txt; echo; pwd")
    t.ok(st == 200 and "payload" in info["output"] and "/sandbox" in info["output"],
         "bash: runs in the session directory", lambda: repr(info or r))
    c.delete(sid)


for lang in HELLO:
    t.run("hello " + lang, hello, lang)
for lang in BROKEN:
    t.run("broken " + lang, broken, lang)
t.run("javascript", javascript_modules)
t.run("typescript", typescript_syntax)
t.run("python", python_import)
svc.stop()
t.exit()
