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

import isolib
import rerun

FILES = ["readonly.py", "tmp.py", "environ.py", "creds.py", "fds.py", "proc.py",
         "namespaces.py", "dev.py", "cgroup.py", "limits.py", "concurrent.py", "daemon.py",
         "hostmounts.py", "memory.py", "coredump.py", "root.py", "slot_uid.py"]

t = rerun.start("prestarted")

rerun.rerun(t, FILES, dict(os.environ, RC_ISOLATION_PRESTART="1"), isolib.NOT_PRESTARTED,
            "every job prestarted")
t.exit()
