"""prestart.py - RUN_PRESTART: with it on, every job of the service runs in
a namespace init started ahead of it (sandbox/spawn.c) and the request log
says so; answers are right, nothing of one job reaches the next, and a job
whose inputs fill more than the first pages of the shared arena still
arrives whole.  With it off (the default) no job is prestarted.
"""

import hashlib

import rchttp
import tap

t = tap.Tap()


def logged_jobs(svc):
    return svc.logged_requests("/v1/execute", 2000)


def execute(svc, src, extra_files=()):
    files = [{"name": "main.py", "content": src}] + list(extra_files)
    r = svc.post_json("/v1/execute", {"language": "python", "files": files}, timeout=60)
    return r, (r.json if isinstance(r.json, dict) else {})


try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1, "RUN_PRESTART": 1}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

answers = [execute(svc, "print(%d * 7)\n" % i)[1].get("stdout") for i in range(12)]
t.ok(answers == ["%d\n" % (i * 7) for i in range(12)], "12 jobs answer right", repr(answers))

# A daemon of one job must be gone for the next, prestarted or not.
r, j = execute(svc, "import os\nif os.fork() == 0:\n    os.setsid()\n"
                    "    open('/tmp/left', 'w').write('x')\n    import time; time.sleep(60)\n"
                    "print('ok')\n")
r2, j2 = execute(svc, "import os\nprint(sorted(p for p in os.listdir('/proc') if p.isdigit()),"
                      " os.path.exists('/tmp/left'))\n")
t.ok(j.get("stdout") == "ok\n" and j2.get("stdout", "").endswith("False\n")
     and j2.get("stdout", "").count("'") <= 4,
     "the next job sees neither the daemon nor its file (%r)" % j2.get("stdout"))

# Inputs past the arena's first 64 KiB (returned to the kernel after each job).
blob = "".join(chr(ord("a") + (i * 7919) % 26) for i in range(300000))
digest = hashlib.sha256(blob.encode()).hexdigest()
r, j = execute(svc, "import hashlib\nprint(hashlib.sha256(open('data.txt','rb').read())"
                    ".hexdigest())\n", [{"name": "data.txt", "content": blob}])
t.eq(j.get("stdout"), digest + "\n", "a 300 KB input arrives whole in a prestarted job")

jobs = logged_jobs(svc)
t.ok(len(jobs) >= 15 and all(x.get("prestarted") is True for x in jobs),
     "every job was prestarted (%d logged, %d not)" % (
         len(jobs), sum(1 for x in jobs if x.get("prestarted") is not True)))
svc.stop()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 1}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)
answers = [execute(svc, "print(%d)\n" % i)[1].get("stdout") for i in range(3)]
jobs = logged_jobs(svc)
t.ok(answers == ["0\n", "1\n", "2\n"] and len(jobs) == 3
     and all(x.get("prestarted") is False for x in jobs),
     "RUN_PRESTART off: jobs answer right and none is prestarted")
svc.stop()
t.exit()
