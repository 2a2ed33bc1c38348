#!/usr/bin/python3
"""clock_reaction.py - how long after each limit the sandbox is gone.

For each clock (wall, idle, cpu, memory) runs a small C program N times
(default 20) through POST /v1/execute on a real nginx + runcell-fcgi (one
slot, as root, sandbox on) and measures, on the host's CLOCK_MONOTONIC
(shared with the sandbox, which has no time namespace):

  L     the moment the limit was reached, as the program itself sees it:
          wall    the supervisor's start + wallTimeMs; that start cannot be
                  seen from outside (it precedes the exec), so "dead" is
                  the supervisor's own wallMs - wallTimeMs and "gone" and
                  "resp" are measured outside from that death
          idle    its last output + idleMs
          cpu     when the slot cgroup's CPU reached cpuMs: the program
                  prints a trace of its own CPU time; the cgroup's extra
                  (sh wrapper, init) is the reported cpuMs minus the last
                  trace value
          memory  its last "touched N MiB" line before the kill
  dead  the first moment a host-side poller saw the program dead (gone
        from /proc or a zombie): it polls /proc/<pid>/stat every ~0.2 ms
  gone  the first full /proc scan that found no process of the slot uid
  resp  the moment the HTTP response arrived

and reports the median (and min/p90/max) of dead-L, gone-L and resp-L.

Biases, all small and documented: the cpu trace has a 2 ms grain; the
memory moment is the last line before the kill (one 1 MiB chunk early); the poller shares the cores
with everything else on the machine (the load average is printed).

Usage: bench/clock_reaction.py [--runs 20] [--clock wall,idle,cpu,memory]
       [--json out.json].  Needs root and a build (RC_TOP_BUILDDIR, default
the source tree) like the tests.
"""

import argparse
import json
import os
import re
import statistics
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))
import rchttp  # noqa: E402

