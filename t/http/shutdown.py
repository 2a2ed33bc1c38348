"""shutdown.py - POST /shutdown both ways.

- ALLOW_SHUTDOWN unset: 404, and the service keeps serving.
- ALLOW_SHUTDOWN=1 (and =true): 200; a job already running finishes with
  its normal answer (drain); runcell-fcgi then exits 0 by itself, removes
  its cgroup subtree, and nginx answers 502 JSON for the missing backend.
"""

import threading
import uuid

import rchttp
import tap

t = tap.Tap()

ADD = rchttp.run_body("def solution(a, b):\n    return a + b\n", asserts={"arguments": [[2, 2]]},
                      timeout="20s")

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)
good, why = rchttp.json_error(svc.post_json("/shutdown", {}), 404, None)
t.ok(good, "ALLOW_SHUTDOWN unset: POST /shutdown is 404 JSON", why)
r = svc.post_json("/run", ADD)
t.eq(r.status, 200, "ALLOW_SHUTDOWN unset: still serving afterwards", lambda: repr(r))
t.ok(svc.fcgi.poll() is None, "ALLOW_SHUTDOWN unset: runcell-fcgi still running")
svc.stop()

for value in ("1", "true"):
    try:
        svc = rchttp.Service(env={"RUN_CONCURRENCY": 2, "ALLOW_SHUTDOWN": value}).start()
    except rchttp.StartError as e:
        t.bail("service did not start: %s" % e)
    marker = "rc-drain-%s" % uuid.uuid4().hex
    src = ("import subprocess, sys\n"
           "subprocess.run([sys.executable, '-c', 'import time; time.sleep(3)', '%s'])\n"
           "def solution(a, b):\n    return a + b\n" % marker)
    box = {}
    th = threading.Thread(target=lambda: box.update(
        r=svc.post_json("/run", rchttp.run_body(src, asserts={"arguments": [[20, 22]]},
                                                timeout="30s"), timeout=60)))
    th.start()
    running = rchttp.wait_until(lambda: rchttp.pids_with_marker(marker), 20)
    t.ok(running, "ALLOW_SHUTDOWN=%s: a long job is running" % value)
    svc.remember_children()

    r = svc.post_json("/shutdown", {})
    t.eq(r.status, 200, "ALLOW_SHUTDOWN=%s: POST /shutdown is 200" % value, lambda: repr(r))
    th.join(60)
    job = box.get("r")
    body = getattr(job, "json", None) or {}
    t.eq((getattr(job, "status", None), rchttp.checker_results(body.get("stdout", ""))),
         (200, [42]), "ALLOW_SHUTDOWN=%s: the running job still gets its answer" % value,
         lambda: repr(job))
    try:
        code = svc.fcgi.wait(timeout=30)
    except Exception:  # noqa: BLE001 - TimeoutExpired: reported below
        code = None
    t.eq(code, 0, "ALLOW_SHUTDOWN=%s: runcell-fcgi exits 0 by itself" % value,
         svc.fcgi_log_tail)
    gone = rchttp.wait_until(lambda: not svc.worker_pids() and not any(
        rchttp.pid_alive(p) for p in svc._fcgi_children), 10)
    t.ok(gone, "ALLOW_SHUTDOWN=%s: no worker is left" % value)
    t.eq(rchttp.leftover_cgroups(svc.cgroup_name), [],
         "ALLOW_SHUTDOWN=%s: its cgroup subtree is removed" % value)
    good, why = rchttp.json_error(svc.get("/health", timeout=10), 502, None)
    t.ok(good, "ALLOW_SHUTDOWN=%s: nginx then answers 502 JSON" % value, why)
    svc.stop()

t.exit()
