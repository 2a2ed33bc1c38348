"""resident.py - resident inits (sandbox/spawn.c, "The resident init"): a
worker keeps its slot's namespace init from one job to the next of the same
language, and nothing of one job reaches the next through it.

Each leak check runs a pair of jobs, the first leaving something behind
(a setsid daemon, files in /tmp and the workspace, a changed template file,
a SysV shared memory segment and a POSIX message queue), the second
looking for it.  A pair counts only when the request log says the second
job ran in a resident init; pairs are retried until one does (with one
slot and its worker first in line for connections, nearly all do), and
every pair run must show nothing left, resident or not.  Also: a job
whose clock fired, a language switch and RUN_RESIDENT_INIT=0 each start
a fresh init; between jobs the slot's cgroup holds the resident alone.
"""

import os
import time

import rchttp
import tap

t = tap.Tap()
PAIR_TRIES = 6


def logged(svc):
    """The /v1/execute request log lines, oldest first."""
    return svc.logged_requests("/v1/execute")


def execute(svc, src, language="python", name="main.py", limits=None):
    body = {"language": language, "files": [{"name": name, "content": src}]}
    if limits:
        body["limits"] = limits
    r = svc.post_json("/v1/execute", body, timeout=60)
    return r, (r.json if isinstance(r.json, dict) else {})


def last_init(svc):
    jobs = logged(svc)
    return jobs[-1].get("init") if jobs else None


def pair(svc, first, second, check, what):
    """Runs first then second until second ran resident; every second
    answer must pass check.  Returns (all checks passed, a resident pair
    was seen, last answer)."""
    ok, seen, last = True, False, None
    for _ in range(PAIR_TRIES):
        execute(svc, first)
        r, j = execute(svc, second)
        last = (r.status, j.get("stdout"), j.get("stderr"))
        if r.status != 200 or not check(j.get("stdout", "")):
            ok = False
        if last_init(svc) == "resident":
            seen = True
            break
    t.ok(ok and seen, "%s (second job resident: %s)" % (what, seen), repr(last))


def slot_pids(svc):
    """Every pid listed in the service's cgroup subtree, all hierarchies."""
    pids = set()
    for base in rchttp.leftover_cgroups(svc.cgroup_name):
        for root, _dirs, files in os.walk(base):
            if "cgroup.procs" in files:
                with open(os.path.join(root, "cgroup.procs")) as f:
                    pids.update(int(x) for x in f.read().split())
    return pids


try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1}, languages="python,bash").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

answers = [execute(svc, "print(%d * 3)\n" % i)[1].get("stdout") for i in range(10)]
t.ok(answers == ["%d\n" % (i * 3) for i in range(10)], "10 jobs answer right", repr(answers))
kinds = [j.get("init") for j in logged(svc)][-10:]
t.ok(kinds[0] in ("forked", "shared") and kinds.count("resident") >= 5,
     "the first job starts an init, most later ones reuse it (%s)" % kinds)

# Processes: a setsid daemon of the first job is gone for the second.
pair(svc,
     "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
     "    open('/tmp/left', 'w').write('x')\n    time.sleep(60)\nelse:\n"
     "    time.sleep(0.2)\nprint('ok')\n",
     "import os\nprint(sorted(p for p in os.listdir('/proc') if p.isdigit()),"
     " os.path.exists('/tmp/left'))\n",
     lambda out: out.endswith("False\n") and out.count("'") <= 4,
     "a daemon of the job before and its file are gone")

# Files: /tmp and the workspace, including what the job before changed.
r, j = execute(svc, "import os\nprint(sorted(os.listdir('.')), sorted(os.listdir('/tmp')))\n")
fresh = j.get("stdout")
t.ok(r.status == 200 and fresh and "main.py" in fresh, "a fresh job's workspace and /tmp",
     repr(fresh))
pair(svc,
     "import os\nopen('/tmp/t1', 'w').write('x')\nopen('w1', 'w').write('x')\n"
     "os.mkdir('d1')\nos.chmod('.', 0o700)\nprint('ok')\n",
     "import os\nprint(sorted(os.listdir('.')), sorted(os.listdir('/tmp')))\n",
     lambda out: out == fresh,
     "files of the job before are gone from /tmp and the workspace")

# IPC: a SysV segment and a POSIX queue of the job before do not exist.
IPC_MAKE = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "libc.mq_open.restype = ctypes.c_int\n"
            "print(libc.shmget(0x52434c, 4096, 0o1666) >= 0,"
            " libc.mq_open(b'/rcq', os.O_CREAT | os.O_RDWR, 0o666, None) >= 0)\n")
IPC_LOOK = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "print(libc.shmget(0x52434c, 0, 0), libc.mq_open(b'/rcq', os.O_RDONLY) )\n")
r, j = execute(svc, IPC_MAKE)
t.eq(j.get("stdout"), "True True\n", "a job can make a SysV segment and a POSIX queue", repr(j))
pair(svc, IPC_MAKE, IPC_LOOK, lambda out: out == "-1 -1\n",
     "the SysV segment and the queue of the job before are gone")

# Identity: pid 1 is not the job, the host name stays, no root process
# shows, and the job runs under the normal scheduling policy (the init is a
# batch task, its children are reset at their fork).
r, j = execute(svc, "import os, socket\nprint(os.getpid() != 1, socket.gethostname(),"
                    " [p for p in os.listdir('/proc') if p.isdigit() and"
                    " os.stat('/proc/' + p).st_uid == 0],"
                    " os.sched_getscheduler(0) == os.SCHED_OTHER)\n")
t.ok(j.get("stdout") == "True runcell [] True\n" and last_init(svc) == "resident",
     "a resident job is not pid 1, names the host runcell, sees no root process and "
     "runs under the normal scheduling policy", repr(j.get("stdout")))

# Between jobs the slot holds the resident alone, a root process.
deadline = time.time() + 5
pids = slot_pids(svc)
while len(pids) != 1 and time.time() < deadline:
    time.sleep(0.05)
    pids = slot_pids(svc)
t.ok(len(pids) == 1 and rchttp.status_field(next(iter(pids)), "Uid") == 0,
     "between jobs the slot's cgroup holds one root process, the resident", repr(pids))

# A job whose clock fired takes its init with it; the next one starts afresh.
r, j = execute(svc, "import time\ntime.sleep(30)\n", limits={"wallTimeMs": 300})
t.ok(r.status == 200 and j.get("timedOut") is True, "a job past its wall clock is ended",
     repr(j))
r, j = execute(svc, "print('after')\n")
t.ok(j.get("stdout") == "after\n" and last_init(svc) in ("forked", "shared"),
     "the job after it runs in a new init (%s)" % last_init(svc))

# Another language never gets this language's init.
r, j = execute(svc, "echo bash", language="bash", name="main.sh")
t.ok(j.get("stdout") == "bash\n" and last_init(svc) != "resident",
     "a bash job after python jobs does not reuse their init (%s)" % last_init(svc))
r, j = execute(svc, "echo again", language="bash", name="main.sh")
t.ok(j.get("stdout") == "again\n", "and bash jobs run on", repr(j))

svc.stop()

with rchttp.Service(env={"RUN_CONCURRENCY": 1, "RUN_RESIDENT_INIT": "0"}) as off:
    outs = [execute(off, "print(%d)\n" % i)[1].get("stdout") for i in range(5)]
    kinds = [j.get("init") for j in logged(off)]
    t.ok(outs == ["%d\n" % i for i in range(5)] and "resident" not in kinds and len(kinds) == 5,
         "RUN_RESIDENT_INIT=0: no job runs in a resident init (%s)" % kinds)

t.done()
