"""front.py - no single caller can fill the host or lock the others out, and
a busy runner queues instead of refusing (issue 30).  Loopback only, every
count and wait bounded; each group starts its own nginx + runcell-fcgi
(t/lib/rchttp.py) and stops it.

  sparse     a session job makes a 95 MB sparse file (0 blocks of its
             100 MB quota): the execute answer and GETs of it stream it with
             worker RSS under WORKER_RSS_BOUND, a file past MAX_SESSION_SIZE
             cannot be made, three clients that never read a GET pin at most
             NGINX_TEMP_FILE_MAX each of nginx's temp space, cleaned after;
             the workers run in their own memory cgroup
  idle       3,000 half-sent requests from 127.0.0.1: /health and a job from
             127.0.0.2 answer at once
  sessions   64 POST /sessions from one client: MAX_SESSIONS_PER_CLIENT (16)
             succeed, the rest are 429; another client still creates one
  perclient  nginx's limit_conn per client key (an authenticating proxy's
             header, CLIENT_KEY_HEADER): one client past its share gets a
             JSON 429 with Retry-After at once, another client (same
             address, other key) does not; /health is never limited;
             runcell's MAX_SESSIONS_PER_CLIENT counts by the same key
  instance   a second runcell-fcgi with overlapping slot uids, or the same
             cgroup name, refuses to start naming the first's pid; the
             first's running job finishes unharmed
  reload     SIGHUP while a job runs: a language whose toolchain appeared
             since the start becomes available; the job completes
  tmp        languages under /tmp (a checkout cloned there) work for /run,
             /v1/execute and sessions; a cache directory under /tmp stops the
             start naming it, and `runcell --check-host` says so
  queue      3 x the slots of concurrent /v1/execute all succeed, first come
             first served, none 429; one past RUN_QUEUE_MAX is 429 with
             Retry-After at once; /run is 429 at once; /health and /metrics
             answer while the queue is full
"""

import http.client
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

import rchttp
import tap

import sys
sys.path.insert(0, os.path.join(rchttp.SRCDIR, "t", "sessions"))
import sesslib  # noqa: E402

t = tap.Tap()

# The documented bounds the sparse group checks (docs/design.md, "Every
# byte a caller makes the service hold is bounded").
WORKER_RSS_BOUND_KB = 64 * 1024      # a streaming worker, whatever the file
NGINX_TEMP_FILE_MAX = 8 << 20        # nginx/render's default, per request
SPARSE_MB = 95


def run_one(svc, lang, code, timeout=60, source=None):
    body = json.dumps({"language": lang, "files": [{"name": "main", "content": code}]})
    if source is None:
        return svc.post_json("/v1/execute", body, timeout=timeout)
    return request_from(svc, source, "POST", "/v1/execute", body.encode(),
                        {"Content-Type": "application/json"}, timeout)


def request_from(svc, source, method, path, body=None, headers=None, timeout=30):
    """One request from another loopback address (nginx's $remote_addr)."""
    conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=timeout,
                                      source_address=(source, 0))
    t0 = time.monotonic()
    try:
        conn.request(method, path, body=body, headers=headers or {})
        resp = conn.getresponse()
        data = resp.read()
        return rchttp.Response(resp.status, resp.reason,
                               {k.lower(): v for k, v in resp.getheaders()}, data,
                               time.monotonic() - t0)
    except (OSError, http.client.HTTPException) as e:
        return rchttp.Response(0, "transport error: %r" % e, {}, b"", time.monotonic() - t0)
    finally:
        conn.close()


def workers_only(svc):
    """The master's children but the slots' inits (each is pid 1 of a pid
    namespace of its own: two NSpid fields)."""
    out = []
    for pid in svc.worker_pids():
        try:
            with open("/proc/%d/status" % pid) as f:
                nspid = [l for l in f if l.startswith("NSpid:")]
        except OSError:
            continue
        if nspid and len(nspid[0].split()) == 2:
            out.append(pid)
    return out


def dir_bytes(path):
    """Blocks in use below path (what a disk loses), in bytes."""
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(dirpath, f)).st_blocks * 512
            except OSError:
                pass
    return total


def open_fd_bytes(pid_list, under):
    """Blocks of files below `under` that the processes hold open, deleted
    ones included (nginx unlinks its temp files as it makes them)."""
    total, seen = 0, set()
    for pid in pid_list:
        fd_dir = "/proc/%d/fd" % pid
        try:
            fds = os.listdir(fd_dir)
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(os.path.join(fd_dir, fd))
                if not target.startswith(under):
                    continue
                st = os.stat(os.path.join(fd_dir, fd))
            except OSError:
                continue
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                total += st.st_blocks * 512
    return total


