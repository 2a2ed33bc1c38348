#!/usr/bin/python3
"""bench/ab_exec.py - the whole `runcell exec -- /bin/true` process of two
builds against bubblewrap, interleaved: each round runs hyperfine (-N, 5
warm-up runs, RUNS runs) on each row in turn, so a change of the host's
speed hits every row alike; prints each row's median of the round
medians and its ratio to bubblewrap's (the issue's goal: <= 1.2x).

Usage: bench/ab_exec.py ROUNDS RUNS BEFORE_BUILD_DIR AFTER_BUILD_DIR
Needs root, hyperfine and bwrap.
"""

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


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    rounds, runs = int(sys.argv[1]), sys.argv[2]
    rows = {"before": [os.path.join(sys.argv[3], "runcell"), "exec", "--", "/bin/true"],
            "after": [os.path.join(sys.argv[4], "runcell"), "exec", "--", "/bin/true"],
            "bwrap": bl.BWRAP + ["/bin/true"]}
    res = {k: [] for k in rows}
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "h.json")
        for _ in range(rounds):
            for k, cmd in rows.items():
                subprocess.run(["hyperfine", "-N", "-w", "5", "-r", runs, "--export-json", out,
                                " ".join(cmd)], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, check=True)
                with open(out) as f:
                    res[k].append(json.load(f)["results"][0]["median"] * 1000)
    bw = statistics.median(res["bwrap"])
    print("| row | median of %d round medians, ms | x bwrap | rounds |" % rounds)
    print("|---|---|---|---|")
    for k, v in res.items():
        m = statistics.median(v)
        print("| %s | %.2f | %.2f | %s |" % (k, m, m / bw, " ".join("%.2f" % x for x in v)))


if __name__ == "__main__":
    main()
