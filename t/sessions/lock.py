"""Sessions harness group "lock" (SESSION_LOCK_WAIT_TIMEOUT_SECONDS=2,
EXECUTION_TIMEOUT=12): a request on a session busy past the lock wait
answers 409, other sessions are not blocked, the lock is released after
the run; and the execution timeout ("timeout" group of the document)."""

import threading
import time

from sesslib import Client, start_or_bail, tap

t = tap.Tap()
svc = start_or_bail(t, {"SESSION_LOCK_WAIT_TIMEOUT_SECONDS": "2", "EXECUTION_TIMEOUT": "12",
                        "RUN_CONCURRENCY": "2", "RUN_SPARE_WORKERS": "4"})
c = Client(svc)


def lock():
    sid, other = c.create(), c.create()
    c.put(sid, "f.txt", b"v1")
    box = {}

    def long_run():
        box["r"] = c.run(sid, "bash", "sleep 10; echo finished")

    th = threading.Thread(target=long_run)
    th.start()
    time.sleep(0.8)
    t0 = time.monotonic()
    r = c.get(sid, "f.txt")
    waited = time.monotonic() - t0
    t.eq(r.status, 409, "GET on a busy session is 409", r)
    t.ok(1.5 <= waited < 4, "after about SESSION_LOCK_WAIT_TIMEOUT_SECONDS", waited)
    t.eq(c.put(sid, "f.txt", b"v2").status, 409, "PUT on a busy session is 409")
    t.eq(c.delete(sid).status, 409, "DELETE of a busy session is 409")
    st, info, _, rr = c.run(sid, "bash", "echo second")
    t.eq(st, 409, "a second execute on the busy session is 409", rr)
    t0 = time.monotonic()
    r = c.get(other, "")
    t.ok(r.status == 200 and time.monotonic() - t0 < 1, "another session is not blocked", r)
    th.join(30)
    st, info, _, rr = box["r"]
    t.ok(st == 200 and "finished" in info["output"], "the long run completed", rr)
    r = c.get(sid, "f.txt")
    t.eq((r.status, r.body), (200, b"v1"), "the lock is released after the run; nothing changed")
    c.delete(sid)
    c.delete(other)


def timeout():
    sid = c.create()
    t0 = time.monotonic()
    st, info, _, r = c.run(sid, "bash", "echo before; sleep 60; echo after")
    elapsed = time.monotonic() - t0
    t.ok(st == 200 and info["timed_out"] is True and "before" in info["output"]
         and "after" not in info["output"], "EXECUTION_TIMEOUT ends the run with timed_out",
         lambda: repr(info or r))
    t.ok(11 <= elapsed < 18, "after about EXECUTION_TIMEOUT seconds", elapsed)
    st, info, _, r = c.run(sid, "bash", "echo alive")
    t.ok(st == 200 and "alive" in info["output"] and not info["timed_out"],
         "the session works after a timeout")
    c.delete(sid)


for name, fn in [("lock", lock), ("timeout", timeout)]:
    t.run(name, fn)
svc.stop()
t.exit()
