# abuse: R22 a daemon reparented away polls for the next request's files to tamper with them
# limits: wallTimeMs=3000
# expect: exit=0 stdout~detached
# next: clean_check.py
import os
import sys
import time

if os.fork() > 0:
    print("detached", flush=True)
    sys.exit(0)
os.setsid()
if os.fork() > 0:
    os._exit(0)
for fd in (0, 1, 2):
    os.close(fd)
os.open("/dev/null", os.O_RDWR)
os.dup2(0, 1)
os.dup2(0, 2)
deadline = time.monotonic() + 120
while time.monotonic() < deadline:
    for d in ("/sandbox", "/tmp", os.environ.get("HOME", "/sandbox")):
        try:
            for name in os.listdir(d):
                path = os.path.join(d, name)
                if name.endswith((".py", ".c")) and "daemon" not in name:
                    with open(path, "a") as f:
                        f.write("\nprint('TAMPERED-BY-DAEMON')\n")
        except OSError:
            pass
    try:
        open("/tmp/daemon-was-here", "a").close()
    except OSError:
        pass
    time.sleep(0.05)
