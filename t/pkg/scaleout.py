"""scaleout.py - three runcell hosts behind one nginx, one host lost mid-load.

Tests docs/scale-out.md literally: the first ```nginx block of that page is
the front nginx's configuration (plus one add_header that reports which
host answered).  The machine is split with network namespaces:

    front ns: nginx on 127.0.0.1:4040, this test's HTTP client
      veth 10.213.N.1/24 <-> 10.213.N.2/24 in host ns N (N = 1, 2, 3)
    host ns N: runcell-fcgi from the build tree, --listen 10.213.N.2:9000

The addresses exist only inside these namespaces (both ends of every veth
live in them); the machine's own network is not touched.  Only the front
nginx and this test talk to the hosts.

What is checked:
  1. the page's configuration passes nginx -t and every host is reachable;
  2. session requests are pinned: the same session id always reaches the
     same host, and the ids spread over several hosts; so are process
     requests (/v1/processes/{id}), a session's process (its id starts with
     its session's) reaching its session's host; a process started through
     the front is used through it (stdin, its events, its status), and so
     is one started in a session;
  3. 60 POST /run (3 at a time, each checked by its computed answer) are
     balanced over the hosts; after 20, one host is stopped (SIGTERM, then
     SIGKILL after 5 s: a crash as far as nginx can tell); every request
     sent after that succeeds, on the remaining hosts;
  4. session requests for the lost host fail at once with a JSON 502, 503
     or 504 (not a hang, not a silent move to another host); session ids of
     the other hosts still reach their host.
The session ids are random ids no host knows, so each answer is the host's
own 404: pinning is observable without creating sessions.

Cleanup (always, also on failure): processes by PID, the hosts' cgroups
(by their unique names), the namespaces, the temp dir.  Needs root.
"""

import ctypes
import http.client
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import rcpaths
import tap

SRCDIR = os.environ.get("RC_TOP_SRCDIR") or os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..")
)
BUILDDIR = rcpaths.BUILDDIR
FCGI = os.environ.get("RC_FCGI_BIN") or os.path.join(BUILDDIR, "runcell-fcgi")
NGINX = "/usr/sbin/nginx"
N_HOSTS = 3
HOST_PORT = 9000
FRONT_PORT = 4040
N_RUNS = 60
STOP_AFTER = 20
CLIENTS = 3
N_IDS = 40
CLONE_NEWNET = 0x40000000

t = tap.Tap(plan=16)


def run(*args, timeout=30, check=True):
    return subprocess.run(list(args), timeout=timeout, check=check, capture_output=True, text=True)


def host_addr(n):
    return "10.213.%d.2" % n


