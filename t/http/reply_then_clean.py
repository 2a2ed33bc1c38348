"""reply_then_clean.py - /run and /v1/execute answer before the slot is
cleaned (fcgi/jobs.c, docs/design.md "Answer first, clean after").  With
one slot, back-to-back requests must never see 429: a slot being cleaned
is waited for, not reported busy.
A job that leaves a daemon is answered, and the daemon is gone before the
next job runs on the slot (the next job cannot see it, and nothing with
its marker survives on the host).
"""

import json
import uuid

import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

ROUNDS = 30
statuses = []
for i in range(ROUNDS):
    path = "/run" if i % 2 else "/v1/execute"
    if path == "/run":
        body = rchttp.run_body("def solution(a, b):\n    return a + b\n",
                               asserts={"arguments": [[i, 1]]}, timeout="10s")
    else:
        body = {"language": "python", "files": [{"name": "main.py", "content": "print(%d)\n" % i}]}
    r = svc.post_json(path, body, timeout=60)
    statuses.append(r.status)
t.ok(all(s == 200 for s in statuses),
     "%d back-to-back requests on one slot all answered 200 (statuses: %s)"
     % (ROUNDS, sorted(set(statuses))))

marker = "rc-daemon-%s" % uuid.uuid4().hex
DAEMON = """
import os, sys, time
MARK = "%s"
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execvp(sys.executable, [sys.executable, "-c", "import time; time.sleep(300)", MARK])
    os._exit(0)
os.wait()
def running():
    for p in os.listdir("/proc"):
        try:
            with open("/proc/%%s/cmdline" %% p, "rb") as f:
                if MARK.encode() in f.read():
                    return True
        except OSError:
            pass
    return False
for _ in range(100):
    if running():
        print("daemon up")
        break
    time.sleep(0.02)
""" % marker
r = svc.post_json("/v1/execute",
                  {"language": "python", "files": [{"name": "main.py", "content": DAEMON}]},
                  timeout=60)
t.ok(r.status == 200 and r.json.get("stdout") == "daemon up\n",
     "a job that leaves a daemon is answered (%d %s)" % (r.status, r.body[:200]))

SPY = """
import os
seen = []
for p in os.listdir("/proc"):
    if p.isdigit():
        try:
            with open("/proc/%s/cmdline" % p, "rb") as f:
                seen.append(f.read())
        except OSError:
            pass
print(json.dumps([s.decode(errors="replace") for s in seen if b"MARK" in s]))
""".replace("MARK", marker)
r = svc.post_json("/v1/execute",
                  {"language": "python",
                   "files": [{"name": "main.py", "content": "import json\n" + SPY}]},
                  timeout=60)
good = r.status == 200
try:
    seen = json.loads(r.json.get("stdout") or "null")
except ValueError:
    seen = None
t.ok(good and seen == [], "the next job on the slot sees no trace of the daemon (%r)" % (seen,))
t.ok(rchttp.wait_until(lambda: not rchttp.pids_with_marker(marker), 5),
     "no process with the daemon's marker is left on the host")

h = svc.get("/health", timeout=10)
t.ok(h.status == 200, "/health still answers 200 (%d)" % h.status)
log = svc.fcgi_log_tail(400)
t.ok("slot_quarantined" not in log, "no slot was quarantined")

svc.stop()
t.exit()
