"""Sessions harness group "sandbox": read-only root, symlink containment,
RLIMIT_NOFILE, the session id invisible inside, ownership across runs, and
(heavy) MAX_MEMORY kills rather than hangs, CONTAINER_PIDS_LIMIT bounds
process creation without breaking the session, MAX_OUTPUT_SIZE truncates
without failing the run."""

import time

from sesslib import Client, start_or_bail, tap

ENV = {"MAX_MEMORY": "128m", "MAX_SESSION_SIZE": "300m", "CONTAINER_PIDS_LIMIT": "64", "MAX_OUTPUT_SIZE": "65536",
       "CONTAINER_ULIMIT_NOFILE": "200", "EXECUTION_TIMEOUT": "20", "RUN_CONCURRENCY": "2"}
t = tap.Tap()
svc = start_or_bail(t, ENV)
c = Client(svc)


def read_only_root():
    sid = c.create()
    code = ("import os\n"
            "for p in ['/etc/runcell-x', '/usr/runcell-x', '/runcell-x', '/opt/runcell-x']:\n"
            "    try:\n"
            "        open(p, 'w').write('x'); print('WROTE', p)\n"
            "    except OSError as e:\n"
            "        print('refused', p, e.errno)\n"
            "open('/tmp/scratch', 'w').write('ok'); print('tmp ok')\n"
            "open('mine.txt', 'w').write('ok'); print('session ok')\n")
    st, info, files, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    t.ok(st == 200 and "WROTE" not in out and out.count("refused") == 4,
         "the root file system is read-only", lambda: repr(info or r))
    t.ok("tmp ok" in out and "session ok" in out, "/tmp and the session are writable", out)
    t.eq(sorted(files), [b"mine.txt"], "only the session file comes back (not /tmp)")
    c.delete(sid)


def symlink_containment():
    sid = c.create()
    st, info, _, r = c.run(sid, "bash", "ln -s /etc/shadow s; cat s >/dev/null 2>&1 && echo READ || echo denied")
    t.ok(st == 200 and "denied" in info["output"], "a job cannot read /etc/shadow through a link",
         lambda: repr(info or r))
    r = c.get(sid, "s")
    t.ok(r.status in (400, 404) and b"root:" not in r.body, "nor can the API be made to follow it", r)
    c.delete(sid)


def nofile():
    sid = c.create()
    code = ("import os, resource\n"
            "soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)\n"
            "fds = []\n"
            "try:\n"
            "    for i in range(100000):\n"
            "        fds.append(os.open('/dev/null', os.O_RDONLY))\n"
            "except OSError as e:\n"
            "    print('stopped', e.errno)\n"
            "print('opened', len(fds), 'limit', soft, hard)\n")
    st, info, _, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    words = out.split()
    try:
        opened = int(words[words.index("opened") + 1])
        soft = int(words[words.index("limit") + 1])
    except (ValueError, IndexError):
        opened = soft = -1
    t.ok(st == 200 and "stopped 24" in out and 0 < opened <= 200 and soft <= 200,
         "RLIMIT_NOFILE bounds open files (EMFILE, at most CONTAINER_ULIMIT_NOFILE)",
         lambda: repr(info or r))
    c.delete(sid)


def id_not_visible():
    sid = c.create()
    code = ("import os\n"
            "blob = ''\n"
            "for p in ['/proc/self/mountinfo', '/proc/self/environ', '/proc/self/cmdline',\n"
            "          '/proc/self/cgroup']:\n"
            "    try: blob += open(p, errors='replace').read()\n"
            "    except OSError: pass\n"
            "blob += os.getcwd() + ' '.join(os.listdir('/sandbox'))\n"
            "print(blob)\n")
    st, info, _, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    t.ok(st == 200 and len(out) > 100 and sid not in out,
         "the session id is not visible inside the sandbox", lambda: repr(info or r))
    c.delete(sid)


