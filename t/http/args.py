"""args.py - /v1/execute passes "args" to the program byte-exact and in
order, in every language (issue 16, defect 1: python saw sys.argv ==
['main.py']).  Spaces, the empty string, unicode and shell metacharacters
arrive as one argument each; an interpreted, a compiled and a shell
language are checked, and a simple run command is still exec'd (a signal
that kills the program is reported as the signal)."""

import os

import rchttp
import tap

t = tap.Tap()
ARGS = ["a", "b c", "", "ünï — 😀", "$HOME", "*", "'\"", "-x", "a\tb\nc"]

PROGRAMS = {
    "python": ("main.py", "import json, sys\nprint(json.dumps(sys.argv[1:]))\n"),
    "cpp": ("main.cpp",
            "#include <cstdio>\n"
            "int main(int c, char **v){ for (int i = 1; i < c; i++)"
            " { std::fputs(v[i], stdout); std::fputc(0, stdout); } }\n"),
    "c": ("main.c",
          "#include <stdio.h>\n"
          "int main(int c, char **v){ for (int i = 1; i < c; i++)"
          " { fputs(v[i], stdout); fputc(0, stdout); } return 0; }\n"),
    "bash": ("main.sh", "for a in \"$@\"; do printf '%s\\0' \"$a\"; done\n"),
    "js": ("main.js", "process.stdout.write(JSON.stringify(process.argv.slice(2)) + '\\n');\n"),
}

if os.geteuid() != 0:
    t.skip("needs root (the sandbox)", name="args")
    t.exit()
try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}, languages="python,cpp,c,bash,js").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def decode(lang, out):
    import json
    if lang in ("python", "js"):
        try:
            return json.loads(out)
        except ValueError:
            return None
    return out.split("\0")[:-1]


for lang, (name, src) in PROGRAMS.items():
    r = svc.post_json("/v1/execute", {"language": lang, "files": [{"name": name, "content": src}],
                                      "args": ARGS})
    j = r.json or {}
    t.eq((r.status, j.get("exitCode"), decode(lang, j.get("stdout", ""))), (200, 0, ARGS),
         "%s: args arrive byte-exact and in order" % lang, repr(r))
    r = svc.post_json("/v1/execute", {"language": lang, "files": [{"name": name, "content": src}]})
    j = r.json or {}
    t.eq((r.status, decode(lang, j.get("stdout", ""))), (200, []), "%s: no args, none seen" % lang,
         repr(r))

# A simple run command is still exec'd: the program's own signal shows.
r = svc.post_json("/v1/execute", {
    "language": "python", "args": ["x"],
    "files": [{"name": "main.py", "content": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n"}]})
j = r.json or {}
t.eq((r.status, j.get("signal"), j.get("exitCode")), (200, "SIGKILL", None),
     "python with args: a signal that kills the program is reported as the signal", repr(r))

# The entry file is the request's first file, whatever its name.
r = svc.post_json("/v1/execute", {"language": "python", "args": ["1", "2"],
                                  "files": [{"name": "prog.py",
                                             "content": "import sys\nprint(sys.argv[1:])\n"}]})
t.eq(((r.json or {}).get("stdout")), "['1', '2']\n", "python: an entry file not named main.py runs",
     repr(r))
svc.stop()
t.exit()
