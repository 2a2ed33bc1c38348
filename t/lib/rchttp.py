"""rchttp.py - run a real runcell behind a real nginx, for the HTTP tests.

nginx-tests style: each test file gets its own throw-away deployment

    with rchttp.Service(env={"RUN_CONCURRENCY": "2"}) as svc:
        r = svc.post_json("/run", {...})
        r.status, r.json, r.body, r.headers

What start() does:
  1. makes a private temp dir (the nginx prefix, the runcell socket and
     state dir, every log);
  2. starts runcell-fcgi from RC_TOP_BUILDDIR on a unix socket in it, with a
     unique RUN_CGROUP_NAME and RUN_UID_BASE so concurrent test instances
     never share a cgroup or a slot uid, RUN_LANGS_DIR = the source tree's
     langs/, and the caller's overrides on top of a scrubbed environment;
  3. renders nginx/nginx.conf.in and nginx/runcell.conf.in with nginx/render
     (the same renderer ./quickstart uses) on a free loopback port and starts
     `nginx -p <tmp> -c <tmp>/nginx.conf` in the foreground;
  4. waits (bounded) for GET /health to answer 200 through nginx.

stop() sends SIGTERM to both (by PID), waits a bounded time, then SIGKILLs
them and whatever children they left (by PID).  It runs from the context
manager, from atexit, and on SIGTERM/SIGINT, so a failing or interrupted
test never leaves a service behind.  Only the Python standard library.

Environment knobs: RC_FCGI_BIN (another backend binary), RC_KEEP_TMP=1
(keep the temp dir for a post-mortem), RCHTTP_RUN_SANDBOX (RUN_SANDBOX for
every instance, e.g. "off" to try the tests without the sandbox).
"""

import atexit
import http.client
import json
import os
import pwd
import random
import shutil
import signal
import socket
import subprocess
import tempfile
import time

from rcpaths import BUILDDIR, SRCDIR
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"

# Variables that configure runcell: never inherited from the caller's shell,
# so a developer's exported RUN_CONCURRENCY cannot change what a test sees.
_SCRUB_PREFIXES = ("RUN_",)
_SCRUB_NAMES = ("ALLOW_SHUTDOWN", "DEBUG", "PORT")

_live = []


class StartError(RuntimeError):
    pass


class Response:
    def __init__(self, status, reason, headers, body, elapsed):
        self.status = status
        self.reason = reason
        self.headers = headers  # lower-case name -> value
        self.body = body  # bytes
        self.elapsed = elapsed  # seconds

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    @property
    def json(self):
        """The body parsed strictly: UTF-8 and JSON, or None."""
        try:
            return json.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return None

    def __repr__(self):
        body = self.body[:300]
        more = "..." if len(self.body) > 300 else ""
        return "<%d %s %r%s>" % (self.status, self.reason, body, more)


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            # A zombie has exited; only its parent's wait is missing.
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def children_of(ppid):
    """PIDs whose parent is ppid, from /proc (no psutil)."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == ppid:
            out.append(int(entry))
    return out


def descendants_of(pid):
    out, todo = [], [pid]
    while todo:
        for child in children_of(todo.pop()):
            out.append(child)
            todo.append(child)
    return out


def status_field(pid, key):
    """The first number of a /proc/<pid>/status line ("VmRSS", "Uid"), 0
    when the line is missing, None when the process is gone."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return 0


def rss_kb(pid):
    """VmRSS of one process in KiB, or None when it is gone."""
    return status_field(pid, "VmRSS")


def pids_with_marker(marker):
    """Host PIDs whose command line contains marker (bytes or str).  Works
    whatever PID namespace the process lives in, since we read the host's
    /proc.  Zombies have an empty cmdline and do not count."""
    if isinstance(marker, str):
        marker = marker.encode()
    me = os.getpid()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                if marker in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def wait_until(cond, timeout, interval=0.05):
    """Polls cond() until it is true or timeout seconds pass; returns the
    last value of cond()."""
    deadline = time.monotonic() + timeout
    while True:
        value = cond()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(interval)


