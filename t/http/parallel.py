"""parallel.py - 30 simultaneous /run requests through nginx all come back
correct: each gets its own answer (a distinct sum), none is lost, mixed up
or refused (RUN_CONCURRENCY=30, so no 429 is allowed here).
"""

import threading
import time

import rchttp
import tap

N = 30
t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": N}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

SRC = ("import os\n"
       "def solution(a, b):\n"
       "    return a + b\n")
results = [None] * N
barrier = threading.Barrier(N)


def one(i):
    body = rchttp.run_body(SRC + "os.write(2, b'tag-%d\\n')\n" % i,
                           asserts={"arguments": [[i, 1000]]}, timeout="60s")
    barrier.wait(30)
    try:
        results[i] = svc.post_json("/run", body, timeout=180)
    except Exception as e:  # noqa: BLE001 - reported below
        results[i] = e


t0 = time.monotonic()
threads = [threading.Thread(target=one, args=(i,)) for i in range(N)]
for th in threads:
    th.start()
for th in threads:
    th.join(240)
elapsed = time.monotonic() - t0

statuses = [getattr(r, "status", repr(r)) for r in results]
t.eq(statuses, [200] * N, "all %d parallel requests answered 200 (%.1fs)" % (N, elapsed))
wrong = []
for i, r in enumerate(results):
    body = getattr(r, "json", None) or {}
    got = (body.get("exit_code"), rchttp.checker_results(body.get("stdout", "")),
           body.get("stderr", "").strip())
    want = (0, [i + 1000], "tag-%d" % i)
    if got != want:
        wrong.append("request %d: got %r want %r" % (i, got, want))
t.ok(not wrong, "every answer is its own request's (exit 0, sum, stderr tag)",
     lambda: "\n".join(wrong[:10]))
t.diag("30 parallel python runs took %.2fs" % elapsed)

r = svc.get("/health")
t.eq(r.status, 200, "healthy afterwards")
svc.stop()
t.exit()