class Cluster:
    def __init__(self):
        self.tag = "rso%d" % (os.getpid() % 100000)
        self.front = self.tag + "-f"
        self.hosts = ["%s-h%d" % (self.tag, n) for n in range(1, N_HOSTS + 1)]
        self.tmp = tempfile.mkdtemp(prefix="runcell-scaleout.")
        self.netns = []
        self.procs = {}  # name -> Popen
        self.logs = {}
        self.cgroup_names = ["%s-cg%d" % (self.tag, n) for n in range(1, N_HOSTS + 1)]
        self.uid_base = 500000 + (os.getpid() % 1000) * 256

    # -------------------------------------------------------------- network
    def setup_network(self):
        for ns in [self.front] + self.hosts:
            run("ip", "netns", "add", ns)
            self.netns.append(ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
        for n, ns in enumerate(self.hosts, 1):
            front_if, host_if = "%sf%d" % (self.tag, n), "%sh%d" % (self.tag, n)
            run("ip", "link", "add", front_if, "netns", self.front, "type", "veth",
                "peer", "name", host_if, "netns", ns)
            run("ip", "-n", self.front, "addr", "add", "10.213.%d.1/24" % n, "dev", front_if)
            run("ip", "-n", ns, "addr", "add", "%s/24" % host_addr(n), "dev", host_if)
            run("ip", "-n", self.front, "link", "set", front_if, "up")
            run("ip", "-n", ns, "link", "set", host_if, "up")

    def enter_front(self):
        """This process (and threads started later) joins the front ns."""
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open("/run/netns/" + self.front, os.O_RDONLY | os.O_CLOEXEC)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns " + self.front)
        finally:
            os.close(fd)

    # -------------------------------------------------------------- processes
    def spawn(self, name, ns, argv, env=None):
        log = open(os.path.join(self.tmp, name + ".log"), "wb")
        self.logs[name] = log.name
        # nsenter --net only: `ip netns exec` would also remount /sys and
        # hide the cgroup file system the sandbox needs.
        p = subprocess.Popen(["nsenter", "--net=/run/netns/" + ns] + argv, env=env,
                             stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                             start_new_session=True)
        log.close()
        self.procs[name] = p
        return p

    def start_host(self, n):
        state = os.path.join(self.tmp, "h%d" % n)
        os.makedirs(state, mode=0o700)
        env = {
            "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
            "LANG": "C.UTF-8",
            "RUN_LANGS_DIR": os.path.join(SRCDIR, "langs"),
            "RUN_LANGUAGES": "python",
            "RUN_STATE_DIR": os.path.join(state, "state"),
            "RUN_CGROUP_NAME": self.cgroup_names[n - 1],
            "RUN_UID_BASE": str(self.uid_base + (n - 1) * 64),
            "RUN_CONCURRENCY": "2",
            "RUN_SPARE_WORKERS": "1",
        }
        self.spawn("host%d" % n, self.hosts[n - 1],
                   [FCGI, "--listen", "%s:%d" % (host_addr(n), HOST_PORT)], env)

    def stop(self, name, grace=5.0):
        """SIGTERM, then SIGKILL for the process and its children left."""
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            return p.returncode if p else None
        kids = children(p.pid)
        p.send_signal(signal.SIGTERM)
        try:
            return p.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass
        for pid in [p.pid] + kids + children(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        try:
            return p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            return None

    def log_tail(self, name, lines=15):
        try:
            with open(self.logs[name], errors="replace") as f:
                return "".join(f.readlines()[-lines:])
        except (KeyError, OSError):
            return ""

    # -------------------------------------------------------------- cleanup
    def cleanup(self):
        for name in list(self.procs):
            self.stop(name, grace=3.0)
        remove_cgroups(self.cgroup_names)
        for ns in reversed(self.netns):
            run("ip", "netns", "del", ns, check=False)
        self.netns = []
        if os.environ.get("RC_KEEP_TMP") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)


def children(pid):
    """Direct children of pid, from /proc (no name matching)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2:].split()
        if len(fields) > 1 and fields[1] == str(pid):
            out.append(int(entry))
    return out


def remove_cgroups(names):
    """Removes what a killed host left of its cgroup subtree: the names are
    unique to this test, so nothing else can match them.  Processes still
    inside (jobs of our hosts) are killed by PID first."""
    found = []
    for root, dirs, _ in os.walk("/sys/fs/cgroup"):
        depth = root.count("/") - 3
        for d in dirs:
            if d in names:
                found.append(os.path.join(root, d))
        if depth >= 4:
            dirs[:] = []
        else:
            dirs[:] = [d for d in dirs if d not in names]
    for top in found:
        for _ in range(50):
            pids = []
            for root, _, files in os.walk(top):
                if "cgroup.procs" in files:
                    try:
                        with open(os.path.join(root, "cgroup.procs")) as f:
                            pids += [int(x) for x in f.read().split()]
                    except OSError:
                        pass
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            for root, _, _ in sorted(os.walk(top), key=lambda w: -len(w[0])):
                try:
                    os.rmdir(root)
                except OSError:
                    pass
            if not os.path.exists(top):
                break
            time.sleep(0.1)


# ------------------------------------------------------------------ nginx
def cluster_config():
    with open(os.path.join(SRCDIR, "docs", "scale-out.md"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"```nginx\n(.*?)```", text, re.S)
    if not m:
        raise RuntimeError("docs/scale-out.md has no ```nginx block")
    conf = m.group(1)
    # Which host answered: the last address nginx tried.
    conf, n = re.subn(r"(\nserver \{\n)", r"\1    add_header X-Upstream-Addr $upstream_addr always;\n",
                      conf, count=1)
    if n != 1:
        raise RuntimeError("no top-level server block in the page's configuration")
    return conf


def write_nginx(tmp):
    prefix = os.path.join(tmp, "nginx")
    os.makedirs(os.path.join(prefix, "logs"))
    os.makedirs(os.path.join(prefix, "tmp"))
    shutil.copy("/etc/nginx/fastcgi_params", os.path.join(prefix, "fastcgi_params"))
    with open(os.path.join(prefix, "cluster.conf"), "w") as f:
        f.write(cluster_config())
    with open(os.path.join(prefix, "nginx.conf"), "w") as f:
        f.write("""user root;
worker_processes 2;
daemon off;
pid %(p)s/nginx.pid;
error_log %(p)s/logs/error.log notice;
events { worker_connections 512; }
http {
    access_log %(p)s/logs/access.log;
    client_body_temp_path %(p)s/tmp/client_body;
    fastcgi_temp_path %(p)s/tmp/fastcgi;
    proxy_temp_path %(p)s/tmp/proxy;
    uwsgi_temp_path %(p)s/tmp/uwsgi;
    scgi_temp_path %(p)s/tmp/scgi;
    include %(p)s/cluster.conf;
}
""" % {"p": prefix})
    return prefix


# ------------------------------------------------------------------ HTTP (front ns)
class Answer:
    def __init__(self, status, body, upstream, elapsed):
        self.status = status
        self.body = body
        self.upstream = upstream
        self.elapsed = elapsed

    @property
    def host(self):
        """The host that answered: the last address nginx tried."""
        return self.upstream.split(",")[-1].strip() if self.upstream else None

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            return None


def request(method, path, body=None, timeout=60):
    started = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", FRONT_PORT, timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        return Answer(r.status, data.decode("utf-8", "replace"), r.getheader("X-Upstream-Addr"),
                      time.monotonic() - started)
    except (OSError, http.client.HTTPException) as e:
        return Answer(0, str(e), None, time.monotonic() - started)
    finally:
        conn.close()


def run_body(a, b):
    return json.dumps({
        "lang_slug": "python",
        "timeout": "20s",
        "solution_text": "def solution(a, b):\n    return a * b\n",
        "asserts": json.dumps({"arguments": [[a, b]]}),
        "checker_text": None,
    })


def run_ok(ans, a, b):
    doc = ans.json()
    if ans.status != 200 or not isinstance(doc, dict) or doc.get("exit_code") != 0:
        return False
    try:
        items = json.loads(doc["stdout"])
        return [i.get("value") for i in items if i.get("type") == "result"] == [a * b]
    except (ValueError, TypeError, AttributeError):
        return False


def session_probe(sid):
    return request("GET", "/sessions/%s/files/" % sid, timeout=30)


def process_probe(pid):
    return request("GET", "/v1/processes/" + pid, timeout=30)


def events(pid):
    """Every event of a process, through the front (to its exit)."""
    ans = request("GET", "/v1/processes/%s/events" % pid, timeout=60)
    out = []
    for block in ans.body.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.split("\n") if ": " in line)
        if "event" in fields:
            out.append((fields["event"], json.loads(fields.get("data", "null"))))
    return ans, out


def processes(c, rng, sids, owners):
    """Process requests are pinned by the process id, a session's process
    by its session's id; one started through the front works through it."""
    pids = ["%032x" % rng.getrandbits(128) for _ in range(N_IDS)]
    first = {p: process_probe(p) for p in pids}
    second = {p: process_probe(p) for p in pids}
    hosts = {p: first[p].host for p in pids}
    t.ok(all(a.status == 404 and (a.json() or {}).get("error") == "process not found"
             for a in first.values())
         and all(first[p].host == second[p].host for p in pids) and len(set(hosts.values())) >= 2,
         "the same process id always reaches the same host (runcell's 404); %d ids spread over "
         "%d hosts" % (len(pids), len(set(hosts.values()))),
         lambda: repr([(a.status, a.host, a.body[:60]) for a in first.values()][:5]))
    mine = {s: process_probe(s + "%032x" % rng.getrandbits(128)) for s in sids[:16]}
    t.ok(all(mine[s].status == 404 and mine[s].host == owners[s] for s in mine),
         "a session's process id (the session's id first) reaches its session's host",
         lambda: repr([(owners[s], a.host, a.status) for s, a in mine.items()][:5]))
    prog = json.dumps({"language": "python", "files": [{"name": "main.py", "content":
                       "print('echo', input(), flush=True)"}], "limits": {"idleMs": 20000}})
    made = request("POST", "/v1/processes", prog)
    pid = (made.json() or {}).get("id", "")
    fed = request("POST", "/v1/processes/%s/stdin" % pid, json.dumps({"data": "pinned\n"})) if pid else None
    stream, evs = events(pid) if pid else (None, [])
    status = process_probe(pid) if pid else None
    hosts = {a.host for a in (made, fed, stream, status) if a is not None}
    t.ok(made.status == 201 and fed.status == 204 and evs and evs[-1][0] == "exit"
         and evs[-1][1].get("stdout") == "echo pinned\n" and status.status == 200
         and len(hosts) == 1,
         "a process started through the front is used through it: stdin, events, status "
         "(all on %s)" % sorted(h for h in hosts if h),
         lambda: repr((made.status, made.body[:100], fed and fed.status, evs[-2:],
                       status and status.status, hosts)))
    sess = request("POST", "/sessions")
    sid = (sess.json() or {}).get("session_id", "")
    sp = request("POST", "/sessions/%s/processes" % sid, prog) if sid else None
    spid = (sp.json() or {}).get("id", "") if sp else ""
    fed = request("POST", "/v1/processes/%s/stdin" % spid,
                                    json.dumps({"data": "in a session\n"})) if spid else None
    stream, evs = events(spid) if spid else (None, [])
    t.ok(sp is not None and sp.status == 201 and spid.startswith(sid) and fed.status == 204
         and sp.host == sess.host == fed.host == stream.host and evs and evs[-1][0] == "exit"
         and evs[-1][1].get("stdout") == "echo in a session\n",
         "a session's process, started and used through the front, stays on its session's host",
         lambda: repr((sess.status, sess.host, sp and (sp.status, sp.host, sp.body[:100]),
                       fed and (fed.status, fed.host), evs[-2:]))
         + "\n" + "\n".join(c.log_tail(n, 30) for n in list(c.logs)))


# ------------------------------------------------------------------ the test
def port_open(addr, port):
    try:
        with socket.create_connection((addr, port), timeout=1):
            return True
    except OSError:
        return False


def wait(cond, limit):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.1)
    return False


