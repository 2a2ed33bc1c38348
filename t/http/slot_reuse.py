"""slot_reuse.py - a slot's init serves one job after another, of any
language (sandbox/slot/init.c), and nothing of one job reaches the next.

Each leak check runs pairs of jobs on a service of one slot, the first
leaving something behind (a setsid daemon, files in /tmp and the
workspace, a SysV shared memory segment and a POSIX message queue), the
second looking for it.  Also: between jobs the slot's cgroups hold its init
alone; a job whose clock fired and a job of another language leave the
same init serving; the jobs are not pid 1 and run under the normal
scheduling policy.
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


def pair(svc, first, second, check, what):
    """Runs first then second, a few times; every second answer must pass
    check."""
    ok, last = True, None
    for _ in range(PAIR_TRIES):
        execute(svc, first)
        r, j = execute(svc, second)
        last = (r.status, j.get("stdout"), j.get("stderr"))
        if r.status != 200 or not check(j.get("stdout", "")):
            ok = False
    t.ok(ok, what, repr(last))


def init_pids(svc):
    """The processes of the service's cgroup subtree that are root (the
    slots' inits between jobs)."""
    return sorted(p for p in slot_pids(svc) if rchttp.status_field(p, "Uid") == 0)


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

first_inits = init_pids(svc)
answers = [execute(svc, "print(%d * 3)\n" % i)[1].get("stdout") for i in range(10)]
t.ok(answers == ["%d\n" % (i * 3) for i in range(10)], "10 jobs answer right", repr(answers))
t.ok(len(first_inits) == 1 and init_pids(svc) == first_inits,
     "all of them ran in the slot's one init (%r, %r)" % (first_inits, init_pids(svc)))

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
# shows, and the job runs under the normal scheduling policy.
r, j = execute(svc, "import os, socket\nprint(os.getpid() != 1, socket.gethostname(),"
                    " [p for p in os.listdir('/proc') if p.isdigit() and"
                    " os.stat('/proc/' + p).st_uid == 0],"
                    " os.sched_getscheduler(0) == os.SCHED_OTHER)\n")
t.ok(j.get("stdout") == "True runcell [] True\n",
     "a job is not pid 1, names the host runcell, sees no root process and "
     "runs under the normal scheduling policy", repr(j.get("stdout")))

# Between jobs the slot holds its init alone, a root process.
deadline = time.time() + 5
pids = slot_pids(svc)
while len(pids) != 1 and time.time() < deadline:
    time.sleep(0.05)
    pids = slot_pids(svc)
t.ok(len(pids) == 1 and rchttp.status_field(next(iter(pids)), "Uid") == 0,
     "between jobs the slot's cgroups hold one root process, its init", repr(pids))

# A job whose clock fired: its processes go, its init serves on.
r, j = execute(svc, "import time\ntime.sleep(30)\n", limits={"wallTimeMs": 300})
t.ok(r.status == 200 and j.get("timedOut") is True, "a job past its wall clock is ended",
     repr(j))
r, j = execute(svc, "print('after')\n")
t.ok(j.get("stdout") == "after\n" and init_pids(svc) == first_inits,
     "the job after it runs, in the same init")

# Another language: the same slot, the same init.
r, j = execute(svc, "echo bash", language="bash", name="main.sh")
t.ok(j.get("stdout") == "bash\n" and init_pids(svc) == first_inits,
     "a bash job after python jobs runs in the same init", repr(j))

svc.stop()

t.done()
