"""tmp.py - /tmp, /dev/shm and the workspace are private to one job, sized,
and nothing written survives into the next job on the same slot."""

import os

import isolib

t = isolib.start(plan=8, uid_base=30010)
tag = "rc-iso-%d" % os.getpid()

r = isolib.sh("echo a > /tmp/%s && echo b > /dev/shm/%s && echo c > /sandbox/%s && "
              "ls /tmp /dev/shm /sandbox" % (tag, tag, tag))
t.eq(r.code, 0, "job can write /tmp, /dev/shm and /sandbox", r)
t.ok(not os.path.exists("/tmp/" + tag) and not os.path.exists("/dev/shm/" + tag)
     and not os.path.exists("/sandbox/" + tag), "nothing of it reached the host")

r = isolib.sh("ls -A /tmp /dev/shm /sandbox; cat /tmp/%s /dev/shm/%s /sandbox/%s" % (tag, tag, tag))
t.ok(tag not in r.out and r.code != 0, "the next job on the same slot sees none of it", r)
t.ok(".runner" in r.out, "only the root-only /tmp/.runner is in the fresh /tmp", r)

r = isolib.sh("ls /tmp/.runner 2>&1; stat -c %a:%U /tmp/.runner")
t.ok("Permission denied" in r.out and "700:root" in r.out, "/tmp/.runner is root-only (0700)", r)

r = isolib.sh("dd if=/dev/zero of=/tmp/fill bs=1M count=16 2>&1; "
              "dd if=/dev/zero of=/sandbox/fill bs=1M count=1 2>&1", options=["--tmp-size", "8m"])
t.ok(r.out.count("No space left on device") == 2,
     "the 8m tmpfs bounds /tmp and the workspace together (ENOSPC)", r)

r = isolib.sh("dd if=/dev/zero of=/dev/shm/fill bs=1M count=16 2>&1", options=["--tmp-size", "8m"])
t.ok("No space left on device" in r.out, "/dev/shm is sized too (ENOSPC)", r)

r = isolib.sh("readlink /dev/shm; cat /proc/self/mountinfo")
# The last mount on a path is the one in view.
last = {}
for line in r.out.splitlines():
    f = line.split()
    if len(f) > 5 and f[4] in ("/tmp", "/dev/shm"):
        last[f[4]] = line
# /dev/shm is a link into /tmp: one budget for both (issue 13).
t.ok(r.out.split("\n")[0] == "/tmp/.shm" and list(last) == ["/tmp"]
     and all(" - tmpfs " in l and "nosuid" in l and "nodev" in l and "size=" in l
             for l in last.values()),
     "/tmp is a fresh sized nosuid,nodev tmpfs, /dev/shm a link into it", last)
t.exit()
