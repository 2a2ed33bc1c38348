"""timeout.py - the timeout ends the whole job, and nothing it started
survives (issue 2; the sandbox issue makes it airtight).

Each program starts helpers whose command line carries a unique marker.
The test scans the host's /proc for that marker: while the job runs (so the
scan is proven to see the helpers), then after the answer (they must be
gone).  PIDs printed by the job would not do: inside the sandbox they are
numbers of the job's own PID namespace.
"""

import os
import signal
import threading
import time
import uuid

import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

# A helper that ignores the polite signals, so only a real kill ends it.
SLEEPER = ("import signal, time\\n"
           "for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\\n"
           "    signal.signal(s, signal.SIG_IGN)\\n"
           "time.sleep(120)\\n")

PROGRAMS = {
    # A plain child in the job's process group.
    "fork": """
import os, sys, time
if os.fork() == 0:
    os.execv(sys.executable, [sys.executable, "-c", "{sleeper}", "{marker}"])
os.write(OUT, b"partial-stdout\\n")
os.write(2, b"partial-stderr\\n")
time.sleep(60)
""",
    # A new session: escapes a process-group kill.
    "setsid": """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    os.execv(sys.executable, [sys.executable, "-c", "{sleeper}", "{marker}"])
os.write(OUT, b"partial-stdout\\n")
time.sleep(60)
""",
    # The classic daemon: fork, setsid, fork again, the middle one exits, so
    # the survivor is re-parented away from the job.
    "daemon": """
import os, sys, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv(sys.executable, [sys.executable, "-c", "{sleeper}", "{marker}"])
    os._exit(0)
os.write(OUT, b"partial-stdout\\n")
time.sleep(60)
""",
}


def program(kind, marker):
    # REAL_STDOUT: write past the python checker's capture of fd 1, so the
    # partial output reaches runcell before the timeout.
    return rchttp.REAL_STDOUT + PROGRAMS[kind].format(sleeper=SLEEPER, marker=marker)


def run_in_thread(body):
    box = {}

    def go():
        try:
            box["resp"] = svc.post_json("/run", body, timeout=90)
        except Exception as e:  # noqa: BLE001 - reported as a test failure
            box["error"] = e

    th = threading.Thread(target=go)
    th.start()
    return th, box


markers = []
for kind in ("fork", "setsid", "daemon"):
    marker = "rc-timeout-%s-%s" % (kind, uuid.uuid4().hex)
    markers.append(marker)
    th, box = run_in_thread(rchttp.run_body(program(kind, marker), timeout="2s"))
    seen = rchttp.wait_until(lambda: rchttp.pids_with_marker(marker), 20)
    t.ok(seen, "%s: the helper is visible in /proc while the job runs" % kind)
    th.join(90)
    r = box.get("resp")
    if r is None:
        t.ok(False, "%s: /run answered" % kind, repr(box.get("error")))
        continue
    body = r.json or {}
    t.eq((r.status, "exit_code" in body, body.get("exit_code")), (200, True, None),
         "%s: timeout gives 200 with exit_code null" % kind, lambda: repr(r))
    t.ok(1.5 <= r.elapsed < 15, "%s: answered after the 2s timeout, promptly (%.2fs)"
         % (kind, r.elapsed))
    t.ok("partial-stdout" in body.get("stdout", ""), "%s: output before the timeout is kept" % kind,
         lambda: repr(r))
    if kind == "fork":
        t.ok("partial-stderr" in body.get("stderr", ""), "fork: stderr before the timeout is kept",
             lambda: repr(r))
    # The answer may leave a moment for the last reaping, never more.
    t0 = time.monotonic()
    left = rchttp.wait_until(lambda: not rchttp.pids_with_marker(marker), 3)
    name = "%s: no process of the job survives it" % kind
    if not left and kind != "fork" and os.geteuid() != 0:
        # Only the sandbox (root) holds a new session: the unsandboxed
        # fallback kills the process group, which setsid leaves.
        t.skip("not root: the unsandboxed fallback cannot catch a new session", name=name)
    else:
        t.ok(left, "%s (%.2fs after the answer)" % (name, time.monotonic() - t0),
             lambda: "still alive: %r" % rchttp.pids_with_marker(marker))

# A job that ends normally but leaves a daemon behind: the daemon must not
# outlive the job either (it would hold the slot's uid and cgroup).
marker = "rc-leftover-%s" % uuid.uuid4().hex
markers.append(marker)
src = program("daemon", marker).replace("time.sleep(60)", "time.sleep(0.5)")
src += "\ndef solution(a, b):\n    return a + b\n"
r = svc.post_json("/run", rchttp.run_body(src, asserts={"arguments": [[1, 2]]}, timeout="10s"))
t.eq((r.status, (r.json or {}).get("exit_code")), (200, 0), "daemonizing job exits 0",
     lambda: repr(r))
left = rchttp.wait_until(lambda: not rchttp.pids_with_marker(marker), 3)
if not left and os.geteuid() != 0:
    t.skip("not root: the unsandboxed fallback cannot catch a new session",
           name="the daemon it left is gone after the answer")
else:
    t.ok(left, "the daemon it left is gone after the answer",
         lambda: "still alive: %r" % rchttp.pids_with_marker(marker))

# The slots still work afterwards.
add = rchttp.run_body("def solution(a, b):\n    return a + b\n", asserts={"arguments": [[5, 6]]},
                      timeout="20s")
for i in range(3):
    r = svc.post_json("/run", add)
    t.eq((r.status, rchttp.checker_results((r.json or {}).get("stdout", ""))), (200, [11]),
         "run %d after the timeouts: 200, result 11" % (i + 1), lambda: repr(r))

# Never leave strays on the machine, even when a test above failed: kill
# (by PID) whatever still carries one of this file's markers.
for marker in markers:
    for pid in rchttp.pids_with_marker(marker):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass

svc.stop()
t.exit()
