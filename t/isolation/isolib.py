"""isolib.py - shared helpers of the isolation suite (t/isolation/*.py).

Every test runs real jobs through `runcell exec` (the command-line entry of
the sandbox) and asserts on what a probe inside saw.  The probe binary
(t/isolation/probe) is passed in as a job file, the way user code arrives.

Each test file uses its own RUN_UID_BASE, so test files running in
parallel (make -j) never share a slot uid, and its own cgroup subtree
(runcell exec names it after its pid).  The suite needs root: as root
nothing is ever skipped; without root the whole file is skipped (a failure
with RC_NO_SKIP=1, as in CI).
"""

import json
import os
import subprocess
import sys
import tempfile

import tap
from rcpaths import BUILDDIR as TOP_BUILD, SRCDIR as TOP_SRC
RUNCELL = os.path.join(TOP_BUILD, "runcell")
PROBE = os.path.join(TOP_BUILD, "t", "isolation", "probe")


def start(plan, uid_base):
    """Returns a Tap; exits early (skip) when not root."""
    t = tap.Tap()
    if os.geteuid() != 0:
        t.set_plan(1)
        t.skip("the sandbox needs root", name=os.path.basename(sys.argv[0]))
        t.exit()
    t.set_plan(plan)
    os.environ["RUN_UID_BASE"] = str(uid_base)
    t.uid_base = uid_base
    return t


class Result:
    def __init__(self, code, out, err, summary):
        self.code = code
        self.out = out.decode("utf-8", "replace")
        self.err = err.decode("utf-8", "replace")
        self.summary = summary
        self.step = summary["steps"][0] if summary and summary.get("steps") else {}

    def __repr__(self):
        return "code=%r\nstdout=%r\nstderr=%r\nsummary=%r" % (
            self.code, self.out[:2000], self.err[:2000], self.summary)


def run(cmd, slot=0, files=None, probe=False, options=(), env=None, stdin=None, timeout=60,
        popen=False):
    """Runs one job: runcell exec [options] -- cmd.  files maps a workspace
    path to host bytes; probe=True adds the probe as /sandbox/probe."""
    tmp = tempfile.mkdtemp(prefix="rc-iso-")
    argv = [RUNCELL, "exec", "--slot", str(slot), "--result-json",
            os.path.join(tmp, "result.json")]
    files = dict(files or {})
    if probe:
        argv += ["--file", "probe=" + PROBE]
    for i, (name, data) in enumerate(files.items()):
        path = os.path.join(tmp, "f%d" % i)
        with open(path, "wb") as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        argv += ["--file", "%s=%s" % (name, path)]
    argv += list(options) + ["--"] + list(cmd)
    if popen:
        return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                stdin=stdin if stdin is not None else subprocess.DEVNULL), tmp
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                          stdin=stdin if stdin is not None else subprocess.DEVNULL,
                          timeout=timeout)
    return finish(proc.returncode, proc.stdout, proc.stderr, tmp)


def wait(popen_and_tmp, timeout=60):
    """Completes a run(..., popen=True)."""
    proc, tmp = popen_and_tmp
    out, err = proc.communicate(timeout=timeout)
    return finish(proc.returncode, out, err, tmp)


def finish(code, out, err, tmp):
    summary = None
    try:
        with open(os.path.join(tmp, "result.json")) as f:
            summary = json.load(f)
    except (OSError, ValueError):
        pass
    subprocess.run(["rm", "-rf", "--one-file-system", tmp])
    return Result(code, out, err, summary)


def sh(script, **kw):
    return run(["/bin/sh", "-c", script], **kw)


def uid_processes(uid):
    """Host pids whose real or effective uid is uid."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open("/proc/%s/status" % name) as f:
                for line in f:
                    if line.startswith("Uid:"):
                        ids = [int(x) for x in line.split()[1:3]]
                        if uid in ids:
                            found.append(int(name))
                        break
        except OSError:
            continue
    return found
