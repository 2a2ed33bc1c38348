"""transport.py - one HTTP exchange with runcell (http.client, no
dependencies), and the streaming read the SSE routes will use.

Every call opens a fresh connection: runcell's nginx keeps connections
alive, but a client that runs one job every few seconds gains nothing from
a pooled one and would have to handle its half-closed reuse.
"""
import http.client
import json
import socket
import urllib.parse
from dataclasses import dataclass
from typing import Any, Dict, Iterator, Mapping, Optional, Union

from .errors import TransportError, error_for

Body = Union[bytes, str, None]


@dataclass
class Response:
    status: int
    headers: Dict[str, str]  # lower-case names
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body.decode("utf-8"))


class Transport:
    """base_url: http://host:port (an https:// URL works too, through
    http.client's TLS); headers go with every request (an Authorization for a
    proxy in front, say)."""

    def __init__(self, base_url: str, timeout: float = 660.0,
                 headers: Optional[Mapping[str, str]] = None) -> None:
        url = urllib.parse.urlsplit(base_url)
        if url.scheme not in ("http", "https") or not url.hostname:
            raise ValueError("base_url must be http://host[:port][/prefix], got %r" % base_url)
        self.scheme = url.scheme
        self.host = url.hostname
        self.port = url.port or (443 if url.scheme == "https" else 80)
        self.prefix = url.path.rstrip("/")
        self.timeout = timeout
        self.headers = dict(headers or {})

    def _connection(self, timeout: Optional[float]) -> http.client.HTTPConnection:
        t = self.timeout if timeout is None else timeout
        if self.scheme == "https":
            return http.client.HTTPSConnection(self.host, self.port, timeout=t)
        return http.client.HTTPConnection(self.host, self.port, timeout=t)

    def _send(self, conn: http.client.HTTPConnection, method: str, path: str, body: Body,
              headers: Optional[Mapping[str, str]]) -> http.client.HTTPResponse:
        hdrs = dict(self.headers)
        hdrs.update(headers or {})
        if isinstance(body, str):
            body = body.encode("utf-8")
        conn.request(method, self.prefix + path, body=body, headers=hdrs)
        return conn.getresponse()

    def request(self, method: str, path: str, body: Body = None,
                headers: Optional[Mapping[str, str]] = None,
                timeout: Optional[float] = None) -> Response:
        """The whole answer; a status other than 2xx raises the matching
        RuncellError, no answer raises TransportError."""
        conn = self._connection(timeout)
        try:
            resp = self._send(conn, method, path, body, headers)
            data = resp.read()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
        except (OSError, http.client.HTTPException, socket.timeout) as e:
            raise TransportError("%s %s: %s" % (method, path, e)) from e
        finally:
            conn.close()
        if not 200 <= resp.status < 300:
            raise error_for(resp.status, _error_message(data, resp.reason), data, hdrs)
        return Response(resp.status, hdrs, data)

    def stream(self, method: str, path: str, body: Body = None,
               headers: Optional[Mapping[str, str]] = None,
               timeout: Optional[float] = None) -> Iterator[bytes]:
        """The answer's body line by line as it arrives (for text/event-stream
        routes: feed it to sse.events()).  Errors as request()."""
        conn = self._connection(timeout)
        try:
            try:
                resp = self._send(conn, method, path, body, headers)
            except (OSError, http.client.HTTPException) as e:
                raise TransportError("%s %s: %s" % (method, path, e)) from e
            if not 200 <= resp.status < 300:
                data = resp.read()
                raise error_for(resp.status, _error_message(data, resp.reason), data,
                                {k.lower(): v for k, v in resp.getheaders()})
            while True:
                try:
                    line = resp.readline()
                except (OSError, http.client.HTTPException) as e:
                    raise TransportError("%s %s: %s" % (method, path, e)) from e
                if not line:
                    return
                yield line
        finally:
            conn.close()


def _error_message(body: bytes, reason: str) -> str:
    try:
        doc = json.loads(body.decode("utf-8"))
        if isinstance(doc, dict) and isinstance(doc.get("error"), str):
            return str(doc["error"])
    except (UnicodeDecodeError, ValueError):
        pass
    return reason or "error"
