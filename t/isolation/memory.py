"""memory.py - memoryPeakKb reports what the program touched (issue 13).

t/isolation/memtouch touches N MiB one way (private, private then shared
with a forked child through copy-on-write, SysV shm, POSIX shm in
/dev/shm).  For N = 1, 10 and 100 the peak minus the same program's peak
with N = 0 (the empty baseline, measured in this run, same mode) must be
within 5 % of N.

Measurement: the memory cgroup charges pages to its counter in batches of
64 pages per CPU (a per-CPU stock, MEMCG_CHARGE_BATCH), and the peak is
that counter's high-water mark, so one job's peak is quantised to 256 KiB
and may overstate the pages by up to 63 per CPU.  Each figure is the
median of 7 jobs, the baseline and the N runs interleaved so drift hits
both alike.  For N = 10 and 100 the bound is 5 % of N.  For N = 1 MiB, 5 %
is 51 KiB, below the counter's own quantum: there the bound is one batch
(256 KiB), and the test says so in its name (the kernel cannot do better
through memory.peak or max_usage_in_bytes).  Figures on the development VM
(cgroup v1 hybrid, 2 CPUs): empty peak 512-768 KiB; deltas 1024 (fork:
768-1048), 10240-10396, 102400-102912 KiB.
"""

import os
import statistics

import isolib

MODES = ("private", "fork", "sysv", "posix")
SIZES = (1, 10, 100)
REPEAT = 7
BATCH_KB = 256  # 64 pages: the memory cgroup's per-CPU charge batch

t = isolib.start(plan=len(MODES) * len(SIZES), uid_base=30330)
MEMTOUCH = os.path.join(isolib.TOP_BUILD, "t", "isolation", "memtouch")
OPTS = ["--memory", "512m", "--tmp-size", "160m"]  # /dev/shm has the tmp size


def peak(mode, n):
    r = isolib.run(["./memtouch", mode, str(n)], options=OPTS + ["--file", "memtouch=" + MEMTOUCH])
    if r.code != 0 or not r.out.startswith("ok "):
        raise RuntimeError("memtouch %s %d failed: %r" % (mode, n, r))
    return r.step["memory_peak_kb"]


def check(cond, name, diag):
    # Every step's peak is its own: a fresh leaf on v2 (whatever the
    # kernel), a reset counter of the job's own memory cgroup on v1.
    return t.ok(cond, name, diag)


failed = None
for mode in MODES:
    for n in SIZES:
        base, got = [], []
        try:
            for _ in range(REPEAT):
                base.append(peak(mode, 0))
                got.append(peak(mode, n))
        except RuntimeError as e:
            failed = str(e)
            t.ok(False, "%s %d MiB: jobs ran" % (mode, n), failed)
            continue
        delta = statistics.median(got) - statistics.median(base)
        want = n * 1024
        tol = max(0.05 * want, BATCH_KB)
        check(abs(delta - want) <= tol,
             "%s %d MiB: peak - empty peak = %d KiB (want %d +- %d KiB%s)"
             % (mode, n, delta, want, tol, "" if tol > BATCH_KB else ": one charge batch"),
             "baseline %r, with %d MiB %r" % (base, n, got))

t.exit()
