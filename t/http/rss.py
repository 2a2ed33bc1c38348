"""rss.py - workers do not grow with the number of requests: the summed RSS
of runcell-fcgi's workers after 300 requests stays within 1 KiB per request
of its value after 30 (issue 2).  Requests mix successes and the error
paths (400s), where leaks like to hide.
"""

import rchttp
import tap

t = tap.Tap()

try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}).start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

GOOD = rchttp.run_body("def solution(a, b):\n    return a + b\n", asserts={"arguments": [[3, 4]]},
                       timeout="20s")
BAD_JSON = b'{"lang_slug": "python", "solution_text": '
BAD_LANG = rchttp.run_body("x = 1\n", lang="no-such-language")
failures = []


def request(i):
    kind = i % 3
    if kind == 0:
        r = svc.post_json("/run", GOOD)
        ok = r.status == 200 and rchttp.checker_results((r.json or {}).get("stdout", "")) == [7]
    elif kind == 1:
        r = svc.post_json("/run", BAD_JSON)
        ok = r.status == 400
    else:
        r = svc.post_json("/run", BAD_LANG)
        ok = r.status == 400
    if not ok and len(failures) < 5:
        failures.append("request %d: %r" % (i, r))


def snapshot():
    rss = svc.workers_rss_kb()
    return set(rss), sum(v or 0 for v in rss.values())


for i in range(30):
    request(i)
pids30, rss30 = snapshot()
for i in range(30, 300):
    request(i)
pids300, rss300 = snapshot()

t.ok(not failures, "all 300 requests answered as expected", lambda: "\n".join(failures))
t.ok(len(pids30) > 0, "found the workers (%d)" % len(pids30))
t.eq(pids300, pids30, "the same workers served all requests (no respawn hid a leak)")
growth = rss300 - rss30
t.ok(growth <= 270, "worker RSS grew %d KiB over 270 requests (limit 270 KiB): %d -> %d KiB"
     % (growth, rss30, rss300))
svc.stop()
t.exit()