def main():
    if os.geteuid() != 0:
        t.skip("needs root (network namespaces, the sandbox)", count=12)
        t.exit()
    if not os.access(FCGI, os.X_OK):
        t.bail("%s not built" % FCGI)
    c = Cluster()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
    try:
        body(c)
    finally:
        c.cleanup()
    t.exit()


def body(c):
    c.setup_network()
    c.enter_front()
    prefix = write_nginx(c.tmp)
    r = run(NGINX, "-t", "-p", prefix + "/", "-c", prefix + "/nginx.conf", check=False)
    t.ok(r.returncode == 0, "nginx -t accepts the configuration of docs/scale-out.md",
         r.stderr)

    for n in range(1, N_HOSTS + 1):
        c.start_host(n)
    c.spawn("nginx", c.front, [NGINX, "-p", prefix + "/", "-c", prefix + "/nginx.conf"])
    up = all(wait(lambda n=n: port_open(host_addr(n), HOST_PORT), 60) for n in range(1, N_HOSTS + 1))
    up = up and wait(lambda: request("GET", "/health", timeout=5).status == 200, 30)
    t.ok(up, "three runcell hosts listen on 10.213.{1,2,3}.2:9000; /health through nginx",
         lambda: "\n".join(c.log_tail(n) for n in list(c.logs)))
    if not up:
        t.bail("cluster did not start")

    # ---- pinning, all hosts up
    rng = random.Random()
    ids = ["%032x" % rng.getrandbits(128) for _ in range(N_IDS)]
    first = {sid: session_probe(sid) for sid in ids}
    second = {sid: session_probe(sid) for sid in ids}
    answered = all(a.status in (200, 404) and a.host for a in first.values())
    t.ok(answered, "session requests are answered by a runcell host (404: no such session)",
         lambda: repr([(a.status, a.body[:80]) for a in first.values()][:5]))
    same = all(first[s].host == second[s].host for s in ids)
    owners = {s: first[s].host for s in ids}
    spread = {h for h in owners.values() if h}
    t.ok(same and len(spread) >= 2,
         "the same session id always reaches the same host; %d ids spread over %d hosts"
         % (N_IDS, len(spread)),
         lambda: repr({h: list(owners.values()).count(h) for h in spread}))

    processes(c, rng, ids, owners)

    # The host with the most session ids is the one we lose.
    counts = {h: list(owners.values()).count(h) for h in spread}
    victim_addr = max(counts, key=counts.get)
    victim = [n for n in range(1, N_HOSTS + 1)
              if "%s:%d" % (host_addr(n), HOST_PORT) == victim_addr][0]

    # ---- load, one host lost after STOP_AFTER answers
    results = [None] * N_RUNS
    lock = threading.Lock()
    state = {"next": 0, "done": 0, "stopped_at": None}

    def client():
        while True:
            with lock:
                i = state["next"]
                if i >= N_RUNS:
                    return
                state["next"] += 1
            a, b = rng.randrange(100, 1000), rng.randrange(100, 1000)
            started = time.monotonic()
            ans = request("POST", "/run", run_body(a, b), timeout=90)
            results[i] = (started, ans, run_ok(ans, a, b))
            with lock:
                state["done"] += 1

    threads = [threading.Thread(target=client, daemon=True) for _ in range(CLIENTS)]
    for th in threads:
        th.start()
    wait(lambda: state["done"] >= STOP_AFTER, 120)
    c.stop("host%d" % victim, grace=5.0)
    state["stopped_at"] = time.monotonic()
    t.diag("stopped host %d (%s) after %d answers" % (victim, victim_addr, state["done"]))
    for th in threads:
        th.join(timeout=300)
    finished = all(r is not None for r in results) and not any(th.is_alive() for th in threads)
    t.ok(finished, "all %d POST /run requests finished (none hung)" % N_RUNS)
    done = [r for r in results if r is not None]
    before = [r for r in done if r[0] < state["stopped_at"]]
    after = [r for r in done if r[0] >= state["stopped_at"]]
    hosts_before = {r[1].host for r in before if r[2]}
    t.ok(len(hosts_before) >= 2, "before the stop, /run was balanced over %d hosts"
         % len(hosts_before))
    t.ok(len(after) >= 10 and all(r[2] for r in after),
         "every /run sent after the stop succeeded (%d/%d)"
         % (sum(1 for r in after if r[2]), len(after)),
         lambda: "\n".join("%s %s %s" % (r[1].status, r[1].upstream, r[1].body[:120])
                           for r in after if not r[2]))
    t.ok(not any(r[1].host == victim_addr for r in after),
         "no request after the stop was answered by the lost host")
    t.ok(all(r[2] for r in done),
         "all %d /run requests succeeded, including those in flight at the stop (%d ok)"
         % (N_RUNS, sum(1 for r in done if r[2])),
         lambda: "\n".join("%s %s %s" % (r[1].status, r[1].upstream, r[1].body[:120])
                           for r in done if not r[2]))

    # ---- sessions of the lost host fail clearly; the others stay put
    lost = [s for s in ids if owners[s] == victim_addr]
    kept = [s for s in ids if owners[s] != victim_addr]
    lost_ans = [session_probe(s) for s in lost]
    clear = all(a.status in (502, 503, 504) and isinstance(a.json(), dict)
                and "error" in a.json() for a in lost_ans)
    t.ok(lost and clear, "%d session requests of the lost host: JSON 502/503/504 (%s)"
         % (len(lost), sorted({a.status for a in lost_ans})),
         lambda: repr([(a.status, a.body[:100]) for a in lost_ans][:5]))
    slowest = max((a.elapsed for a in lost_ans), default=0.0)
    t.ok(lost and slowest < 10.0, "they fail fast, not hang (slowest %.2f s)" % slowest)
    kept_ans = {s: session_probe(s) for s in kept}
    t.ok(kept and all(kept_ans[s].host == owners[s] and kept_ans[s].status == first[s].status
                      for s in kept),
         "%d session ids of the other hosts still reach the same host" % len(kept),
         lambda: repr([(s, owners[s], kept_ans[s].host, kept_ans[s].status)
                       for s in kept if kept_ans[s].host != owners[s]][:5]))


if __name__ == "__main__":
    main()
