#!/usr/bin/python3
"""queue.py - a busy runner that queues, against one that refuses at once
and a client that retries on 429 with backoff (issue 30).

Two services, one after the other (a fresh nginx + runcell-fcgi each,
RUN_CONCURRENCY=SLOTS):
  queued   POST /v1/execute waits in runcell's queue (the default,
           RUN_QUEUE_ROUTES=v1,sessions; RUN_QUEUE_MAX large enough for
           the load, RUN_QUEUE_WAIT_MS 60 s);
  retry    the same with RUN_QUEUE_ROUTES=none: a busy runner answers 429
           at once, and the client retries after 50 ms, doubling up to 1 s,
           with +-25 % jitter (what every client had to write before).
Each is loaded by a closed loop of 2 x and 4 x SLOTS clients on loopback,
each sending REQUESTS jobs back to back; a job is the shipped bash
language sleeping JOB_MS (a fixed service time, so the figures measure
waiting, not the shared machine's CPU).  A request's latency runs from its
first attempt to its 200.  The table gives p50, p99, the slowest, the
throughput, the 429s the client saw and every answer's check (200, the
job's output).

Usage: bench/queue.py [--slots N] [--requests N] [--job-ms MS] [--save FILE]
"""

import argparse
import http.client
import json
import os
import random
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
os.environ.setdefault("RC_TOP_SRCDIR", SRCDIR)
os.environ.setdefault("RC_TOP_BUILDDIR", os.path.join(SRCDIR, "_build"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "lib"))

import rchttp  # noqa: E402


def one_request(port, body, retry, stats):
    """Sends until a 200 (retry) or once (queued); returns the seconds from
    the first attempt, or None when the answer was wrong."""
    t0 = time.monotonic()
    delay = 0.05
    while True:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        try:
            conn.request("POST", "/v1/execute", body=body,
                         headers={"Content-Type": "application/json"})
            resp = conn.getresponse()
            data = resp.read()
            status = resp.status
        except (OSError, http.client.HTTPException):
            status, data = 0, b""
        finally:
            conn.close()
        if status == 429 and retry:
            stats["429"] += 1
            time.sleep(delay * random.uniform(0.75, 1.25))
            delay = min(delay * 2, 1.0)
            continue
        if status != 200 or b'"stdout":"done\\n"' not in data:
            stats["bad"] += 1
            return None
        return time.monotonic() - t0


def load(svc, clients, requests, job_ms, retry):
    body = json.dumps({"language": "bash", "files": [
        {"name": "main.sh", "content": "sleep %.3f; echo done" % (job_ms / 1000.0)}]}).encode()
    latencies, lock = [], threading.Lock()
    stats = {"429": 0, "bad": 0}

    def client():
        for _ in range(requests):
            dt = one_request(svc.port, body, retry, stats)
            if dt is not None:
                with lock:
                    latencies.append(dt)

    threads = [threading.Thread(target=client) for _ in range(clients)]
    t0 = time.monotonic()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    wall = time.monotonic() - t0
    latencies.sort()
    q = statistics.quantiles(latencies, n=100, method="inclusive") if len(latencies) > 1 else None
    return {
        "n": len(latencies), "p50": q[49] if q else None, "p99": q[98] if q else None,
        "max": latencies[-1] if latencies else None, "rate": len(latencies) / wall,
        "429": stats["429"], "bad": stats["bad"], "load": os.getloadavg()[0],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--requests", type=int, default=25, help="per client")
    ap.add_argument("--job-ms", type=int, default=200)
    ap.add_argument("--save", help="also write the table to this file")
    a = ap.parse_args()

    rows = []
    for mode, routes in (("queued", "v1,sessions"), ("retry on 429", "none")):
        env = {"RUN_CONCURRENCY": str(a.slots), "RUN_QUEUE_ROUTES": routes,
               "RUN_QUEUE_MAX": str(8 * a.slots), "RUN_QUEUE_WAIT_MS": "60000"}
        svc = rchttp.Service(env=env, languages="bash").start()
        try:
            load(svc, a.slots, 3, a.job_ms, routes == "none")  # warm the slots' inits
            for factor in (2, 4):
                r = load(svc, factor * a.slots, a.requests, a.job_ms, routes == "none")
                rows.append((mode, factor, r))
                sys.stderr.write("%s %dx: %r\n" % (mode, factor, r))
        finally:
            svc.stop()

    ms = lambda v: "-" if v is None else "%.0f" % (v * 1000)  # noqa: E731
    lines = [
        "| clients | client | p50 ms | p99 ms | max ms | jobs/s | 429s seen | wrong | load |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mode, factor, r in sorted(rows, key=lambda x: (x[1], x[0] != "queued")):
        lines.append("| %d (%d x %d slots) | %s | %s | %s | %s | %.1f | %d | %d | %.1f |" % (
            factor * a.slots, factor, a.slots, mode, ms(r["p50"]), ms(r["p99"]), ms(r["max"]),
            r["rate"], r["429"], r["bad"], r["load"]))
    head = ("bench/queue.py --slots %d --requests %d --job-ms %d: %d jobs per row, a %d ms job "
            "(bash sleep), the ideal rate %.1f jobs/s\n\n"
            % (a.slots, a.requests, a.job_ms, 0, a.job_ms, a.slots * 1000.0 / a.job_ms))
    head = head.replace(": 0 jobs per row", ": %d x clients jobs per row" % a.requests)
    text = head + "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.save:
        with open(a.save, "a") as f:
            f.write(text)
    return 0 if all(r["bad"] == 0 for _, _, r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
