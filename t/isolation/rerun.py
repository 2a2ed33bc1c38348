"""rerun.py - runs files of the isolation suite again as children in a
variant of the sandbox (an environment), and reports their results one by
one, prefixed with the file, plus one result per file: it ran to its end,
skipped nothing, and isolib found no job outside the variant (its marker
on the child's stderr)."""

import os
import re
import subprocess
import sys

import tap

HERE = os.path.dirname(os.path.abspath(__file__))
LINE = re.compile(r"^(ok|not ok) \d+ (?:- )?(.*)$")


def start(name):
    """The Tap of a rerun file; as non-root, one skip and exit (the sandbox
    needs root; CI is root)."""
    t = tap.Tap()
    if os.geteuid() != 0:
        t.set_plan(1)
        t.skip("the sandbox needs root", name=name)
        t.exit()
    return t


def rerun(t, files, env, marker, what):
    for name in files:
        p = subprocess.run([sys.executable, os.path.join(HERE, name)], env=env,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=900)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        seen = 0
        for line in out.splitlines():
            m = LINE.match(line)
            if not m:
                continue
            seen += 1
            desc = "%s: %s" % (name, m.group(2))
            if " # SKIP" in desc:
                t.ok(False, desc + " (skipped: a rerun must not skip)")
            else:
                t.ok(m.group(1) == "ok", desc)
        t.ok(p.returncode == 0 and seen > 0 and marker not in err,
             "%s: ran to its end (exit %d, %d results), %s" % (name, p.returncode, seen, what),
             err[-1500:])
