#!/usr/bin/python3
"""bench/ab_root.py - per-job cost of the job's root, before and after,
interleaved: `runcell exec --repeat N -- /bin/true` of an older build (the
host's root read-only, no pivot: pass its build dir) against this build
with the root built per job (RUN_ROOT_TEMPLATE=0) and cloned from the
template (RUN_ROOT_TEMPLATE=1), round after round, so load changes hit
all three alike.  Prints one Markdown table: median over the rounds of
each round's median wall ms per job, and of CPU ms per job (the process
and everything it reaped).

Usage: bench/ab_root.py OLD_BUILD_DIR [--rounds R] [--jobs N]
Needs root and a build of this tree (RC_TOP_BUILDDIR, else _build).
"""

import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
os.environ.setdefault("RC_TOP_SRCDIR", SRCDIR)
os.environ.setdefault("RC_TOP_BUILDDIR", os.path.join(SRCDIR, "_build"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "lib"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "langs"))
sys.path.insert(0, HERE)

import benchlib as bl  # noqa: E402


class Build:
    def __init__(self, d):
        self.runcell = os.path.join(d, "runcell")
        self.bindir = "/nonexistent"  # no scratch helpers here (benchlib.in_job)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old_build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=200)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ab_root.py: needs root", file=sys.stderr)
        return 2
    rows = [("before: host root read-only, no pivot (%s)" % a.old_build,
             Build(a.old_build), {}),
            ("own root, built per job (RUN_ROOT_TEMPLATE=0)",
             Build(os.environ["RC_TOP_BUILDDIR"]), {"RUN_ROOT_TEMPLATE": "0"}),
            ("own root, cloned from the template (RUN_ROOT_TEMPLATE=1)",
             Build(os.environ["RC_TOP_BUILDDIR"]), {"RUN_ROOT_TEMPLATE": "1"})]
    walls = [[] for _ in rows]
    cpus = [[] for _ in rows]
    load0 = os.getloadavg()[0]
    for _ in range(a.rounds):
        for i, (_, b, env) in enumerate(rows):
            w, c = bl.runcell_repeat(b, ["/bin/true"], a.jobs, env_extra=env)
            walls[i].append(w)
            cpus[i].append(c)
    base_w = statistics.median(walls[0])
    base_c = statistics.median(cpus[0])
    print("Per job, `runcell exec --repeat %d -- /bin/true`, %d interleaved rounds, load %.2f "
          "at start, %.2f at end; medians over rounds:" % (a.jobs, a.rounds, load0,
                                                            os.getloadavg()[0]))
    print()
    print("| root | wall ms per job | vs before | CPU ms per job | vs before |")
    print("|---|---|---|---|---|")
    for i, (label, _, _) in enumerate(rows):
        w = statistics.median(walls[i])
        c = statistics.median(cpus[i])
        print("| %s | %.2f | %+.2f | %.2f | %+.2f |" % (label, w, w - base_w, c, c - base_c))
    return 0


if __name__ == "__main__":
    sys.exit(main())
