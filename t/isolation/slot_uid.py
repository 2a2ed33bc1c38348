"""slot_uid.py - `runcell exec` refuses a slot whose uid already has a
process outside the slot's cgroup (a live service's job, another runner on
the same RUN_UID_BASE), before its job runs, and takes it again once that
process is gone."""

import os
import signal
import subprocess
import time

import isolib

t = isolib.start(plan=4, uid_base=30400)
uid = t.uid_base + 0

# A stranger with slot 0's uid, outside any runcell cgroup.
stranger = subprocess.Popen(["setpriv", "--reuid=%d" % uid, "--regid=%d" % uid, "--clear-groups",
                             "sleep", "60"], start_new_session=True)
try:
    for _ in range(100):
        if isolib.uid_processes(uid):
            break
        subprocess.run(["sleep", "0.05"])
    t.ok(bool(isolib.uid_processes(uid)), "the stranger runs as uid %d" % uid)
    # The job would sleep 5 s: a refusal after it ran (the old order, a
    # check after the first job) takes those 5 s, one before it does not.
    t0 = time.monotonic()
    r = isolib.sh("sleep 5; echo the-job-ran", timeout=30)
    took = time.monotonic() - t0
    t.ok(r.code == 125 and "outside its cgroup" in r.err, "the slot's init refuses to start (exit 125, says why)", r)
    t.ok(took < 4 and "the-job-ran" not in r.out,
         "before the job ran (refused after %.2f s; the job sleeps 5 s)" % took, r)
finally:
    os.killpg(stranger.pid, signal.SIGKILL)
    stranger.wait()

r = isolib.sh("echo the-job-ran")
t.ok(r.code == 0 and r.out.strip() == "the-job-ran", "with the stranger gone the job runs", r)
t.exit()
