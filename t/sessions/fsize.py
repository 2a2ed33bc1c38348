"""Sessions harness group "fsize" (CONTAINER_ULIMIT_FSIZE=1048576): the
per-file cap applies to PUT, to attachments and inside the sandbox."""

from sesslib import Client, form, start_or_bail, tap

CAP = 1048576
t = tap.Tap()
svc = start_or_bail(t, {"CONTAINER_ULIMIT_FSIZE": str(CAP), "RUN_INPUT_MAX": "4m"})
c = Client(svc)


def fsize():
    sid = c.create()
    t.eq(c.put(sid, "exact.bin", b"a" * CAP).status, 200, "a file of exactly the cap is accepted")
    c.put(sid, "keep.bin", b"original")
    r = c.put(sid, "keep.bin", b"b" * (CAP + 1))
    t.eq(r.status, 413, "a PUT one byte over the cap is 413", r)
    t.eq(c.get(sid, "keep.bin").body, b"original", "and leaves the old content")
    body, ctype = form([("language", "bash"), ("code", "true")], [("att.bin", b"c" * (CAP + 1))])
    r = svc.request("POST", "/sessions/%s/execute" % sid, body=body, headers={"Content-Type": ctype})
    t.eq(r.status, 413, "an attachment over the cap is 413", r)
    t.ok("att.bin" not in (c.listing(sid, "") or {}), "and is not written")
    code = ("import os\n"
            "try:\n"
            "    with open('big.bin', 'wb') as f:\n"
            "        f.write(b'x' * (2 * 1048576))\n"
            "    print('WROTE')\n"
            "except OSError as e:\n"
            "    print('refused', e.errno)\n"
            "print('size', os.path.getsize('big.bin'))\n")
    st, info, _, r = c.run(sid, "python", code)
    out = (info or {}).get("output", "")
    t.ok(st == 200 and "refused 27" in out and "WROTE" not in out,
         "inside the sandbox a write past the cap fails with EFBIG", lambda: repr(info or r))
    t.ok("size %d" % CAP in out, "the file stops at the cap", out)
    c.delete(sid)


t.run("fsize", fsize)
svc.stop()
t.exit()
