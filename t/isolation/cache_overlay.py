"""cache_overlay.py - a language's cache overlay (overlayPaths, mounted
through libmount) works with libmount loaded at run time
(sandbox/root/libmount_lazy.c), by the slot's init the first time a job
with cache overlays arrives.  The job reads the host's cache, its writes
stay in the job, and the binaries do not link libmount at all.

RUN_OVERLAY_PATHS_PYTHON points python's cache overlay at a scratch
directory on disk, so the test needs no toolchain with a real cache (go
and rust have the real ones; t/langs covers those through the service).
"""

import os
import shutil
import subprocess
import tempfile

import isolib

t = isolib.start(plan=6, uid_base=31230)

cache = tempfile.mkdtemp(prefix="rc-cache-", dir=isolib.TOP_BUILD)
os.chmod(cache, 0o777)  # as install-toolchains makes go's and rust's
with open(os.path.join(cache, "seed"), "w") as f:
    f.write("host\n")
os.chmod(os.path.join(cache, "seed"), 0o644)
env = dict(os.environ, RUN_OVERLAY_PATHS_PYTHON=cache,
           RUN_LANGS_DIR=os.environ.get("RUN_LANGS_DIR", os.path.join(isolib.TOP_SRC, "langs")))
SCRIPT = ('cat "$C/seed"; echo job > "$C/new"; cat "$C/new"; '
          'awk -v p="$C" \'$5 == p && $0 ~ / - overlay / { n++ } END { print n + 0 }\' '
          '/proc/self/mountinfo')


def job(extra=()):
    return isolib.run(["/bin/sh", "-c", "C=%s; %s" % (cache, SCRIPT)],
                      options=["--lang", "python"] + list(extra), env=env)


try:
    r = job()
    t.ok(r.code == 0 and r.out == "host\njob\n1\n",
         "cache overlay: the job reads the host's file, writes a file of its own, sees one overlay",
         repr(r))
    t.eq(sorted(os.listdir(cache)), ["seed"], "cache overlay: the job's file stayed in the job")

    # The slot's init serves one job after another: the second finds the
    # host's view again, not the first one's file (its overlay is new).
    r = job(["--repeat", "2"])
    t.ok(r.code == 0 and r.out == "host\njob\n1\n",
         "cache overlay, a second job on the same init: the same view", repr(r))
    t.eq(sorted(os.listdir(cache)), ["seed"], "and its file stayed in its job")

    for prog in ("runcell", "runcell-fcgi"):
        out = subprocess.run(["ldd", os.path.join(isolib.TOP_BUILD, prog)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT).stdout.decode()
        t.ok("libc.so" in out and "libmount" not in out,
             "%s does not link libmount (it is loaded when a cache overlay needs it)" % prog, out)
finally:
    shutil.rmtree(cache, ignore_errors=True)
t.exit()
