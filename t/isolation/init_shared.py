"""init_shared.py - the namespace init on the worker's memory (sandbox/spawn.c,
"The init on the worker's memory").

On cgroup v1 a cold job's init runs on the worker's memory by default, as
the vfork child of a shim; on v2, with RUN_INIT_SHARED_MEMORY=0 and for a
pre-started init it is forked.  Each job's summary says which.  What the
sharing must not change, checked here on whichever the host runs:

- the OOM killer never takes the worker (`runcell exec` here): a job that
  fills its memory limit gets its verdict and the process lives on;
- request files larger than the memory limit do not kill anything;
- the user child's search of the job's PATH (rc_child_exec) behaves as
  execvp: found, not found (127), not executable (126, also when a later
  PATH entry lacks the name), a #!-less script run by /bin/sh;
- the job's oom_score_adj is 1000, its processes see no worker memory
  (/proc/<init>/ is hidden, the init is unreachable).
"""

import os
import shutil
import tempfile

import isolib

V2 = os.path.exists("/sys/fs/cgroup/cgroup.controllers")
t = isolib.start(plan=17, uid_base=30170)
MEMTOUCH = os.path.join(isolib.TOP_BUILD, "t", "isolation", "memtouch")
EXPECT = "forked" if V2 or isolib.PRESTART or isolib.INIT_FORKED else "shared"

r = isolib.sh("echo ok")
t.eq(r.summary and r.summary.get("init"), EXPECT,
     "a cold job's init is %s on this host (cgroup %s)" % (EXPECT, "v2" if V2 else "v1"), repr(r))
r = isolib.sh("echo ok", env=dict(os.environ, RUN_INIT_SHARED_MEMORY="0"))
t.ok(r.code == 0 and r.out == "ok\n" and r.summary.get("init") == "forked",
     "RUN_INIT_SHARED_MEMORY=0: the init is forked and the job runs", repr(r))

# A memory bomb at a 32 MiB limit: the verdict is the memory limit, and the
# process that ran it was not killed with it.
r = isolib.run(["./memtouch", "private", "200"],
               options=["--memory", "32m", "--file", "memtouch=" + MEMTOUCH])
t.ok(r.code != -9 and r.summary is not None, "memory bomb: runcell exec survives (exit %r)" % r.code,
     repr(r))
t.eq(r.step.get("outcome"), "memory", "memory bomb: the verdict is the memory limit", repr(r))
r = isolib.sh("echo after")
t.ok(r.code == 0 and r.out == "after\n", "the slot runs the next job after the OOM kill", repr(r))

# 48 MiB of request files against a 16 MiB limit: the init writes them
# before any job process exists.
tmp = tempfile.mkdtemp(prefix="rc-init-")
try:
    big = os.path.join(tmp, "big")
    with open(big, "wb") as f:
        f.write(os.urandom(48 << 20))
    r = isolib.run(["/bin/sh", "-c", "wc -c < big"],
                   options=["--memory", "16m", "--tmp-size", "128m", "--file", "big=" + big])
    # Shared: the init's writes are charged to the worker's cgroup (its
    # mm's owner), the job runs.  Forked: the init is OOM-killed, a sandbox
    # error (125).  Either way the caller lives on.
    t.ok(r.code >= 0, "files over the memory limit: runcell exec survives (exit %r)" % r.code,
         repr(r))
    want = (0, str(48 << 20)) if EXPECT == "shared" else (125, None)
    t.ok(r.code == want[0] and (want[1] is None or r.out.strip() == want[1]),
         "files over the memory limit: %s" % ("the job runs" if want[1] else "a sandbox error"),
         repr(r))

    # PATH search, from a template directory (modes kept).
    tpl = os.path.join(tmp, "tpl")
    os.makedirs(os.path.join(tpl, "sub"))
    os.chmod(tpl, 0o755)
    os.chmod(os.path.join(tpl, "sub"), 0o755)
    with open(os.path.join(tpl, "noshebang"), "w") as f:
        f.write('echo "script ran: $*"\n')
    os.chmod(os.path.join(tpl, "noshebang"), 0o755)
    with open(os.path.join(tpl, "sub", "plain"), "w") as f:
        f.write("not a program\n")
    os.chmod(os.path.join(tpl, "sub", "plain"), 0o644)
    env = dict(os.environ, PATH="/sandbox/sub:/sandbox:/usr/bin:/bin")
    opts = ["--template", tpl]
    r = isolib.run(["noshebang", "a", "b"], options=opts, env=env)
    t.ok(r.code == 0 and r.out == "script ran: a b\n",
         "a #!-less script found on the job's PATH runs under /bin/sh", repr(r))
    r = isolib.run(["./noshebang", "c"], options=opts, env=env)
    t.ok(r.code == 0 and r.out == "script ran: c\n", "the same by path", repr(r))
    r = isolib.run(["no-such-command"], options=opts, env=env)
    t.ok(r.code == 127 and "cannot execute no-such-command: errno=2" in r.err,
         "a name on no PATH entry: 127, errno 2", repr(r))
    r = isolib.run(["plain"], options=opts, env=env)
    t.ok(r.code == 126 and "errno=13" in r.err,
         "a non-executable file on PATH and the name nowhere after: 126, errno 13", repr(r))
    r = isolib.run(["true"], options=opts, env=dict(os.environ, PATH="/sandbox/sub::/usr/bin"))
    t.ok(r.code == 0, "an empty PATH entry is skipped over to the next", repr(r))
    r = isolib.run(["sh", "-c", 'echo "$PATH"'], options=opts, env=env)
    t.ok(r.code == 0 and r.out == "/sandbox/sub:/sandbox:/usr/bin:/bin\n",
         "the job's PATH is the one searched and the one it sees", repr(r))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

r = isolib.sh("cat /proc/self/oom_score_adj")
t.ok(r.code == 0 and r.out == "1000\n", "the job's oom_score_adj is 1000", repr(r))
r = isolib.sh("ls /proc/1/ 2>&1 | head -1; kill -0 1 2>&1; echo $?")
t.ok(r.code == 0 and r.out.strip().endswith("1") and "environ" not in r.out,
     "the init (pid 1) is neither visible nor signalable from the job", repr(r))
r = isolib.run(["/bin/sh", "-c", "echo ok"], options=["--repeat", "20"],
               env=dict(os.environ, RUN_RESIDENT_INIT="0"))
t.ok(r.code == 0 and r.out == "ok\n" and r.summary.get("init") == EXPECT,
     "20 jobs in one process, each init %s, the last one answers" % EXPECT, repr(r))
# By default the jobs after the first keep the first one's init
# (spawn.c, "The resident init"), whatever the first was; not with
# --prestart (the prestarted rerun), which measures pre-started inits.
WANT = "forked" if isolib.PRESTART else "resident"
r = isolib.run(["/bin/sh", "-c", "echo ok"], options=["--repeat", "5"])
t.ok(r.code == 0 and r.out == "ok\n" and r.summary.get("init") == WANT,
     "--repeat: the last of 5 jobs ran in a %s init" % WANT, repr(r))
t.exit()
