"""Sessions harness group "quota" (MAX_SESSION_SIZE=1m,
MAX_SESSION_ENTRIES=40): the kernel enforces both per session; the API
answers 413 and never leaves a partial file; the job sees ENOSPC; other
sessions are unaffected."""

from sesslib import Client, form, start_or_bail, tap

SIZE = 1 << 20
ENTRIES = 40
t = tap.Tap()
svc = start_or_bail(t, {"MAX_SESSION_SIZE": str(SIZE), "MAX_SESSION_ENTRIES": str(ENTRIES),
                        "RUN_INPUT_MAX": "4m"})
c = Client(svc)


def size():
    sid, other = c.create(), c.create()
    r = c.put(sid, "huge.bin", b"h" * (2 * SIZE))
    t.eq(r.status, 413, "a PUT larger than MAX_SESSION_SIZE is 413", r)
    t.ok("huge.bin" not in (c.listing(sid, "") or {}), "and leaves no file")
    t.eq(c.put(sid, "half.bin", b"1" * (SIZE // 2)).status, 200, "half the quota fits")
    r = c.put(sid, "more.bin", b"2" * (SIZE * 3 // 4))
    t.eq(r.status, 413, "another 3/4 does not", r)
    t.eq(sorted(c.listing(sid, "")), ["half.bin"], "no partial file, no staging debris")
    t.eq(len(c.get(sid, "half.bin").body), SIZE // 2, "the first file is intact")
    r = c.put(sid, "half.bin", b"3" * (SIZE * 3 // 4))
    t.eq(r.status, 413, "replacing a file with one that does not fit is 413", r)
    t.eq(c.get(sid, "half.bin").body[:1], b"1", "and keeps the old content")
    code = ("import errno\n"
            "try:\n"
            "    with open('fill.bin', 'wb') as f:\n"
            "        for i in range(64): f.write(b'z' * 65536); f.flush()\n"
            "    print('WROTE')\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n")
    st, info, _, r = c.run(sid, "python", code)
    t.ok(st == 200 and "refused 28" in info["output"], "inside, writing past the quota is ENOSPC",
         lambda: repr(info or r))
    st, info, _, r = c.run(sid, "bash", "rm -f fill.bin; echo cleaned")
    t.ok(st == 200 and "cleaned" in info["output"], "the session still runs and can free space")
    t.eq(c.put(other, "big.bin", b"4" * (SIZE * 3 // 4)).status, 200,
         "another session has its own quota")
    body, ctype = form([("language", "bash"), ("code", "true")],
                       [("a.bin", b"5" * (SIZE // 3)), ("b.bin", b"6" * (SIZE // 3))])
    r = svc.request("POST", "/sessions/%s/execute" % sid, body=body, headers={"Content-Type": ctype})
    t.eq(r.status, 413, "attachments that do not fit together are 413", r)
    t.eq(sorted(c.listing(sid, "")), ["half.bin"], "and none of them was written")
    c.delete(sid)
    c.delete(other)


def entries():
    sid = c.create()
    code = ("import os\n"
            "n = 0\n"
            "try:\n"
            "    for i in range(200):\n"
            "        open('e%03d' % i, 'w').close(); n += 1\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n"
            "print('created', n)\n")
    st, info, _, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    t.ok(st == 200 and "refused 28" in out, "inside, creating past MAX_SESSION_ENTRIES is ENOSPC",
         lambda: repr(info or r))
    t.ok("created %d" % ENTRIES in out, "exactly MAX_SESSION_ENTRIES entries fit", out)
    r = c.put(sid, "one-more", b"x")
    t.eq(r.status, 413, "a PUT creating one more entry is 413", r)
    # A replacement is staged in a new inode before the rename, so it
    # needs one free entry, like any staged write.
    t.eq(c.put(sid, "e000", b"replaced").status, 413, "a full session refuses even a replacement")
    t.eq(c.get(sid, "e000").body, b"", "which leaves the old file as it was")
    t.eq(c.rm(sid, "e001").status, 200, "DELETE frees an entry")
    t.eq(c.put(sid, "e000", b"replaced").status, 200, "then the replacement fits")
    t.eq(c.get(sid, "e000").body, b"replaced", "with the new content")
    c.delete(sid)


for name, fn in [("size", size), ("entries", entries)]:
    t.run(name, fn)
svc.stop()
t.exit()
