"""netns_reuse.py - the network namespace of a slot between two jobs
(docs/sandbox.md, "The per-job contract").

A slot's jobs run in its init's network namespace; the init gives the next
job a new one whenever the job before changed anything in it (a packet,
a socket left behind), and keeps it otherwise.  With one slot, job 1 leaves
a daemon holding a TCP listener, a UDP socket and an abstract Unix socket,
connects to it, and tries to take lo down and to write a net sysctl (both
must fail); job 2 runs in a new namespace (not the host's), finds nothing
listening, can bind the same names, and has lo up; job 3, after a job that
did not touch the network, runs in job 2's namespace... which job 2 did
touch: so job 4 is compared with job 3, both quiet.
"""

import json
import os

import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

PORT = 4321
ABSTRACT = "runcell-netns-reuse-test"

JOB1 = r"""
import fcntl, json, os, socket, struct, sys, time
PORT, NAME = %d, %r
out = {"ns": os.readlink("/proc/self/ns/net")}
r, w = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        tcp = socket.socket(); tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        tcp.bind(("127.0.0.1", PORT)); tcp.listen(8)
        udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("127.0.0.1", PORT))
        unx = socket.socket(socket.AF_UNIX); unx.bind("\0" + NAME); unx.listen(1)
        os.write(w, b"up")
        time.sleep(300)
    os._exit(0)
os.close(w)
out["daemon"] = os.read(r, 2).decode()
c = socket.socket(); c.settimeout(2)
out["daemon_reachable"] = c.connect_ex(("127.0.0.1", PORT)) == 0
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try:
    fcntl.ioctl(s, 0x8914, struct.pack("16sh22x", b"lo", 0))  # SIOCSIFFLAGS: down
    out["lo_down"] = "changed"
except OSError as e:
    out["lo_down"] = e.errno
try:
    with open("/proc/sys/net/ipv4/ip_local_port_range", "w") as f:
        f.write("40000 40001\n")
    out["sysctl"] = "written"
except OSError as e:
    out["sysctl"] = e.errno
print(json.dumps(out))
""" % (PORT, ABSTRACT)

JOB2 = r"""
import fcntl, json, os, socket, struct
PORT, NAME = %d, %r
out = {"ns": os.readlink("/proc/self/ns/net")}
c = socket.socket(); c.settimeout(2)
out["connect_old"] = c.connect_ex(("127.0.0.1", PORT))
tcp = socket.socket(); tcp.bind(("127.0.0.1", PORT)); tcp.listen(1)
d = socket.socket(); d.settimeout(2)
out["connect_new"] = d.connect_ex(("127.0.0.1", PORT))
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("127.0.0.1", PORT))
out["udp_bound"] = True
unx = socket.socket(socket.AF_UNIX); unx.bind("\0" + NAME)
out["abstract_bound"] = True
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
flags = struct.unpack("16sh22x", fcntl.ioctl(s, 0x8913, struct.pack("16sh22x", b"lo", 0)))[1]
out["lo_up"] = bool(flags & 1)
with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
    out["port_range"] = f.read().split()
print(json.dumps(out))
""" % (PORT, ABSTRACT)


def job(src):
    r = svc.post_json("/v1/execute",
                      {"language": "python", "files": [{"name": "main.py", "content": src}]},
                      timeout=60)
    try:
        return r, json.loads(r.json.get("stdout") or "null")
    except (ValueError, AttributeError):
        return r, None


r1, a = job(JOB1)
t.ok(a is not None and a.get("daemon") == "up" and a.get("daemon_reachable"),
     "job 1 left a daemon listening on 127.0.0.1:%d (TCP, UDP, abstract Unix)" % PORT,
     repr(r1))
a = a or {}
t.ok(isinstance(a.get("lo_down"), int), "job 1 cannot take lo down (errno %r)" % a.get("lo_down"))
t.ok(isinstance(a.get("sysctl"), int), "job 1 cannot write a net sysctl (errno %r)" % a.get("sysctl"))

r2, b = job(JOB2)
b = b or {}
t.ok(b.get("ns") is not None and a.get("ns") is not None and b.get("ns") != a.get("ns"),
     "job 1 used the network: job 2 runs in a new namespace (%s, %s)" % (a.get("ns"), b.get("ns")),
     repr(r2))
t.ok(b.get("ns") != os.readlink("/proc/self/ns/net"), "that namespace is not the host's")
t.ok(b.get("connect_old") not in (None, 0),
     "nothing of job 1 listens there any more (connect errno %r)" % b.get("connect_old"))
t.ok(b.get("connect_new") == 0 and b.get("udp_bound") and b.get("abstract_bound"),
     "job 2 binds the same TCP and UDP port and abstract name", repr(b))
t.ok(b.get("lo_up") is True, "lo is still up")
t.ok(b.get("port_range") not in (None, ["40000", "40001"]),
     "the net sysctls are unchanged (%r)" % (b.get("port_range"),))

QUIET = 'import os; print(os.readlink("/proc/self/ns/net"))'
r3 = svc.post_json("/v1/execute", {"language": "python", "files": [{"name": "main.py", "content": QUIET}]}, timeout=60)
r4 = svc.post_json("/v1/execute", {"language": "python", "files": [{"name": "main.py", "content": QUIET}]}, timeout=60)
n3 = (r3.json or {}).get("stdout", "").strip()
n4 = (r4.json or {}).get("stdout", "").strip()
t.ok(n3 and n3 != b.get("ns") and n4 == n3,
     "a job that did not touch the network leaves its namespace to the next (%s, %s, %s)"
     % (b.get("ns"), n3, n4))

svc.stop()
t.exit()
