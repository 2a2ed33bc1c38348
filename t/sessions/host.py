"""Sessions harness group "host": what is only visible on the API host.
The sessions root below RUN_STATE_DIR, no sandbox process outliving its
request, throw-away sessions leaving nothing, DELETE removing a session
whatever the job left in it (chmod 000, FIFOs, deep trees), session mounts
kept out of the host's mount table, and (SESSION_QUOTA=none, a plain
directory) job files owned by the slot uid."""

import os
import stat
import time

from sesslib import Client, data_dirs, live_sessions, session_root, service, tap, rchttp

t = tap.Tap()

AWKWARD = ("mkdir -p locked/inner && echo x > locked/inner/f && chmod 000 locked/inner locked;"
           " mkfifo fifo; python3 -c \"import os\nos.makedirs('/'.join(['d']*100))\";"
           " echo ro > ro.txt && chmod 444 ro.txt && chmod 555 .; echo made")


def slot_processes(svc, concurrency):
    uids = set(range(svc.uid_base, svc.uid_base + concurrency))
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.stat("/proc/" + entry).st_uid in uids:
                found.append(int(entry))
        except OSError:
            pass
    return found


def common(svc, c, label):
    root = session_root(svc)
    st = os.stat(root)
    t.eq(stat.S_IMODE(st.st_mode), 0o700, "%s: the sessions root is 0700" % label)
    sid = c.create()
    t.ok(sid not in data_dirs(svc) and len(data_dirs(svc)) == 1,
         "%s: the data directory is not named after the session id" % label, data_dirs(svc))
    st_, info, _, r = c.run(sid, "bash", "(sleep 100 &); setsid sleep 100 & nohup sleep 100 >/dev/null 2>&1 & echo started")
    t.ok(st_ == 200 and "started" in info["output"], "%s: a job leaves background processes" % label, r)
    left = rchttp.wait_until(lambda: not slot_processes(svc, 2), 5)
    t.ok(left, "%s: no sandbox process outlives its request" % label,
         lambda: repr(slot_processes(svc, 2)))
    st_, info, _, r = c.run(sid, "bash", AWKWARD)
    t.ok(st_ == 200 and "made" in info["output"], "%s: the job made a hostile tree" % label,
         lambda: repr(info or r))
    before = data_dirs(svc)
    r = c.delete(sid)
    t.eq(r.status, 200, "%s: DELETE answers 200" % label, r)
    t.eq((live_sessions(svc), data_dirs(svc)), ([], []),
         "%s: DELETE removed the record and the directory" % label, lambda: repr(before))
    r = c.execute(None, "bash", AWKWARD)
    t.eq(r.status, 200, "%s: a throw-away /execute runs" % label, r)
    t.eq((live_sessions(svc), data_dirs(svc)), ([], []),
         "%s: and leaves no directory behind" % label)


def tmpfs():
    svc = service({"RUN_CONCURRENCY": "2"})
    svc.start()
    c = Client(svc)
    try:
        common(svc, c, "tmpfs")
        sid = c.create()
        c.put(sid, "inside.txt", b"x")
        with open("/proc/self/mounts") as f:
            mounts = f.read()
        t.ok(session_root(svc) not in mounts,
             "tmpfs: session mounts are not in the host's mount table (private namespace)")
        t.eq(os.listdir(os.path.join(session_root(svc), "data", data_dirs(svc)[0])), [],
             "tmpfs: the host sees only the empty mount point")
        c.delete(sid)
    finally:
        svc.stop()


def plain():
    svc = service({"RUN_CONCURRENCY": "2", "SESSION_QUOTA": "none"})
    svc.start()
    c = Client(svc)
    try:
        common(svc, c, "plain")
        sid = c.create()
        st_, info, _, r = c.run(sid, "bash", "echo made > by_job.txt")
        path = os.path.join(session_root(svc), "data", data_dirs(svc)[0], "by_job.txt")
        try:
            uid = os.lstat(path).st_uid
        except OSError:
            uid = None
        t.ok(uid is not None and svc.uid_base <= uid < svc.uid_base + 2,
             "plain: files a job makes belong to its slot uid", uid)
        c.delete(sid)
    finally:
        svc.stop()


t.run("tmpfs", tmpfs)
t.run("plain", plain)
t.exit()
