"""limits.py - the memory limit kills with the reference's message, the
pids limit holds against a fork storm, and the three clocks end a job."""

import isolib

t = isolib.start(plan=7, uid_base=30090)

r = isolib.run(["/usr/bin/python3", "-c",
                "a = []\nwhile True: a.append(bytearray(1 << 20))"], options=["--memory", "64m"])
t.eq(r.code, 137, "over memory.max: killed (137)", r)
t.ok("runner: killed: memory limit (64m) exceeded" in r.err, "stderr carries the memory line", r)
t.ok(r.step.get("oom_killed") and r.step.get("limit") == "memory", "flagged oom_killed", r)

r = isolib.run(["/usr/bin/python3", "-c", """
import os, time
n = 0
for i in range(60):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    n += 1
print(n)
"""], options=["--pids", "16", "--timeout", "10s"])
t.ok(r.out.strip().isdigit() and 5 <= int(r.out) < 16,
     "a fork storm stops below pids=16 (python + children)", r)

r = isolib.sh("sleep 5", options=["--timeout", "300ms"])
t.ok(r.step.get("limit") == "wall" and r.step.get("timed_out") and r.step["wall_ms"] < 2000,
     "wall clock ends a sleeper", r)

r = isolib.sh("while :; do :; done", options=["--cpu", "300ms", "--timeout", "10s"])
t.ok(r.step.get("limit") == "cpu" and r.step.get("cpu_ms", 0) >= 300, "CPU clock ends a spinner",
     r)

r = isolib.sh("echo hi; sleep 5", options=["--idle", "300ms", "--timeout", "10s"])
t.ok(r.step.get("limit") == "idle" and r.out == "hi\n", "idle clock fires, output kept", r)
t.exit()
