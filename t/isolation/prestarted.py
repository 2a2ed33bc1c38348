"""prestarted.py - the whole isolation suite again, every job in an init
started ahead of it (`runcell exec --prestart`), which is how a worker runs
all its jobs but the first: the init was cloned and half of its mount view
built before the job existed (sandbox/spawn.c, "the pre-started init").

Each file of the suite runs as a child with RC_ISOLATION_PRESTART=1
(isolib.py then passes --prestart, moves its uids out of the way of the
file's own cold run, and complains on stderr about any job whose summary
does not say "prestarted").  Their results are reported here one by one,
prefixed with the file, plus one result per file: it ran to its end and
every job of it was prestarted.  unsandboxed.py is left out (no sandbox).
"""

import os
import re
import subprocess
import sys

import isolib
import tap

FILES = ["readonly.py", "tmp.py", "environ.py", "creds.py", "fds.py", "proc.py",
         "namespaces.py", "dev.py", "cgroup.py", "limits.py", "concurrent.py", "daemon.py",
         "hostmounts.py", "memory.py", "coredump.py", "root.py"]
HERE = os.path.dirname(os.path.abspath(__file__))

t = tap.Tap()
if os.geteuid() != 0:
    t.set_plan(1)
    t.skip("the sandbox needs root", name="prestarted")
    t.exit()

LINE = re.compile(r"^(ok|not ok) \d+ (?:- )?(.*)$")
env = dict(os.environ, RC_ISOLATION_PRESTART="1")
for name in FILES:
    p = subprocess.run([sys.executable, os.path.join(HERE, name)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    seen = 0
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue
        seen += 1
        desc = "%s: %s" % (name, m.group(2))
        if " # SKIP" in desc:
            t.ok(False, desc + " (skipped: prestarted runs must not skip)")
        else:
            t.ok(m.group(1) == "ok", desc)
    t.ok(p.returncode == 0 and seen > 0 and isolib.NOT_PRESTARTED not in err,
         "%s: ran to its end (exit %d, %d results), every job prestarted" % (
             name, p.returncode, seen),
         err[-1500:])
t.exit()
