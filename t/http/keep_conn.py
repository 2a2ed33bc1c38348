"""keep_conn.py - FastCGI connections kept open by nginx (fastcgi_keep_conn,
nginx/runcell.conf.in): many requests over kept connections all answer
right, a kept connection is really held open between requests, and while
both slots run long jobs and the idle kept connections pin workers,
/health on fresh client connections still answers at once.
"""

import http.client
import json
import os

import rchttp
import tap

t = tap.Tap()
# Off by default in nginx/render; this test is about the "on" setting.
os.environ["RCHTTP_FASTCGI_KEEP_CONN"] = "on"

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)


def connected_to_socket():
    """Connected unix sockets bound to runcell's path: the accepted side
    of each FastCGI connection (a listening socket is state 01)."""
    n = 0
    with open("/proc/net/unix") as f:
        next(f)
        for line in f:
            parts = line.split()
            if len(parts) >= 8 and parts[7] == svc.socket_path and parts[5] == "03":
                n += 1
    return n


# 1. Many requests over one client connection (and so over the kept
# FastCGI connection of the nginx worker that holds it).
conn = http.client.HTTPConnection("127.0.0.1", svc.port, timeout=60)
bad = []
quick = rchttp.run_body("def solution(a, b):\n    return a + b\n",
                        asserts={"arguments": [[1, 1]]}, timeout="5s")
for i in range(300):
    if i % 30 == 29:
        conn.request("POST", "/run", json.dumps(quick), {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read()
        j = json.loads(data or b"{}")
        if r.status != 200 or rchttp.checker_results(j.get("stdout", "")) != [2]:
            bad.append((i, r.status, data[:200]))
    else:
        conn.request("GET", "/health")
        r = conn.getresponse()
        data = r.read()
        if r.status != 200 or data != b"ok\n":
            bad.append((i, r.status, data[:200]))
t.eq(bad, [], "300 requests (290 /health, 10 /run) over one client connection all answer right")
kept = connected_to_socket()
t.ok(kept >= 1, "a FastCGI connection stays open between requests (%d connected)" % kept)
conn.close()

# 2. Saturation with kept connections around.


# Fill both nginx workers' caches first: several fresh client connections.
for _ in range(8):
    svc.get("/health", timeout=10)
markers, answers, threads = rchttp.start_long_runs(svc, "rc-keep")
both = rchttp.wait_until(lambda: all(rchttp.pids_with_marker(m) for m in markers), 20)
t.ok(both, "both long jobs are running (both slots busy)")
worst, health_ok = 0.0, True
for _ in range(20):
    h = svc.get("/health", timeout=10)
    worst = max(worst, h.elapsed)
    health_ok = health_ok and h.status == 200 and h.body == b"ok\n"
t.ok(health_ok, "/health answers 200 on 20 fresh client connections while all slots are busy")
t.ok(worst < 0.5, "/health is prompt under saturation (slowest of 20: %.3fs)" % worst)
r = svc.post_json("/run", quick, timeout=30)
good, why = rchttp.json_error(r, 429, "runner busy")
t.ok(good and r.elapsed < 1.0, "a third job is refused at once with 429 (%.3fs)" % r.elapsed, why)
for th in threads:
    th.join(60)
for i in range(2):
    a = answers.get(i)
    body = getattr(a, "json", None) or {}
    t.eq((getattr(a, "status", None), rchttp.checker_results(body.get("stdout", ""))),
         (200, [i + 1]), "long job %d finished normally" % i, lambda: repr(a))
svc.stop()
t.exit()
