"""sse.py - Server-Sent Events (text/event-stream) parsing, for the
streaming routes (`Accept: text/event-stream` on /v1/execute, /v1/processes)
once runcell serves them.

events(lines) turns the body's lines into Event records as the HTML
standard's event-stream rules say: `field: value` lines, `data` lines
joined with newlines, a blank line dispatches, lines starting with `:` are
comments, an event without data is not dispatched.
"""
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, List, Optional, Union


@dataclass
class Event:
    event: str
    data: str
    id: Optional[str] = None
    retry: Optional[int] = None

    def json(self) -> Any:
        import json
        return json.loads(self.data)


def events(lines: Iterable[Union[bytes, str]]) -> Iterator[Event]:
    name = ""
    last_id: Optional[str] = None
    data: List[str] = []
    retry: Optional[int] = None
    for raw in lines:
        line = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        line = line.rstrip("\r\n")
        if line == "":
            if data:
                yield Event(name or "message", "\n".join(data), last_id, retry)
            name, data, retry = "", [], None
            continue
        if line.startswith(":"):
            continue
        key, sep, value = line.partition(":")
        if sep and value.startswith(" "):
            value = value[1:]
        if key == "event":
            name = value
        elif key == "data":
            data.append(value)
        elif key == "id" and "\0" not in value:
            last_id = value
        elif key == "retry" and value.isdigit():
            retry = int(value)
    if data:
        yield Event(name or "message", "\n".join(data), last_id, retry)
