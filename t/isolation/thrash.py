"""thrash.py - a job stuck at its memory limit re-reading its own pages ends
with the memory verdict within seconds, not at its wall clock; jobs at
their limit that do not thrash are left alone (sandbox/process/thrash.c).

t/isolation/memthrash holds N MiB of anonymous memory and reads a file
from the job's lower layer (a template directory on disk, so its pages
are page cache charged to the job, not tmpfs) end to end, again and again.
With 40 MiB held under a 64 MiB limit, a 48 MiB file cannot stay cached:
every pass re-reads it from disk, a refault per page, and nothing ever
fails, so the kernel's OOM killer never acts.  The controls: the same
passes with room for the file; one pass over a file twice the room (a
first read is no refault); the memory held at the limit without reading.
"""

import os
import shutil
import tempfile

import isolib

t = isolib.start(plan=13, uid_base=30930)
HELPER = os.path.join(isolib.TOP_BUILD, "t", "isolation", "memthrash")
MIB = 1024 * 1024

# On disk, beside the build (never a tmpfs: tmpfs pages cannot be evicted
# without swap, so they would not thrash).
template = tempfile.mkdtemp(prefix="rc-thrash-", dir=isolib.TOP_BUILD)
for name, mib in (("a.dat", 48), ("b.dat", 48), ("c.dat", 96)):
    with open(os.path.join(template, name), "wb") as f:
        block = os.urandom(MIB)
        for _ in range(mib):
            f.write(block)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(os.path.join(template, name), 0o644)
os.chmod(template, 0o755)


def job(args, memory, timeout="30s"):
    return isolib.run(["./memthrash"] + [str(a) for a in args],
                      options=["--file", "memthrash=" + HELPER, "--template", template,
                               "--memory", memory, "--timeout", timeout, "--idle", timeout,
                               "--cpu", timeout])


try:
    # 1. Thrashing: 40 MiB held, a 48 MiB file read 1000 times in 64 MiB.
    r = job([40, "a.dat", 1000], "64m")
    s = r.step
    t.ok(s.get("outcome") == "memory" and s.get("oom_killed") is True,
         "thrashing at the limit: the memory verdict", repr(r))
    t.ok(s.get("outcome") == "memory" and s.get("wall_ms", 10 ** 9) < 15000,
         "thrashing at the limit: stopped after %s ms, long before the 30 s wall clock"
         % s.get("wall_ms"), repr(r))
    t.ok("memory limit (64m) exceeded" in r.err and "thrashed at the limit" in r.err,
         "thrashing at the limit: stderr names the limit and the thrashing", repr(r))
    t.ok(r.code == 137 and s.get("signal") == 9 and "ok " not in r.out,
         "thrashing at the limit: the program was killed before it finished", repr(r))
    t.ok(s.get("memory_peak_kb", 0) >= 60 * 1024,
         "thrashing at the limit: the peak is at the limit (%s KiB)" % s.get("memory_peak_kb"),
         repr(r))

    # 2. The same passes with room for the file: it runs to its end.
    r = job([40, "b.dat", 30], "160m")
    t.ok(r.step.get("outcome") == "exited" and r.code == 0 and r.out.strip() == "ok 30",
         "the same reads with room for the file: exit 0 after 30 passes", repr(r))
    t.ok(r.code == 0 and "thrashed" not in r.err and "memory limit" not in r.err,
         "with room: no memory line on stderr", repr(r))

    # 3. One pass over 96 MiB with 24 MiB of room: reclaim at the limit all
    # the way, but a first read is no refault.
    r = job([40, "c.dat", 1], "64m")
    t.ok(r.step.get("outcome") == "exited" and r.code == 0 and r.out.strip() == "ok 1",
         "one pass over a file four times the room: exit 0", repr(r))

    # 4. The limit nearly full, nothing read: 3 s at the limit, exit 0.
    r = job([58, "-", 3], "64m")
    t.ok(r.step.get("outcome") == "exited" and r.code == 0 and r.out.strip() == "ok 3",
         "58 MiB held at a 64 MiB limit for 3 s without refaults: exit 0", repr(r))
    t.ok(r.code == 0 and r.step.get("wall_ms", 0) >= 3000
         and r.step.get("memory_peak_kb", 0) >= 58 * 1024,
         "held at the limit: it ran its 3 s (%s ms) with its 58 MiB (peak %s KiB)"
         % (r.step.get("wall_ms"), r.step.get("memory_peak_kb")), repr(r))

    # 5. A small job under a large limit, files read again: nothing fires.
    r = job([8, "b.dat", 3], "256m")
    t.ok(r.step.get("outcome") == "exited" and r.out.strip() == "ok 3",
         "a small job under a large limit: exit 0", repr(r))

    # 6. The slot is fine after the thrash kill: it runs the next job, and
    # a thrash kill again gives the memory verdict (the watch restarts per
    # step).
    r = job([40, "a.dat", 1000], "64m")
    t.ok(r.step.get("outcome") == "memory" and "thrashed at the limit" in r.err,
         "a second thrashing job in the same slot: the memory verdict again", repr(r))
    r = isolib.sh("echo alive", options=["--memory", "64m"])
    t.ok(r.code == 0 and r.out == "alive\n", "the slot runs the next job", repr(r))
finally:
    shutil.rmtree(template, ignore_errors=True)
t.exit()
