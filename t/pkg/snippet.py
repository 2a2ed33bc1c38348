"""snippet.py - nginx/runcell-location.conf in a server you already have.

A real nginx whose servers each `include` a copy of the snippet, with only
the values its header says to edit changed (the socket, the openapi.yaml
path) plus the few timeouts and buffers a case needs to be reached fast:

  main     the snippet in front of a real runcell-fcgi (rchttp), beside the
           server's own `location /`:
             - every route reaches runcell: /health, /run, /v1/execute,
               /v1/languages, /execute, /metrics, /shutdown, /sessions and
               the session's files and execute (POST /sessions works);
             - /openapi.yaml is the document, GET and HEAD only;
             - the server's other paths (/, /runx, /v1) stay its own;
             - nginx's own 400 (bad chunked body, bad header line), 403
               (/shutdown from 127.0.0.2), 405, 408 (body timeout), 413, 414
               and 415 come back as JSON;
  dead     the socket does not exist: 502 JSON; a missing openapi.yaml:
           404 JSON; a body nginx cannot buffer (its temp directory gone):
           500 JSON;
  hung     a backend that accepts and never answers: 504 JSON;
  limited  a limit_req the administrator added: 429 JSON
           (limit_req_status 429), and 503 JSON (nginx's default status).
Every JSON error is {"error": "..."} with Content-Type application/json.
And the full site (nginx/runcell.conf.in, rchttp's own nginx): an
X-Request-Id of 32 hex digits names the session POST /sessions creates.
Needs root (runcell's sandbox).
"""
import http.client
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

import rchttp
import tap

sys_path = os.path.join(rchttp.SRCDIR, "t", "sessions")
import sys  # noqa: E402

sys.path.insert(0, sys_path)
import sesslib  # noqa: E402

t = tap.Tap()
SRC = rchttp.SRCDIR
SNIPPET = os.path.join(SRC, "nginx", "runcell-location.conf")
OPENAPI = os.path.join(SRC, "docs", "openapi.yaml")


def client(port):
    c = rchttp.Service.__new__(rchttp.Service)
    c.port = port
    return c


def snippet_copy(path, sock, openapi=OPENAPI, edits=()):
    with open(SNIPPET, encoding="utf-8") as f:
        text = f.read()
    for old, new in [("unix:/run/runcell/runcell.sock", "unix:" + sock),
                     ("alias /usr/share/runcell/openapi.yaml;", "alias %s;" % openapi)] + list(edits):
        if old not in text:
            raise AssertionError("the snippet no longer has %r" % old)
        text = text.replace(old, new)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def hung_backend(path):
    """A unix socket that accepts and reads, and never answers."""
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(16)
    held = []

    def loop():
        while True:
            try:
                conn, _ = srv.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=loop, daemon=True).start()
    return srv, held


