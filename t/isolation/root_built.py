"""root_built.py - the files of the isolation suite about the job's view
again with RUN_ROOT_TEMPLATE=0: every job builds its root with mount(2)
(sandbox/mounts.c, mount_root), the path kernels before 6.15 take, instead
of cloning the worker's template (sandbox/root_template.c).  Both must give
the same view; isolib checks each job's summary says "built".  Also run
prestarted, where the base half is built ahead of the job."""

import os

import isolib
import rerun

FILES = ["readonly.py", "tmp.py", "environ.py", "creds.py", "proc.py", "dev.py",
         "hostmounts.py", "root.py"]

t = rerun.start("root_built")

env = dict(os.environ, RUN_ROOT_TEMPLATE="0", RC_ISOLATION_ROOT_BUILT="1")
rerun.rerun(t, FILES, env, isolib.NOT_BUILT, "every root built")
rerun.rerun(t, ["root.py", "dev.py"], dict(env, RC_ISOLATION_PRESTART="1"), isolib.NOT_BUILT,
            "prestarted, every root built")
t.exit()
