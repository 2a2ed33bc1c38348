"""fds.py - only fds 0-2 reach user code, stdin is a pipe or /dev/null and
never the caller's fd 0 (in a FastCGI worker that is the listen socket:
hostile-programs §0 #1), and there is no controlling tty."""

import os
import socket
import subprocess

import isolib

t = isolib.start(plan=8, uid_base=30040)

def fds(r):
    return [l.split() for l in r.out.splitlines() if l.startswith("fd ")]

r = isolib.run(["./probe", "fds"], probe=True)
got = fds(r)
t.eq([f[1] for f in got], ["0", "1", "2"], "only fds 0, 1, 2 are open", r)
t.ok(got and got[0][2] == "chr" and got[0][3] == "/dev/null", "no stdin: fd 0 is /dev/null", r)
t.ok(all(f[2] == "fifo" for f in got[1:]), "stdout and stderr are pipes", r)

# The caller's fd 0 is a listening socket, as in a FastCGI worker.
lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
path = os.path.join(isolib.TOP_BUILD, "t", "isolation", "fds-%d.sock" % os.getpid())
try:
    lsock.bind(path)
    lsock.listen(1)
    r = isolib.run(["./probe", "fds"], probe=True, stdin=lsock.fileno())
    got = fds(r)
    t.ok(got and got[0][2] == "chr" and not any(f[2] == "socket" for f in got),
         "caller's fd 0 (a listen socket) is not the job's stdin", r)
finally:
    lsock.close()
    os.unlink(path)

stdin_file = os.path.join(isolib.TOP_BUILD, "t", "isolation", "fds-%d.in" % os.getpid())
with open(stdin_file, "w") as f:
    f.write("line\n" * 1000)
try:
    r = isolib.sh("./probe fds; wc -l", probe=True, options=["--stdin", stdin_file])
    got = fds(r)
    t.ok(got and got[0][2] == "fifo" and r.out.strip().endswith("1000"),
         "with input: fd 0 is a pipe carrying it", r)
finally:
    os.unlink(stdin_file)

# 4 MiB in and out at once: stdin is written while output is drained, so
# a program that echoes before reading everything cannot deadlock us.
big = os.urandom(4 << 20)
with open(stdin_file, "wb") as f:
    f.write(big)
try:
    proc = subprocess.run([isolib.RUNCELL, "exec", "--output-max", "0", "--stdin", stdin_file,
                           "--result-json", "/dev/null", "--", "/bin/cat"],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    t.ok(proc.returncode == 0 and proc.stdout == big, "4 MiB through cat arrive intact",
         proc.stderr[-2000:])
finally:
    os.unlink(stdin_file)

r = isolib.run(["./probe", "tty"], probe=True)
lines = dict(l.split() for l in r.out.splitlines())
t.ok(lines.get("devtty") in ("6", "2"), "no controlling tty: /dev/tty fails (ENXIO/ENOENT)", r)
t.ok(lines.get("tiocsti") not in (None, "0"), "TIOCSTI on fd 0 fails", r)
t.exit()