def start_nginx(tmp, svc):
    ports = {k: rchttp.free_port() for k in ("main", "dead", "hung", "limited", "limited503")}
    dead_sock = os.path.join(tmp, "nobody.sock")
    hung_sock = os.path.join(tmp, "hung.sock")
    body_tmp = os.path.join(tmp, "dead-body")
    snippet_copy(os.path.join(tmp, "main.conf"), svc.socket_path,
                 edits=[("client_body_timeout 60s;", "client_body_timeout 2s;")])
    snippet_copy(os.path.join(tmp, "dead.conf"), dead_sock, openapi=os.path.join(tmp, "missing.yaml"),
                 edits=[("client_body_buffer_size 1m;", "client_body_buffer_size 1k;")])
    snippet_copy(os.path.join(tmp, "hung.conf"), hung_sock,
                 edits=[("fastcgi_read_timeout 660s;", "fastcgi_read_timeout 2s;")])
    snippet_copy(os.path.join(tmp, "limited.conf"), svc.socket_path)
    site = """
limit_req_zone $binary_remote_addr zone=rcsnip429:1m rate=1r/m;
limit_req_zone $binary_remote_addr zone=rcsnip503:1m rate=1r/m;
server {
    listen 127.0.0.1:%(main)d;
    location / { default_type text/plain; return 200 'the server\\'s own\\n'; }
    include %(tmp)s/main.conf;
}
server {
    listen 127.0.0.1:%(dead)d;
    client_body_temp_path %(body_tmp)s;
    include %(tmp)s/dead.conf;
}
server {
    listen 127.0.0.1:%(hung)d;
    include %(tmp)s/hung.conf;
}
server {
    listen 127.0.0.1:%(limited)d;
    limit_req zone=rcsnip429 nodelay;
    limit_req_status 429;
    include %(tmp)s/limited.conf;
}
server {
    listen 127.0.0.1:%(limited503)d;
    limit_req zone=rcsnip503 nodelay;
    include %(tmp)s/limited.conf;
}
""" % dict(ports, tmp=tmp, body_tmp=body_tmp)
    with open(os.path.join(tmp, "site.conf"), "w") as f:
        f.write(site)
    for d in ("logs", "tmp"):
        os.makedirs(os.path.join(tmp, d), exist_ok=True)
    with open(os.path.join(tmp, "nginx.conf"), "w") as f:
        subprocess.run(["/usr/bin/python3", os.path.join(SRC, "nginx", "render"),
                        os.path.join(SRC, "nginx", "nginx.conf.in"), "NGINX_USER=root",
                        "NGINX_DAEMON=off", "NGINX_WORKERS=1", "SITE_CONF=site.conf"],
                       stdout=f, check=True, env={"PATH": "/usr/bin:/bin"})
    test = subprocess.run([rchttp.NGINX, "-t", "-p", tmp + "/", "-c", os.path.join(tmp, "nginx.conf")],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    t.ok(test.returncode == 0, "nginx -t: the snippet included in five servers",
         test.stdout.decode(errors="replace"))
    hung = hung_backend(hung_sock)
    proc = subprocess.Popen([rchttp.NGINX, "-p", tmp + "/", "-c", os.path.join(tmp, "nginx.conf")],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)

    def up():
        try:
            with socket.create_connection(("127.0.0.1", ports["main"]), timeout=1):
                return True
        except OSError:
            return proc.poll() is not None

    rchttp.wait_until(up, 10)
    return proc, ports, hung, body_tmp


def is_json_error(r, status):
    ok, why = rchttp.json_error(r, status)
    return ok, why


def routes(c, port):
    r = c.get("/health")
    t.ok(r.status == 200 and r.body == b"ok\n", "GET /health reaches runcell", repr(r))
    r = c.post_json("/run", rchttp.run_body("def solution(a, b):\n    return a * b\n",
                                            asserts={"arguments": [[6, 7]]}, timeout="10s"))
    t.ok(r.status == 200 and rchttp.checker_results((r.json or {}).get("stdout", "")) == [42],
         "POST /run runs a job", repr(r))
    r = c.post_json("/v1/execute", {"language": "python",
                                    "files": [{"name": "main.py", "content": "print(6 * 7)"}]})
    t.ok(r.status == 200 and (r.json or {}).get("stdout") == "42\n", "POST /v1/execute runs a job", repr(r))
    r = c.get("/v1/languages")
    t.ok(r.status == 200 and isinstance((r.json or {}).get("languages"), list), "GET /v1/languages",
         repr(r))
    r = c.get("/metrics")
    t.ok(r.status == 200 and b"runcell_slots" in r.body, "GET /metrics from loopback reaches runcell",
         repr(r))
    r = c.request("POST", "/shutdown")
    ok, why = is_json_error(r, 404)
    t.ok(ok, "POST /shutdown from loopback reaches runcell (404 without ALLOW_SHUTDOWN)", why)
    s = sesslib.Client(c)
    r = c.request("POST", "/sessions")
    sid = (r.json or {}).get("session_id")
    t.ok(r.status == 200 and sid, "POST /sessions creates a session through the snippet", repr(r))
    if sid:
        r = s.put(sid, "src/in.txt", b"21\n")
        t.ok(r.status == 200, "PUT /sessions/{id}/files/src/in.txt", repr(r))
        status, info, files, r = s.run(sid, "python",
                                       "print(int(open('src/in.txt').read()) * 2)\nopen('out.txt','w').write('x')")
        t.ok(status == 200 and (info or {}).get("output") == "42\n" and b"out.txt" in files,
             "POST /sessions/{id}/execute runs in the session and returns its new file", repr(r))
        r = s.get(sid, "out.txt")
        t.ok(r.status == 200 and r.body == b"x", "GET /sessions/{id}/files/out.txt", repr(r))
        r = s.delete(sid)
        t.ok(r.status == 200 and (r.json or {}).get("deleted") is True, "DELETE /sessions/{id}", repr(r))
    status, info, _, r = s.run(None, "python", "print('once')")
    t.ok(status == 200 and (info or {}).get("output") == "once\n", "POST /execute (a throw-away session)",
         repr(r))
    r = c.get("/openapi.yaml")
    with open(OPENAPI, "rb") as f:
        doc = f.read()
    t.ok(r.status == 200 and r.body == doc and r.headers.get("content-type", "").startswith("application/yaml"),
         "GET /openapi.yaml is the document, application/yaml", repr(r))
    r = c.request("HEAD", "/openapi.yaml")
    t.eq(r.status, 200, "HEAD /openapi.yaml")
    r = c.request("POST", "/openapi.yaml", body=b"{}")
    ok, why = is_json_error(r, 405)
    t.ok(ok and r.headers.get("allow") == "GET, HEAD", "POST /openapi.yaml: 405 JSON with Allow: GET, HEAD",
         why + " allow=%r" % r.headers.get("allow"))
    for path in ("/", "/runx", "/v1", "/sessionsx"):
        r = c.get(path)
        t.ok(r.status == 200 and r.body == b"the server's own\n", "GET %s stays the server's own" % path,
             repr(r))


def errors_main(c, port):
    r = c.post_json("/run", b"x" * (2 << 20))
    ok, why = is_json_error(r, 413)
    t.ok(ok, "413: a body over client_max_body_size", why)
    r = c.post_json("/v1/execute", b"{}", headers={"Content-Encoding": "gzip"})
    ok, why = is_json_error(r, 415)
    t.ok(ok, "415: a compressed body", why)
    r = c.raw(b"POST /run HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
              b"Connection: close\r\n\r\nzz\r\nbody\r\n0\r\n\r\n")
    ok, why = is_json_error(r, 400)
    t.ok(ok, "400: a malformed chunked body", why)
    r = c.raw(b"GET /health HTTP/1.1\r\nHost: x\r\nBad Header Line\r\nConnection: close\r\n\r\n")
    ok, why = is_json_error(r, 400)
    t.ok(ok, "400: a malformed header line (before any location)", why)
    r = c.raw(b"GET /run?" + b"q" * 9000 + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    ok, why = is_json_error(r, 414)
    t.ok(ok, "414: a request line over nginx's buffer (before any location)", why)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=("127.0.0.2", 0))
    try:
        conn.request("POST", "/shutdown")
        resp = conn.getresponse()
        r = rchttp.Response(resp.status, resp.reason, {k.lower(): v for k, v in resp.getheaders()},
                            resp.read(), 0)
    finally:
        conn.close()
    ok, why = is_json_error(r, 403)
    t.ok(ok, "403: /shutdown from 127.0.0.2 (not loopback's ::1 or 127.0.0.1)", why)
    t0 = time.monotonic()
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"POST /run HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                  b"Content-Length: 100\r\nConnection: close\r\n\r\n{\"lang")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ")[1]) if head.startswith(b"HTTP/") else 0
    ctype = b"application/json" in head.lower()
    # nginx closes a connection whose body stopped arriving without an
    # answer; if it ever answers, the answer must be the JSON 408.
    elapsed = time.monotonic() - t0
    t.ok(1.5 < elapsed < 20 and (data == b"" or (status == 408 and ctype and body.startswith(b'{"error":'))),
         "408: a body that stops arriving is cut after client_body_timeout (%.1f s), no HTML page"
         % elapsed, repr(data[:300]))


def site_request_id(svc):
    """nginx/runcell.conf.in (rchttp's own nginx): an X-Request-Id of 32
    lower-case hex digits becomes runcell's REQUEST_ID, so a session router
    in front chooses where a new session lives (docs/scale-out.md)."""
    import uuid
    want = uuid.uuid4().hex
    r = svc.request("POST", "/sessions", headers={"X-Request-Id": want})
    t.eq((r.json or {}).get("session_id"), want,
         "the site passes an X-Request-Id of 32 hex digits on: POST /sessions is named after it")
    r2 = svc.request("POST", "/sessions", headers={"X-Request-Id": "not-an-id"})
    sid = (r2.json or {}).get("session_id") or ""
    t.ok(r2.status == 200 and len(sid) == 32 and sid != "not-an-id",
         "any other X-Request-Id is ignored (nginx's own id)", repr(r2))
    for s_ in (want, sid):
        svc.request("DELETE", "/sessions/%s" % s_)


def errors_other(ports, body_tmp):
    dead = client(ports["dead"])
    r = dead.get("/health")
    ok, why = is_json_error(r, 502)
    t.ok(ok, "502: the socket does not exist", why)
    r = dead.get("/openapi.yaml")
    ok, why = is_json_error(r, 404)
    t.ok(ok, "404: openapi.yaml is not installed", why)
    shutil.rmtree(body_tmp, ignore_errors=True)
    r = dead.post_json("/run", b"x" * 8192)
    ok, why = is_json_error(r, 500)
    t.ok(ok, "500: a body nginx cannot buffer (its temp directory is gone)", why)
    hung = client(ports["hung"])
    t0 = time.monotonic()
    r = hung.get("/health", timeout=30)
    ok, why = is_json_error(r, 504)
    t.ok(ok, "504: a backend that never answers (%.1f s)" % (time.monotonic() - t0), why)
    for key, status in (("limited", 429), ("limited503", 503)):
        c = client(ports[key])
        first = c.get("/health")
        r = c.get("/health")
        ok, why = is_json_error(r, status)
        t.ok(first.status == 200 and ok, "%d: a limit_req the administrator added (status %d)"
             % (status, status), why + " first=%r" % first)


def main():
    if os.geteuid() != 0:
        t.skip("needs root (runcell's sandbox)", name="snippet")
        t.exit()
    tmp = tempfile.mkdtemp(prefix="rcsnippet-")
    proc = None
    hung = None
    try:
        with rchttp.Service(languages="python", name="snippet") as svc:
            proc, ports, hung, body_tmp = start_nginx(tmp, svc)
            if proc.poll() is not None:
                t.bail("nginx did not start")
            site_request_id(svc)
            c = client(ports["main"])
            routes(c, ports["main"])
            errors_main(c, ports["main"])
            errors_other(ports, body_tmp)
    finally:
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
        if hung is not None:
            hung[0].close()
        if os.environ.get("RC_KEEP_TMP") != "1":
            shutil.rmtree(tmp, ignore_errors=True)
    t.exit()


if __name__ == "__main__":
    main()
