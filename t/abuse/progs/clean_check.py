# abuse: follow-up run on the same slot: nothing of the previous request is visible
# role: followup
# expect: exit=0 stdout~^clean$ !stdout~TAMPERED !stdout~LEFTOVER
import os
import sys

problems = []
me = os.getpid()


def parent_of(pid):
    try:
        return int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


# our own ancestors (the language's `sh -c` wrapper) are not leftovers
mine = {me}
p = parent_of(me)
while p > 1 and p not in mine:
    mine.add(p)
    p = parent_of(p)
for entry in os.listdir("/proc"):
    if entry.isdigit() and int(entry) not in mine:
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue  # the sandbox init is hidden (hidepid) or already gone
        if parent_of(int(entry)) != me:
            problems.append("LEFTOVER process %s: %s" % (entry, cmd))
for d in ("/tmp", "/dev/shm"):
    try:
        names = [n for n in os.listdir(d) if not n.startswith(".")]
    except OSError:
        continue
    if names:
        problems.append("LEFTOVER files in %s: %r" % (d, names[:10]))
for f in ("/proc/sysvipc/shm", "/proc/sysvipc/msg", "/proc/sysvipc/sem"):
    try:
        rows = open(f).read().splitlines()[1:]
    except OSError:
        continue
    if rows:
        problems.append("LEFTOVER ipc objects in %s: %d" % (f, len(rows)))
try:
    mq = os.listdir("/dev/mqueue")
    if mq:
        problems.append("LEFTOVER mqueues %r" % mq)
except OSError:
    pass
try:
    keys = open("/proc/keys").read().strip()
    if keys:
        problems.append("LEFTOVER keys: %r" % keys[:200])
except OSError:
    pass
for p in problems:
    print(p)
print("clean" if not problems else "not clean", flush=True)
sys.exit(0)
