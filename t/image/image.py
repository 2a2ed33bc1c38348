"""image.py - the OCI image built, started under podman and checked over HTTP.

Builds the image with a small language subset (packaging/oci/build,
RC_IMAGE_LANGS, default python,cpp; the debootstrap base and the toolchain
stage are cached in /var/cache/runcell-oci, so a rebuild takes about half a
minute), runs it as a privileged container with its port published on
127.0.0.1 only, and checks through HTTP:

  contract   a python and a cpp a+b in Codebattle's format (the checker
             text its client generates for cpp, asserts as a JSON string),
             the /run error answers (400 unknown slug, 501 a language
             this image has no toolchain for), /health, /openapi.yaml;
  sandbox    a job sees no process outside its own pid namespace (not
             the container's nginx or runcell-fcgi, not a process this
             test starts on the host), cannot write /usr, has only a
             loopback interface, runs as a non-root uid; a fork bomb ends
             within its limits and the service stays healthy;
  isolation  two jobs running at once do not see each other's files in
             /tmp, /dev/shm or the workspace, nor each other's processes,
             and nothing is left for a third job;
  operation  the readiness probe (runcell-container ready) passes and,
             after the preStop hook (drain), fails while the service still
             answers; podman stop drains: a job in flight when SIGTERM
             arrives is answered, and the container exits 0.

It measures the image size and, from `podman run`, the time to the first
200 from /health and to the first answered /run; with RC_IMAGE_RESULTS=FILE
they are written there as Markdown (bench/results/<date>-image.md).

On a cgroup v1 or hybrid host the container runs under runc: crun refuses
a hybrid host whose cgroup2 tree has any controller (hugetlb here).
podman lowers its own RLIMIT_NPROC before it starts the runtime, so the
container's limits are given explicitly, at most what podman keeps.

Needs root, podman and debootstrap (./quickstart deps installs them);
under RC_NO_SKIP=1 (CI) their absence is a failure, not a skip.  The
container and the host marker process are removed by name and PID on any
exit; the image is kept (the next build replaces it).
"""

import json
import os
import resource
import shutil
import subprocess
import sys
import threading
import time
import uuid

import cbcheckers as cb
import rchttp
import tap

SRCDIR = rchttp.SRCDIR
LANGS = os.environ.get("RC_IMAGE_LANGS", "python,cpp")
TAG = "localhost/runcell:test-" + LANGS.replace(",", "-")
NAME = "runcell-image-test-%d" % os.getpid()
BUILD_TIMEOUT = 2400
SUM_TASK = cb.SUM_TASK

t = tap.Tap()
_started = []
T_START = time.monotonic()


