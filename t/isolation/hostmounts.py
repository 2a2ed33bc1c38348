"""hostmounts.py - a job changes nothing in the host's mount table (every
mount lived in its own namespace), and the host's /sandbox stays an empty
directory."""

import os

import isolib

t = isolib.start(plan=3, uid_base=30120)

def mounts():
    with open("/proc/self/mountinfo") as f:
        return sorted(" ".join(l.split()[3:5]) for l in f)

before = mounts()
r = isolib.sh("mount -t tmpfs none /sandbox 2>&1; umount -l /proc 2>&1; echo done")
t.ok("done" in r.out, "job ran (and its mount attempts were refused)", r)
t.eq(mounts(), before, "host mount table unchanged after the job")
t.eq(os.listdir("/sandbox"), [], "host /sandbox is empty")
t.exit()
