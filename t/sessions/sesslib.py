"""sesslib.py - helpers for the sessions API tests (t/sessions/*.py).

Builds multipart/form-data request bodies by hand (so a test controls every
header, filename* included), parses the multipart/mixed answers of
/execute strictly, and wraps the calls the tests repeat.  Standard library
only, like t/lib/rchttp.py, which starts the service.
"""

import json
import os
import re
import sys
import urllib.parse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))

import rchttp  # noqa: E402
import tap  # noqa: E402

BOUNDARY = "rcTestBoundary7MA4YWxkTrZu0gW"


def _quote_name(name):
    return name.replace("\\", "\\\\").replace('"', '\\"')


def form(fields=(), files=(), boundary=BOUNDARY):
    """multipart/form-data body: fields [(name, str|bytes)], files
    [(sub_path str|bytes, bytes)] sent as name="attachments" with
    filename* (RFC 5987).  Returns (body, content_type)."""
    out = []
    for name, value in fields:
        if isinstance(value, str):
            value = value.encode("utf-8")
        out.append(b"--" + boundary.encode() + b"\r\n")
        out.append(('Content-Disposition: form-data; name="%s"\r\n\r\n'
                    % _quote_name(name)).encode())
        out.append(value + b"\r\n")
    for path, data in files:
        raw = path.encode("utf-8") if isinstance(path, str) else path
        ext = urllib.parse.quote_from_bytes(raw, safe="")
        out.append(b"--" + boundary.encode() + b"\r\n")
        out.append(('Content-Disposition: form-data; name="attachments"; filename="upload";'
                    " filename*=UTF-8''%s\r\n" % ext).encode())
        out.append(b"Content-Type: application/octet-stream\r\n\r\n")
        out.append(data + b"\r\n")
    out.append(b"--" + boundary.encode() + b"--\r\n")
    return b"".join(out), "multipart/form-data; boundary=" + boundary


class Part:
    def __init__(self, headers, body):
        self.headers = headers
        self.body = body

    @property
    def filename_ext(self):
        """The sub_path from filename* as bytes (None when absent)."""
        cd = self.headers.get("content-disposition", "")
        m = re.search(r"filename\*=UTF-8''([^;\s]*)", cd)
        return urllib.parse.unquote_to_bytes(m.group(1)) if m else None

    @property
    def filename_plain(self):
        cd = self.headers.get("content-disposition", "")
        m = re.search(r'filename="([^"]*)"', cd)
        return m.group(1) if m else None


def parse_mixed(resp):
    """(json dict, [Part]) of a multipart/mixed answer; raises ValueError
    when it is not well formed."""
    ctype = resp.headers.get("content-type", "")
    m = re.match(r"multipart/mixed;\s*boundary=(\S+)$", ctype)
    if not m:
        raise ValueError("content-type %r" % ctype)
    delim = b"--" + m.group(1).encode()
    body = resp.body
    if not body.startswith(delim + b"\r\n"):
        raise ValueError("body does not start with the delimiter")
    if not body.endswith(b"\r\n" + delim + b"--\r\n"):
        raise ValueError("body does not end with the closing delimiter")
    inner = body[len(delim) + 2: -(len(delim) + 6)]
    chunks = inner.split(b"\r\n" + delim + b"\r\n")
    parts = []
    for chunk in chunks:
        head, sep, data = chunk.partition(b"\r\n\r\n")
        if not sep:
            raise ValueError("part without a header block")
        headers = {}
        for line in head.split(b"\r\n"):
            k, _, v = line.decode("latin-1").partition(":")
            headers[k.strip().lower()] = v.strip()
        parts.append(Part(headers, data))
    if not parts or not parts[0].headers.get("content-type", "").startswith("application/json"):
        raise ValueError("first part is not JSON")
    return json.loads(parts[0].body.decode("utf-8")), parts[1:]


def files_of(parts):
    """{sub_path bytes: content} of the attachment parts."""
    return {p.filename_ext: p.body for p in parts}


