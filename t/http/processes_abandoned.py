"""processes_abandoned.py - 100 processes opened and abandoned leave nothing
behind (issue 27, "Done when").

Each process is a program waiting for input that nobody gives it (every
fourth on a terminal, every third with a subscriber that connects and goes
away mid-stream), with a short idle clock: the idle clock must end every
one of them and free its slot.  Afterwards, once RUN_PROCESS_KEEP_S has
passed:
  - no slot is busy (runcell_busy_slots 0) and a job runs;
  - every one of them ended by the idle clock (runcell_jobs_total);
  - no process is left: no supervisor below the master, no process of a
    slot's uid outside the slots' inits' own, no socket in the state dir;
  - no mount is left: the host's mount table is as before, and every
    slot's init has the mounts it had before (no devpts, no workspace);
  - no cgroup is left: the service's cgroup tree has the directories it
    had before.
Needs root (the sandbox) and python.
"""

import os
import time

import rchttp
import rcsse
import tap

t = tap.Tap()
N = 100
SLOTS = 4
try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": SLOTS, "RUN_MAX_PROCESSES": SLOTS,
                              "RUN_SPARE_WORKERS": 6, "RUN_PROCESS_KEEP_S": 1},
                         languages="python").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def proc_field(pid, key):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return line.split()[1:]
    except OSError:
        return None
    return []


def inits():
    """The slots' inits: children of the master that are pid 1 of their own
    pid namespace."""
    out = []
    for pid in rchttp.children_of(svc.master_pid()):
        ns = proc_field(pid, "NSpid") or []
        if len(ns) > 1 and ns[-1] == "1":
            out.append(pid)
    return sorted(out)


def mounts(pid="self"):
    try:
        with open("/proc/%s/mountinfo" % pid) as f:
            return sorted(" ".join(line.split()[3:5]) for line in f)
    except OSError:
        return None


def cgroup_dirs():
    found = set()
    for top in rchttp.leftover_cgroups(svc.cgroup_name):
        for dirpath, dirnames, _ in os.walk(top):
            found.add(os.path.relpath(dirpath, top))
    return found


def supervisors():
    out = []
    for pid in rchttp.descendants_of(svc.master_pid()):
        try:
            with open("/proc/%d/comm" % pid) as f:
                if f.read().strip() == "runcell-proc":
                    out.append(pid)
        except OSError:
            pass
    return out


def slot_uid_processes():
    """Processes of a slot's uid; a slot's own init runs as root, so any
    is a job's leftover."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            uid = proc_field(int(entry), "Uid")
            if uid and svc.uid_base <= int(uid[0]) < svc.uid_base + SLOTS:
                out.append(int(entry))
    return out


def idle_count():
    for line in svc.get("/metrics").text.splitlines():
        if line.startswith('runcell_jobs_total{language="python",outcome="idle"}'):
            return int(line.split()[-1])
    return 0


# One job in every slot first: a slot's init mounts its job's view of the
# cgroups at the first job and keeps it (replaced per step).
warm = [rcsse.Stream(svc.port, "/v1/execute", method="POST",
                     body={"language": "python", "files": [{"name": "main.py", "content":
                           "import time\nprint(1, flush=True)\ntime.sleep(1)"}]})
        for _ in range(SLOTS)]
for w in warm:
    w.rest(30)
rchttp.wait_until(lambda: rcsse.busy_slots(svc) == 0, 10)
host_mounts = mounts()
rchttp.wait_until(lambda: len(inits()) == SLOTS, 20)
init_pids = inits()
init_mounts = {pid: mounts(pid) for pid in init_pids}
cgroups = cgroup_dirs()
t.ok(len(init_pids) == SLOTS and all(init_mounts.values()) and cgroups,
     "baseline: %d inits, their mounts, %d cgroup directories" % (len(init_pids), len(cgroups)))

started, refused, failed = 0, 0, []
deadline = time.monotonic() + 300
while started < N and time.monotonic() < deadline:
    body = {"language": "python", "files": [{"name": "main.py", "content": "input()\n"}],
            "limits": {"idleMs": 300}, "tty": started % 4 == 0}
    r = svc.post_json("/v1/processes", body, timeout=30)
    if r.status == 429:
        refused += 1
        time.sleep(0.05)
        continue
    if r.status != 201:
        failed.append(r)
        break
    started += 1
    if started % 3 == 0:
        s = rcsse.Stream(svc.port, "/v1/processes/%s/events" % r.json["id"])
        s.next(10)
        s.close()
t.ok(started == N and not failed,
     "%d processes started (%d times all %d slots were held: 429, retried)"
     % (started, refused, SLOTS), lambda: repr(failed))

t.ok(rchttp.wait_until(lambda: idle_count() == N, 60),
     "the idle clock ended every one of them (runcell_jobs_total idle = %d)" % idle_count())
t.ok(rchttp.wait_until(lambda: rcsse.busy_slots(svc) == 0, 20), "no slot is busy")
t.ok(rchttp.wait_until(lambda: not supervisors(), 20),
     "no supervisor is left once RUN_PROCESS_KEEP_S passed", lambda: repr(supervisors()))
sockets = os.path.join(svc.tmp, "state", "proc")
t.ok(rchttp.wait_until(lambda: not os.listdir(sockets), 10),
     "no process socket is left in the state directory", lambda: repr(os.listdir(sockets)))
t.ok(rchttp.wait_until(lambda: not slot_uid_processes(), 10),
     "no process of a slot's uid is left", lambda: repr(slot_uid_processes()))
t.eq(mounts(), host_mounts, "the host's mount table is as before")
t.ok(rchttp.wait_until(lambda: inits() == init_pids
                       and {p: mounts(p) for p in init_pids} == init_mounts, 10),
     "every slot's init is the same and has the mounts it had before (no devpts, workspace)",
     lambda: repr({p: sorted(set(mounts(p) or []) ^ set(init_mounts.get(p) or []))
                   for p in inits()}))
t.eq(cgroup_dirs(), cgroups, "the service's cgroup tree has the directories it had before")
r = svc.post_json("/v1/execute", {"language": "python",
                                  "files": [{"name": "main.py", "content": "print(6 * 7)"}]})
t.eq((r.status, (r.json or {}).get("stdout")), (200, "42\n"), "and a job runs")
t.ok("worker_exited" not in svc.fcgi_log_tail(100000), "no worker died on the way")
svc.stop()
t.exit()
