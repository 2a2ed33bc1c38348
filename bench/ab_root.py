#!/usr/bin/python3
"""bench/ab_root.py - per-job cost of the job's root, before and after: an
older build (the host's root read-only, no pivot: pass its build dir)
against this build with the root built per job (RUN_ROOT_TEMPLATE=0) and
cloned from the template (RUN_ROOT_TEMPLATE=1), interleaved by bench/ab.py.

Usage: bench/ab_root.py OLD_BUILD_DIR [--rounds R] [--jobs N]
Needs root and a build of this tree (RC_TOP_BUILDDIR, else _build).
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import ab  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("old_build")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--jobs", type=int, default=200)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("ab_root.py: needs root", file=sys.stderr)
        return 2
    new = os.environ["RC_TOP_BUILDDIR"]
    rows = [("before: host root read-only, no pivot (%s)" % a.old_build, ab.Build(a.old_build), {}),
            ("own root, built per job (RUN_ROOT_TEMPLATE=0)", ab.Build(new),
             {"RUN_ROOT_TEMPLATE": "0"}),
            ("own root, cloned from the template (RUN_ROOT_TEMPLATE=1)", ab.Build(new),
             {"RUN_ROOT_TEMPLATE": "1"})]
    ab.compare(rows, a.rounds, a.jobs, what="root")
    return 0


if __name__ == "__main__":
    sys.exit(main())
