# abuse: P47/P206/P6 slot A leaves markers and a setuid file, then must survive whatever slot B does at the same time
# limits: wallTimeMs=8000
# expect: exit=0 stdout~A-survived
# pair: slot_attacker.c
import os
import shutil
import sys
import time

marker = "RC-ABUSE-MARKER-OF-SLOT-A"
for d in ("/tmp", "/dev/shm", "/sandbox"):
    try:
        with open(os.path.join(d, "marker-a"), "w") as f:
            f.write(marker)
    except OSError as e:
        print("marker in %s: %s" % (d, e))
try:
    shutil.copy("/bin/sh", "/tmp/suid-a")
    os.chmod("/tmp/suid-a", 0o4755)
except OSError as e:
    print("setuid file: %s" % e)
print("A uid=%d pid=%d" % (os.getuid(), os.getpid()), flush=True)
time.sleep(3)
print("A-survived", flush=True)
