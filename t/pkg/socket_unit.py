"""socket_unit.py - socket activation: packaging/runcell.socket and
runcell-socket.service, and runcell-fcgi started by systemd-socket-activate.

  - the units: runcell.socket listens where the package's nginx site points
    (0660, group www-data, Accept=no) and starts runcell-socket.service,
    which is runcell.service plus StandardInput=socket and
    UnsetEnvironment=RUN_LISTEN (nothing else drifts between the two);
    systemd-analyze verify accepts both (binaries pointed at the build);
  - the activation: systemd-socket-activate --inetd (the listening socket on
    fd 0, as StandardInput=socket gives it) holds a socket with no
    runcell-fcgi behind it until the first connection; nginx in front
    answers GET /health through it (runcell-fcgi started by that
    connection, in the activator's place), a POST /run runs a job, SIGTERM
    stops it with status 0.
Needs root (the sandbox) and systemd-socket-activate (package systemd).
"""
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time

import rchttp
import tap

t = tap.Tap()
SRC = rchttp.SRCDIR
BUILD = rchttp.BUILDDIR
PKG = os.path.join(SRC, "packaging")
ACTIVATE = shutil.which("systemd-socket-activate") or "/usr/bin/systemd-socket-activate"


def directives(path, section):
    """The NAME=VALUE lines of one section, in order (comments dropped)."""
    out, current = [], None
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            if line.startswith("["):
                current = line
                continue
            if current == "[%s]" % section:
                out.append(line)
    return out


def units():
    sock = directives(os.path.join(PKG, "runcell.socket"), "Socket")
    for want in ("ListenStream=/run/runcell/runcell.sock", "SocketGroup=www-data", "SocketMode=0660",
                 "Accept=no", "Service=runcell-socket.service"):
        t.ok(want in sock, "runcell.socket: %s" % want, repr(sock))
    with open(os.path.join(PKG, "runcell.default"), encoding="utf-8") as f:
        default = f.read()
    t.ok("RUN_LISTEN=unix:/run/runcell/runcell.sock" in default,
         "the socket is the path /etc/default/runcell names (RUN_LISTEN)")
    plain = directives(os.path.join(PKG, "runcell.service"), "Service")
    activated = directives(os.path.join(PKG, "runcell-socket.service"), "Service")
    missing = [d for d in plain if d not in activated]
    extra = sorted(d for d in activated if d not in plain)
    t.ok(not missing, "runcell-socket.service has every [Service] line of runcell.service", repr(missing))
    t.eq(extra, ["RuntimeDirectoryPreserve=yes", "StandardInput=socket", "UnsetEnvironment=RUN_LISTEN"],
         "runcell-socket.service adds only the socket's lines")
    unit = directives(os.path.join(PKG, "runcell-socket.service"), "Unit")
    t.ok("Requires=runcell.socket" in unit and "Conflicts=runcell.service" in unit,
         "runcell-socket.service requires its socket and conflicts with runcell.service", repr(unit))


