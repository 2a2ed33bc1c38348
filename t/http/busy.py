"""busy.py - saturation: with RUN_CONCURRENCY=2 and two long jobs running, a
third /run is refused at once with 429 {"error":"runner busy"} (never
queued), /health still answers promptly, and the two jobs finish normally.
"""


import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)



markers, answers, threads = rchttp.start_long_runs(svc, "rc-busy")
both = rchttp.wait_until(lambda: all(rchttp.pids_with_marker(m) for m in markers), 20)
t.ok(both, "both long jobs are running (both slots busy)")

quick = rchttp.run_body("def solution(a, b):\n    return a + b\n",
                        asserts={"arguments": [[1, 1]]}, timeout="5s")
r = svc.post_json("/run", quick, timeout=30)
good, why = rchttp.json_error(r, 429, "runner busy")
t.ok(good, "third /run while both slots are busy: 429 runner busy", why)
t.ok(r.status == 429 and r.elapsed < 1.0,
     "the 429 comes at once (%d after %.3fs), not after a wait" % (r.status, r.elapsed))

worst = 0.0
health_ok = True
for _ in range(5):
    h = svc.get("/health", timeout=10)
    worst = max(worst, h.elapsed)
    health_ok = health_ok and h.status == 200 and h.body == b"ok\n"
t.ok(health_ok, "/health answers 200 ok while all slots are busy")
t.ok(worst < 0.5, "/health is prompt under saturation (slowest of 5: %.3fs)" % worst)

still = all(rchttp.pids_with_marker(m) for m in markers)
t.ok(still, "the long jobs were still running during those checks")

for th in threads:
    th.join(60)
for i in range(2):
    a = answers.get(i)
    body = getattr(a, "json", None) or {}
    t.eq((getattr(a, "status", None), body.get("exit_code"),
          rchttp.checker_results(body.get("stdout", ""))), (200, 0, [i + 1]),
         "long job %d finished normally" % i, lambda: repr(a))

r = svc.post_json("/run", quick)
t.eq(r.status, 200, "a slot is free again afterwards", lambda: repr(r))
svc.stop()
t.exit()