# -- sparse files -------------------------------------------------------------

def sparse():
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2"}, languages="bash").start()
    try:
        sparse_checks(svc)
    finally:
        svc.stop()


def sparse_checks(svc):
    c = sesslib.Client(svc)
    base_rss = max(v or 0 for v in svc.workers_rss_kb().values())
    cg = svc.cgroup_name
    in_cgroup = []
    for pid in workers_only(svc):
        with open("/proc/%d/cgroup" % pid) as f:
            lines = f.read().splitlines()
        in_cgroup.append(any(l.endswith("/%s/workers" % cg) and ("memory" in l or l.startswith("0::"))
                             for l in lines))
    t.ok(in_cgroup and all(in_cgroup),
         "every worker runs in the workers' memory cgroup (%s/workers)" % cg, repr(in_cgroup))

    sid = c.create()
    code = ("truncate -s %dM sparse.bin && echo made; "
            "truncate -s 200M huge.bin 2>&1 && echo HUGE || echo refused; "
            "du -k sparse.bin" % SPARSE_MB)
    peak = [0]
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            peak[0] = max([peak[0]] + [v or 0 for v in svc.workers_rss_kb().values()])
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        st, info, parts, r = c.run(sid, "bash", code, timeout=300)
    finally:
        stop.set()
        sampler.join()
    files = parts or {}
    out = (info or {}).get("output", "")
    t.ok(st == 200 and "made" in out and "refused" in out and "HUGE" not in out,
         "a session job makes a %d MB sparse file; one past MAX_SESSION_SIZE (100 MB) fails "
         "(RLIMIT_FSIZE)" % SPARSE_MB, lambda: repr(info or r))
    t.eq(len(files.get(b"sparse.bin", b"")), SPARSE_MB << 20,
         "the execute answer carries the sparse file whole", lambda: repr(sorted(files)))
    t.ok(peak[0] - base_rss < WORKER_RSS_BOUND_KB,
         "the worker streamed it: RSS grew %d KiB (bound %d KiB; an answer held whole would be "
         "%d MB)"
         % (peak[0] - base_rss, WORKER_RSS_BOUND_KB, SPARSE_MB), "base %d, peak %d" % (base_rss, peak[0]))

    # A GET read whole, with its length up front.
    peak[0] = 0
    stop.clear()
    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        r = c.get(sid, "sparse.bin", timeout=300)
    finally:
        stop.set()
        sampler.join()
    t.ok(r.status == 200 and len(r.body) == SPARSE_MB << 20
         and r.headers.get("content-length") == str(SPARSE_MB << 20),
         "GET streams the sparse file with its Content-Length", repr(r)[:300])
    t.ok(peak[0] - base_rss < WORKER_RSS_BOUND_KB,
         "GET: worker RSS grew %d KiB (bound %d KiB)" % (peak[0] - base_rss, WORKER_RSS_BOUND_KB))

    # Three clients that send the GET and never read (each of its own
    # session: requests on one session wait for its lock).
    sids = [sid] + [c.create() for _ in range(2)]
    for other in sids[1:]:
        st, _, _, r = c.run(other, "bash", "truncate -s %dM sparse.bin" % SPARSE_MB)
        if st != 200:
            raise AssertionError("sparse file in a second session: %r" % r)
    temp_dir = os.path.join(svc.tmp, "tmp")
    nginx_pids = [svc.nginx.pid] + rchttp.children_of(svc.nginx.pid)
    before = dir_bytes(temp_dir)
    held = []
    for one in sids:
        s = socket.create_connection(("127.0.0.1", svc.port), timeout=10)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        s.sendall(("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % c.url(one, "sparse.bin")).encode())
        held.append(s)
    # Let nginx fill what it may: its temp files stop growing.
    last, worst = -1, 0
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        now = max(dir_bytes(temp_dir), open_fd_bytes(nginx_pids, temp_dir))
        worst = max(worst, now)
        if now == last and now > 0:
            break
        last = now
        time.sleep(0.5)
    bound = 3 * NGINX_TEMP_FILE_MAX + (1 << 20)
    t.ok(2 * NGINX_TEMP_FILE_MAX < worst - before <= bound,
         "three GETs nobody reads pin %.1f MiB of nginx temp space (bound: 3 x %d MiB)"
         % ((worst - before) / 1048576.0, NGINX_TEMP_FILE_MAX >> 20))
    h = svc.get("/health", timeout=10)
    t.ok(h.status == 200 and h.elapsed < 1.0,
         "/health answers meanwhile (%.3fs)" % h.elapsed, repr(h))
    for s in held:
        s.close()
    cleaned = rchttp.wait_until(
        lambda: max(dir_bytes(temp_dir), open_fd_bytes(nginx_pids, temp_dir)) <= before, 40)
    t.ok(cleaned, "the temp files are gone once the clients are",
         "%d bytes left" % dir_bytes(temp_dir))
    for one in sids:
        c.delete(one)


# -- idle connections ---------------------------------------------------------

def idle():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = 3000 + 200
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2"}, languages="bash").start()
    conns = []
    try:
        t0 = time.monotonic()
        for _ in range(3000):
            try:
                s = socket.create_connection(("127.0.0.1", svc.port), timeout=5,
                                             source_address=("127.0.0.1", 0))
                # Half a request: nginx waits for the rest of the header.
                s.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
                conns.append(s)
            except OSError:
                break
        t.eq(len(conns), 3000, "3,000 half-sent requests from 127.0.0.1 are open (%.1fs)"
             % (time.monotonic() - t0))
        h = request_from(svc, "127.0.0.2", "GET", "/health", timeout=10)
        t.ok(h.status == 200 and h.body == b"ok\n" and h.elapsed < 2.0,
             "/health from 127.0.0.2 answers at once (%.3fs)" % h.elapsed, repr(h))
        h = svc.get("/health", timeout=10)
        t.ok(h.status == 200 and h.elapsed < 2.0,
             "/health from 127.0.0.1 itself answers too (%.3fs)" % h.elapsed, repr(h))
        r = run_one(svc, "bash", "echo other-client", source="127.0.0.2")
        t.ok(r.status == 200 and (r.json or {}).get("stdout") == "other-client\n",
             "a job from 127.0.0.2 runs (%.3fs)" % r.elapsed, repr(r))
        alive = sum(1 for s in conns if s.fileno() >= 0)
        t.ok(alive == 3000, "the idle connections were all still held meanwhile")
    finally:
        for s in conns:
            s.close()
        svc.stop()


# -- sessions per client --------------------------------------------------------

def sessions():
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2"}, languages="bash").start()
    try:
        statuses = [svc.request("POST", "/sessions").status for _ in range(64)]
        t.eq((statuses.count(200), statuses.count(429)), (16, 48),
             "64 POST /sessions from one client: 16 (MAX_SESSIONS_PER_CLIENT) made, 48 are 429",
             repr(statuses))
        r = svc.request("POST", "/sessions")
        ok, why = rchttp.json_error(r, 429)
        t.ok(ok and "MAX_SESSIONS_PER_CLIENT" in r.json.get("error", "")
             and r.headers.get("retry-after"), "the 429 says why, with Retry-After", why)
        r = request_from(svc, "127.0.0.2", "POST", "/sessions")
        t.ok(r.status == 200 and len((r.json or {}).get("session_id", "")) == 32,
             "another client (127.0.0.2) still creates a session", repr(r))
        body, ctype = sesslib.form([("language", "bash"), ("code", "echo once")])
        r = request_from(svc, "127.0.0.2", "POST", "/execute", body, {"Content-Type": ctype})
        t.eq(r.status, 200, "and runs a throw-away /execute", lambda: repr(r))
    finally:
        svc.stop()


# -- nginx's per-client limits, keyed by a proxy's header ----------------------

def perclient():
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2", "MAX_SESSIONS": "8"}, languages="bash",
                         site={"NGINX_CONN_PER_CLIENT": "2", "CLIENT_KEY_HEADER": "X-Client-Id"})
    svc.start()
    try:
        perclient_checks(svc)
    finally:
        svc.stop()


def perclient_checks(svc):
    body = json.dumps({"language": "bash",
                       "files": [{"name": "main", "content": "sleep 2; echo long"}]})
    box = {}

    def long_run(i):
        box[i] = svc.post_json("/v1/execute", body, headers={"X-Client-Id": "alice"}, timeout=60)

    threads = [threading.Thread(target=long_run, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    time.sleep(0.7)
    r = svc.post_json("/v1/execute", body, headers={"X-Client-Id": "alice"}, timeout=30)
    ok, why = rchttp.json_error(r, 429, "too many requests from this client")
    t.ok(ok and r.headers.get("retry-after") == "1" and r.elapsed < 1.0,
         "a client past NGINX_CONN_PER_CLIENT (2) gets nginx's JSON 429 with Retry-After at once",
         why)
    h = svc.get("/health", headers={"X-Client-Id": "alice"}, timeout=10)
    t.eq(h.status, 200, "/health is never limited per client", lambda: repr(h))
    r = svc.post_json("/v1/execute", json.dumps({"language": "bash", "files": [
        {"name": "main", "content": "echo bob"}]}), headers={"X-Client-Id": "bob"}, timeout=30)
    t.ok(r.status == 200 and (r.json or {}).get("stdout") == "bob\n",
         "another key from the same address runs its job (after the queue)", repr(r))
    for th in threads:
        th.join(60)
    t.eq([getattr(box.get(i), "status", None) for i in range(2)], [200, 200],
         "the client's own two requests ran")
    made = [svc.request("POST", "/sessions", headers={"X-Client-Id": "alice"}).status
            for _ in range(3)]
    r = svc.request("POST", "/sessions", headers={"X-Client-Id": "bob"})
    t.ok(made == [200, 200, 429] and r.status == 200,
         "MAX_SESSIONS_PER_CLIENT (8 / 4 = 2) counts by the same key: %r, then another key %d"
         % (made, r.status))


# -- a second instance --------------------------------------------------------

def second_instance(first, env_over):
    """Starts runcell-fcgi with first's environment changed by env_over;
    (exit status or None when it did not exit in 20 s, its output)."""
    tmp = tempfile.mkdtemp(prefix="rcfront-2nd-")
    env = first.runcell_env()
    env.update({"RUN_LISTEN": "unix:" + os.path.join(tmp, "s.sock"),
                "RUN_STATE_DIR": os.path.join(tmp, "state")})
    env.update(env_over)
    binary = os.path.join(rchttp.BUILDDIR, "runcell-fcgi")
    proc = subprocess.Popen([binary], env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=20)
        return proc.returncode, out.decode(errors="replace")
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return None, "still running after 20 s"
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def instance():
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2"}, languages="bash").start()
    try:
        box = {}
        th = threading.Thread(target=lambda: box.update(
            r=run_one(svc, "bash", "echo started; sleep 4; echo unharmed")))
        th.start()
        time.sleep(1.0)
        master = str(svc.master_pid())
        code, out = second_instance(svc, {"RUN_UID_BASE": str(svc.uid_base + 1),
                                          "RUN_CGROUP_NAME": svc.cgroup_name + "-b"})
        t.ok(code == 78 and ("pid %s" % master) in out and "overlapping slot uids" in out,
             "a second runcell-fcgi with overlapping slot uids refuses to start, naming the "
             "first's pid (exit %r)" % code, out[-600:])
        code, out = second_instance(svc, {"RUN_UID_BASE": str(svc.uid_base + 64)})
        t.ok(code == 78 and ("pid %s" % master) in out and "the same cgroup subtree" in out,
             "one with the same cgroup name refuses too (exit %r)" % code, out[-600:])
        th.join(60)
        r = box.get("r")
        t.ok(r is not None and r.status == 200
             and (r.json or {}).get("stdout") == "started\nunharmed\n",
             "the first's job ran through unharmed", repr(r))
        r = run_one(svc, "bash", "echo after")
        t.eq(r.status, 200, "and the first still runs jobs", lambda: repr(r))
    finally:
        svc.stop()


# -- reload -----------------------------------------------------------------------

FAKE_MANIFEST = {
    "slug": "fakelang", "aliases": [], "inputDir": "check", "solutionFile": "solution.sh",
    "checkerFile": None, "checkerRequired": False, "tmpSize": "64m", "overlayPaths": [],
    "env": {}, "requires": None, "version": ["bash", "--version"],
    "defaultLimits": {"wallTimeMs": 15000, "idleMs": 15000, "cpuMs": 15000, "memoryMb": 256,
                      "pids": 256, "outputKb": 1024},
    "execute": {"run": "bash \"$MAIN\"", "main": "main.sh"},
}


def reload():
    work = tempfile.mkdtemp(prefix="rcfront-reload-", dir=rchttp.BUILDDIR)
    os.chmod(work, 0o755)
    langs = os.path.join(work, "langs")
    tool = os.path.join(work, "toolchain", "fakec")
    shutil.copytree(os.path.join(rchttp.SRCDIR, "langs", "bash"), os.path.join(langs, "bash"))
    shutil.copytree(os.path.join(rchttp.SRCDIR, "langs", "bash"), os.path.join(langs, "fakelang"))
    manifest = dict(FAKE_MANIFEST, requires=[tool])
    with open(os.path.join(langs, "fakelang", "manifest.json"), "w") as f:
        json.dump(manifest, f)
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2", "RUN_LANGS_DIR": langs},
                         languages="bash,fakelang").start()
    try:
        r = run_one(svc, "fakelang", "echo hi")
        t.eq(r.status, 501, "before: the language whose toolchain is missing answers 501",
             lambda: repr(r))
        box = {}
        th = threading.Thread(target=lambda: box.update(
            r=run_one(svc, "bash", "echo begun; sleep 3; echo finished")))
        th.start()
        time.sleep(0.8)
        os.makedirs(os.path.dirname(tool))
        with open(tool, "w") as f:
            f.write("#!/bin/sh\n")
        os.chmod(tool, 0o755)
        workers_before = set(svc.worker_pids())
        os.kill(svc.master_pid(), signal.SIGHUP)

        def available():
            r = svc.get("/v1/languages", timeout=10)
            for l in (r.json or {}).get("languages", r.json or []):
                if isinstance(l, dict) and l.get("language") == "fakelang":
                    return l.get("available")
            return False

        t.ok(rchttp.wait_until(available, 20, 0.2),
             "after SIGHUP /v1/languages says the newly installed language is available")
        r = run_one(svc, "fakelang", "echo installed-after-start")
        t.ok(r.status == 200 and (r.json or {}).get("stdout") == "installed-after-start\n",
             "and its jobs run", repr(r))
        th.join(60)
        r = box.get("r")
        t.ok(r is not None and r.status == 200
             and (r.json or {}).get("stdout") == "begun\nfinished\n",
             "the job running during the reload completed", repr(r))
        replaced = rchttp.wait_until(lambda: not (workers_before & set(svc.worker_pids())), 20)
        t.ok(replaced, "every worker of before the reload has been replaced",
             repr(workers_before & set(svc.worker_pids())))
        t.ok(any('"event":"reloaded"' in l for l in open(svc.fcgi_log)),
             "the log says it reloaded")
    finally:
        svc.stop()
        shutil.rmtree(work, ignore_errors=True)


# -- a checkout under /tmp ---------------------------------------------------

def tmp_checkout():
    work = tempfile.mkdtemp(prefix="rcfront-tmp-", dir="/tmp")
    os.chmod(work, 0o755)
    langs = os.path.join(work, "langs")
    for slug in ("bash", "python"):
        shutil.copytree(os.path.join(rchttp.SRCDIR, "langs", slug), os.path.join(langs, slug))
    try:
        svc = rchttp.Service(env={"RUN_CONCURRENCY": "2", "RUN_LANGS_DIR": langs},
                             languages="bash,python").start()
        try:
            r = run_one(svc, "bash", "echo from-tmp")
            t.ok(r.status == 200 and (r.json or {}).get("stdout") == "from-tmp\n",
                 "languages under /tmp: /v1/execute runs", repr(r))
            r = svc.post_json("/run", rchttp.run_body("def solution(a, b):\n    return a + b\n",
                                                      asserts={"arguments": [[2, 3]]},
                                                      timeout="10s"))
            t.ok(r.status == 200 and rchttp.checker_results((r.json or {}).get("stdout", "")) == [5],
                 "languages under /tmp: /run runs", repr(r))
            c = sesslib.Client(svc)
            sid = c.create()
            st, info, _, r = c.run(sid, "bash", "echo in-session")
            t.ok(st == 200 and "in-session" in (info or {}).get("output", ""),
                 "languages under /tmp: a session job runs", repr(r))
            c.delete(sid)
        finally:
            svc.stop()
        bad = rchttp.Service(env={"RUN_CONCURRENCY": "2", "RUN_LANGS_DIR": langs,
                                  "RUN_OVERLAY_PATHS_BASH": "/tmp/rcfront-cache"},
                             languages="bash", start_timeout=20)
        try:
            bad.start()
            t.ok(False, "a cache directory under /tmp stops the start", "it started")
            bad.stop()
        except rchttp.StartError as e:
            msg = str(e)
            t.ok("exited with 78" in msg and "/tmp/rcfront-cache" in msg
                 and "RUN_OVERLAY_PATHS_BASH" in msg and "mounts over" in msg,
                 "a cache directory under /tmp stops the start, saying what to change",
                 msg[-800:])
        env = dict(bad.runcell_env())
        check = subprocess.run([os.path.join(rchttp.BUILDDIR, "runcell"), "--check-host"],
                               env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               timeout=120)
        out = check.stdout.decode(errors="replace")
        t.ok(check.returncode == 1 and "MISSING languages" in out and "rcfront-cache" in out,
             "runcell --check-host fails and names it (exit %d)" % check.returncode, out[-800:])
    finally:
        shutil.rmtree(work, ignore_errors=True)


# -- the queue --------------------------------------------------------------------

def queue():
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "2", "RUN_QUEUE_MAX": "4",
                              "RUN_QUEUE_WAIT_MS": "20000"},
                         languages="bash,python").start()
    try:
        queue_checks(svc)
    finally:
        svc.stop()


