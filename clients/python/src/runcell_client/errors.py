"""errors.py - what a call raises when runcell does not answer 200.

Every error answer of runcell (and of the nginx in front of it) is JSON
{"error": "..."}; the status picks the class, so a caller can catch what
it can act on (Busy: retry later; NotInstalled: another host) and let the
rest through as RuncellError.
"""
from typing import Dict, Optional, Type


class RuncellError(Exception):
    """runcell answered with an error status."""

    def __init__(self, status: int, message: str, body: bytes = b"",
                 headers: Optional[Dict[str, str]] = None) -> None:
        super().__init__("HTTP %d: %s" % (status, message))
        self.status = status
        self.message = message
        self.body = body
        self.headers = headers or {}


class BadRequest(RuncellError):
    """400: the request is wrong (JSON, a field, an unknown language, a limit)."""


class Forbidden(RuncellError):
    """403: this client's address may not use the route (/metrics, /shutdown)."""


class NotFound(RuncellError):
    """404: no such route, session or file."""


class MethodNotAllowed(RuncellError):
    """405: the route exists with another method."""


class Conflict(RuncellError):
    """409: the session stayed locked by another request."""


class PayloadTooLarge(RuncellError):
    """413: the request body, or a /run job's output, is over a limit."""


class UnsupportedMediaType(RuncellError):
    """415: a Content-Encoding runcell does not take."""


class Busy(RuncellError):
    """429: every slot is running a job; try again later."""


class ServerError(RuncellError):
    """500, 502, 503, 504: runcell (or the way to it) failed."""


class NotInstalled(RuncellError):
    """501: the language is known but its toolchain is not installed there."""


class TransportError(Exception):
    """No answer at all: refused, reset, timed out, not HTTP."""


_BY_STATUS: Dict[int, Type[RuncellError]] = {
    400: BadRequest, 403: Forbidden, 404: NotFound, 405: MethodNotAllowed, 409: Conflict,
    413: PayloadTooLarge, 415: UnsupportedMediaType, 429: Busy, 501: NotInstalled,
}


def error_for(status: int, message: str, body: bytes = b"",
              headers: Optional[Dict[str, str]] = None) -> RuncellError:
    cls = _BY_STATUS.get(status) or (ServerError if status >= 500 else RuncellError)
    return cls(status, message, body, headers)
