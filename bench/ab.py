#!/usr/bin/python3
"""bench/ab.py - per-job cost of two or more runcell builds (or settings),
interleaved: `runcell exec --repeat N -- /bin/true` of each row, round
after round, so a change of load hits every row alike.  Prints one
Markdown table: the median over the rounds of each round's median wall ms
per job, and of CPU ms per job (the process and everything it reaped),
each against the first row.

Usage: bench/ab.py [--rounds R] [--jobs N] ROW ROW...
A ROW is LABEL=BUILD_DIR[,VAR=VALUE...]: a build dir holding `runcell`,
and environment settings for that row only, e.g.
  bench/ab.py before=/work/old after=_build
  bench/ab.py cloned=_build,RUN_ROOT_TEMPLATE=1 built=_build,RUN_ROOT_TEMPLATE=0
Needs root.
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
        self.runcell = os.path.join(os.path.abspath(d), "runcell")
        self.bindir = "/nonexistent"  # no scratch helpers here (benchlib.in_job)


def parse_row(text):
    label, sep, rest = text.partition("=")
    if not sep or not rest:
        raise argparse.ArgumentTypeError("%r: want LABEL=BUILD_DIR[,VAR=VALUE...]" % text)
    parts = rest.split(",")
    env = {}
    for kv in parts[1:]:
        k, sep, v = kv.partition("=")
        if not sep:
            raise argparse.ArgumentTypeError("%r: %r is not VAR=VALUE" % (text, kv))
        env[k] = v
    if not os.access(os.path.join(parts[0], "runcell"), os.X_OK):
        raise argparse.ArgumentTypeError("%r: no runcell in %s" % (text, parts[0]))
    return label, Build(parts[0]), env


def compare(rows, rounds, jobs, what="row"):
    """Prints the table for rows of (label, Build, env)."""
    walls = [[] for _ in rows]
    cpus = [[] for _ in rows]
    load0 = os.getloadavg()[0]
    for _ in range(rounds):
        for i, (_, b, env) in enumerate(rows):
            w, c = bl.runcell_repeat(b, ["/bin/true"], jobs, env_extra=env)
            walls[i].append(w)
            cpus[i].append(c)
    base_w = statistics.median(walls[0])
    base_c = statistics.median(cpus[0])
    print("Per job, `runcell exec --repeat %d -- /bin/true`, %d interleaved rounds, load %.2f "
          "at start, %.2f at end; medians over rounds:" % (jobs, rounds, load0,
                                                            os.getloadavg()[0]))
    print()
    print("| %s | wall ms per job | vs first | CPU ms per job | vs first |" % what)
    print("|---|---|---|---|---|")
    for i, (label, _, _) in enumerate(rows):
        w = statistics.median(walls[i])
        c = statistics.median(cpus[i])
        print("| %s | %.2f | %+.2f | %.2f | %+.2f |" % (label, w, w - base_w, c, c - base_c))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+", type=parse_row)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--jobs", type=int, default=200)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ab.py: needs root", file=sys.stderr)
        return 2
    if len(a.rows) < 2:
        ap.error("give at least two rows")
    compare(a.rows, a.rounds, a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
