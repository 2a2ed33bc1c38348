"""limits.py - the limits runcell enforces itself, behind nginx's.

- The backend answers 413 for a body over RUN_INPUT_MAX on its own: nginx's
  cap is raised to 1 MiB here so the request reaches runcell.
- RUN_OUTPUT_MAX=0 disables the output cap: a 2 MiB stdout comes back whole
  (which also exercises nginx's buffering of a large answer).
- A malformed configuration variable stops runcell-fcgi at start with a
  message naming the variable.
"""

import json
import os
import subprocess

import rchttp
import tap

t = tap.Tap()

# -- runcell's own 413 ---------------------------------------------------------

try:
    svc = rchttp.Service(env={"RUN_INPUT_MAX": "64k", "RUN_CONCURRENCY": 2},
                         nginx_body_max=1 << 20).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

body = rchttp.run_body("def solution(a, b):\n    return a + b\n# " + "p" * 100000,
                       asserts={"arguments": [[1, 1]]}, timeout="5s")
r = svc.post_json("/run", body)
good, why = rchttp.json_error(r, 413, "payload too large")
t.ok(good, "body over RUN_INPUT_MAX (64k) past nginx: runcell answers 413 payload too large", why)

small = rchttp.run_body("def solution(a, b):\n    return a + b\n", asserts={"arguments": [[1, 1]]},
                        timeout="20s")
r = svc.post_json("/run", small)
t.eq((r.status, (r.json or {}).get("exit_code")), (200, 0), "a small body still runs", repr(r))
svc.stop()

# -- RUN_OUTPUT_MAX=0: no cap ----------------------------------------------------

try:
    svc = rchttp.Service(env={"RUN_OUTPUT_MAX": "0", "RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

size = 2 << 20
src = rchttp.REAL_STDOUT + "_os.write(OUT, b'q' * %d)\n_os.write(2, b'e' * %d)\n_os._exit(0)\n" % (
    size, size)
r = svc.post_json("/run", rchttp.run_body(src, timeout="30s"))
body = r.json or {}
t.eq(r.status, 200, "RUN_OUTPUT_MAX=0, 2 MiB on each stream: 200", lambda: repr(r))
t.eq((body.get("stdout", "").count("q"), body.get("stderr", "").count("e")), (size, size),
     "both 2 MiB streams come back whole through nginx")
svc.stop()

# -- a malformed variable refuses to start, naming it --------------------------------

binary = os.environ.get("RC_FCGI_BIN") or os.path.join(rchttp.BUILDDIR, "runcell-fcgi")
base = {k: v for k, v in os.environ.items() if not k.startswith("RUN_")}
base.update({"RUN_LISTEN": "unix:/nonexistent-dir/never.sock",
             "RUN_LANGS_DIR": os.path.join(rchttp.SRCDIR, "langs"),
             "RUN_LANGUAGES": "python"})
for name, value in [("RUN_CONCURRENCY", "ten"), ("RUN_INPUT_MAX", "-5"),
                    ("RUN_OUTPUT_MAX", "1x"), ("RUN_UID_BASE", "abc"),
                    ("RUN_MEMORY_MAX", "lots"), ("ALLOW_SHUTDOWN", "maybe"),
                    ("RUN_SANDBOX_MEM_MAX", "1q"), ("RUN_TMP_SIZE_PYTHON", "big"),
                    ("PORT", "99999")]:
    env = dict(base, **{name: value})
    try:
        proc = subprocess.run([binary], env=env, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=20)
        out = proc.stdout.decode("utf-8", "replace")
        t.ok(proc.returncode != 0 and name in out,
             "%s=%s: refuses to start, naming the variable" % (name, json.dumps(value)),
             "exit %s, output:\n%s" % (proc.returncode, out[-2000:]))
    except subprocess.TimeoutExpired:
        t.ok(False, "%s=%s: refuses to start" % (name, value), "still running after 20s")

t.exit()
