#!/usr/bin/python3
"""latency_run.py - what runcell adds to one job (issue 2's closing figure).

Measures the p50 (and p90) wall latency of a python a+b `POST /run` through
nginx and runcell-fcgi (as root: the full sandbox), against running the
same resolved command (`make -n -s test` in langs/python) directly with
`sh -c` in a ready copy of the language directory.  The difference is the
whole cost of HTTP, FastCGI, the job setup and teardown.

Usage: bench/latency_run.py [-n RUNS] [--json]
       (RC_TOP_BUILDDIR: the build dir holding runcell-fcgi; default _build)

Requests go to a private nginx on a loopback port (t/lib/rchttp.py), one at
a time, after a warm-up, so the figures are latencies, not throughput; the
two ways alternate so that a change in machine load hits both alike.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
os.environ.setdefault("RC_TOP_SRCDIR", SRCDIR)
os.environ.setdefault("RC_TOP_BUILDDIR", os.path.join(SRCDIR, "_build"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "lib"))

import rchttp  # noqa: E402

SOLUTION = "def solution(a, b):\n    return a + b\n"
ASSERTS = json.dumps({"arguments": [[1, 2], [40, 2]]})
WARMUP = 10


def percentile(samples, p):
    ordered = sorted(samples)
    k = (len(ordered) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def resolved_command(langdir):
    """The job command exactly as runcell resolves it at start."""
    out = subprocess.run(["make", "-n", "-s", "test"], cwd=langdir, check=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE).stdout.decode()
    return out.strip()


class Direct:
    """A ready copy of langs/python with the request's files written in, and
    the resolved command to run there."""

    def __init__(self):
        langdir = os.path.join(SRCDIR, "langs", "python")
        self.command = resolved_command(langdir)
        self.work = tempfile.mkdtemp(prefix="rc-latency-")
        self.ws = os.path.join(self.work, "ws")
        shutil.copytree(langdir, self.ws, symlinks=True)
        with open(os.path.join(self.ws, "check", "solution.py"), "w") as f:
            f.write(SOLUTION)
        with open(os.path.join(self.ws, "check", "asserts.json"), "w") as f:
            f.write(ASSERTS)

    def once(self):
        t0 = time.perf_counter()
        proc = subprocess.run(["/bin/sh", "-c", self.command], cwd=self.ws,
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE)
        elapsed = time.perf_counter() - t0
        if proc.returncode != 0 or rchttp.checker_results(proc.stdout.decode()) != [3, 42]:
            raise RuntimeError("direct run failed: %r %r" % (proc.returncode, proc.stdout))
        return elapsed

    def close(self):
        shutil.rmtree(self.work, ignore_errors=True)


def http_once(svc, body):
    t0 = time.perf_counter()
    r = svc.post_json("/run", body)
    elapsed = time.perf_counter() - t0
    if r.status != 200 or rchttp.checker_results((r.json or {}).get("stdout", "")) != [3, 42]:
        raise RuntimeError("/run failed: %r" % r)
    return elapsed


def bench(runs):
    """Alternates the two ways, one sample each per round, so a change in
    machine load hits both series alike."""
    body = rchttp.run_body(SOLUTION, asserts=ASSERTS, timeout="10s")
    direct, http = [], []
    d = Direct()
    try:
        with rchttp.Service(env={"RUN_CONCURRENCY": "2"}) as svc:
            for i in range(WARMUP + runs):
                a = d.once()
                b = http_once(svc, body)
                if i >= WARMUP:
                    direct.append(a)
                    http.append(b)
    finally:
        d.close()
    return d.command, direct, http


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-n", "--runs", type=int, default=100)
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()

    load_before = os.getloadavg()[0]
    command, direct, http = bench(args.runs)
    result = {
        "loadavg_1m": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "runs": args.runs,
        "sandbox": os.geteuid() == 0,
        "command": command,
        "direct_p50_ms": round(percentile(direct, 50) * 1000, 2),
        "direct_p90_ms": round(percentile(direct, 90) * 1000, 2),
        "http_p50_ms": round(percentile(http, 50) * 1000, 2),
        "http_p90_ms": round(percentile(http, 90) * 1000, 2),
        "direct_mean_ms": round(statistics.mean(direct) * 1000, 2),
        "http_mean_ms": round(statistics.mean(http) * 1000, 2),
    }
    result["overhead_p50_ms"] = round(result["http_p50_ms"] - result["direct_p50_ms"], 2)
    if args.json:
        print(json.dumps(result))
        return 0
    print("python a+b, %d runs each (after %d warm-up), sandbox %s, load average %s -> %s"
          % (args.runs, WARMUP, "on" if result["sandbox"] else "off (not root)",
             result["loadavg_1m"][0], result["loadavg_1m"][1]))
    print("resolved command: %s" % command)
    print("%-36s %9s %9s" % ("", "p50 ms", "p90 ms"))
    print("%-36s %9.2f %9.2f" % ("sh -c <command> directly", result["direct_p50_ms"],
                                  result["direct_p90_ms"]))
    print("%-36s %9.2f %9.2f" % ("POST /run via nginx + runcell-fcgi", result["http_p50_ms"],
                                  result["http_p90_ms"]))
    print("overhead at p50: %.2f ms" % result["overhead_p50_ms"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
