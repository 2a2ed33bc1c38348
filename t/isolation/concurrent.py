"""concurrent.py - two jobs running at the same time on different slots get
different uids, and neither can see nor signal the other."""

import isolib

t = isolib.start(plan=5, uid_base=30100)

# B: a sleeper that reports how it ended.
b = isolib.run(["/bin/sh", "-c", "sleep 2; echo b-finished"], slot=1, popen=True)
a = isolib.run(["/bin/sh", "-c",
                "sleep 0.5; ./probe ids; ls -d /proc/[0-9]* | wc -l; ./probe kill-all"],
               slot=0, probe=True)
rb = isolib.wait(b)
c = isolib.run(["./probe", "ids"], slot=1, probe=True)

ua = [l for l in a.out.splitlines() if l.startswith("uid ")]
ub = [l for l in c.out.splitlines() if l.startswith("uid ")]
t.ok(ua and ub and ua != ub, "slots 0 and 1 run as different uids", (a, c))
t.eq(rb.out, "b-finished\n", "job B ran to completion while A tried to kill everyone", rb)
t.ok(rb.code == 0, "job B exit 0", rb)
lines = a.out.splitlines()
t.ok(len(lines) >= 4 and lines[3].strip().isdigit() and int(lines[3]) <= 5,
     "A sees only its own few processes", a)
t.ok("signalled" in a.out or "ESRCH" in a.out, "A's kill(-1) reached nobody outside", a)
t.exit()