def queue_checks(svc):
    n = 6  # 3 x the slots: 2 run, 4 wait
    answers, sent = {}, {}

    def one(i):
        sent[i] = time.monotonic()
        answers[i] = run_one(svc, "bash", "date +%%s%%N; echo job%d; sleep 1" % i, timeout=60)

    threads = []
    for i in range(n):
        th = threading.Thread(target=one, args=(i,))
        th.start()
        threads.append(th)
        time.sleep(0.15)  # a known order of arrival
    queued = rchttp.wait_until(
        lambda: "runcell_queue_length 4" in svc.get("/metrics", timeout=10).text, 5)
    t.ok(queued, "four requests wait in the queue (runcell_queue_length)")
    r = run_one(svc, "bash", "echo one-too-many", timeout=30)
    ok, why = rchttp.json_error(r, 429)
    t.ok(ok and r.elapsed < 1.0 and r.headers.get("retry-after") == "1"
         and "RUN_QUEUE_MAX" in r.json.get("error", ""),
         "one past RUN_QUEUE_MAX is 429 with Retry-After at once (%.3fs)" % r.elapsed, why)
    r = svc.post_json("/run", rchttp.run_body("def solution(a, b):\n    return a + b\n",
                                              asserts={"arguments": [[1, 1]]}, timeout="5s"),
                      timeout=30)
    ok, why = rchttp.json_error(r, 429, "runner busy")
    t.ok(ok and r.elapsed < 1.0, "/run still answers 429 at once (%.3fs)" % r.elapsed, why)
    h = svc.get("/health", timeout=10)
    m = svc.get("/metrics", timeout=10)
    t.ok(h.status == 200 and m.status == 200 and h.elapsed < 1.0 and m.elapsed < 1.0,
         "/health and /metrics answer while the queue is full (%.3fs, %.3fs)"
         % (h.elapsed, m.elapsed))
    ready = svc.get("/health?ready=1", timeout=10)
    t.eq((ready.status, ready.body), (200, b"ok\n"),
         "/health?ready=1 stays ready: a full runner is not a broken one", lambda: repr(ready))
    for th in threads:
        th.join(90)
    statuses = [getattr(answers.get(i), "status", None) for i in range(n)]
    t.eq(statuses, [200] * n, "all %d concurrent /v1/execute succeed through the queue, none 429"
         % n)
    started = []
    for i in range(n):
        out = ((answers.get(i) and answers[i].json) or {}).get("stdout", "")
        started.append((int(out.split("\n")[0]) if out[:1].isdigit() else 0, i))
    order = [i for _, i in sorted(started)]
    t.eq(order, list(range(n)), "the jobs started in the order the requests arrived (FIFO)")
    waits = [answers[i].elapsed for i in range(n) if answers.get(i)]
    t.ok(waits and max(waits) < 20 + 2,
         "every request was served within RUN_QUEUE_WAIT_MS (slowest %.1fs)" % max(waits or [0]))
    text = svc.get("/metrics", timeout=10).text
    count = [l for l in text.splitlines() if l.startswith("runcell_queue_wait_seconds_count")]
    t.ok(count and int(count[0].split()[1]) >= n,
         "runcell_queue_wait_seconds counted the served requests", repr(count))


GROUPS = [("queue", queue), ("sessions", sessions), ("perclient", perclient),
          ("instance", instance), ("reload", reload), ("tmp", tmp_checkout), ("idle", idle),
          ("sparse", sparse)]
# `front.py queue idle` runs only those groups (a developer's shortcut).
for name, fn in GROUPS:
    if len(sys.argv) < 2 or name in sys.argv[1:]:
        t.run(name, fn)
t.exit()
