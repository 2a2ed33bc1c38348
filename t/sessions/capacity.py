"""Sessions harness group "capacity" (MAX_SESSIONS=4, all of them one
client's, 2 execution slots, a 2 s queue wait): MAX_SESSIONS answers 503
for new and throw-away sessions and frees up on DELETE; executions beyond
the slots wait in the queue (RUN_QUEUE_WAIT_MS), then answer 503.  The
per-client share (MAX_SESSIONS_PER_CLIENT) has its test in
t/abuse/front.py."""

import threading
import time

from sesslib import Client, form, live_sessions, start_or_bail, tap, rchttp

t = tap.Tap()
svc = start_or_bail(t, {"MAX_SESSIONS": "4", "MAX_SESSIONS_PER_CLIENT": "4",
                        "RUN_CONCURRENCY": "2", "RUN_SPARE_WORKERS": "3",
                        "RUN_QUEUE_WAIT_MS": "2000"})
c = Client(svc)


def sessions_cap():
    sids = [c.create() for _ in range(4)]
    t.eq(len(set(sids)), 4, "four sessions fit")
    r = svc.request("POST", "/sessions")
    ok, why = rchttp.json_error(r, 503)
    t.ok(ok, "the fifth is 503", why)
    body, ctype = form([("language", "bash"), ("code", "echo hi")])
    r = svc.request("POST", "/execute", body=body, headers={"Content-Type": ctype})
    t.eq(r.status, 503, "a throw-away /execute is 503 too when full", r)
    st, info, _, r = c.run(sids[0], "bash", "echo still")
    t.ok(st == 200 and "still" in info["output"], "existing sessions keep working when full")
    c.delete(sids[0])
    sids[0] = c.create()
    t.ok(len(sids[0]) == 32, "DELETE frees a place")
    for s in sids:
        c.delete(s)
    t.eq(live_sessions(svc), [], "all gone")


def slots():
    sids = [c.create() for _ in range(3)]
    results = [None] * 3

    def go(i):
        t0 = time.monotonic()
        r = c.execute(sids[i], "bash", "sleep 4; echo done%d" % i)
        results[i] = (r.status, time.monotonic() - t0, r)

    threads = [threading.Thread(target=go, args=(i,)) for i in range(3)]
    for th in threads:
        th.start()
        time.sleep(0.2)
    for th in threads:
        th.join(60)
    statuses = sorted(x[0] for x in results if x)
    t.eq(statuses, [200, 200, 503], "two run in parallel, the third waits then gets 503",
         lambda: repr(results))
    late = [x for x in results if x and x[0] == 503]
    t.ok(late and 1.5 <= late[0][1] < 4, "the 503 came after the ~2 s wait, before a slot freed",
         lambda: repr(results))
    ran = [x for x in results if x and x[0] == 200]
    t.ok(len(ran) == 2 and max(x[1] for x in ran) < 7.5, "the two ran at the same time",
         lambda: repr(results))
    # With a slot free again, a waiting execution succeeds after waiting.
    results2 = [None] * 3

    def go2(i):
        t0 = time.monotonic()
        r = c.execute(sids[i], "bash", "sleep %s; echo ok" % ("3" if i < 2 else "0"))
        results2[i] = (r.status, time.monotonic() - t0)

    threads = [threading.Thread(target=go2, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    time.sleep(1.5)
    go2(2)
    for th in threads:
        th.join(60)
    t.eq(results2[2][0], 200, "an execution that waited less than the timeout runs",
         lambda: repr(results2))
    t.ok(results2[2][1] >= 1.0, "it did wait for a slot", lambda: repr(results2))
    for s in sids:
        c.delete(s)


for name, fn in [("sessions_cap", sessions_cap), ("slots", slots)]:
    t.run(name, fn)
svc.stop()
t.exit()
