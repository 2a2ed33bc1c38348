"""Latency of an empty execution: POST /sessions/{id}/execute of python
`pass` against POST /run of the same code, on one service.  Prints the
medians and p90s as TAP diagnostics (the figures for the issue's closing
note) and asserts that both paths work and that the session path adds at
most a bounded overhead over /run."""

import statistics
import time

from sesslib import Client, start_or_bail, tap, rchttp

N = 25
t = tap.Tap()
svc = start_or_bail(t, {"RUN_CONCURRENCY": "2"})
c = Client(svc)


def measure():
    sid = c.create()
    run_body = rchttp.run_body("pass\n", lang="python", asserts=[])
    for _ in range(3):  # warm caches (page cache, skeletons)
        c.execute(sid, "python", "pass")
        svc.post_json("/run", run_body)
    sess, run, ok_s, ok_r = [], [], True, True
    for _ in range(N):
        t0 = time.monotonic()
        r = c.execute(sid, "python", "pass")
        sess.append(time.monotonic() - t0)
        ok_s = ok_s and r.status == 200
        t0 = time.monotonic()
        r2 = svc.post_json("/run", run_body)
        run.append(time.monotonic() - t0)
        ok_r = ok_r and r2.status == 200
    t.ok(ok_s, "every session execute answered 200", r)
    t.ok(ok_r, "every /run answered 200", r2)

    def p90(xs):
        return sorted(xs)[int(len(xs) * 0.9) - 1]

    ms, mr = statistics.median(sess) * 1000, statistics.median(run) * 1000
    t.diag("empty execute, %d runs each (ms): session median %.1f p90 %.1f | /run median %.1f p90 %.1f"
           % (N, ms, p90(sess) * 1000, mr, p90(run) * 1000))
    print("# LATENCY session_execute_median_ms=%.1f run_median_ms=%.1f" % (ms, mr))
    t.ok(ms < mr + 500, "the session path costs less than /run + 500 ms", (ms, mr))
    c.delete(sid)


t.run("measure", measure)
svc.stop()
t.exit()
