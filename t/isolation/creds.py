"""creds.py - user code runs as the slot's uid/gid (RUN_UID_BASE + slot),
with no supplementary groups, no capabilities, no_new_privs and a seccomp
filter; no root id remains."""

import isolib

t = isolib.start(plan=8, uid_base=30030)
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
t.eq(get("NoNewPrivs"), "1", "NoNewPrivs is 1")
t.eq(get("Seccomp"), "2", "Seccomp is 2 (filter)")
t.eq(get("Groups"), "", "no supplementary groups")

r = isolib.run(["./probe", "ids"], probe=True, slot=0)
t.ok(r.out.startswith("uid %d " % base), "slot 0 gets uid %d" % base, r)
t.exit()
