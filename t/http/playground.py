"""playground.py - the playground page in a real browser (issue 27, part 3).

Debian's chromium, driven by playwright-core from tools/npm
(t/http/playground_browser.cjs), against a real nginx + runcell-fcgi whose
nginx serves the page from the build directory (PLAYGROUND_DIR):
  - /playground is the page, / leads there; its assets are served, the
    terminal widget vendored from tools/npm;
  - its language list comes from /v1/languages;
  - a Python program that reads two lines and prints their sum: Run, type
    the two lines in the terminal, the sum appears and the page says the
    program exited with 0;
  - a C program that does not compile shows as a compile error, with the
    compiler's message in the terminal;
  - no script error on the page.
A screenshot of the sum is saved as playground.png in the build directory
(RC_PLAYGROUND_SCREENSHOT=path: there instead).  Needs root (the sandbox),
chromium, node and `npm ci` in tools/npm (./quickstart deps); a missing one
is a failure, not a skip.
"""

import json
import os
import shutil
import subprocess

import rchttp
import tap

t = tap.Tap()
SCRIPT = os.path.join(rchttp.SRCDIR, "t", "http", "playground_browser.cjs")
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
NODE = shutil.which("node")
PLAYWRIGHT = os.path.join(rchttp.SRCDIR, "tools", "npm", "node_modules", "playwright-core")
VENDOR = os.path.join(rchttp.BUILDDIR, "playground", "vendor", "xterm.js")
SHOT = os.environ.get("RC_PLAYGROUND_SCREENSHOT") or os.path.join(rchttp.BUILDDIR, "playground.png")

missing = [what for what, ok in (("chromium (apt)", os.access(CHROMIUM, os.X_OK)),
                                 ("node", NODE),
                                 ("playwright-core (npm ci in tools/npm)", os.path.isdir(PLAYWRIGHT)),
                                 ("xterm.js in the build (make, after npm ci)", os.path.exists(VENDOR)))
           if not ok]
if missing:
    t.ok(False, "the browser test's tools are installed (./quickstart deps)", "missing: " + ", ".join(missing))
    t.exit()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2, "RUN_SPARE_WORKERS": 4},
                         languages="python,c").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

r = svc.get("/")
t.ok(r.status == 302 and r.headers.get("location", "").endswith("/playground"),
     "GET / leads to /playground", repr(r))
r = svc.get("/playground")
t.ok(r.status == 200 and r.headers.get("content-type", "").startswith("text/html")
     and b"playground.js" in r.body, "GET /playground is the page", repr(r))
r = svc.get("/playground/vendor/xterm.js")
t.ok(r.status == 200 and len(r.body) > 10000, "the terminal widget is served (%d bytes)" % len(r.body))

if os.path.exists(SHOT):
    os.unlink(SHOT)
proc = subprocess.run([NODE, SCRIPT, "http://127.0.0.1:%d" % svc.port, SHOT],
                      capture_output=True, text=True, timeout=240)
results = {}
for line in proc.stdout.splitlines():
    try:
        item = json.loads(line)
        results[item["name"]] = item
    except (ValueError, KeyError):
        pass
if "browser" in results or proc.returncode != 0:
    t.diag("browser: exit %s\n%s\n%s" % (proc.returncode, proc.stdout[-3000:], proc.stderr[-3000:]))
names = [("languages", "the language list comes from /v1/languages"),
         ("running", "Run starts the program as a process"),
         ("sum", "a Python program reads two typed lines and prints their sum"),
         ("compile_error", "a C program that does not compile shows as a compile error"),
         ("no_page_errors", "no script error on the page")]
for key, name in names:
    item = results.get(key, {})
    t.ok(item.get("ok") is True, name, item.get("detail", "not run")[:2000])
t.ok(os.path.exists(SHOT) and os.path.getsize(SHOT) > 1000, "a screenshot is saved (%s)" % SHOT)
t.ok("worker_exited" not in svc.fcgi_log_tail(100000), "no worker died on the way")
svc.stop()
t.exit()
