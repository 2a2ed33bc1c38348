"""runcell_client - the Python client of runcell's HTTP API.

Client(base_url) has one method per route: run (/run), execute
(/v1/execute), languages, health, openapi, sessions (create_session,
execute_once) and their files (Session.put/get/list/remove/execute).
Errors are RuncellError subclasses by status (Busy for 429, NotInstalled
for 501, ...); no answer at all is TransportError.  Standard library only.
"""
from .client import Client, Session
from .errors import (BadRequest, Busy, Conflict, Forbidden, MethodNotAllowed, NotFound,
                     NotInstalled, PayloadTooLarge, RuncellError, ServerError, TransportError,
                     UnsupportedMediaType)
from .models import Entry, ExecuteResult, Language, Limits, RunResult, SessionRun, StepResult
from .sse import Event, events

__version__ = "0.1.0"
__all__ = ["Client", "Session", "RuncellError", "BadRequest", "Busy", "Conflict", "Forbidden",
           "MethodNotAllowed", "NotFound", "NotInstalled", "PayloadTooLarge", "ServerError",
           "TransportError", "UnsupportedMediaType", "Entry", "ExecuteResult", "Language", "Limits",
           "RunResult", "SessionRun", "StepResult", "Event", "events"]
