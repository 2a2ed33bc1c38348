"""caps.py - where the capability bounding set is emptied (docs/design.md,
"The capability bounding set is emptied once per process").

A worker empties its own bounding set at start and keeps its effective
capabilities; the master keeps its set.  Each slot's init empties its own
at start, so every job, the first on a slot and the ones after it, has
all five capability sets empty and no_new_privs set: the job's first
process only checks the bounding set it inherited.
"""

import json

import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def status_fields(text):
    out = {}
    for line in text.splitlines():
        k, _, v = line.partition(":")
        out[k] = v.strip()
    return out


def proc_status(pid):
    with open("/proc/%d/status" % pid) as f:
        return status_fields(f.read())


JOB = r"""
import json
print(json.dumps(dict(l.split(":\t", 1) for l in open("/proc/self/status").read().splitlines()
                      if l.startswith(("Cap", "NoNewPrivs")))))
"""

ZERO = "0000000000000000"
workers = svc.worker_pids()
t.ok(len(workers) >= 1, "the service has a worker (%r)" % (workers,))
for i in range(3):
    r = svc.post_json("/v1/execute",
                      {"language": "python", "files": [{"name": "main.py", "content": JOB}]},
                      timeout=60)
    try:
        s = {k: v.strip() for k, v in json.loads(r.json.get("stdout") or "{}").items()}
    except (ValueError, AttributeError):
        s = {}
    t.ok(r.status == 200 and all(s.get(k) == ZERO for k in
                                 ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")),
         "job %d: every capability set is empty" % (i + 1), repr(r.text[:400]))
    t.eq(s.get("NoNewPrivs"), "1", "job %d: no_new_privs is set" % (i + 1))

for pid in svc.worker_pids():
    w = proc_status(pid)
    t.eq(w.get("CapBnd"), ZERO, "worker %d: its bounding set is empty" % pid)
    t.ok(w.get("CapEff", ZERO) != ZERO, "worker %d: it keeps its effective capabilities (%s)"
         % (pid, w.get("CapEff")))
m = proc_status(svc.master_pid())
t.ok(m.get("CapBnd", ZERO) != ZERO, "the master keeps its bounding set (%s)" % m.get("CapBnd"))

svc.stop()
t.exit()