class Client:
    """Thin wrapper over an rchttp.Service."""

    def __init__(self, svc):
        self.svc = svc

    def create(self, files=()):
        if files:
            body, ctype = form(files=files)
            r = self.svc.request("POST", "/sessions", body=body, headers={"Content-Type": ctype})
        else:
            r = self.svc.request("POST", "/sessions")
        if r.status != 200 or not r.json or "session_id" not in r.json:
            raise AssertionError("create session: %r" % r)
        return r.json["session_id"]

    def delete(self, sid):
        return self.svc.request("DELETE", "/sessions/%s" % sid)

    def url(self, sid, path=""):
        if isinstance(path, str):
            path = path.encode("utf-8")
        return "/sessions/%s/files/%s" % (sid, urllib.parse.quote_from_bytes(path, safe="/"))

    def get(self, sid, path="", timeout=120):
        return self.svc.request("GET", self.url(sid, path), timeout=timeout)

    def put(self, sid, path, data, timeout=120):
        return self.svc.request("PUT", self.url(sid, path), body=data,
                                headers={"Content-Type": "application/octet-stream"},
                                timeout=timeout)

    def rm(self, sid, path):
        return self.svc.request("DELETE", self.url(sid, path))

    def listing(self, sid, path=""):
        r = self.get(sid, path)
        if r.status != 200 or not isinstance(r.json, dict):
            return None
        return {e["name"]: e for e in r.json["entries"]}

    def execute(self, sid, language, code, files=(), timeout=180, extra=()):
        body, ctype = form([("language", language), ("code", code)] + list(extra), files)
        path = "/sessions/%s/execute" % sid if sid else "/execute"
        return self.svc.request("POST", path, body=body, headers={"Content-Type": ctype},
                                timeout=timeout)

    def run(self, sid, language, code, files=(), timeout=180):
        """execute and parse: (status, json or None, {path: bytes}, resp)."""
        r = self.execute(sid, language, code, files, timeout)
        if r.status != 200:
            return r.status, r.json, {}, r
        info, parts = parse_mixed(r)
        return r.status, info, files_of(parts), r


# The sessions document's nine languages, from the one language registry
# (langs/<slug>/manifest.json): the sessions API serves what is loaded.
SESSION_LANGS = "python,bash,js,ts,c,cpp,java,csharp,rust"


def service(env=None, name="sessions"):
    """An rchttp.Service for the sessions tests, with the nine languages."""
    return rchttp.Service(env=env or {}, languages=SESSION_LANGS, name=name)


def session_root(svc):
    return os.path.join(svc.tmp, "state", "sessions")


def live_sessions(svc):
    meta = os.path.join(session_root(svc), "meta")
    try:
        return sorted(n for n in os.listdir(meta) if re.fullmatch(r"[0-9a-f]{32}", n))
    except FileNotFoundError:
        return []


def data_dirs(svc):
    data = os.path.join(session_root(svc), "data")
    try:
        return sorted(os.listdir(data))
    except FileNotFoundError:
        return []


def start_or_bail(t, env=None):
    """Starts a service for the file, or ends the file: the sessions API
    needs root (sandbox, tmpfs quotas), so without it the whole file is
    one skip, which RC_NO_SKIP=1 (CI) turns into a failure."""
    if os.geteuid() != 0:
        t.skip("the sessions tests need root (sandbox and tmpfs quotas)", name="sessions")
        t.exit()
    try:
        svc = service(env)
        svc.start()
        return svc
    except rchttp.StartError as e:
        t.bail("service did not start: %s" % e)
        return None


def raw_get(svc, target, timeout=30, method="GET", body=b""):
    """A request with its target sent byte for byte (no client-side
    normalisation); returns (status, body bytes)."""
    import socket
    req = ("%s %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: %d\r\n\r\n"
           % (method, target, len(body))).encode() + body
    chunks = []
    with socket.create_connection(("127.0.0.1", svc.port), timeout=timeout) as s:
        s.sendall(req)
        while True:
            try:
                chunk = s.recv(65536)
            except socket.timeout:
                break
            if not chunk:
                break
            chunks.append(chunk)
    blob = b"".join(chunks)
    head, _, body = blob.partition(b"\r\n\r\n")
    try:
        status = int(head.split(b" ", 2)[1])
    except (IndexError, ValueError):
        status = 0
    return status, body
