"""root.py - the job's root is its own (issue 13): built from read-only
binds in a fresh tmpfs and pivoted into, so nothing else of the host
exists inside; no host unix socket is reachable; /proc's host activity
counters are empty and unwritable; every writable mount is nodev; and
/dev/shm shares /tmp's size budget."""

import os
import socket

import isolib

t = isolib.start(plan=19, uid_base=30160)

# Host-only paths: absent (ENOENT), not merely unreadable.
paths = ["/home", "/root", "/srv", "/var/log", "/etc/nginx", "/etc/shadow", "/run",
         "/work", "/opt/nuget", "/etc/default"]
host = [p for p in paths if os.path.lexists(p)]
t.ok(len(host) >= 4, "at least four of the probed paths exist on the host: %r" % host)
script = "; ".join("if [ -e %s ] || [ -L %s ]; then echo PRESENT %s; fi" % (p, p, p)
                   for p in paths)
r = isolib.sh(script + "; echo done")
t.ok("done" in r.out and "PRESENT" not in r.out, "host-only paths are absent in the job", r)

# The toolchain's basics are there: merged-usr links, ld.so.cache, passwd
# naming the slot uid.
r = isolib.sh("readlink /bin; test -f /etc/ld.so.cache && echo cache; id -un; "
              "grep -c . /etc/passwd")
t.ok(r.out.split()[:3] == [os.readlink("/bin"), "cache", "runner"],
     "merged-usr link, ld.so.cache, passwd names the slot uid", r)

# A unix socket made on the host, in places the old read-only root would
# have shown: the job gets ENOENT for each.
socks = []
for d in ("/run", "/tmp", "/var/tmp"):
    if not os.path.isdir(d):
        continue
    path = os.path.join(d, "rc-root-test-%d.sock" % os.getpid())
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass
    s.bind(path)
    os.chmod(path, 0o777)
    s.listen(4)
    socks.append((path, s))
t.ok(len(socks) >= 2, "host sockets created: %r" % [p for p, _ in socks])
code = ("import socket, errno\n"
        "for p in %r:\n"
        "    s = socket.socket(socket.AF_UNIX)\n"
        "    try:\n"
        "        s.connect(p); print('CONNECTED', p)\n"
        "    except OSError as e:\n"
        "        print(errno.errorcode[e.errno], p)\n") % [p for p, _ in socks]
r = isolib.run(["/usr/bin/python3", "c.py"], files={"c.py": code})
lines = r.out.split("\n")
t.ok(len(socks) > 0 and all(l.startswith("ENOENT ") for l in lines if l)
     and len([l for l in lines if l]) == len(socks), "every host socket: ENOENT", r)
# The well-known system sockets too, whether or not this host has them.
r = isolib.run(["/usr/bin/python3", "c.py"], files={"c.py": code.replace(
    repr([p for p, _ in socks]),
    repr(["/run/dbus/system_bus_socket", "/run/systemd/journal/socket",
          "/run/systemd/private", "/var/run/docker.sock"]))})
t.ok(r.out.count("ENOENT") == 4, "system bus, journald, docker sockets: ENOENT", r)
for p, s in socks:
    s.close()
    os.unlink(p)

# /proc side channels: empty and unwritable.
files = ["/proc/stat", "/proc/interrupts", "/proc/softirqs", "/proc/schedstat",
         "/proc/diskstats", "/proc/vmstat"]
script = "; ".join("printf '%%s %%s\\n' %s $(cat %s 2>/dev/null | wc -c)" % (f, f) for f in files)
r = isolib.sh(script)
sizes = dict(l.split() for l in r.out.strip().split("\n") if l)
t.ok(len(sizes) == len(files) and all(v == "0" for v in sizes.values()),
     "/proc counters are empty", r)
r = isolib.sh("; ".join("(echo 1 > %s) 2>/dev/null && echo WROTE %s" % (f, f) for f in files)
              + "; ls -A /proc/irq | wc -l; (touch /proc/irq/x) 2>/dev/null && echo WROTE irq;"
              " echo done")
t.ok("WROTE" not in r.out and r.out.split()[:2] == ["0", "done"],
     "/proc counters and /proc/irq are unwritable, /proc/irq is empty", r)

# hidepid holds: only the job's processes, never the root init.
r = isolib.sh("ls -d /proc/[0-9]* | wc -l")
t.ok(r.out.strip().isdigit() and int(r.out) <= 3, "hidepid: the init is not listed", r)

# nodev (and nosuid) on every writable mount and on the read-only root.
r = isolib.run(["/usr/bin/python3", "m.py"], files={"m.py": (
    "for l in open('/proc/self/mountinfo'):\n"
    "    f = l.split()\n"
    "    opts = f[5].split(',')\n"
    "    if f[4] in ('/', '/tmp', '/sandbox', '/usr', '/etc/ld.so.cache'):\n"
    "        print(f[4], 'nodev' in opts, 'nosuid' in opts, 'ro' in opts)\n")})
