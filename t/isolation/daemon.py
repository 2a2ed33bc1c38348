"""daemon.py - a setsid + double-fork daemon (DMOJ #318) does not outlive
its job: it is gone before the next job on the same slot starts, and no
process of the slot uid is left on the host."""

import time

import isolib

t = isolib.start(plan=3, uid_base=30110)
uid = t.uid_base

r = isolib.run(["./probe", "daemon", "/tmp/daemon-mark"], probe=True)
t.eq(r.out.strip(), "parent done", "the daemonising job ended normally", r)
time.sleep(0.2)
t.eq(isolib.uid_processes(uid), [], "no process of the slot uid is left on the host")

r = isolib.sh("ls -d /proc/[0-9]* | wc -l; ps -eo user,comm 2>/dev/null | grep -c sleep")
t.ok(r.out.split()[0] in ("2", "3", "4") and "probe" not in r.out,
     "the next job on the same slot sees no leftover", r)
t.exit()