def ownership():
    sid = c.create()
    c.put(sid, "from_api.txt", b"api\n")
    ok = True
    for i in range(4):
        st, info, _, r = c.run(sid, "bash", "echo run%d >> from_api.txt && echo run%d >> log.txt"
                               " && mkdir -p d%d && chmod 700 d%d && echo ok" % (i, i, i, i))
        ok = ok and st == 200 and info["return_code"] == 0
    t.ok(ok, "every run may modify files the API or earlier runs made", lambda: repr(info or r))
    t.eq(c.get(sid, "from_api.txt").body, b"api\nrun0\nrun1\nrun2\nrun3\n", "appends all landed")
    c.delete(sid)


def memory():
    sid = c.create()
    t0 = time.monotonic()
    st, info, _, r = c.run(sid, "python", "b = bytearray(600 * 1024 * 1024)\nb[::4096] = b'x' * len(b[::4096])\nprint('survived')")
    elapsed = time.monotonic() - t0
    t.ok(st == 200 and info["return_code"] != 0 and "survived" not in info["output"]
         and not info["timed_out"] and elapsed < 15,
         "MAX_MEMORY kills the job instead of hanging it", lambda: repr(info or r))
    st, info, _, r = c.run(sid, "bash", "echo alive")
    t.ok(st == 200 and "alive" in info["output"], "the session works after an OOM kill")
    c.delete(sid)


def memory_isolation():
    # Pages a job writes into its session stay charged to the memory cgroup
    # of the slot it ran in; they must not count against the next job that
    # uses the slot (another client's, in another session).
    a, b = c.create(), c.create()
    st, info, _, r = c.run(a, "bash", "head -c 100000000 /dev/zero > big.bin && echo wrote")
    t.ok(st == 200 and "wrote" in info["output"], "a job fills its session with 100 MB",
         lambda: repr(info or r))
    st, info, _, r = c.run(b, "python", "b = bytearray(80 * 1024 * 1024)\nprint('alloc ok')")
    t.ok(st == 200 and "alloc ok" in info["output"] and not info["oom_killed"],
         "the next job still gets its MAX_MEMORY (session data is not charged to it)",
         lambda: repr(info or r))
    c.delete(a)
    c.delete(b)


def pids():
    sid = c.create()
    code = ("import os, time\n"
            "n = 0\n"
            "try:\n"
            "    for i in range(1000):\n"
            "        pid = os.fork()\n"
            "        if pid == 0:\n"
            "            time.sleep(30); os._exit(0)\n"
            "        n += 1\n"
            "except OSError as e:\n"
            "    print('fork failed', e.errno)\n"
            "print('forked', n)\n")
    st, info, _, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    words = out.split()
    try:
        forked = int(words[words.index("forked") + 1])
    except (ValueError, IndexError):
        forked = -1
    t.ok(st == 200 and "fork failed" in out and 0 < forked < 64,
         "CONTAINER_PIDS_LIMIT bounds process creation", lambda: repr(info or r))
    st, info, _, r = c.run(sid, "bash", "echo alive")
    t.ok(st == 200 and "alive" in info["output"], "the session works after hitting the pids limit",
         lambda: repr(info or r))
    c.delete(sid)


def output():
    sid = c.create()
    st, info, _, r = c.run(sid, "python", "import sys\nsys.stdout.write('y' * 1000000)\nprint()\nprint('done')")
    t.ok(st == 200 and info["return_code"] == 0 and info["truncated"] and
         0 < len(info["output"]) <= 65536,
         "MAX_OUTPUT_SIZE truncates without failing the run", lambda: repr(info and {k: v for k, v in info.items() if k != "output"} or r))
    c.delete(sid)


for name, fn in [("read_only_root", read_only_root), ("symlink_containment", symlink_containment),
                 ("nofile", nofile), ("id_not_visible", id_not_visible), ("ownership", ownership),
                 ("memory", memory), ("memory_isolation", memory_isolation), ("pids", pids), ("output", output)]:
    t.run(name, fn)
svc.stop()
t.exit()
