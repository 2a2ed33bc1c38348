#!/usr/bin/python3
"""bench/ab.py - per-job cost of two or more runcell builds (or settings),
interleaved: `runcell exec --repeat N -- /bin/true` of each row, round
after round, so a change of load hits every row alike.  Prints one
Markdown table: the median over the rounds of each round's median wall ms
per job, and of CPU ms per job (the process and everything it reaped),
each against the first row.

--whole: the whole `runcell exec -- /bin/true` process of each row
instead, and bubblewrap `--unshare-all` (benchlib's BWRAP) as the last
row; each round runs hyperfine (-N, 5 warm-up runs, --jobs runs) on
every row in turn; the table gives each row's median of the round
medians and its ratio to bubblewrap's (issue 14: <= 1.2x).

Usage: bench/ab.py [--rounds R] [--jobs N] [--whole] ROW ROW...
A ROW is LABEL=BUILD_DIR[,VAR=VALUE...]: a build dir holding `runcell`,
and environment settings for that row only, e.g.
  bench/ab.py before=/work/old after=_build
  bench/ab.py tmp64m=_build,RUN_SANDBOX_TMP_SIZE=64m tmp1g=_build,RUN_SANDBOX_TMP_SIZE=1g
Needs root.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

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


def compare_whole(rows, rounds, runs):
    """Prints the whole-process table for rows of (label, Build, env)."""
    cmds = [(label, [b.runcell, "exec", "--", "/bin/true"], env) for label, b, env in rows]
    cmds.append(("bwrap", bl.BWRAP + ["/bin/true"], {}))
    meds = [[] for _ in cmds]
    load0 = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "h.json")
        for _ in range(rounds):
            for i, (_, cmd, env) in enumerate(cmds):
                subprocess.run(["hyperfine", "-N", "-w", "5", "-r", str(runs), "--export-json", out,
                                " ".join(cmd)], env=dict(os.environ, **env),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
                with open(out) as f:
                    meds[i].append(json.load(f)["results"][0]["median"] * 1000)
    bw = statistics.median(meds[-1])
    print("Whole process, `runcell exec -- /bin/true` and bubblewrap, %d interleaved rounds of %d "
          "runs, load %.2f at start, %.2f at end:" % (rounds, runs, load0, os.getloadavg()[0]))
    print()
    print("| row | median of the round medians, ms | x bwrap | rounds |")
    print("|---|---|---|---|")
    for i, (label, _, _) in enumerate(cmds):
        m = statistics.median(meds[i])
        print("| %s | %.2f | %.2f | %s |" % (label, m, m / bw, " ".join("%.2f" % x for x in meds[i])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("rows", nargs="+", type=parse_row)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--jobs", type=int, default=200)
    ap.add_argument("--whole", action="store_true")
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ab.py: needs root", file=sys.stderr)
        return 2
    if len(a.rows) < 2 and not a.whole:
        ap.error("give at least two rows")
    if a.whole:
        compare_whole(a.rows, a.rounds, a.jobs)
    else:
        compare(a.rows, a.rounds, a.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
