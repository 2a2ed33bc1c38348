"""python_client.py - clients/python against a live runcell.

Installs the package the way its README says (pip install
--no-build-isolation, from a copy of clients/python, into a private
--target directory: nothing is downloaded, nothing lands in the system),
starts runcell and nginx as every HTTP test does (rchttp), and checks the
library and the runcell-client command line over real HTTP:
  - health, languages, openapi;
  - run (/run): a Codebattle a+b, a timeout (exit_code None), an unknown
    language (BadRequest);
  - execute (/v1/execute): stdin, args, exit status, a wall limit, a body
    over RUN_INPUT_MAX (PayloadTooLarge);
  - sessions: seeded creation, put/get/list/remove, execute with its new
    files, execute_once, delete (then NotFound);
  - no server: TransportError;
  - the SSE parser the streaming routes will use, on a fixed stream;
  - the types: mypy --strict finds no error (the package ships py.typed);
  - runcell-client run main.py --stdin in.txt: the program's stdout and
    stderr, its exit status, the progress line on stderr, 124 for a time
    limit, 125 when no server answers.
Needs root (runcell's sandbox).
"""
import os
import shutil
import subprocess
import sys
import tempfile

import rchttp
import tap

t = tap.Tap()
SRC = rchttp.SRCDIR


def install(tmp):
    src = os.path.join(tmp, "src")
    shutil.copytree(os.path.join(SRC, "clients", "python"), src,
                    ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    site = os.path.join(tmp, "site")
    proc = subprocess.run([sys.executable, "-m", "pip", "install", "--no-build-isolation", "--no-deps",
                           "--no-index", "--disable-pip-version-check", "--target", site, src],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300,
                          env=dict(os.environ, PIP_NO_CACHE_DIR="1"))
    out = proc.stdout.decode(errors="replace")
    script = os.path.join(site, "bin", "runcell-client")
    t.ok(proc.returncode == 0 and os.path.exists(script),
         "pip install --no-build-isolation ./clients/python (console script runcell-client)", out)
    if proc.returncode != 0:
        t.bail("the package does not install")
    sys.path.insert(0, site)
    return site, script


def library(rc, svc, mod):
    t.ok(rc.health(), "health()")
    langs = {l.language: l for l in rc.languages()}
    py = langs.get("python")
    t.ok(py is not None and py.available and py.default_limits.wall_time_ms and py.version,
         "languages(): python available, with its version and default limits", repr(py))
    t.ok("openapi: 3.1" in rc.openapi(), "openapi() returns the API description")

    r = rc.run("python", "def solution(a, b):\n    return a + b\n",
               asserts={"arguments": [[1, 2], [40, 2]]}, timeout="10s")
    t.ok(r.exit_code == 0 and r.results() == [3, 42], "run(): a Codebattle a+b, results [3, 42]", repr(r))
    r = rc.run("python", "import time\ntime.sleep(30)\ndef solution():\n    pass\n", asserts={"arguments": [[]]},
               timeout="1s")
    t.ok(r.exit_code is None, "run(): the timeout ends the run, exit_code None", repr(r))
    try:
        rc.run("pyhton", "x")
        t.ok(False, "run() with an unknown language raises BadRequest")
    except mod.BadRequest as e:
        t.ok(e.status == 400 and e.message, "run() with an unknown language raises BadRequest (%s)" % e.message)

    r = rc.execute("python", {"main.py": "import sys\nprint(input()[::-1], sys.argv[1:])\n"
                                         "print('warn', file=sys.stderr)\nsys.exit(3)"},
                   stdin="abc\n", args=["x y", "-z"])
    t.ok(r.stdout == "cba ['x y', '-z']\n" and r.stderr == "warn\n" and r.exit_code == 3 and r.stage == "run",
         "execute(): stdin, args byte-exact, stderr, exit status 3", repr(r))
    r = rc.execute("python", [("main.py", "import helper\nhelper.go()"),
                              ("helper.py", "def go():\n    print('two files')")])
    t.ok(r.stdout == "two files\n", "execute(): several files, the first is the entry point", repr(r))
    r = rc.execute("python", {"main.py": "while True: pass"}, limits=mod.Limits(wall_time_ms=500))
    t.ok(r.timed_out and r.limit in ("wall", "cpu") and r.exit_code is None,
         "execute(): a wall limit of 500 ms ends a loop (limit %s)" % r.limit, repr(r))
    try:
        rc.execute("python", {"main.py": "x = 1\n" * 400000})
        t.ok(False, "a body over RUN_INPUT_MAX raises PayloadTooLarge")
    except mod.PayloadTooLarge as e:
        t.eq(e.status, 413, "a body over RUN_INPUT_MAX raises PayloadTooLarge")

    s = rc.create_session(files=[("seed/a.txt", b"seeded")])
    t.ok(len(s.id) == 32, "create_session(files=...) gives a session id")
    t.eq(s.get("seed/a.txt"), b"seeded", "Session.get() reads a seeded file")
    t.eq(s.put("in.txt", "21"), 2, "Session.put() writes a file and returns its size")
    names = sorted(e.name for e in s.list())
    t.eq(names, ["in.txt", "seed"], "Session.list() lists the root")
    run = s.execute("python", "import os\nprint(int(open('in.txt').read()) * 2)\nos.makedirs('out')\n"
                    "open('out/r.txt', 'w').write('r')\n")
    t.ok(run.output == "42\n" and run.return_code == 0 and run.files.get("out/r.txt") == b"r",
         "Session.execute(): output, status and the new file out/r.txt", repr(run))
    s.remove("in.txt")
    t.ok("in.txt" not in [e.name for e in s.list()], "Session.remove()")
    s.delete()
    try:
        s.get("seed/a.txt")
        t.ok(False, "a deleted session raises NotFound")
    except mod.NotFound:
        t.ok(True, "a deleted session raises NotFound")
    with rc.create_session() as s2:
        s2.put("x.txt", "x")
    try:
        s2.get("x.txt")
        t.ok(False, "the context manager deletes the session")
    except mod.NotFound:
        t.ok(True, "the context manager deletes the session")
    once = rc.execute_once("python", "print(open('data.txt').read())", files=[("data.txt", "attached")])
    t.eq(once.output, "attached\n", "execute_once() runs with an attached file")

    dead = mod.Client("http://127.0.0.1:%d" % rchttp.free_port(), timeout=5)
    try:
        dead.health()
        t.ok(False, "no server: TransportError")
    except mod.TransportError:
        t.ok(True, "no server: TransportError")

    stream = [b": comment\n", b"event: stdout\n", b"data: {\"text\": \"a\"}\n", b"\n",
              b"id: 7\n", b"data: line1\n", b"data: line2\n", b"\n", b"event: exit\n", b"data: 0\n"]
    ev = list(mod.events(stream))
    t.ok(len(ev) == 3 and ev[0].event == "stdout" and ev[0].json() == {"text": "a"}
         and ev[1].event == "message" and ev[1].data == "line1\nline2" and ev[1].id == "7"
         and ev[2].event == "exit" and ev[2].data == "0",
         "events(): the SSE parser for the streaming routes", repr(ev))


def cli(script, site, url, tmp):
    env = dict(os.environ, PYTHONPATH=site)
    env.pop("RUNCELL_URL", None)
    main = os.path.join(tmp, "main.py")
    with open(main, "w") as f:
        f.write("import sys\nname = input()\nprint('hello, ' + name)\nprint('to stderr', file=sys.stderr)\n"
                "sys.exit(3)\n")
    stdin = os.path.join(tmp, "in.txt")
    with open(stdin, "w") as f:
        f.write("runcell\n")
    p = subprocess.run([script, "--url", url, "run", main, "--stdin", stdin, "--progress", "always"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, env=env)
    err = p.stderr.decode(errors="replace")
    t.eq(p.stdout.decode(), "hello, runcell\n", "runcell-client run main.py --stdin in.txt: the program's stdout")
    t.ok("to stderr\n" in err, "the program's stderr on runcell-client's stderr", err)
    t.eq(p.returncode, 3, "runcell-client exits with the program's status")
    t.ok("runcell-client: main.py (python) on %s" % url in err and " s" in err,
         "a progress line on stderr while waiting", err)
    p = subprocess.run([script, "run", main, "--stdin", stdin, "--progress", "never"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120,
                       env=dict(env, RUNCELL_URL=url))
    t.ok(p.returncode == 3 and "runcell-client:" not in p.stderr.decode(),
         "RUNCELL_URL names the server; --progress never prints no progress", p.stderr.decode())
    loop = os.path.join(tmp, "loop.sh")
    with open(loop, "w") as f:
        f.write("while :; do :; done\n")
    p = subprocess.run([script, "--url", url, "run", loop, "--wall-ms", "500"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, env=env)
    t.ok(p.returncode == 124 and b"limit ended the program" in p.stderr,
         "a time limit exits 124 and says so (bash, from the .sh extension)", p.stderr.decode())
    p = subprocess.run([script, "--url", "http://127.0.0.1:%d" % rchttp.free_port(), "run", main],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60, env=env)
    t.eq(p.returncode, 125, "no server: runcell-client exits 125")


def typecheck():
    """The package is typed (py.typed): mypy --strict finds nothing."""
    import shutil as sh
    if not sh.which("mypy"):
        t.skip("mypy is not installed (./quickstart deps)", name="mypy --strict")
        return
    p = subprocess.run(["mypy", "--strict", "--python-version", "3.9", "--no-incremental",
                        "--cache-dir", os.devnull, os.path.join(SRC, "clients", "python", "src", "runcell_client")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
    t.ok(p.returncode == 0, "mypy --strict clients/python finds no type error", p.stdout.decode(errors="replace"))


def main():
    typecheck()
    if os.geteuid() != 0:
        t.skip("needs root (runcell's sandbox)", name="python client")
        t.exit()
    tmp = tempfile.mkdtemp(prefix="rcclient-")
    try:
        site, script = install(tmp)
        import runcell_client as mod
        with rchttp.Service(languages="python,bash", env={"RUN_CONCURRENCY": "2"}, name="client") as svc:
            url = "http://127.0.0.1:%d" % svc.port
            library(mod.Client(url, timeout=120), svc, mod)
            cli(script, site, url, tmp)
    finally:
        if os.environ.get("RC_KEEP_TMP") != "1":
            shutil.rmtree(tmp, ignore_errors=True)
    t.exit()


if __name__ == "__main__":
    main()