PROGRAMS = {
    "wall": r"""
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main (void) {
  printf ("start=%.6f\n", now ()); fflush (stdout);
  for (;;) pause ();
}
""",
    "idle": r"""
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main (void) {
  /* a few chunks, then silence: the idle clock counts from the last one */
  for (int i = 0; i < 3; i++) { usleep (50000); printf ("out=%.6f\n", now ()); fflush (stdout); }
  for (;;) pause ();
}
""",
    "cpu": r"""
#include <stdio.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main (void) {
  /* a trace of (own CPU ms, monotonic time) every 2 ms of CPU: the bench
   * finds when the slot cgroup's CPU (own + the sh wrapper's) crossed the limit */
  double next = 0;
  for (;;) {
    struct timespec c;
    double cpu;
    clock_gettime (CLOCK_PROCESS_CPUTIME_ID, &c);
    cpu = c.tv_sec * 1e3 + c.tv_nsec / 1e6;
    if (cpu >= next) { printf ("c=%.3f t=%.6f\n", cpu, now ()); fflush (stdout); next = cpu + 2; }
  }
}
""",
    "memory": r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now (void) { struct timespec t; clock_gettime (CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec / 1e9; }
int main (void) {
  for (int mib = 1; mib < 100000; mib++) {
    char *p = (char *) malloc (1 << 20);
    if (!p) return 3;
    memset (p, 1, 1 << 20);
    printf ("mib=%d t=%.6f\n", mib, now ()); fflush (stdout);
  }
  return 0;
}
""",
}

LIMITS = {
    "wall": {"wallTimeMs": 1000, "idleMs": 30000, "cpuMs": 30000},
    "idle": {"idleMs": 500, "wallTimeMs": 30000, "cpuMs": 30000},
    "cpu": {"cpuMs": 500, "wallTimeMs": 60000, "idleMs": 60000},
    "memory": {"memoryMb": 64, "wallTimeMs": 30000, "idleMs": 30000, "cpuMs": 30000},
}

EXPECT_LIMIT = {"wall": "wall", "idle": "idle", "cpu": "cpu", "memory": "memory"}


def proc_uid_comm(pid):
    try:
        with open("/proc/%s/status" % pid) as f:
            uid = comm = state = None
            for line in f:
                if line.startswith("Name:"):
                    comm = line.split(None, 1)[1].strip()
                elif line.startswith("State:"):
                    state = line.split()[1]
                elif line.startswith("Uid:"):
                    uid = int(line.split()[1])
                    break
            return uid, comm, state
    except (OSError, ValueError, IndexError):
        return None, None, None


def scan(uid, comm=None):
    out = []
    for e in os.listdir("/proc"):
        if e.isdigit():
            u, c, s = proc_uid_comm(e)
            if u == uid and (comm is None or c == comm) and s not in ("Z", "X"):
                out.append(int(e))
    return out


def run_step_seen(uid):
    """True once a process of the slot uid runs the compiled program (the
    run step's `sh -c /tmp/a.out` or a.out itself)."""
    for e in os.listdir("/proc"):
        if e.isdigit():
            u, _, s = proc_uid_comm(e)
            if u == uid and s not in ("Z", "X"):
                try:
                    with open("/proc/%s/cmdline" % e, "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                # `sh -c /tmp/a.out` (not the compiler's `-o /tmp/a.out`)
                if argv[0] == b"/tmp/a.out" or (len(argv) > 2 and argv[1] == b"-c"
                                                and argv[2].startswith(b"/tmp/a.out")):
                    return True
    return False


class Poller(threading.Thread):
    """Finds the run step's process (slot uid, comm a.out), then watches it
    die, then waits until no process of the slot uid is left."""

    def __init__(self, uid, timeout):
        super().__init__(daemon=True)
        self.uid = uid
        self.deadline = time.monotonic() + timeout
        self.pid = None
        self.run_seen = None
        self.dead = None
        self.gone = None
        self.stop = False

    def run(self):
        while not self.stop and time.monotonic() < self.deadline:
            if self.run_seen is None and run_step_seen(self.uid):
                self.run_seen = time.monotonic()
            pids = scan(self.uid, "a.out")
            if pids:
                self.pid = pids[0]
                if self.run_seen is None:
                    self.run_seen = time.monotonic()
                break
            time.sleep(0.001)
        if self.pid is None:
            return
        path = "/proc/%d/stat" % self.pid
        while time.monotonic() < self.deadline:
            try:
                with open(path) as f:
                    state = f.read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                state = "gone"
            if state in ("Z", "X", "gone"):
                self.dead = time.monotonic()
                break
            time.sleep(0.0002)
        while time.monotonic() < self.deadline:
            if not scan(self.uid):
                self.gone = time.monotonic()
                break
            time.sleep(0.001)


def limit_moment(clock, stdout, limits, reported_cpu_ms=None, run_seen=None):
    if clock == "wall":
        # the supervisor's wall clock starts when the step starts: the
        # poller's first sight of the step's `sh -c /tmp/a.out` is the
        # closest outside view (a few ms late: reaction slightly low)
        return run_seen + limits["wallTimeMs"] / 1000.0 if run_seen else None
    if clock == "idle":
        ts = re.findall(r"^out=([\d.]+)$", stdout, re.M)
        return float(ts[-1]) + limits["idleMs"] / 1000.0 if ts else None
    if clock == "cpu":
        # The cgroup counts the program plus a small constant (the sh
        # wrapper, exec, the init): other = reported cgroup CPU - the
        # program's own CPU at its last trace line.  The cgroup crossed
        # cpuMs when the program's own CPU was cpuMs - other.
        trace = [(float(c), float(t)) for c, t in re.findall(r"^c=([\d.]+) t=([\d.]+)$", stdout, re.M)]
        if not trace or reported_cpu_ms is None:
            return None
        other = max(0.0, reported_cpu_ms - trace[-1][0])
        target = limits["cpuMs"] - other
        for c, t in trace:
            if c >= target:
                return t
        return trace[-1][1]
    ts = re.findall(r"^mib=\d+ t=([\d.]+)$", stdout, re.M)
    return float(ts[-1]) if ts else None


def one_run(svc, clock, source, limits):
    uid = svc.uid_base  # slot 0
    poller = Poller(uid, 120)
    poller.start()
    body = {"language": "cpp", "files": [{"name": "main.cpp", "content": source}], "limits": limits}
    r = svc.post_json("/v1/execute", body, timeout=150)
    resp_t = time.monotonic()
    poller.join(10)
    poller.stop = True
    res = r.json if r.status == 200 else None
    if res is None:
        return {"error": "HTTP %d %r" % (r.status, r.body[:200])}
    if res.get("limit") != EXPECT_LIMIT[clock]:
        return {"error": "ended by limit %r, not %s" % (res.get("limit"), clock)}
    L = limit_moment(clock, res.get("stdout") or "", limits, res.get("cpuMs"), poller.run_seen)
    if L is None:
        return {"error": "no limit moment in stdout %r" % (res.get("stdout") or "")[:200]}
    out = {"resp_ms": (resp_t - L) * 1000, "reported_wallMs": res.get("wallMs"),
           "reported_cpuMs": res.get("cpuMs")}
    if poller.dead is not None:
        out["dead_ms"] = (poller.dead - L) * 1000
    if poller.gone is not None:
        out["gone_ms"] = (poller.gone - L) * 1000
    if clock == "wall" and res.get("wallMs") is not None and poller.dead is not None:
        # The wall clock starts before the program runs (the step's fork,
        # privilege drop, seccomp and exec count, tens of ms on a loaded
        # machine), and no outside observer sees that start.  So the
        # program's death is placed by the supervisor's own reading
        # (wallMs - limit) and the rest is measured outside from there.
        own = res["wallMs"] - limits["wallTimeMs"]
        out["start_lag_ms"] = own - out["dead_ms"]  # how late the poller saw the step start
        out["resp_ms"] = own + (resp_t - poller.dead) * 1000
        out.pop("gone_ms", None)
        if poller.gone is not None:
            out["gone_ms"] = own + (poller.gone - poller.dead) * 1000
        out["dead_ms"] = own
    return out


def stats(values):
    v = sorted(values)
    if not v:
        return None
    p90 = v[min(len(v) - 1, int(round(0.9 * (len(v) - 1))))]
    return {"n": len(v), "median": statistics.median(v), "min": v[0], "p90": p90, "max": v[-1]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--clock", default="wall,idle,cpu,memory")
    ap.add_argument("--json")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("clock_reaction.py: needs root (the sandbox is on only as root)")
    clocks = args.clock.split(",")
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "1", "RUN_SANDBOX": "on"}, languages="cpp",
                         name="clock-bench")
    svc.start()
    results = {}
    t_end = time.monotonic() + 1800  # never more than 30 min
    try:
        for clock in clocks:
            limits = LIMITS[clock]
            src = PROGRAMS[clock].replace("@CPU_MS@", str(limits.get("cpuMs", 0)))
            runs, errors = [], []
            for i in range(args.runs):
                if time.monotonic() > t_end:
                    errors.append("bench deadline")
                    break
                r = one_run(svc, clock, src, limits)
                (errors if "error" in r else runs).append(r.get("error") or r)
            results[clock] = {
                "limits": limits,
                "dead_ms": stats([r["dead_ms"] for r in runs if "dead_ms" in r]),
                "gone_ms": stats([r["gone_ms"] for r in runs if "gone_ms" in r]),
                "resp_ms": stats([r["resp_ms"] for r in runs]),
                "start_lag": stats([r["start_lag_ms"] for r in runs if "start_lag_ms" in r]),
                "errors": errors,
            }
            print("%s: %d runs, %d errors" % (clock, len(runs), len(errors)), file=sys.stderr)
    finally:
        svc.stop()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    print("Clock reaction time: ms after the limit was reached (median of %d; min / p90 / max)" % args.runs)
    print("load average during the run: %s, %d cores\n" % (" ".join(load), os.cpu_count()))
    print("| clock | limit | program dead | slot empty (no uid process) | HTTP response |")
    print("|---|---|---|---|---|")

    def fmt(s):
        if not s:
            return "n/a"
        return "**%.1f** (%.1f / %.1f / %.1f)" % (s["median"], s["min"], s["p90"], s["max"])

    for clock in clocks:
        r = results[clock]
        key = {"wall": "wallTimeMs", "idle": "idleMs", "cpu": "cpuMs", "memory": "memoryMb"}[clock]
        print("| %s | %s=%s | %s | %s | %s |" % (clock, key, r["limits"][key], fmt(r["dead_ms"]),
                                                 fmt(r["gone_ms"]), fmt(r["resp_ms"])))
        if r.get("start_lag"):
            print("|  | wall: the program was first seen this long after the clock started | %s | | |"
                  % fmt(r["start_lag"]))
        if r["errors"]:
            print("|  | errors: %s | | | |" % "; ".join(str(e) for e in r["errors"][:3]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"runs": args.runs, "load": load, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