seen = {l.split()[0]: l.split()[1:] for l in r.out.strip().split("\n") if l}
t.ok(set(seen) >= {"/", "/tmp", "/sandbox", "/usr"}, "mounts listed", r)
t.ok(all(v[0] == "True" and v[1] == "True" for v in seen.values()),
     "every one is nodev,nosuid", r)
t.ok(seen.get("/", [0, 0, ""])[2] == "True" and seen.get("/usr", [0, 0, ""])[2] == "True",
     "the root and /usr are read-only", r)
r = isolib.sh("mknod /tmp/n c 1 3 2>&1; echo rc=$?")
t.ok("rc=0" not in r.out, "no device node can be made in /tmp", r)

# /dev/shm comes out of /tmp's budget: 6 MiB in each of an 8 MiB budget.
r = isolib.sh("dd if=/dev/zero of=/tmp/a bs=1M count=6 2>/dev/null && echo tmp-ok; "
              "dd if=/dev/zero of=/dev/shm/b bs=1M count=6 2>/dev/null && echo shm-ok; "
              "echo done", options=["--tmp-size", "8m"])
t.ok("tmp-ok" in r.out and "shm-ok" not in r.out and "done" in r.out,
     "/dev/shm and /tmp share one budget", r)
r = isolib.run(["/usr/bin/python3", "s.py"], files={"s.py": (
    "from multiprocessing import shared_memory\n"
    "s = shared_memory.SharedMemory(create=True, size=4096); s.buf[0] = 7\n"
    "print('shm', s.buf[0]); s.close(); s.unlink()\n")})
t.ok("shm 7" in r.out, "POSIX shared memory works through /dev/shm", r)

# /sys is not sysfs: the CPU lists and the job's own cgroup, no host-wide
# counter (block devices, IRQs, NUMA nodes, cpuidle, vmcoreinfo).
r = isolib.sh("cd /sys && find . -maxdepth 2 | sort | tr '\\n' ' '; echo; "
              "ls devices/system/cpu | tr '\\n' ' '; echo; cat devices/system/cpu/online")
lines = r.out.split("\n")
t.ok(len(lines) >= 3 and lines[0].split() == [".", "./devices", "./devices/system", "./fs",
                                              "./fs/cgroup"]
     and lines[1].split() == ["kernel_max", "online", "possible", "present"]
     and lines[2] == open("/sys/devices/system/cpu/online").read().strip(),
     "/sys holds the CPU lists (the host's) and the cgroup view only", r)
r = isolib.sh("mkdir /x 2>&1; ln -s /tmp /etc/y 2>&1; echo done")
t.ok(r.out.count("Read-only file system") == 2 and "done" in r.out,
     "nothing can be made in the root's own tmpfs", r)

# A language's host paths are bound read-only: a language of the test's
# own (a copy of bash's directory) declares a directory made here, outside
# every path the job's root has of its own.
import json
import shutil
base = "/opt/rc-root-test-%d" % os.getpid()
shutil.rmtree(base, ignore_errors=True)
os.makedirs(os.path.join(base, "data"))
with open(os.path.join(base, "data", "marker"), "w") as f:
    f.write("from the host\n")
shutil.copytree(os.path.join(isolib.TOP_SRC, "langs", "bash"),
                os.path.join(base, "langs", "roottest"))
with open(os.path.join(isolib.TOP_SRC, "langs", "bash", "manifest.json")) as f:
    man = json.load(f)
man.update(slug="roottest", aliases=[], hostPaths=[os.path.join(base, "data")])
with open(os.path.join(base, "langs", "roottest", "manifest.json"), "w") as f:
    json.dump(man, f)
saved = os.environ.get("RUN_LANGS_DIR")
os.environ["RUN_LANGS_DIR"] = os.path.join(base, "langs")
try:
    r = isolib.sh("cat %s/data/marker; touch %s/data/x 2>&1; ls %s" % (base, base, base),
                  options=["--lang", "roottest"])
finally:
    if saved is None:
        del os.environ["RUN_LANGS_DIR"]
    else:
        os.environ["RUN_LANGS_DIR"] = saved
    shutil.rmtree(base, ignore_errors=True)
t.ok(r.out.split("\n")[0] == "from the host" and "Read-only file system" in r.out
     and r.out.strip().split("\n")[-1] == "data",
     "a manifest's hostPaths entry is bound read-only, and nothing beside it", r)

# The job's view never reaches the host's /sandbox (the build site).
t.eq(os.listdir("/sandbox"), [], "host /sandbox is still empty")
t.exit()
