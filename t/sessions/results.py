"""Sessions harness group "results": change detection (including what a
naive (size, mtime) stamp would miss), the MAX_RESULT_ATTACHMENTS cap and
omitted_files, deleted_files never truncated, a non-UTF-8 name omitted
rather than fatal, awkward names surviving Content-Disposition exactly."""

from sesslib import Client, start_or_bail, tap

CAP = 5
t = tap.Tap()
svc = start_or_bail(t, {"MAX_RESULT_ATTACHMENTS": str(CAP), "RUN_CONCURRENCY": "2"})
c = Client(svc)


def detection():
    sid = c.create(files=[("same.txt", b"unchanged"), ("mod.txt", b"old"), ("ident.txt", b"same"),
                          ("sneaky.txt", b"AAAA"), ("gone.txt", b"bye")])
    code = ("import os\n"
            "open('mod.txt', 'w').write('new content')\n"
            "open('ident.txt', 'w').write('same')\n"          # byte-identical rewrite
            "st = os.stat('sneaky.txt')\n"
            "open('sneaky.tmp', 'w').write('BBBB')\n"        # same size...
            "os.utime('sneaky.tmp', ns=(st.st_atime_ns, st.st_mtime_ns))\n"  # ...same mtime
            "os.rename('sneaky.tmp', 'sneaky.txt')\n"
            "os.remove('gone.txt')\n"
            "open('new.txt', 'w').write('fresh')\n"
            "os.makedirs('.cache/pkg', exist_ok=True); open('.cache/pkg/x', 'w').write('noise')\n"
            "os.makedirs('sub/.hidden', exist_ok=True); open('sub/.hidden/y', 'w').write('noise')\n"
            "open('.env', 'w').write('hidden file')\n"
            "open('sub/visible', 'w').write('v')\n")
    st, info, files, r = c.run(sid, "python", code)
    t.eq(st, 200, "execute answers 200", r)
    want = {b"mod.txt": b"new content", b"ident.txt": b"same", b"sneaky.txt": b"BBBB",
            b"new.txt": b"fresh", b".env": b"hidden file", b"sub/visible": b"v"}
    t.eq(len(files) + len(info["omitted_files"]), len(want), "six changed files reported")
    both = dict(files)
    t.ok(b"sneaky.txt" in both or "sneaky.txt" in info["omitted_files"],
         "a same-size, same-mtime replacement is detected (inode/ctime)", info)
    t.ok(b"ident.txt" in both or "ident.txt" in info["omitted_files"],
         "a byte-identical rewrite counts as modified", info)
    t.ok(b"same.txt" not in both and "same.txt" not in info["omitted_files"],
         "an untouched file is not reported")
    t.ok(all(not k.startswith(b".cache") and b".hidden" not in k for k in both)
         and all(".cache" not in k and ".hidden" not in k for k in info["omitted_files"]),
         "hidden directories are excluded at every depth", lambda: repr(sorted(both)))
    t.ok(b".env" in both or ".env" in info["omitted_files"], "hidden files are included")
    t.eq(info["deleted_files"], ["gone.txt"], "deleted_files names the removed file")
    t.ok(all(both[k] == want[k] for k in both), "attachment contents are the files' contents",
         lambda: repr(both))
    r = c.get(sid, ".cache/pkg/x")
    t.eq(r.body, b"noise", "hidden directories are still reachable through the files API")
    c.delete(sid)


def cap():
    sid = c.create(files=[("old%02d.txt" % i, b"x") for i in range(CAP + 4)])
    code = ("import os\n"
            "for i in range(%d): open('f%%02d.txt' %% i, 'w').write(str(i))\n"
            "for i in range(%d): os.remove('old%%02d.txt' %% i)\n" % (CAP + 3, CAP + 4))
    st, info, files, r = c.run(sid, "python", code)
    names = sorted([k.decode() for k in files] + info["omitted_files"])
    t.eq(len(files), CAP, "at most MAX_RESULT_ATTACHMENTS parts")
    t.eq(len(info["omitted_files"]), 3, "the rest are named in omitted_files")
    t.eq(names, ["f%02d.txt" % i for i in range(CAP + 3)], "parts and omitted_files cover every change")
    t.eq(sorted(info["deleted_files"]), ["old%02d.txt" % i for i in range(CAP + 4)],
         "deleted_files is never truncated")
    t.eq(info["return_code"], 0, "the run still succeeded")
    c.delete(sid)


def non_utf8():
    sid = c.create()
    code = "import os\nopen(b'bad\\xff\\xfename.txt', 'wb').write(b'x')\nopen('good.txt', 'w').write('g')\n"
    st, info, files, r = c.run(sid, "python", code)
    t.eq(st, 200, "a non-UTF-8 filename is not fatal", r)
    t.eq(list(files), [b"good.txt"], "the other file still comes back")
    t.eq(len((info or {}).get("omitted_files", [])), 1, "the non-UTF-8 name is in omitted_files")
    ls = c.listing(sid, "")
    t.ok(ls is not None and len(ls) == 2, "the listing still works", ls)
    c.delete(sid)


def awkward():
    import json
    import sesslib
    names = ['quote".txt', "new\nline.txt", "sp ace.txt", "ünïcødé-日本.txt", "nested/dir/deep.txt",
             "semi;colon=.txt", "percent%41.txt", "back\\slash.txt", "tab\there.txt",
             "apos'trophe.txt", "star*.txt", "crlf\r\nContent-Type: x.txt"]
    sid = c.create()
    got, plain_ok = {}, True
    # Batches under the attachment cap, so every name travels in filename*.
    for i in range(0, len(names), CAP):
        batch = names[i:i + CAP]
        code = ("import os, json\n"
                "for n in json.loads(%r):\n"
                "    d = os.path.dirname(n)\n"
                "    if d: os.makedirs(d, exist_ok=True)\n"
                "    open(n, 'w').write('content of ' + n)\n" % json.dumps(batch))
        r = c.execute(sid, "python", code)
        if r.status != 200:
            t.ok(False, "awkward batch ran", r)
            return
        info, parts = sesslib.parse_mixed(r)
        for p in parts:
            got[p.filename_ext.decode("utf-8")] = p.body
            fp = p.filename_plain
            plain_ok = plain_ok and fp is not None and "/" not in fp and all(
                32 <= ord(ch) < 127 and ch not in '"\\' for ch in fp)
    t.eq(sorted(got), sorted(names), "filename* round-trips every awkward name exactly")
    t.ok(all(v == ("content of " + k).encode() for k, v in got.items()),
         "each part carries its file's content", lambda: repr(got))
    t.ok(plain_ok, "filename= is a flattened ASCII fallback")
    ls = c.listing(sid, "")
    t.ok(ls is not None and "new\nline.txt" in ls, "the listing names them too", ls)
    c.delete(sid)


for name, fn in [("detection", detection), ("cap", cap), ("non_utf8", non_utf8), ("awkward", awkward)]:
    t.run(name, fn)
svc.stop()
t.exit()
