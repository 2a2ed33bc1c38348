"""cgroup.py - /sys/fs/cgroup inside a job shows the job's own cgroup and
limits (runtimes size themselves from it), read-only."""

import isolib

t = isolib.start(plan=4, uid_base=30080)

r = isolib.sh("if [ -f /sys/fs/cgroup/memory.max ]; then cat /sys/fs/cgroup/memory.max "
              "/sys/fs/cgroup/pids.max; else cat /sys/fs/cgroup/memory/memory.limit_in_bytes "
              "/sys/fs/cgroup/pids/pids.max; fi", options=["--memory", "96m", "--pids", "37"])
t.eq(r.out.split(), [str(96 << 20), "37"], "memory and pids limits are the job's", r)

r = isolib.sh("cat /proc/self/cgroup")
paths = set(l.split(":", 2)[2] for l in r.out.splitlines() if l.count(":") >= 2 and
            (":memory:" in l or ":pids:" in l or l.startswith("0::")))
t.eq(paths, {"/"}, "the job's cgroup namespace is rooted at its slot", r)

# v1 (hybrid, legacy): the controllers are subdirectories; v2: one tree.
r = isolib.sh("if [ -d /sys/fs/cgroup/memory ]; then ls /sys/fs/cgroup/memory; "
              "else ls /sys/fs/cgroup; fi | grep -c '^memory\\.'")
t.ok(int((r.out.strip().splitlines() or ["0"])[-1]) > 0, "the memory controller files are there", r)

r = isolib.sh("if [ -f /sys/fs/cgroup/pids.max ]; then echo /sys/fs/cgroup/pids.max; "
              "else echo /sys/fs/cgroup/pids/pids.max; fi")
target = r.out.strip()
r = isolib.run(["./probe", "open", target], probe=True)
t.ok(target.endswith("pids.max") and r.out.startswith("errno "),
     "the cgroup files are read-only (%s)" % target, r)
t.exit()
