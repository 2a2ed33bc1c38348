"""rcsse.py - a Server-Sent Events client for the tests and the bench.

    ev = rcsse.Stream(svc.port, "/v1/processes/%s/events" % pid)
    e = ev.next(10)            # {"id": 1, "event": "stage", "data": {...}}
    ev.until(lambda e: e["event"] == "exit", 30)
    ev.close()                 # the client leaves (an abrupt close)

One HTTP request on its own connection; events are parsed as they arrive
(never buffered to the end), so a test can act between two of them.  data
is parsed as JSON (every runcell event's is); "raw" keeps the text.  Only
the Python standard library.
"""

import http.client
import json
import socket
import time


class Stream:
    def __init__(self, port, path, method="GET", body=None, headers=None, timeout=30):
        hdrs = {"Accept": "text/event-stream"}
        hdrs.update(headers or {})
        if body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            hdrs.setdefault("Content-Type", "application/json")
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
        self.conn.request(method, path, body=body, headers=hdrs)
        self.sock = self.conn.sock  # http.client forgets it on "Connection: close"
        self.resp = self.conn.getresponse()
        self.status = self.resp.status
        self.headers = {k.lower(): v for k, v in self.resp.getheaders()}
        self.ended = False
        self.events = []  # every event read so far
        self.body = b""
        if not self.headers.get("content-type", "").startswith("text/event-stream"):
            # An error answered before any stream: JSON.
            self.body = self.resp.read()
            self.ended = True

    @property
    def json(self):
        try:
            return json.loads(self.body.decode("utf-8"))
        except ValueError:
            return None

    def next(self, timeout=30):
        """The next event, or None at the end of the stream.  Raises
        TimeoutError when none comes in time."""
        if self.ended:
            return None
        self.sock.settimeout(timeout)
        fields = {}
        data = []
        while True:
            try:
                line = self.resp.readline()
            except socket.timeout:
                raise TimeoutError("no event in %ss" % timeout)
            except (OSError, http.client.HTTPException, ValueError):
                line = b""
            if not line:
                self.ended = True
                return None
            line = line.decode("utf-8").rstrip("\n")
            if line == "":
                if not fields and not data:
                    continue
                raw = "\n".join(data)
                try:
                    parsed = json.loads(raw)
                except ValueError:
                    parsed = None
                event = {"id": int(fields["id"]) if fields.get("id", "").isdigit() else None,
                         "event": fields.get("event", "message"), "data": parsed, "raw": raw,
                         "t": time.monotonic()}
                self.events.append(event)
                return event
            if line.startswith(":"):
                continue  # a comment
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if name == "data":
                data.append(value)
            else:
                fields[name] = value

    def until(self, pred, timeout=30):
        """Events up to and including the first for which pred is true (or
        to the end of the stream)."""
        deadline = time.monotonic() + timeout
        out = []
        while True:
            e = self.next(max(0.01, deadline - time.monotonic()))
            if e is None:
                return out
            out.append(e)
            if pred(e):
                return out

    def rest(self, timeout=60):
        """Every event to the end of the stream."""
        return self.until(lambda e: False, timeout)

    def close(self):
        """Leaves at once, as a client that goes away mid-stream does."""
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.resp.close()
        self.conn.close()
        self.ended = True


def output(events, stream="stdout"):
    """The text of every stdout (or stderr) event, joined."""
    return "".join(e["data"]["data"] for e in events if e["event"] == stream)


def busy_slots(svc):
    """runcell_busy_slots from /metrics, or None."""
    r = svc.get("/metrics", timeout=10)
    for line in r.text.splitlines():
        if line.startswith("runcell_busy_slots "):
            return int(line.split()[1])
    return None