def podman(*args, timeout=120, check=False):
    proc = subprocess.run(["podman"] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise RuntimeError("podman %s: %s" % (" ".join(args[:2]), proc.stderr.decode(errors="replace")))
    return proc


def cleanup():
    for pid in _started:
        if rchttp.pid_alive(pid):
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
    if shutil.which("podman"):
        subprocess.run(["podman", "rm", "-f", "-t", "0", NAME], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, timeout=120)


class Container:
    """HTTP to the published port, with rchttp's Response."""

    def __init__(self, port):
        self.port = port
        self.svc = rchttp.Service.__new__(rchttp.Service)
        self.svc.port = port

    def get(self, path, timeout=30):
        return self.svc.get(path, timeout=timeout)

    def post(self, path, obj, timeout=60):
        return self.svc.post_json(path, obj, timeout=timeout)

    def execute(self, code, stdin=None, limits=None, timeout=60):
        body = {"language": "python", "files": [{"name": "main.py", "content": code}]}
        if stdin is not None:
            body["stdin"] = stdin
        if limits:
            body["limits"] = limits
        return self.post("/v1/execute", body, timeout=timeout)


def runtime_args():
    """--runtime runc on a v1 or hybrid host, and explicit ulimits."""
    args = []
    if not os.path.exists("/sys/fs/cgroup/cgroup.controllers"):
        if shutil.which("runc"):
            args += ["--runtime", "runc"]
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nproc = resource.getrlimit(resource.RLIMIT_NPROC)[1]
    nofile = 1048576 if nofile == resource.RLIM_INFINITY else min(nofile, 1048576)
    nproc = 32768 if nproc == resource.RLIM_INFINITY else min(nproc, 32768)
    args += ["--ulimit", "nofile=%d:%d" % (nofile, nofile), "--ulimit", "nproc=%d:%d" % (nproc, nproc)]
    return args


def build():
    t0 = time.monotonic()
    log = os.path.join(os.environ.get("RC_TOP_BUILDDIR", SRCDIR), "t", "image", "build.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, "wb") as f:
        proc = subprocess.run([os.path.join(SRCDIR, "packaging", "oci", "build"), "--langs", LANGS,
                               "--tag", TAG], stdout=subprocess.PIPE, stderr=f, timeout=BUILD_TIMEOUT)
    elapsed = time.monotonic() - t0
    with open(log, "rb") as f:
        tail = f.read()[-3000:].decode(errors="replace")
    t.ok(proc.returncode == 0 and proc.stdout.decode().strip() == TAG,
         "packaging/oci/build --langs %s builds %s (%.0f s)" % (LANGS, TAG, elapsed), tail)
    if proc.returncode != 0:
        t.bail("no image to test")
    return elapsed


def image_facts():
    out = podman("image", "inspect", TAG, check=True).stdout
    info = json.loads(out)[0]
    cfg = info.get("Config", {})
    t.eq(cfg.get("Entrypoint"), ["/usr/sbin/runcell-container"], "entrypoint is runcell-container")
    t.ok("4040/tcp" in (cfg.get("ExposedPorts") or {}), "the image exposes 4040/tcp",
         lambda: repr(cfg.get("ExposedPorts")))
    hist = podman("image", "history", "--format", "{{.CreatedBy}} {{.Comment}}", TAG).stdout.decode()
    # One layer, imported: nothing came from a registry.
    t.eq(len(info.get("RootFS", {}).get("Layers", [])), 1, "a single imported layer (no registry base)",
         hist)
    return info["Size"]


def start():
    port = rchttp.free_port()
    t.diag("podman run at %.1f s" % (time.monotonic() - T_START))
    t0 = time.monotonic()
    proc = podman("run", "-d", "--privileged", "--name", NAME, "-p", "127.0.0.1:%d:4040" % port,
                  *runtime_args(), TAG, timeout=180)
    t.ok(proc.returncode == 0, "podman run --privileged -p 127.0.0.1:%d:4040" % port,
         proc.stderr.decode(errors="replace"))
    if proc.returncode != 0:
        t.bail("the container did not start")
    c = Container(port)
    health_s = run_s = None
    deadline = t0 + 120
    while time.monotonic() < deadline:
        r = c.get("/health", timeout=5)
        if r.status == 200:
            health_s = time.monotonic() - t0
            break
        if podman("inspect", "-f", "{{.State.Running}}", NAME).stdout.strip() != b"true":
            break
        time.sleep(0.05)
    t.ok(health_s is not None, "GET /health answers 200 %s after podman run"
         % ("%.2f s" % health_s if health_s else "never"), lambda: logs())
    if health_s is None:
        t.bail("the service never became healthy")
    r = c.post("/run", rchttp.run_body("def solution(a, b):\n    return a + b\n",
                                       asserts={"arguments": [[20, 22]]}, timeout="10s"))
    run_s = time.monotonic() - t0
    t.ok(r.status == 200 and rchttp.checker_results((r.json or {}).get("stdout", "")) == [42],
         "the first POST /run is answered %.2f s after podman run" % run_s, repr(r))
    return c, health_s, run_s


def logs():
    return podman("logs", "--tail", "40", NAME).stderr.decode(errors="replace") + \
        podman("logs", "--tail", "40", NAME).stdout.decode(errors="replace")


def contract(c):
    for slug in ("python", "cpp"):
        if slug not in LANGS.split(","):
            continue
        ok_code = {"python": "def solution(a, b):\n    return a + b\n",
                   "cpp": "int solution(int a, int b) {\n  return a + b;\n}\n"}[slug]
        bad_code = {"python": "def solution(a, b):\n    return a - b\n",
                    "cpp": "int solution(int a, int b) {\n  return a - b;\n}\n"}[slug]
        for code, want, what in ((ok_code, [2, 3, 5], "a+b"), (bad_code, [0, 1, 1], "a-b")):
            body = {"checker_text": cb.checker_text(slug, SUM_TASK), "lang_slug": slug,
                    "timeout": "20s", "solution_text": cb.solution_wrap(slug, code),
                    "asserts": cb.asserts_text(SUM_TASK)}
            r = c.post("/run", body, timeout=60)
            doc = r.json or {}
            t.ok(r.status == 200 and list(doc) == ["exit_code", "stdout", "stderr"]
                 and doc.get("exit_code") == 0 and rchttp.checker_results(doc.get("stdout", "")) == want,
                 "%s %s in Codebattle's format: results %s" % (slug, what, want), repr(r))
    r = c.post("/run", rchttp.run_body("x", lang="cobol"))
    ok, why = rchttp.json_error(r, 400)
    t.ok(ok, "/run with an unknown lang_slug: 400 JSON", why)
    missing = next(s for s in ("ruby", "php", "js", "golang") if s not in LANGS.split(","))
    r = c.post("/run", rchttp.run_body("x", lang=missing))
    ok, why = rchttp.json_error(r, 501)
    t.ok(ok, "/run with %s, whose toolchain this image lacks: 501 JSON" % missing, why)
    r = c.get("/openapi.yaml")
    t.ok(r.status == 200 and r.body.startswith(b"# openapi.yaml") and b"\nopenapi: 3." in r.body,
         "GET /openapi.yaml serves the API description", repr(r))
    r = c.get("/v1/languages")
    avail = sorted(l["language"] for l in (r.json or {}).get("languages", []) if l.get("available"))
    want = sorted(set(LANGS.split(",")) | {"bash"})
    t.ok(r.status == 200 and set(want) <= set(avail), "GET /v1/languages: %s available" % ", ".join(avail),
         repr(r))


PROBE = r"""
import json, os, socket
procs = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            procs.append(open("/proc/%s/cmdline" % p, "rb").read().replace(b"\0", b" ").decode())
        except OSError:
            pass
usr = None
try:
    open("/usr/runcell-probe", "w").write("x")
    usr = "written"
except OSError as e:
    usr = e.strerror
reach = None
try:
    s = socket.create_connection(("127.0.0.1", 4040), timeout=2)
    reach = "connected"
except OSError as e:
    reach = e.strerror
print(json.dumps({"procs": procs, "usr": usr, "ifaces": [n for _, n in socket.if_nameindex()],
                  "uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(),
                  "reach": reach}))
"""

FORK_BOMB = r"""
import os
while True:
    try:
        os.fork()
    except OSError:
        pass
"""


def sandbox(c):
    marker = "runcell-image-host-%s" % uuid.uuid4().hex
    host = subprocess.Popen(["/usr/bin/python3", "-c", "import time; time.sleep(120)", marker],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    _started.append(host.pid)
    try:
        r = c.execute(PROBE)
        doc = r.json or {}
        try:
            probe = json.loads(doc.get("stdout", ""))
        except ValueError:
            probe = None
        t.ok(probe is not None, "the sandbox probe ran", repr(r))
        probe = probe or {"procs": [], "ifaces": [], "uid": 0, "euid": 0}
        seen = " | ".join(probe["procs"])
        t.ok(marker not in seen and "nginx" not in seen and "runcell-fcgi" not in seen
             and len(probe["procs"]) <= 4,
             "a job sees only its own processes (%d), not the host's nor the container's"
             % len(probe["procs"]), seen)
        t.ok(probe.get("usr") not in (None, "written"), "a job cannot write /usr (%s)" % probe.get("usr"))
        t.eq(probe["ifaces"], ["lo"], "a job's network has only a loopback interface")
        t.ok(probe.get("reach") not in (None, "connected"),
             "a job cannot reach the container's nginx on 127.0.0.1:4040 (%s)" % probe.get("reach"))
        t.ok(probe["uid"] != 0 and probe["euid"] != 0 and probe.get("gid") != 0,
             "a job runs as a non-root uid (%s)" % probe["uid"])
    finally:
        os.kill(host.pid, 9)
        host.wait()
    t0 = time.monotonic()
    r = c.execute(FORK_BOMB, limits={"wallTimeMs": 5000, "pids": 64}, timeout=60)
    doc = r.json or {}
    t.ok(r.status == 200 and doc.get("exitCode") != 0 and time.monotonic() - t0 < 30,
         "a fork bomb ends within its limits (%.1f s, limit %s, exit %s)"
         % (time.monotonic() - t0, doc.get("limit"), doc.get("exitCode")), repr(r))
    r = c.get("/health")
    t.eq(r.status, 200, "/health answers 200 after the fork bomb")
    r = c.execute("print(6 * 7)")
    t.ok(r.status == 200 and (r.json or {}).get("stdout") == "42\n", "a job after the fork bomb runs",
         repr(r))


WRITER = r"""
import os, time
for d in ("/tmp", "/dev/shm", "."):
    open(os.path.join(d, "%(name)s"), "w").write("secret")
time.sleep(4)
print(all(os.path.exists(os.path.join(d, "%(name)s")) for d in ("/tmp", "/dev/shm", ".")))
"""

LOOKER = r"""
import os
found = []
for d in ("/tmp", "/dev/shm", ".", "/sandbox", "/var/tmp"):
    try:
        names = os.listdir(d)
    except OSError:
        continue
    found += [os.path.join(d, n) for n in names if n.startswith("%(prefix)s")]
for p in os.listdir("/proc"):
    try:
        if p.isdigit() and b"%(prefix)s" in open("/proc/%%s/cmdline" %% p, "rb").read():
            found.append("/proc/" + p)
    except OSError:
        pass
print(repr(sorted(found)))
"""


def isolation(c):
    prefix = "rcimg-%s" % uuid.uuid4().hex[:12]
    name = prefix + "-a"
    answers = {}

    def writer():
        answers["a"] = c.execute(WRITER % {"name": name}, limits={"wallTimeMs": 20000}, timeout=60)

    th = threading.Thread(target=writer)
    th.start()
    time.sleep(1.5)
    b = c.execute(LOOKER % {"prefix": prefix}, timeout=60)
    th.join(70)
    a = answers.get("a")
    t.ok(a is not None and a.status == 200 and (a.json or {}).get("stdout") == "True\n",
         "job A wrote its files in /tmp, /dev/shm and its workspace and kept them", repr(a))
    t.ok(b.status == 200 and (b.json or {}).get("stdout") == "[]\n",
         "job B, running at the same time, sees none of A's files or processes", repr(b))
    after = c.execute(LOOKER % {"prefix": prefix}, timeout=60)
    t.ok(after.status == 200 and (after.json or {}).get("stdout") == "[]\n",
         "a later job finds nothing A left", repr(after))


def operation(c):
    p = podman("exec", NAME, "/usr/sbin/runcell-container", "ready", timeout=60)
    t.ok(p.returncode == 0, "the readiness probe (runcell-container ready) passes",
         p.stdout.decode(errors="replace") + p.stderr.decode(errors="replace"))
    p = podman("exec", "-e", "RUNCELL_DRAIN_DELAY=0", NAME, "/usr/sbin/runcell-container", "drain",
               timeout=60)
    q = podman("exec", NAME, "/usr/sbin/runcell-container", "ready", timeout=60)
    t.ok(p.returncode == 0 and q.returncode != 0 and b"draining" in q.stdout,
         "after the preStop drain the readiness probe fails (draining)",
         q.stdout.decode(errors="replace") + q.stderr.decode(errors="replace"))
    r = c.get("/health")
    t.eq(r.status, 200, "a draining container still answers (until SIGTERM)")
    answers = {}

    def slow():
        answers["r"] = c.execute("import time\ntime.sleep(3)\nprint('drained')",
                                 limits={"wallTimeMs": 20000}, timeout=60)

    th = threading.Thread(target=slow)
    th.start()
    time.sleep(1)
    t0 = time.monotonic()
    stop = podman("stop", "-t", "60", NAME, timeout=120)
    stop_s = time.monotonic() - t0
    th.join(70)
    r = answers.get("r")
    t.ok(r is not None and r.status == 200 and (r.json or {}).get("stdout") == "drained\n",
         "a job in flight at SIGTERM is answered (drain)", repr(r))
    code = podman("inspect", "-f", "{{.State.ExitCode}}", NAME).stdout.decode().strip()
    t.ok(stop.returncode == 0 and code == "0" and stop_s < 30,
         "podman stop: the container drains and exits 0 in %.1f s (exit %s)" % (stop_s, code), logs)


def write_results(path, size, build_s, health_s, run_s):
    runtime = " ".join(runtime_args()[:2]) or "crun"
    with open(path, "w") as f:
        f.write("# The OCI image: size and start time\n\n")
        f.write("`t/image/image.py` on %s (%s, %d cores), %s.\n\n" % (
            time.strftime("%Y-%m-%d"), os.uname().release, os.cpu_count(),
            "cgroup v2" if os.path.exists("/sys/fs/cgroup/cgroup.controllers") else
            "cgroup v1 hybrid host, podman %s" % runtime))
        f.write("| what | value |\n|---|---|\n")
        f.write("| image | `%s` (languages %s, plus bash and c's directories) |\n" % (TAG, LANGS))
        f.write("| size (podman image inspect) | %.0f MiB |\n" % (size / 1048576.0))
        f.write("| build with cached stages (runcell built from the checkout, imported) | %.0f s |\n" % build_s)
        f.write("| `podman run` to the first 200 from `/health` | %.2f s |\n" % health_s)
        f.write("| `podman run` to the first answered `/run` (python a+b) | %.2f s |\n" % run_s)


def main():
    if os.geteuid() != 0:
        t.skip("needs root (podman --privileged)", name="image")
        t.exit()
    for tool in ("podman", "debootstrap"):
        if not shutil.which(tool):
            t.skip("%s is not installed (./quickstart deps)" % tool, name="image")
            t.exit()
    try:
        build_s = build()
        size = image_facts()
        t.ok(size > 0, "image size %.0f MiB" % (size / 1048576.0))
        c, health_s, run_s = start()
        for section in (contract, sandbox, isolation, operation):
            t0 = time.monotonic()
            section(c)
            t.diag("%s: %.1f s" % (section.__name__, time.monotonic() - t0))
        t.diag("image %s: %.0f MiB; podman run -> /health 200 %.2f s, -> first /run %.2f s"
               % (TAG, size / 1048576.0, health_s, run_s))
        if os.environ.get("RC_IMAGE_RESULTS"):
            write_results(os.environ["RC_IMAGE_RESULTS"], size, build_s, health_s, run_s)
    finally:
        cleanup()
    t.exit()


if __name__ == "__main__":
    main()
