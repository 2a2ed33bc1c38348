"""Sessions harness group "core": session and file life cycle, PUT/GET/
DELETE with nested parents, directories, symlinks and zero-byte bodies,
listings, sub_path containment, and an interrupted PUT that leaves the
original file intact with no staging debris."""

import os
import re
import socket
import time

from sesslib import Client, form, raw_get, start_or_bail, tap, session_root

t = tap.Tap()
svc = start_or_bail(t)
c = Client(svc)


def lifecycle():
    sid = c.create()
    t.ok(re.fullmatch(r"[0-9a-f]{32}", sid), "session id is 128 bits of hex", sid)
    other = c.create()
    t.ok(sid != other, "two sessions get different ids")
    r = c.get(sid, "")
    t.eq((r.status, r.json), (200, {"path": "", "entries": []}), "a new session is empty")
    r = c.delete(sid)
    t.eq(r.status, 200, "DELETE /sessions/{id} answers 200", r)
    t.eq(c.get(sid, "").status, 404, "a deleted session is gone")
    t.eq(c.delete(sid).status, 404, "deleting it again is 404")
    t.eq(c.get("0" * 32, "x").status, 404, "GET in an unknown session is 404")
    t.eq(c.put("0" * 32, "x", b"1").status, 404, "PUT in an unknown session is 404")
    t.eq(c.rm("0" * 32, "x").status, 404, "DELETE in an unknown session is 404")
    t.eq(svc.get("/sessions/not-an-id/files/x").status, 404, "a malformed id is 404")
    r = svc.get("/sessions")
    t.eq(r.status, 405, "GET /sessions is 405", r)
    c.delete(other)


def files():
    sid = c.create()
    blob = bytes(range(256)) * 17 + b"\0end"
    r = c.put(sid, "a/b/c/data.bin", blob)
    t.eq(r.status, 200, "PUT with missing parents answers 200", r)
    r = c.get(sid, "a/b/c/data.bin")
    t.eq((r.status, r.body), (200, blob), "GET returns the exact bytes (NUL included)")
    t.eq(r.headers.get("content-type"), "application/octet-stream", "file bytes are octet-stream")
    t.eq(c.put(sid, "a/b/c/data.bin", b"second").status, 200, "PUT overwrites")
    t.eq(c.get(sid, "a/b/c/data.bin").body, b"second", "the new content replaced the old")
    t.eq(c.put(sid, "empty", b"").status, 200, "a zero-byte PUT is accepted")
    r = c.get(sid, "empty")
    t.eq((r.status, r.body), (200, b""), "a zero-byte file reads back empty")
    ls = c.listing(sid, "")
    t.eq(sorted(ls), ["a", "empty"], "the root listing names both entries", ls)
    t.eq((ls["a"]["type"], ls["empty"]["type"], ls["empty"]["size"]), ("directory", "file", 0),
         "types and sizes in the listing")
    t.ok(all(isinstance(e["modified_at"], float) and e["modified_at"] > 1e9 for e in ls.values()),
         "modified_at is a UNIX time with a fraction", ls)
    r = c.get(sid, "a/b")
    t.eq((r.status, r.json and r.json["path"], [e["name"] for e in r.json["entries"]] if r.json else None),
         (200, "a/b", ["c"]), "a sub-directory lists one level")
    t.eq(c.get(sid, "a/b/").status, 200, "a trailing slash lists too")
    r = c.put(sid, "a/b", b"x")
    t.eq(r.status, 400, "PUT onto a directory is 400", r)
    r = c.put(sid, "empty/child", b"x")
    t.eq(r.status, 400, "PUT below a file is 400", r)
    t.eq(c.get(sid, "nope").status, 404, "GET of a missing file is 404")
    t.eq(c.rm(sid, "nope").status, 404, "DELETE of a missing file is 404")
    t.eq(c.rm(sid, "empty").status, 200, "DELETE of a file answers 200")
    t.eq(c.get(sid, "empty").status, 404, "the deleted file is gone")
    t.eq(c.rm(sid, "a").status, 200, "DELETE of a directory removes the tree")
    t.eq(c.listing(sid, ""), {}, "nothing is left")
    r = c.put(sid, "", b"x")
    t.eq(r.status, 400, "PUT on the root is 400", r)
    # Seeded at creation.
    seeded = c.create(files=[("src/main.py", b"print(1)\n"), ("README", b"hi")])
    t.eq(c.get(seeded, "src/main.py").body, b"print(1)\n", "POST /sessions seeds files (nested)")
    t.eq(c.get(seeded, "README").body, b"hi", "POST /sessions seeds files (top level)")
    c.delete(seeded)
    c.delete(sid)


