"""dev.py - /dev is minimal: null, zero, full, random, urandom, the fd links
and a private shm; no tty, no host device, read-only."""

import isolib

t = isolib.start(plan=5, uid_base=30070)

r = isolib.sh("ls -A /dev")
t.eq(sorted(r.out.split()),
     sorted(["fd", "full", "null", "random", "shm", "stderr", "stdin", "stdout", "urandom", "zero"]),
     "exactly the minimal set of entries", r)

r = isolib.sh("stat -c '%n %t:%T' /dev/null /dev/zero /dev/full /dev/random /dev/urandom")
t.eq(r.out.split("\n")[:5], ["/dev/null 1:3", "/dev/zero 1:5", "/dev/full 1:7", "/dev/random 1:8",
                             "/dev/urandom 1:9"], "the nodes are the memory devices", r)

r = isolib.sh("echo x > /dev/null && head -c 4 /dev/urandom | wc -c")
t.eq(r.out.strip(), "4", "the nodes work", r)

r = isolib.run(["./probe", "open", "/dev/newnode"], probe=True)
t.ok(r.out.startswith("errno "), "/dev is read-only", r)

r = isolib.sh("ls /dev/tty /dev/console /dev/ptmx /dev/mem /dev/kmsg /dev/fuse 2>&1 | grep -c 'No such'")
t.eq(r.out.strip(), "6", "no tty, console, ptmx, mem, kmsg or fuse", r)
t.exit()
