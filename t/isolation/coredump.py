"""coredump.py - a crashing job never starts the host's core-dump helper.

A piped kernel.core_pattern (apport, systemd-coredump) runs its helper as
host root outside the job's cgroup, and the kernel ignores RLIMIT_CORE 0
for pipes.  Jobs run with a hard RLIMIT_CORE of 1 (the kernel's "abort"
value for pipes, and below a page for files) and seccomp refuses any
change of it (sandbox/process/child.c, sandbox/seccomp).

The test sets core_pattern to a pipe into a helper of its own that
records the crashing program's name, and restores the original value
whatever happens.  Controls: a host process with RLIMIT_CORE 0 does start
the helper (so the test can see one), one with RLIMIT_CORE 1 does not.
Then two jobs crash (one after trying to lower the limit to 0): neither
starts it.
"""

import os
import resource
import subprocess
import tempfile
import time

import isolib

t = isolib.start(plan=8, uid_base=30360)

r = isolib.run(["/bin/sh", "-c", "ulimit -c; ulimit -Hc; cat /proc/self/limits | grep core"])
t.ok(r.code == 0 and "Max core file size        1                    1" in r.out,
     "the job's RLIMIT_CORE is 1, soft and hard", r)
r = isolib.run(["/bin/sh", "-c", "ulimit -c 0 && echo lowered; ulimit -Hc 0 && echo lowered"])
t.ok("lowered" not in r.out and "Operation not permitted" in r.err,
     "the job cannot lower it to 0 (EPERM)", r)
r = isolib.run(["/usr/bin/python3", "-c", """
import resource
try:
    resource.prlimit(0, resource.RLIMIT_CORE, (0, 0))
    print("changed")
except PermissionError:
    print("EPERM")
print(resource.prlimit(0, resource.RLIMIT_CORE))
"""])
t.eq(r.out.split("\n")[:2], ["EPERM", "(1, 1)"], "prlimit64 cannot change it; reading works", r)
r = isolib.run(["/bin/sh", "-c", "kill -SEGV $$"])
t.eq(r.step.get("signal"), 11, "a crashing job reports SIGSEGV", r)

tmp = tempfile.mkdtemp(prefix="rc-core-")
os.chmod(tmp, 0o755)
helper = os.path.join(tmp, "helper")
marker = os.path.join(tmp, "ran")
with open(helper, "w") as f:
    f.write("#!/bin/sh\necho \"$1\" >> %s\ncat > /dev/null\n" % marker)
os.chmod(helper, 0o755)
crash = b"#!/bin/sh\nkill -SEGV $$\n"
with open("/proc/sys/kernel/core_pattern") as f:
    original = f.read().rstrip("\n")

def ran():
    time.sleep(0.5)
    try:
        with open(marker) as f:
            return f.read().split()
    except OSError:
        return []

def host_crash(name, limit):
    path = os.path.join(tmp, name)
    with open(path, "wb") as f:
        f.write(crash)
    os.chmod(path, 0o755)
    subprocess.run([path], preexec_fn=lambda: resource.setrlimit(
        resource.RLIMIT_CORE, (limit, limit)))

try:
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write("|%s %%e" % helper)
    host_crash("rc-host-lim0", 0)
    host_crash("rc-host-lim1", 1)
    seen = ran()
    t.ok("rc-host-lim0" in seen, "control: a host crash with RLIMIT_CORE 0 runs the helper",
         seen)
    t.ok("rc-host-lim1" not in seen, "control: with RLIMIT_CORE 1 it does not", seen)
    jobs = {"rc-job-crash": crash,
            "rc-job-lower": b"#!/bin/sh\nulimit -Sc 0\nulimit -Hc 0\nkill -SEGV $$\n"}
    for name, text in jobs.items():
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(text)
        os.chmod(os.path.join(tmp, name), 0o755)
    r1 = isolib.run(["./rc-job-crash"],
                    options=["--file", "rc-job-crash=" + os.path.join(tmp, "rc-job-crash")])
    r2 = isolib.run(["./rc-job-lower"],
                    options=["--file", "rc-job-lower=" + os.path.join(tmp, "rc-job-lower")])
    seen = ran()
    t.ok(r1.step.get("signal") == 11 and "rc-job-crash" not in seen,
         "a crashing job does not run it", (seen, r1))
    t.ok(r2.step.get("signal") == 11 and "rc-job-lower" not in seen,
         "nor one that tried to lower its limit first", (seen, r2))
finally:
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write(original)
    subprocess.run(["rm", "-rf", "--one-file-system", tmp])
t.exit()
