"""rss.py - workers do not grow with the number of requests (issue 2).  The
summed RSS of runcell-fcgi's workers is taken after 30, 300 and 570
requests; a leak grows in both intervals of 270, while a one-off step (a
worker's first jobs of a kind, malloc extending its heap by 128 KiB, seen
up to 272 KiB here) shows in one of them.  So the smaller of the two
growths must stay within 1 KiB per request.  Requests mix successes and
the error paths (400s), where leaks like to hide.
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
for i in range(300, 570):
    request(i)
pids570, rss570 = snapshot()

t.ok(not failures, "all 570 requests answered as expected", lambda: "\n".join(failures))
t.ok(len(pids30) > 0, "found the workers (%d)" % len(pids30))
t.ok(pids300 == pids30 and pids570 == pids30,
     "the same workers served all requests (no respawn hid a leak)")
first, second = rss300 - rss30, rss570 - rss300
t.ok(min(first, second) <= 270,
     "worker RSS grew %d and %d KiB over two runs of 270 requests (limit 270 KiB for the "
     "smaller): %d -> %d -> %d KiB" % (first, second, rss30, rss300, rss570))
svc.stop()
t.exit()
