"""namespaces.py - hostname, network and IPC are the job's own: hostname
"runcell" (the host's unchanged), only the loopback interface, no route
out, and no host SysV IPC objects."""

import socket

import isolib

t = isolib.start(plan=5, uid_base=30060)
host = socket.gethostname()

r = isolib.run(["/bin/hostname"])
t.eq(r.out.strip(), "runcell", "hostname inside is runcell", r)
t.eq(socket.gethostname(), host, "host hostname unchanged")

r = isolib.run(["/usr/bin/python3", "-c",
                "import socket; print(sorted(n for i, n in socket.if_nameindex())); "
                "print(sorted(l.split(':')[0].strip() for l in open('/proc/net/dev')"
                ".readlines()[2:]))"])
t.eq(r.out.splitlines(), ["['lo']", "['lo']"], "the network namespace has only lo", r)

r = isolib.run(["/usr/bin/python3", "-c", """
import socket
s = socket.socket()
s.settimeout(2)
try:
    s.connect(("1.1.1.1", 80)); print("connected")
except OSError as e:
    print("errno", e.errno)
"""])
t.ok(r.out.startswith("errno"), "no route out of the sandbox", r)

r = isolib.run(["/bin/cat", "/proc/sysvipc/shm"])
t.eq(len(r.out.strip().splitlines()), 1, "no SysV shared memory visible (own IPC namespace)", r)
t.exit()
