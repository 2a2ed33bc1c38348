"""java.py - the java language end to end, judged like Codebattle's client
(see langtest.py: a+b ok / a-b / syntax error / exception / prints /
all data types / timeout).  Then the execute command (issue 29, point
12), over /v1/execute and a session: any public class name compiles and
runs (Piston's `public class HelloWorld`, in a file of any name), a
package-private class Main still does, the class run is the one with
main (a package included), and stdin, args and javac's diagnostics are
unchanged."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import langtest  # noqa: E402

sys.path.insert(0, os.path.join(langtest.SRCDIR, "t", "sessions"))
import sesslib  # noqa: E402

HELLO = ("public class HelloWorld {\n"
         "    public static void main(String[] args) {\n"
         "        System.out.println(\"Hello, World!\");\n"
         "    }\n"
         "}\n")
PACKAGE_PRIVATE_MAIN = ("class Main {\n"
                        "    public static void main(String[] args) {\n"
                        "        System.out.println(\"package-private Main\");\n"
                        "    }\n"
                        "}\n")
# stdin and args, in a class that is neither Main nor first in its file
ECHO = ("import java.io.*;\n\n"
        "class Helper { static String up(String s) { return s.toUpperCase(); } }\n\n"
        "public class Echo {\n"
        "    public static void main(String[] args) throws IOException {\n"
        "        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));\n"
        "        System.out.println(Helper.up(in.readLine()) + \" \" + String.join(\"|\", args));\n"
        "    }\n"
        "}\n")
PACKAGED = ("package app.tools;\n\n"
            "public class Runner {\n"
            "    public static void main(String[] args) {\n"
            "        System.out.println(Runner.class.getName());\n"
            "    }\n"
            "}\n")
USES_UTIL = ("public class Main {\n"
             "    public static void main(String[] args) { System.out.println(Util.twice(21)); }\n"
             "}\n")
UTIL = "public class Util { static int twice(int x) { return 2 * x; } }\n"
BROKEN = "public class Main {\n    public static void main(String[] a) { int x = \"s\"; }\n}\n"


def execute(svc, files, stdin=None, args=None):
    body = {"language": "java", "files": [{"name": n, "content": c} for n, c in files]}
    if stdin is not None:
        body["stdin"] = stdin
    if args is not None:
        body["args"] = args
    r = svc.post_json("/v1/execute", body, timeout=180)
    return r, (r.json or {})


def extra(t, submit, runner):
    svc = getattr(runner, "svc", None)
    if svc is None:
        t.skip("the /v1/execute and session cases need the service (RC_LANGS_MODE=direct)",
               count=9, name="java execute")
        return

    for name in ("HelloWorld.java", "Main.java", "test.java"):
        r, j = execute(svc, [(name, HELLO)])
        t.eq((r.status, j.get("stage"), j.get("exitCode"), j.get("stdout")),
             (200, "run", 0, "Hello, World!\n"),
             "java: public class HelloWorld in %s prints" % name, repr(r))

    r, j = execute(svc, [("Main.java", PACKAGE_PRIVATE_MAIN)])
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "package-private Main\n"),
         "java: a file with a package-private class Main still works", repr(r))

    r, j = execute(svc, [("Main.java", ECHO)], stdin="from stdin\n", args=["a b", "-x"])
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "FROM STDIN a b|-x\n"),
         "java: the class with main runs (not the first one), with the request's stdin and args",
         repr(r))

    r, j = execute(svc, [("Main.java", PACKAGED)])
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "app.tools.Runner\n"),
         "java: a class in a package runs", repr(r))

    r, j = execute(svc, [("Main.java", USES_UTIL), ("Util.java", UTIL)])
    t.eq((r.status, j.get("exitCode"), j.get("stdout")), (200, 0, "42\n"),
         "java: the other .java files are compiled with the entry", repr(r))

    r, j = execute(svc, [("Main.java", BROKEN)])
    cerr = (j.get("compile") or {}).get("stderr", "")
    t.ok(r.status == 200 and j.get("stage") == "compile"
         and "Main.java:2: error: incompatible types" in cerr and "1 error" in cerr,
         "java: a compile error stops at the compile stage with javac's diagnostics", repr(r))

    # A session stages the code as Main.java: the class name is free there too.
    c = sesslib.Client(svc)
    st, info, _, resp = c.run(None, "java", HELLO)
    t.ok(st == 200 and (info or {}).get("return_code") == 0
         and "Hello, World!" in (info or {}).get("output", ""),
         "java session: public class HelloWorld prints", lambda: repr(info or resp))


langtest.main("java", extra)
