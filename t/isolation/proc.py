"""proc.py - /proc is the job's own: only its processes are listed (the root
init is hidden by hidepid=2), and the kernel's knobs are read-only or
masked."""

import isolib

t = isolib.start(plan=7, uid_base=30050)
uid = t.uid_base

r = isolib.sh("sleep 0.2 & ls -d /proc/[0-9]* | sed 's,/proc/,,'; "
              "for p in /proc/[0-9]*; do stat -c %u $p; done | sort -u; wait")
lines = r.out.split()
pids = [int(x) for x in lines if x.isdigit() and int(x) < 1000]
owners = set(x for x in lines if x.isdigit() and int(x) >= 1000)
t.ok(1 not in pids, "pid 1 (the root init) is not visible", r)
t.ok(0 < len(pids) <= 6, "only the job's few processes are listed", r)
t.eq(owners, {str(uid)}, "every visible process belongs to the job's uid", r)

r = isolib.sh("grep ' /proc ' /proc/self/mountinfo")
t.ok("hidepid=invisible" in r.out or "hidepid=2" in r.out, "/proc is mounted hidepid=2", r)

for path in ("/proc/sys/kernel/core_pattern", "/proc/sysrq-trigger"):
    r = isolib.run(["./probe", "open", path], probe=True)
    t.ok(r.out.startswith("errno "), "%s cannot be opened for writing" % path, r)

r = isolib.sh("wc -c < /proc/kcore; wc -c < /proc/keys 2>/dev/null || echo 0")
t.ok(all(x == "0" for x in r.out.split()), "/proc/kcore and /proc/keys are masked", r)
t.exit()
