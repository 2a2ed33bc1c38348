#!/usr/bin/python3
"""ab_front.py - A/B of the HTTP front path, interleaved (issue 14).

Each variant is a runcell-fcgi binary plus nginx settings; every round
starts each variant in turn (a fresh nginx + runcell-fcgi, RUN_CONCURRENCY=2)
and loads it with wrk on loopback for SECONDS per row: GET /health at
concurrency 1 (front path only: no job) and the trivial bash job of
bench/run through POST /v1/execute at concurrency 1 and 2.  Alternating
the variants round after round lets a change in the machine's load hit all
of them alike; the figures are the medians over the rounds, with the load
average of each round.

Usage: bench/ab_front.py [--rounds N] [--seconds S] NAME=SPEC ...
  SPEC is BIN[,keep_conn=on|off][,keepalive=N]; BIN a runcell-fcgi binary.
  e.g. bench/ab_front.py before=/tmp/old/runcell-fcgi,keep_conn=off \\
                         after=_build/runcell-fcgi,keep_conn=on
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
sys.path.insert(0, HERE)

import benchlib as bl  # noqa: E402
import rchttp  # noqa: E402

OUT1 = '"stdout":"1\\n"'
ROWS = (("GET /health", "/health", None, 1, "ok"),
        ("POST /v1/execute bash", "/v1/execute", bl.SH_BODY, 1, OUT1),
        ("POST /v1/execute bash", "/v1/execute", bl.SH_BODY, 2, OUT1))


def parse_spec(text):
    name, _, spec = text.partition("=")
    parts = spec.split(",")
    v = {"name": name, "bin": os.path.abspath(parts[0]), "keep_conn": "on", "keepalive": "1"}
    for p in parts[1:]:
        k, _, val = p.partition("=")
        v[k] = val
    return v


def run_variant(wd, v, seconds):
    os.environ["RC_FCGI_BIN"] = v["bin"]
    os.environ["RCHTTP_FASTCGI_KEEP_CONN"] = v["keep_conn"]
    os.environ["RCHTTP_FASTCGI_KEEPALIVE"] = v["keepalive"]
    env = {"RUN_CONCURRENCY": "2"}
    out = []
    with rchttp.Service(env=env, languages="bash") as svc:
        for _, path, body, conc, expect in ROWS:
            res = bl.wrk(svc, path, body, conc, seconds, wd.dir, expect)
            if res["bad"] + res["non2xx"]:
                # Counted in the table; the first one is shown here.
                print("%s %s: %d bad answers, first: %s" % (
                    v["name"], path, res["bad"] + res["non2xx"], res["why"]), file=sys.stderr)
            out.append(res)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--seconds", type=int, default=5)
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = [parse_spec(s) for s in args.variants]
    results = {v["name"]: [] for v in variants}
    loads = []
    with bl.Workdir(os.environ["RC_TOP_BUILDDIR"]) as wd:
        for r in range(args.rounds):
            loads.append(os.getloadavg()[0])
            order = variants if r % 2 == 0 else list(reversed(variants))
            for v in order:
                results[v["name"]].append(run_variant(wd, v, args.seconds))
            print("round %d done, load %.2f" % (r + 1, os.getloadavg()[0]), file=sys.stderr)
    print("A/B interleaved, %d rounds x %d s per row, load average per round: %s"
          % (args.rounds, args.seconds, " ".join("%.2f" % x for x in loads)))
    print("")
    print("| row | conc | " + " | ".join("%s p50 ms | %s req/s | %s bad" % ((v["name"],) * 3)
                                       for v in variants) + " |")
    print("|---|---|" + "---|---|---|" * len(variants))
    for i, (label, _, _, conc, _) in enumerate(ROWS):
        cells = []
        for v in variants:
            rs = results[v["name"]]
            cells.append("%.3f | %.0f | %d" % (statistics.median(x[i]["p50"] for x in rs),
                                               statistics.median(x[i]["rps"] for x in rs),
                                               sum(x[i]["bad"] + x[i]["non2xx"] for x in rs)))
        print("| %s | %d | %s |" % (label, conc, " | ".join(cells)))
    print("")
    for v in variants:
        print("- %s: %s, fastcgi_keep_conn %s, keepalive %s" % (v["name"], v["bin"],
                                                              v["keep_conn"], v["keepalive"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
