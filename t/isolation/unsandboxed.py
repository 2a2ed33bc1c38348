"""unsandboxed.py - the development fallback (RUN_SANDBOX=off, or not
root): it says it is unsafe, runs in a fresh copy of the template that is
removed afterwards (symlinks the job left are not followed), never hands
the caller's fd 0 to the job, and the clocks and caps still apply."""

import os
import shutil
import socket
import tempfile

import isolib

t = isolib.start(plan=7, uid_base=30130)
env = dict(os.environ, RUN_SANDBOX="off")

tmpl = tempfile.mkdtemp(prefix="rc-unsb-tmpl-", dir=isolib.TOP_BUILD)
victim = tempfile.mkdtemp(prefix="rc-unsb-victim-", dir=isolib.TOP_BUILD)
try:
    with open(os.path.join(tmpl, "data.txt"), "w") as f:
        f.write("template\n")
    with open(os.path.join(victim, "keep"), "w") as f:
        f.write("keep\n")
    os.mkdir(os.path.join(tmpl, ".git"))
    r = isolib.sh("pwd; cat data.txt; ls -A; ln -s %s escape; echo x > new.txt" % victim,
                  env=env, options=["--template", tmpl])
    lines = r.out.splitlines()
    t.ok("sandbox_unsafe" in r.err, "the log says the mode is unsafe", r)
    t.ok(lines and lines[0].startswith("/tmp/runcell-") and lines[1] == "template"
         and ".git" not in lines, "runs in a copy of the template under /tmp, without .git", r)
    t.ok(lines and not os.path.exists(lines[0]), "the copy is removed afterwards", r)
    t.ok(os.path.exists(os.path.join(victim, "keep")),
         "removal did not follow the job's symlink", r)
    t.eq(sorted(os.listdir(tmpl)), [".git", "data.txt"], "the template is untouched")
finally:
    shutil.rmtree(tmpl)
    shutil.rmtree(victim)

lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
lsock.bind("\0rc-unsb-%d" % os.getpid())
lsock.listen(1)
r = isolib.run(["/bin/sh", "-c", "stat -L -c %F /proc/self/fd/0"], env=env, stdin=lsock.fileno())
lsock.close()
t.ok("socket" not in r.out and "character special" in r.out,
     "the caller's fd 0 (a socket) is not the job's stdin", r)

r = isolib.sh("echo hi; sleep 5", env=env, options=["--timeout", "300ms"])
t.ok(r.step.get("limit") == "wall" and r.out == "hi\n" and r.step["wall_ms"] < 2000,
     "the wall clock kills, output kept", r)
t.exit()
