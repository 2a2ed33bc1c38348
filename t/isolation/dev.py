"""dev.py - /dev is minimal: null, zero, full, random, urandom, tty, the fd
links and a private shm; pts and ptmx for a terminal of the job's own; no
host device, read-only.

A job without a terminal (every job but a process started with "tty": true,
t/http/processes.py) finds /dev/pts empty (no devpts mounted), /dev/ptmx
leading nowhere and /dev/tty without a terminal behind it (fds.py: ENXIO)."""

import isolib

t = isolib.start(plan=8, uid_base=30070)

r = isolib.sh("ls -A /dev")
t.eq(sorted(r.out.split()),
     sorted(["fd", "full", "null", "ptmx", "pts", "random", "shm", "stderr", "stdin", "stdout",
             "tty", "urandom", "zero"]),
     "exactly the minimal set of entries", r)

r = isolib.sh("stat -c '%n %t:%T' /dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty")
t.eq(r.out.split("\n")[:6], ["/dev/null 1:3", "/dev/zero 1:5", "/dev/full 1:7", "/dev/random 1:8",
                             "/dev/urandom 1:9", "/dev/tty 5:0"],
     "the nodes are the memory devices and the controlling terminal", r)

r = isolib.sh("echo x > /dev/null && head -c 4 /dev/urandom | wc -c")
t.eq(r.out.strip(), "4", "the nodes work", r)

r = isolib.run(["./probe", "open", "/dev/newnode"], probe=True)
t.ok(r.out.startswith("errno "), "/dev is read-only", r)

r = isolib.sh("ls -A /dev/pts | wc -l; stat -f -c %T /dev/pts; readlink /dev/ptmx")
t.eq(r.out.split(), ["0", "tmpfs", "pts/ptmx"],
     "without a terminal /dev/pts is an empty directory of /dev (no devpts), ptmx a link into it",
     r)

r = isolib.sh("cat /dev/ptmx 2>&1 | grep -c 'No such file'")
t.eq(r.out.strip(), "1", "so no pty can be opened outside a tty job (ENOENT)", r)

r = isolib.sh("grep -c devpts /proc/self/mountinfo")
t.eq(r.out.strip(), "0", "no devpts instance is mounted, not even the host's", r)

r = isolib.sh("ls /dev/console /dev/mem /dev/kmsg /dev/fuse /dev/pts/0 2>&1 | grep -c 'No such'")
t.eq(r.out.strip(), "5", "no console, mem, kmsg, fuse or pty", r)
t.exit()