def _own_cgroup_dirs():
    """Directories of this process's cgroups, one per mounted hierarchy."""
    ours = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, controllers, path = line.rstrip("\n").split(":", 2)
                ours[controllers] = path
    except OSError:
        return []
    dirs = []
    try:
        with open("/proc/self/mountinfo") as f:
            mounts = f.read().splitlines()
    except OSError:
        return []
    for line in mounts:
        left, _, right = line.partition(" - ")
        fields, rfields = left.split(), right.split()
        if len(rfields) < 3 or rfields[0] not in ("cgroup", "cgroup2"):
            continue
        root, mountpoint = fields[3], fields[4]
        if rfields[0] == "cgroup2":
            key = ""
        else:
            opts = set(rfields[2].split(","))
            key = next((k for k in ours if k and set(k.split(",")) <= opts), None)
            if key is None:
                continue
        path = ours.get(key)
        if path is None or not path.startswith(root):
            continue
        rel = path[len(root):].lstrip("/")
        dirs.append(os.path.join(mountpoint, rel))
    return dirs


def leftover_cgroups(name):
    """Existing cgroup directories called name below our own cgroups."""
    return [d for d in (os.path.join(base, name) for base in _own_cgroup_dirs()) if os.path.isdir(d)]


def _remove_cgroup_tree(path):
    """rmdir bottom-up; a cgroup with processes in it stays (and is
    reported by leftover_cgroups)."""
    for dirpath, dirnames, _ in os.walk(path, topdown=False):
        for d in dirnames:
            try:
                os.rmdir(os.path.join(dirpath, d))
            except OSError:
                pass
    try:
        os.rmdir(path)
    except OSError:
        pass


def _stop_all(*_):
    while _live:
        _live[-1].stop()


def _on_signal(signum, frame):
    _stop_all()
    raise SystemExit(128 + signum)


atexit.register(_stop_all)