def verify(tmp):
    if not shutil.which("systemd-analyze"):
        t.skip("systemd-analyze is not installed", name="systemd-analyze verify")
        return
    d = os.path.join(tmp, "units")
    os.makedirs(d)
    for name in ("runcell.socket", "runcell-socket.service", "runcell.service", "runcell.slice"):
        with open(os.path.join(PKG, name), encoding="utf-8") as f:
            text = f.read()
        text = text.replace("/usr/sbin/runcell-fcgi", os.path.join(BUILD, "runcell-fcgi"))
        text = text.replace("/usr/bin/runcell", os.path.join(BUILD, "runcell"))
        with open(os.path.join(d, name), "w", encoding="utf-8") as f:
            f.write(text)
    proc = subprocess.run(["systemd-analyze", "verify", "--man=no",
                           os.path.join(d, "runcell.socket"), os.path.join(d, "runcell-socket.service")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=60, cwd=d,
                          env=dict(os.environ, SYSTEMD_LOG_LEVEL="info"))
    out = proc.stdout.decode(errors="replace")
    # Units the test machine lacks (nginx.service, sockets.target ...) are
    # not the units' fault; anything else is.
    lines = [l for l in out.splitlines() if l.strip() and "not found" not in l]
    t.ok(proc.returncode == 0 and not lines, "systemd-analyze verify runcell.socket runcell-socket.service",
         out)


def exe_name(pid):
    try:
        return os.path.basename(os.readlink("/proc/%d/exe" % pid))
    except OSError:
        return None


def render(template, out, values):
    args = ["/usr/bin/python3", os.path.join(SRC, "nginx", "render"), os.path.join(SRC, "nginx", template)]
    args += ["%s=%s" % kv for kv in values.items()]
    with open(out, "w") as f:
        subprocess.run(args, stdout=f, check=True, env={"PATH": "/usr/bin:/bin"})


def activation(tmp):
    sock = os.path.join(tmp, "runcell.sock")
    for d in ("logs", "tmp", "state"):
        os.makedirs(os.path.join(tmp, d))
    name = "rcsock-%d" % os.getpid()
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8",
           "RUN_LANGS_DIR": os.path.join(SRC, "langs"), "RUN_LANGUAGES": "python",
           "RUN_STATE_DIR": os.path.join(tmp, "state"), "RUN_CGROUP_NAME": name,
           "RUN_UID_BASE": str(400000 + (os.getpid() % 1000) * 64), "RUN_CONCURRENCY": "2"}
    # StandardInput=socket: the listening socket on fd 0 (and 1); the unit's
    # ExecStart, with the build's binary.
    plain = directives(os.path.join(PKG, "runcell-socket.service"), "Service")
    exec_start = [d.split("=", 1)[1] for d in plain if d.startswith("ExecStart=")][0].split()
    exec_start[0] = os.path.join(BUILD, os.path.basename(exec_start[0]))
    log = open(os.path.join(tmp, "runcell.log"), "wb")
    cmd = [ACTIVATE, "--inetd", "-l", sock]
    for k, v in env.items():
        cmd += ["-E", "%s=%s" % (k, v)]
    proc = subprocess.Popen(cmd + exec_start, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            env=env, start_new_session=True)
    log.close()
    nginx = None
    try:
        rchttp.wait_until(lambda: os.path.exists(sock) or proc.poll() is not None, 10)
        t.ok(os.path.exists(sock), "systemd-socket-activate listens on the socket")
        time.sleep(0.3)
        t.eq(exe_name(proc.pid), "systemd-socket-activate",
             "nothing is started before the first connection")
        port = rchttp.free_port()
        render("runcell.conf.in", os.path.join(tmp, "site.conf"),
               {"PORT": str(port), "BIND_ADDRESS": "127.0.0.1", "RUNCELL_UPSTREAM": "unix:" + sock})
        render("nginx.conf.in", os.path.join(tmp, "nginx.conf"),
               {"NGINX_USER": "root", "NGINX_DAEMON": "off", "NGINX_WORKERS": "1",
                "SITE_CONF": "site.conf"})
        nginx = subprocess.Popen([rchttp.NGINX, "-p", tmp + "/", "-c", os.path.join(tmp, "nginx.conf")],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL, start_new_session=True)
        svc = rchttp.Service.__new__(rchttp.Service)
        svc.port = port

        def up():
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return True
            except OSError:
                return False

        rchttp.wait_until(up, 10)
        t0 = time.monotonic()
        r = svc.get("/health", timeout=60)
        t.ok(r.status == 200 and r.body == b"ok\n",
             "the first GET /health through nginx starts runcell-fcgi and is answered (%.2f s)"
             % (time.monotonic() - t0), lambda: repr(r) + "\n" + tail(tmp))
        t.eq(exe_name(proc.pid), "runcell-fcgi", "runcell-fcgi runs in the activator's place (same PID)")
        t.ok(len(rchttp.children_of(proc.pid)) >= 2, "it pre-forked its workers")
        r = svc.post_json("/run", rchttp.run_body("def solution(a, b):\n    return a * b\n",
                                                  asserts={"arguments": [[6, 7]]}, timeout="10s"))
        t.ok(r.status == 200 and rchttp.checker_results((r.json or {}).get("stdout", "")) == [42],
             "POST /run runs a job through the activated socket", repr(r))
        proc.send_signal(signal.SIGTERM)
        try:
            status = proc.wait(timeout=40)
        except subprocess.TimeoutExpired:
            status = None
        t.eq(status, 0, "SIGTERM stops runcell-fcgi with status 0", tail(tmp))
    finally:
        # Every process started here, with its children: nginx's worker
        # outlives a SIGKILLed master, so it is ended by PID too.
        kids = [pid for p in (proc, nginx) if p is not None and p.poll() is None
                for pid in rchttp.descendants_of(p.pid)]
        if nginx is not None and nginx.poll() is None:
            nginx.terminate()  # nginx's fast shutdown ends its worker too
            try:
                nginx.wait(10)
            except subprocess.TimeoutExpired:
                pass
        for p in (proc, nginx):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait(10)
        for pid in kids:
            if rchttp.pid_alive(pid):
                os.kill(pid, signal.SIGKILL)
        for d in rchttp.leftover_cgroups(name):
            rchttp._remove_cgroup_tree(d)


def tail(tmp):
    try:
        with open(os.path.join(tmp, "runcell.log"), "rb") as f:
            return f.read()[-3000:].decode(errors="replace")
    except OSError as e:
        return str(e)


def main():
    units()
    if os.geteuid() != 0:
        t.skip("needs root (the sandbox)", count=1, name="socket activation")
        t.exit()
    tmp = tempfile.mkdtemp(prefix="rcsocket-")
    try:
        verify(tmp)
        if not os.access(ACTIVATE, os.X_OK):
            t.skip("systemd-socket-activate is not installed (package systemd)", name="socket activation")
        else:
            activation(tmp)
    finally:
        if os.environ.get("RC_KEEP_TMP") != "1":
            shutil.rmtree(tmp, ignore_errors=True)
    t.exit()


if __name__ == "__main__":
    main()
