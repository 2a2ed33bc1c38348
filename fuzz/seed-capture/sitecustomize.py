"""Records every HTTP request a test sends (fuzz/seed-from-tests).

On PYTHONPATH ahead of t/lib, Python imports this module at start-up.
With RC_FUZZ_CAPTURE_DIR set, each request made through http.client
(t/lib/rchttp.py's Service.request, urllib) is written there as N.json
(method, target, Content-Type) and N.body before it is sent; nothing else
changes.  Without the variable it does nothing.
"""
import http.client
import json
import os

_DIR = os.environ.get("RC_FUZZ_CAPTURE_DIR")

if _DIR:
    _real_request = http.client.HTTPConnection.request

    def _capture(self, method, url, body=None, headers=None, **kw):
        try:
            data = body if isinstance(body, bytes) else (body or "").encode("utf-8")
            ctype = ""
            for k, v in (headers or {}).items():
                if k.lower() == "content-type":
                    ctype = v
            name = os.path.join(_DIR, "%d-%d" % (os.getpid(), id(data) ^ hash(url)))
            with open(name + ".body", "wb") as f:
                f.write(data)
            with open(name + ".json", "w") as f:
                json.dump({"method": method, "target": url, "content_type": ctype}, f)
        except (OSError, TypeError, ValueError):
            pass  # a capture never changes what the test does
        return _real_request(self, method, url, body=body, headers=headers or {}, **kw)

    http.client.HTTPConnection.request = _capture