class Service:
    """One runcell-fcgi + one nginx.  Arguments:
    env            extra variables for runcell-fcgi (RUN_INPUT_MAX, ...)
    languages      RUN_LANGUAGES (default "python")
    nginx_body_max nginx's client_max_body_size, when it must differ from
                   RUN_INPUT_MAX (to reach the backend's own 413)
    site           more nginx/render values for the site (NGINX_CONN_PER_CLIENT,
                   CLIENT_KEY_HEADER, ...)
    nginx_judge_body_max  the same for POST /v1/judge (RUN_JUDGE_INPUT_MAX)
    start_timeout  seconds to wait for the socket and /health
    """

    def __init__(self, env=None, languages="python", nginx_body_max=None, start_timeout=60,
                 name="rchttp", nginx_judge_body_max=None, site=None):
        self.extra_env = dict(env or {})
        self.languages = languages
        self.nginx_body_max = nginx_body_max
        self.nginx_judge_body_max = nginx_judge_body_max
        self.site = dict(site or {})
        self.start_timeout = start_timeout
        self.name = name
        self.tmp = None
        self.port = None
        self.fcgi = None
        self.nginx = None
        self.cgroup_name = "rctest-%d-%x" % (os.getpid(), random.getrandbits(32))
        # Far above the default 10001 so a test never shares a slot uid with
        # a service running on the machine or another test instance.
        self.uid_base = 200000 + random.randrange(0, 100000) * 64
        self._fcgi_children = []
        self._nginx_children = []

    # -- life cycle ---------------------------------------------------------

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    @property
    def socket_path(self):
        return os.path.join(self.tmp, "runcell.sock")

    @property
    def fcgi_log(self):
        return os.path.join(self.tmp, "runcell.log")

    def runcell_env(self):
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(_SCRUB_PREFIXES) and k not in _SCRUB_NAMES}
        env.update({
            "RUN_LISTEN": "unix:" + self.socket_path,
            "RUN_LANGS_DIR": os.path.join(SRCDIR, "langs"),
            "RUN_STATE_DIR": os.path.join(self.tmp, "state"),
            "RUN_CGROUP_NAME": self.cgroup_name,
            "RUN_UID_BASE": str(self.uid_base),
            "PORT": str(self.port),
        })
        if self.languages:
            env["RUN_LANGUAGES"] = self.languages
        if os.environ.get("RCHTTP_RUN_SANDBOX"):
            # Developer knob: e.g. "off" to try the tests without the sandbox.
            env["RUN_SANDBOX"] = os.environ["RCHTTP_RUN_SANDBOX"]
        env.update({k: str(v) for k, v in self.extra_env.items()})
        return env

    def start(self):
        if signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
            signal.signal(signal.SIGTERM, _on_signal)
        self.tmp = tempfile.mkdtemp(prefix="rchttp-")
        # nginx runs as our own user (see nginx.conf.in), so 0700 is enough.
        os.chmod(self.tmp, 0o700)
        for d in ("logs", "tmp", "state"):
            os.makedirs(os.path.join(self.tmp, d), exist_ok=True)
        _live.append(self)
        try:
            self._start_fcgi()
            for attempt in range(3):
                # free_port() can race with another process; retry on EADDRINUSE.
                if self._start_nginx():
                    break
                if attempt == 2:
                    raise StartError("nginx did not start:\n" + self.nginx_log_tail())
            self._wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def _start_fcgi(self):
        binary = os.environ.get("RC_FCGI_BIN") or os.path.join(BUILDDIR, "runcell-fcgi")
        if not os.access(binary, os.X_OK):
            raise StartError("no runcell-fcgi at %s (build first)" % binary)
        self.port = free_port()
        log = open(self.fcgi_log, "ab")
        try:
            self.fcgi = subprocess.Popen(
                [binary], env=self.runcell_env(), stdin=subprocess.DEVNULL, stdout=log,
                stderr=subprocess.STDOUT, start_new_session=True, close_fds=True)
        finally:
            log.close()

        def ready():
            return self.fcgi.poll() is not None or os.path.exists(self.socket_path)

        wait_until(ready, self.start_timeout)
        if self.fcgi.poll() is not None:
            raise StartError("runcell-fcgi exited with %s at start:\n%s"
                             % (self.fcgi.returncode, self.fcgi_log_tail()))
        if not os.path.exists(self.socket_path):
            raise StartError("runcell-fcgi made no socket in %ds:\n%s"
                             % (self.start_timeout, self.fcgi_log_tail()))

    def _render(self, template, out, values):
        args = [os.path.join(SRCDIR, "nginx", "render"), os.path.join(SRCDIR, "nginx", template)]
        args += ["%s=%s" % kv for kv in values.items()]
        with open(out, "w") as f:
            proc = subprocess.run(["/usr/bin/python3"] + args, stdout=f, stderr=subprocess.PIPE,
                                  env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")})
        if proc.returncode != 0:
            raise StartError("render %s: %s" % (template, proc.stderr.decode(errors="replace")))

    def _start_nginx(self):
        if self.nginx is not None:
            self.port = free_port()
        env = self.runcell_env()
        site = {
            "PORT": str(self.port),
            "BIND_ADDRESS": "127.0.0.1",
            "RUN_INPUT_MAX": env.get("RUN_INPUT_MAX", "1048576"),
            "RUN_JUDGE_INPUT_MAX": env.get("RUN_JUDGE_INPUT_MAX", "64m"),
            "RUNCELL_UPSTREAM": "unix:" + self.socket_path,
            "OPENAPI_FILE": os.path.join(SRCDIR, "docs", "openapi.yaml"),
            "PLAYGROUND_DIR": os.path.join(BUILDDIR, "playground"),
        }
        if self.nginx_body_max is not None:
            site["NGINX_BODY_MAX"] = str(self.nginx_body_max)
        if self.nginx_judge_body_max is not None:
            site["NGINX_JUDGE_BODY_MAX"] = str(self.nginx_judge_body_max)
        site.update({k: str(v) for k, v in self.site.items()})
        # bench/ab_front.py compares kept and per-request FastCGI connections.
        for knob in ("FASTCGI_KEEP_CONN", "FASTCGI_KEEPALIVE"):
            if os.environ.get("RCHTTP_" + knob):
                site[knob] = os.environ["RCHTTP_" + knob]
        self._render("runcell.conf.in", os.path.join(self.tmp, "runcell-site.conf"), site)
        self._render("nginx.conf.in", os.path.join(self.tmp, "nginx.conf"), {
            "NGINX_USER": pwd.getpwuid(os.geteuid()).pw_name,
            "NGINX_DAEMON": "off",
            "NGINX_WORKERS": "2",
            "SITE_CONF": "runcell-site.conf",
        })
        err = open(os.path.join(self.tmp, "logs", "nginx.stderr"), "ab")
        try:
            self.nginx = subprocess.Popen(
                [NGINX, "-p", self.tmp + "/", "-c", os.path.join(self.tmp, "nginx.conf")],
                stdin=subprocess.DEVNULL, stdout=err, stderr=subprocess.STDOUT,
                start_new_session=True, close_fds=True)
        finally:
            err.close()

        def listening():
            if self.nginx.poll() is not None:
                return True
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return True
            except OSError:
                return False

        wait_until(listening, 10)
        return self.nginx.poll() is None

    def _wait_healthy(self):
        last = [None]

        def healthy():
            if self.fcgi.poll() is not None or self.nginx.poll() is not None:
                return True
            r = self.get("/health", timeout=5)
            last[0] = r
            return r.status == 200

        wait_until(healthy, self.start_timeout, 0.1)
        if self.fcgi.poll() is not None:
            raise StartError("runcell-fcgi exited with %s:\n%s"
                             % (self.fcgi.returncode, self.fcgi_log_tail()))
        if self.nginx.poll() is not None:
            raise StartError("nginx exited with %s:\n%s"
                             % (self.nginx.returncode, self.nginx_log_tail()))
        if not (isinstance(last[0], Response) and last[0].status == 200):
            raise StartError("GET /health never answered 200 (last: %r):\n%s"
                             % (last[0], self.fcgi_log_tail()))

    @staticmethod
    def _terminate(proc, children, sig, grace):
        """Signals proc, waits up to grace seconds, then SIGKILLs it and the
        given children; all by PID.  Returns the exit status."""
        if proc is None:
            return None
        if proc.poll() is None:
            try:
                proc.send_signal(sig)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
        for pid in children:
            if pid_alive(pid):
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return proc.returncode

    def remember_children(self):
        """Records the current descendants so stop() can SIGKILL stragglers
        whose parent is gone (they would be re-parented away from us)."""
        if self.fcgi is not None and self.fcgi.poll() is None:
            self._fcgi_children = descendants_of(self.fcgi.pid)
        if self.nginx is not None and self.nginx.poll() is None:
            self._nginx_children = descendants_of(self.nginx.pid)

    def stop(self, grace=20):
        if self in _live:
            _live.remove(self)
        self.remember_children()
        self._terminate(self.nginx, self._nginx_children, signal.SIGTERM, 10)
        status = self._terminate(self.fcgi, self._fcgi_children, signal.SIGTERM, grace)
        for d in leftover_cgroups(self.cgroup_name):
            _remove_cgroup_tree(d)
        if self.tmp and os.environ.get("RC_KEEP_TMP") != "1":
            shutil.rmtree(self.tmp, ignore_errors=True)
        elif self.tmp:
            print("# rchttp: kept %s" % self.tmp)
        return status

    # -- inspection -----------------------------------------------------------

    def _tail(self, path, lines):
        try:
            with open(path, "rb") as f:
                data = f.read()[-65536:]
        except OSError as e:
            return "(%s)" % e
        return "\n".join(data.decode("utf-8", "replace").splitlines()[-lines:])

    def fcgi_log_tail(self, lines=40):
        return self._tail(self.fcgi_log, lines)

    def logged_requests(self, path, lines=5000):
        """The request log lines of path (the last `lines` of the log),
        parsed, oldest first."""
        out = []
        for line in self.fcgi_log_tail(lines).splitlines():
            if '"event":"request"' in line and '"%s"' % path in line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    pass
        return out

    def nginx_log_tail(self, lines=20):
        return (self._tail(os.path.join(self.tmp, "logs", "nginx.stderr"), lines) + "\n"
                + self._tail(os.path.join(self.tmp, "logs", "error.log"), lines))

    def master_pid(self):
        return self.fcgi.pid if self.fcgi is not None else None

    def worker_pids(self):
        """runcell-fcgi's direct children: its pre-forked workers."""
        return children_of(self.fcgi.pid) if self.fcgi is not None else []

    def workers_rss_kb(self):
        """{pid: VmRSS KiB} of every worker."""
        return {pid: rss_kb(pid) for pid in self.worker_pids()}

    # -- HTTP -----------------------------------------------------------------

    def request(self, method, path, body=None, headers=None, timeout=120):
        """One request on a fresh connection.  A transport failure (refused,
        reset, timed out) is not raised: it comes back as status 0 with the
        error as reason, so a test records a failure and carries on."""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        t0 = time.monotonic()
        try:
            conn.request(method, path, body=body, headers=headers or {})
            resp = conn.getresponse()
            data = resp.read()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
            return Response(resp.status, resp.reason, hdrs, data, time.monotonic() - t0)
        except (OSError, http.client.HTTPException) as e:
            return Response(0, "transport error: %r" % e, {}, b"", time.monotonic() - t0)
        finally:
            conn.close()

    def get(self, path, headers=None, timeout=120):
        return self.request("GET", path, headers=headers, timeout=timeout)

    def post_json(self, path, obj, headers=None, timeout=120):
        body = obj if isinstance(obj, (bytes, str)) else json.dumps(obj)
        if isinstance(body, str):
            body = body.encode("utf-8")
        hdrs = {"Content-Type": "application/json"}
        hdrs.update(headers or {})
        return self.request("POST", path, body=body, headers=hdrs, timeout=timeout)

    def raw(self, data, timeout=30):
        """Sends data as-is on a fresh connection (the caller writes the
        request line and headers; add "Connection: close") and parses what
        comes back.  For what http.client will not send: lying lengths,
        odd encodings, bare bytes."""
        chunks = []
        t0 = time.monotonic()
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            try:
                s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            while True:
                try:
                    chunk = s.recv(65536)
                except socket.timeout:
                    break
                if not chunk:
                    break
                chunks.append(chunk)
        blob = b"".join(chunks)
        head, _, body = blob.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        try:
            _, code, *reason = lines[0].split(" ", 2)
            status = int(code)
        except (ValueError, IndexError):
            return Response(0, "no response", {}, blob, time.monotonic() - t0)
        hdrs = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            hdrs[name.strip().lower()] = value.strip()
        if hdrs.get("transfer-encoding", "").lower() == "chunked":
            body = _dechunk(body)
        return Response(status, reason[0] if reason else "", hdrs, body, time.monotonic() - t0)


def _dechunk(data):
    out = []
    while data:
        size_line, _, rest = data.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out.append(rest[:size])
        data = rest[size + 2:]
    return b"".join(out)


# -- /run helpers shared by the tests ------------------------------------------

def run_body(solution, lang="python", asserts=None, timeout=None, checker=None, **extra):
    """A /run request as Codebattle sends it: checker_text always present
    (null for dynamic languages), asserts a JSON *string*."""
    body = {"checker_text": checker, "lang_slug": lang, "solution_text": solution}
    if timeout is not None:
        body["timeout"] = timeout
    if asserts is not None:
        body["asserts"] = asserts if isinstance(asserts, str) else json.dumps(asserts)
    body.update(extra)
    return body


# A python /run solution that keeps its slot busy for about 4 s, with a
# marker in its command line so the test can see it running.
_LONG_RUN = """
import subprocess, sys
subprocess.run([sys.executable, "-c", "import time; time.sleep(4)", "{marker}"])
def solution(a, b):
    return a + b
"""


def start_long_runs(svc, prefix, n=2):
    """Starts n long /run jobs in threads (job i asserts [i, 1]); returns
    (markers, answers, threads): answers[i] is job i's response (or the
    exception) once threads[i] has ended."""
    import threading
    import uuid
    markers = ["%s-%d-%s" % (prefix, i, uuid.uuid4().hex) for i in range(n)]
    answers = {}

    def job(i):
        body = run_body(_LONG_RUN.format(marker=markers[i]), asserts={"arguments": [[i, 1]]},
                        timeout="30s")
        try:
            answers[i] = svc.post_json("/run", body, timeout=60)
        except Exception as e:  # noqa: BLE001 - the caller reports it
            answers[i] = e

    threads = [threading.Thread(target=job, args=(i,)) for i in range(n)]
    for th in threads:
        th.start()
    return markers, answers, threads


def checker_items(stdout):
    """The JSON items a language checker printed: one JSON array, or one
    JSON object per line (both framings the client accepts).  Lines that
    are not JSON (the program's own prints) are ignored."""
    text = stdout.strip()
    try:
        value = json.loads(text)
        if isinstance(value, list):
            return [v for v in value if isinstance(v, dict)]
    except ValueError:
        pass
    items = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, list):
            items.extend(v for v in value if isinstance(v, dict))
        elif isinstance(value, dict):
            items.append(value)
    return items


