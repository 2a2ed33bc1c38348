"""Sessions harness group "errors": the documented status codes for
malformed /execute and /sessions requests, and that a rejected request
leaves neither attachments nor sessions behind."""

from sesslib import BOUNDARY, Client, form, live_sessions, data_dirs, start_or_bail, tap, rchttp

t = tap.Tap()
svc = start_or_bail(t, {"MAX_CODE_LENGTH": "1000", "RUN_INPUT_MAX": "2m"})
c = Client(svc)


def post(path, body, ctype):
    headers = {"Content-Type": ctype} if ctype else {}
    return svc.request("POST", path, body=body, headers=headers)


def check(resp, status, name):
    ok, why = rchttp.json_error(resp, status)
    t.ok(ok, name, why)


def execute_errors(path):
    body, ctype = form([("code", "print(1)")])
    check(post(path, body, ctype), 400, "%s: missing language is 400" % path)
    body, ctype = form([("language", "cobol"), ("code", "x")])
    check(post(path, body, ctype), 400, "%s: unsupported language is 400" % path)
    body, ctype = form([("language", "python")])
    check(post(path, body, ctype), 400, "%s: missing code is 400" % path)
    body, ctype = form([("language", "python"), ("code", "#" * 1001)])
    check(post(path, body, ctype), 413, "%s: code over MAX_CODE_LENGTH is 413" % path)
    body, ctype = form([("language", "python"), ("language", "bash"), ("code", "x")])
    check(post(path, body, ctype), 400, "%s: a duplicated field is 400" % path)
    check(post(path, b'{"language":"python","code":"1"}', "application/json"), 400,
          "%s: a JSON body is 400" % path)
    body, ctype = form([("language", "python"), ("code", "print(1)")])
    check(post(path, body[:-20], ctype), 400, "%s: a truncated multipart body is 400" % path)
    check(post(path, body, "multipart/form-data"), 400, "%s: a missing boundary is 400" % path)
    bad_hdr = body.replace(b"Content-Disposition: form-data", b"Content-Disposition: attachment", 1)
    check(post(path, bad_hdr, ctype), 400, "%s: a part that is not form-data is 400" % path)
    body, ctype = form([("language", "python"), ("code", "x")], [("../up.txt", b"z")])
    check(post(path, body, ctype), 400, "%s: an attachment path escaping the session is 400" % path)
    big = b"z" * (3 << 20)
    body, ctype = form([("language", "python"), ("code", "x")], [("big.bin", big)])
    r = post(path, body, ctype)
    t.eq(r.status, 413, "%s: a body over RUN_INPUT_MAX is 413" % path, r)


def leaves_nothing():
    before_sessions, before_dirs = live_sessions(svc), data_dirs(svc)
    for lang in ("cobol", "python"):
        body, ctype = form([("language", lang)] + ([("code", "x")] if lang == "cobol" else []),
                           [("left.txt", b"behind")])
        post("/execute", body, ctype)
    t.eq((live_sessions(svc), data_dirs(svc)), (before_sessions, before_dirs),
         "rejected /execute requests leave no session behind")
    sid = c.create()
    body, ctype = form([("language", "cobol"), ("code", "x")], [("left.txt", b"behind")])
    r = post("/sessions/%s/execute" % sid, body, ctype)
    t.eq(r.status, 400, "a rejected session execute is 400")
    t.eq(c.listing(sid, ""), {}, "and leaves its attachments out of the session")
    # An attachment set that does not fit is written all-or-nothing.
    body, ctype = form([("language", "python"), ("code", "x")],
                       [("ok.txt", b"fine"), ("dir", b"file"), ("dir/child", b"conflict")])
    r = post("/sessions/%s/execute" % sid, body, ctype)
    t.eq(r.status, 400, "conflicting attachments are 400", r)
    t.eq(c.listing(sid, ""), {}, "and none of them was written")
    # Issue 16: an attachment part without a filename is a 400, and nothing
    # of the request (not even its valid attachments) is staged.
    body, ctype = form([("language", "python"), ("code", "open('seen','w').write('ran')"),
                        ("attachments", "nameless")], [("named.txt", b"kept out")])
    r = post("/sessions/%s/execute" % sid, body, ctype)
    check(r, 400, "an attachment part without a filename is 400")
    t.ok(b"filename" in r.body, "and the error says the filename is missing", r)
    t.eq(c.listing(sid, ""), {}, "and the session is unchanged (nothing staged, nothing ran)")
    before_dirs = data_dirs(svc)
    r = post("/execute", body, ctype)
    check(r, 400, "/execute: an attachment part without a filename is 400")
    t.eq(data_dirs(svc), before_dirs, "/execute: and no session directory is left behind")
    c.delete(sid)
    t.eq(live_sessions(svc), before_sessions, "no session record is left over")


def session_errors():
    missing = "0123456789abcdef" * 2
    body, ctype = form([("language", "python"), ("code", "print(1)")])
    check(post("/sessions/%s/execute" % missing, body, ctype), 404, "execute in a missing session is 404")
    check(post("/sessions/nonsense/execute", body, ctype), 404, "execute with a malformed id is 404")
    check(post("/sessions", b"not multipart", "text/plain"), 400, "POST /sessions with a non-multipart body is 400")
    body, ctype = form(files=[("/abs.txt", b"x")])
    check(post("/sessions", body, ctype), 400, "seeding an absolute path is 400")
    check(svc.get("/execute"), 405, "GET /execute is 405")
    check(svc.request("PATCH", "/sessions/%s/files/x" % missing), 405, "PATCH on files is 405")
    check(svc.get("/sessions/%s/whatever" % missing), 404, "an unknown session path is 404")
    check(svc.get("/sessions/%s" % missing), 405, "GET /sessions/{id} is 405 (DELETE only)")
    r = svc.request("POST", "/execute", body=b"x", headers={"Content-Type": "multipart/form-data; boundary=a",
                                                            "Content-Encoding": "gzip"})
    t.eq(r.status, 415, "a compressed body is 415", r)


for name, fn in [("execute_errors /execute", lambda: execute_errors("/execute")),
                 ("execute_errors session", lambda: execute_errors("/sessions/%s/execute" % c.create())),
                 ("leaves_nothing", leaves_nothing), ("session_errors", session_errors)]:
    t.run(name, fn)
svc.stop()
t.exit()
