"""init_forked.py - the isolation files most about the init and its user
child again with RUN_INIT_SHARED_MEMORY=0: every cold init is forked from
the worker (sandbox/spawn.c) instead of running on its memory, the way
cgroup v2 hosts and kernels before 5.5 run it.  Both must give the same
results; isolib checks each job's summary says "forked".  On a v2 host this
is the default path again, run once more."""

import os

import isolib
import rerun

FILES = ["namespaces.py", "creds.py", "fds.py", "limits.py", "daemon.py", "cgroup.py",
         "memory.py", "init_shared.py"]

t = rerun.start("init_forked")

env = dict(os.environ, RUN_INIT_SHARED_MEMORY="0", RC_ISOLATION_INIT_FORKED="1")
rerun.rerun(t, FILES, env, isolib.NOT_FORKED, "every init forked")
t.exit()