def checker_results(stdout):
    """The "value" of every item of type "result", in order."""
    return [i.get("value") for i in checker_items(stdout) if i.get("type") == "result"]


def json_error(resp, status, message=None):
    """(ok, explanation): resp has the status, a JSON content type and a body
    {"error": "<message>"} (message None: any non-empty string)."""
    problems = []
    if resp.status != status:
        problems.append("status %d, want %d" % (resp.status, status))
    ctype = resp.headers.get("content-type", "")
    if not ctype.startswith("application/json"):
        problems.append("content-type %r, want application/json" % ctype)
    body = resp.json
    if not isinstance(body, dict) or not isinstance(body.get("error"), str) or not body["error"]:
        problems.append("body is not {\"error\": \"...\"}")
    elif message is not None and body["error"] != message:
        problems.append("error %r, want %r" % (body["error"], message))
    return (not problems, "; ".join(problems) + "\nresponse: %r" % resp)


# Python source that defines OUT: the job's real stdout fd.  runcell's
# python checker points fd 1 at a scratch file while the solution runs and
# keeps the real stdout on a duplicate; tests about runcell's own stream
# handling (raw bytes, partial output at a timeout) must write past that
# capture.  OUT is the lowest fd >= 3 that is a pipe, socket or device and
# not fd 1's file; fd 1 when there is none (a checker that does not capture).
REAL_STDOUT = """
import os as _os, stat as _stat
def _real_stdout():
    one = _os.fstat(1)
    for fd in range(3, 64):
        try:
            st = _os.fstat(fd)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) != (one.st_dev, one.st_ino) and not _stat.S_ISREG(st.st_mode) \\
                and not _stat.S_ISDIR(st.st_mode):
            return fd
    return 1
OUT = _real_stdout()
"""
