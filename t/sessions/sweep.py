"""Sessions harness group "sweep" (SESSION_INACTIVITY_TIMEOUT_SECONDS=5,
SESSION_SWEEP_INTERVAL_SECONDS=2): idle sessions expire, activity keeps
a session alive, a running execution is never swept."""

import time

from sesslib import Client, data_dirs, live_sessions, rchttp, session_root, start_or_bail, tap

t = tap.Tap()
svc = start_or_bail(t, {"SESSION_INACTIVITY_TIMEOUT_SECONDS": "5",
                        "SESSION_SWEEP_INTERVAL_SECONDS": "2", "EXECUTION_TIMEOUT": "20"})
c = Client(svc)


def sweep():
    idle = c.create()
    c.put(idle, "x", b"1")
    busy = c.create()
    kept = c.create()
    t.eq(c.get(idle, "x").status, 200, "a fresh session is there")
    deadline = time.monotonic() + 10
    # kept: touched every second; busy: one execution longer than the timeout.
    import threading
    box = {}
    th = threading.Thread(target=lambda: box.setdefault("r", c.run(busy, "bash", "sleep 9; echo ok")))
    th.start()
    while time.monotonic() < deadline:
        c.get(kept, "")
        time.sleep(1)
    th.join(30)
    t.eq(c.get(idle, "x").status, 404, "an idle session expired after ~5 s (+ sweep interval)")
    t.eq(c.get(kept, "").status, 200, "a session in use stays")
    st, info, _, r = box["r"]
    t.ok(st == 200 and "ok" in info["output"], "an execution longer than the idle timeout completes", r)
    t.eq(c.get(busy, "").status, 200, "and its session was not swept under it")
    ids = live_sessions(svc)
    t.ok(idle not in ids and kept in ids and len(data_dirs(svc)) == len(ids),
         "the expired session's record and directory are gone", lambda: repr((ids, data_dirs(svc))))
    time.sleep(9)
    t.eq((c.get(kept, "").status, c.get(busy, "").status), (404, 404),
         "left alone, the others expire too")
    t.eq((live_sessions(svc), data_dirs(svc)), ([], []), "nothing is left on disk")


def orphans():
    import os
    live = c.create()
    orphan = os.path.join(session_root(svc), "data", "ab" * 16)
    os.mkdir(orphan, 0o700)
    with open(os.path.join(orphan, "left"), "w") as f:
        f.write("debris")
    gone = rchttp.wait_until(lambda: not os.path.exists(orphan), 8, 0.2)
    t.ok(gone, "a data directory no session record points to is removed by the sweep")
    t.eq(c.get(live, "").status, 200, "a live session is left alone")
    t.eq(len(data_dirs(svc)), 1, "its directory stays")
    c.delete(live)


t.run("sweep", sweep)
t.run("orphans", orphans)
svc.stop()
t.exit()
