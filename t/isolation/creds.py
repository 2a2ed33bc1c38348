"""creds.py - user code runs as the slot's uid/gid (RUN_UID_BASE + slot),
with no supplementary groups, no capabilities, no_new_privs and a seccomp
filter; no root id remains."""

import isolib

t = isolib.start(plan=13, uid_base=30030)
base = t.uid_base

r = isolib.run(["./probe", "ids"], probe=True, slot=3)
u = base + 3
t.eq(r.out.splitlines(), ["uid %d %d %d" % (u, u, u), "gid %d %d %d" % (u, u, u), "groups 0"],
     "slot 3 runs as uid/gid %d (real, effective, saved), no groups" % u, r)

r = isolib.run(["/bin/cat", "/proc/self/status"])
status = dict(l.split(":", 1) for l in r.out.splitlines() if ":" in l)
get = lambda k: status.get(k, "").strip()
t.eq(get("CapEff"), "0000000000000000", "CapEff is 0")
t.eq(get("CapPrm"), "0000000000000000", "CapPrm is 0")
t.eq(get("CapAmb"), "0000000000000000", "CapAmb is 0")
t.eq(get("CapBnd"), "0000000000000000", "CapBnd is 0 (hostile catalogue P1)")
t.eq(get("CapInh"), "0000000000000000", "CapInh is 0")
t.eq(get("NoNewPrivs"), "1", "NoNewPrivs is 1")
t.eq(get("Seccomp"), "2", "Seccomp is 2 (filter)")
t.eq(get("Groups"), "", "no supplementary groups")

r = isolib.sh("umask; : > /tmp/f; stat -c %a /tmp/f")
t.eq(r.out.split(), ["0022", "644"], "umask 022: a new file is 0644", r)
# Securebits locked: NOROOT, NO_SETUID_FIXUP, KEEP_CAPS_LOCKED,
# NO_CAP_AMBIENT_RAISE, each with its lock bit (0xef: all but KEEP_CAPS).
r = isolib.run(["/usr/bin/python3", "-c", "import ctypes; print(hex(ctypes.CDLL(None).prctl(27)))"])
t.eq(r.out.strip(), "0xef", "securebits are set and locked", r)
r = isolib.run(["/usr/bin/python3", "-c", """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print(libc.prctl(28, 0x2f, 0, 0, 0), ctypes.get_errno())
"""])
t.eq(r.out.split(), ["-1", "1"], "securebits cannot be changed (EPERM)", r)

r = isolib.run(["./probe", "ids"], probe=True, slot=0)
t.ok(r.out.startswith("uid %d " % base), "slot 0 gets uid %d" % base, r)
t.exit()