def symlinks():
    sid = c.create()
    st, info, _, r = c.run(sid, "bash",
                           "ln -s /etc/passwd passwd_link; ln -s .. up; ln -s /etc etc_dir;"
                           " mkfifo pipe; mkdir d; echo ok")
    t.eq((st, info and info["return_code"]), (200, 0), "a job makes symlinks and a FIFO", r)
    ls = c.listing(sid, "")
    t.eq({k: v["type"] for k, v in (ls or {}).items()},
         {"passwd_link": "symlink", "up": "symlink", "etc_dir": "symlink", "pipe": "other",
          "d": "directory"}, "the listing reports symlinks and FIFOs without following")
    r = c.get(sid, "passwd_link")
    t.ok(r.status in (400, 404) and b"root:" not in r.body, "GET of a symlink is not followed", r)
    r = c.get(sid, "etc_dir/passwd")
    t.ok(r.status in (400, 404) and b"root:" not in r.body, "GET through a symlinked dir is refused", r)
    r = c.get(sid, "etc_dir")
    t.ok(r.status in (400, 404) and b"passwd" not in r.body, "a symlinked dir is not listed", r)
    r = c.put(sid, "etc_dir/runcell-escape", b"x")
    t.ok(r.status in (400, 404) and not os.path.exists("/etc/runcell-escape"),
         "PUT through a symlinked dir writes nothing outside", r)
    r = c.get(sid, "pipe")
    t.eq(r.status, 400, "GET of a FIFO is refused, never opened", r)
    t.eq(c.put(sid, "passwd_link", b"replaced").status, 200, "PUT over a symlink replaces the link")
    with open("/etc/passwd", "rb") as f:
        t.ok(b"replaced" not in f.read(), "the link's target is untouched")
    t.eq(c.get(sid, "passwd_link").body, b"replaced", "the link became a file")
    t.eq(c.rm(sid, "up").status, 200, "DELETE of a symlink removes the link")
    t.ok(c.listing(sid, "d") == {}, "the directory next to it is intact")
    c.delete(sid)


def containment():
    sid = c.create()
    bad = ["../escape", "a/../../escape", "/etc/passwd", "a/%2e%2e/b", "%2E%2E/x", "a\\..\\b",
           "a/%2f/b", "x\x00y"]
    for p in bad:
        body, ctype = form([("language", "bash"), ("code", "true")], [(p, b"evil")])
        r = svc.request("POST", "/sessions/%s/execute" % sid, body=body,
                        headers={"Content-Type": ctype})
        t.eq(r.status, 400, "attachment path %r is refused" % p, r)
    for raw in ("/sessions/%s/files/%%2e%%2e/%%2e%%2e/%%2e%%2e/etc/passwd" % sid,
                "/sessions/%s/files/..%%2f..%%2fetc%%2fpasswd" % sid,
                "/sessions/%s/files//etc/passwd" % sid):
        status, body = raw_get(svc, raw)
        t.ok(status in (400, 404) and b"root:" not in body, "GET %s stays inside" % raw,
             (status, body[:200]))
    # docs/sessions.md: an encoded '/' or '.' is a 400, whatever nginx
    # would make of the decoded path (a%2F..%2Fb is not b).
    for method, raw in (("PUT", "/sessions/%s/files/a%%2F..%%2Fb" % sid),
                        ("GET", "/sessions/%s/files/%%2e%%2e/x" % sid),
                        ("DELETE", "/sessions/%s/files/a/%%2E%%2E/b" % sid)):
        status, body = raw_get(svc, raw, method=method, body=b"evil" if method == "PUT" else b"")
        t.eq(status, 400, "%s %s is 400" % (method, raw), body[:200])
    t.eq(c.listing(sid, ""), {}, "no refused path left anything in the session")
    root = session_root(svc)
    leaked = [n for n in os.listdir(os.path.join(root, "data")) if n == "escape"]
    t.eq(leaked, [], "nothing escaped into the sessions root")
    c.delete(sid)


def interrupted_put():
    sid = c.create()
    c.put(sid, "keep.txt", b"original")
    req = ("PUT %s HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n"
           "Content-Type: application/octet-stream\r\n\r\n" % c.url(sid, "keep.txt")).encode()
    s = socket.create_connection(("127.0.0.1", svc.port), timeout=10)
    s.sendall(req + b"x" * 30000)
    time.sleep(0.3)
    s.close()
    time.sleep(0.5)
    r = c.get(sid, "keep.txt")
    t.eq((r.status, r.body), (200, b"original"), "an interrupted PUT leaves the original intact")
    t.eq(sorted(c.listing(sid, "")), ["keep.txt"], "and no staging debris")
    c.delete(sid)


for name, fn in [("lifecycle", lifecycle), ("files", files), ("symlinks", symlinks),
                 ("containment", containment), ("interrupted_put", interrupted_put)]:
    t.run(name, fn)
svc.stop()
t.exit()
