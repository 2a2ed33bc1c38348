"""client.py - Client: one object per runcell URL, a method per route.

    from runcell_client import Client
    rc = Client("http://127.0.0.1:4040")
    rc.run("python", "def solution(a, b):\\n    return a + b\\n",
           asserts={"arguments": [[1, 2]]}).results()          # [3]
    rc.execute("python", {"main.py": "print(input())"}, stdin="hi\\n").stdout
    with rc.session() as s:
        s.put("data.txt", b"42")
        s.execute("python", "print(open('data.txt').read())").output

Adding a route: a method that builds the body, calls self._json() (or
self._transport.stream() and sse.events() for a text/event-stream answer)
and turns the answer into a record of models.py.  /v1/judge and the
streaming forms of /v1/execute and /v1/processes fit that shape.
"""
import json
import time
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import multipart
from .errors import Busy
from .models import Entry, ExecuteResult, Language, Limits, RunResult, SessionRun
from .transport import Response, Transport

Files = Union[Mapping[str, str], Sequence[Tuple[str, str]]]


class Client:
    """base_url: where runcell's nginx listens (http://host:4040).
    timeout: seconds to wait for an answer (a job may run RUN_TIMEOUT_MAX,
    10 minutes by default).  busy_retries: how many times a 429 ("runner
    busy") is retried, busy_wait seconds apart, before Busy is raised."""

    def __init__(self, base_url: str = "http://127.0.0.1:4040", timeout: float = 660.0,
                 headers: Optional[Mapping[str, str]] = None, busy_retries: int = 0,
                 busy_wait: float = 1.0) -> None:
        self._transport = Transport(base_url, timeout, headers)
        self.busy_retries = busy_retries
        self.busy_wait = busy_wait

    # ---------------------------------------------------------------- plumbing

    def _call(self, method: str, path: str, body: Union[bytes, str, None] = None,
              headers: Optional[Mapping[str, str]] = None) -> Response:
        attempt = 0
        while True:
            try:
                return self._transport.request(method, path, body, headers)
            except Busy:
                if attempt >= self.busy_retries:
                    raise
                attempt += 1
                time.sleep(self.busy_wait)

    def _json(self, method: str, path: str, payload: Any = None) -> Any:
        body = None if payload is None else json.dumps(payload)
        headers = {"Content-Type": "application/json"} if body is not None else {}
        return self._call(method, path, body, headers).json()

    # ---------------------------------------------------------------- service

    def health(self) -> bool:
        """True when GET /health answers 200 ok."""
        return self._call("GET", "/health").body == b"ok\n"

    def languages(self) -> List[Language]:
        """GET /v1/languages."""
        return [Language.from_json(d) for d in self._json("GET", "/v1/languages")["languages"]]

    def openapi(self) -> str:
        """GET /openapi.yaml: the API description."""
        return self._call("GET", "/openapi.yaml").body.decode("utf-8")

    # ---------------------------------------------------------------- jobs

    def run(self, lang_slug: str, solution_text: str,
            asserts: Union[str, Mapping[str, Any], None] = None,
            checker_text: Optional[str] = None, timeout: Optional[str] = None) -> RunResult:
        """POST /run, the contest-runner contract.  asserts: the JSON text
        {"arguments": [[...], ...]} or a mapping that becomes it; timeout:
        "500ms", "2s", "1m" (default 30s)."""
        payload: Dict[str, Any] = {"lang_slug": lang_slug, "solution_text": solution_text,
                                   "checker_text": checker_text}
        if asserts is not None:
            payload["asserts"] = asserts if isinstance(asserts, str) else json.dumps(asserts)
        if timeout is not None:
            payload["timeout"] = timeout
        d = self._json("POST", "/run", payload)
        return RunResult(d.get("exit_code"), d.get("stdout", ""), d.get("stderr", ""), raw=d)

    def execute(self, language: str, files: Files, stdin: Optional[str] = None,
                args: Optional[Sequence[str]] = None,
                limits: Union[Limits, Mapping[str, int], None] = None) -> ExecuteResult:
        """POST /v1/execute.  files: {name: content} or [(name, content)];
        the first is the entry point."""
        items = list(files.items()) if isinstance(files, Mapping) else list(files)
        payload: Dict[str, Any] = {"language": language,
                                   "files": [{"name": n, "content": c} for n, c in items]}
        if stdin is not None:
            payload["stdin"] = stdin
        if args is not None:
            payload["args"] = list(args)
        if limits is not None:
            payload["limits"] = limits.to_json() if isinstance(limits, Limits) else dict(limits)
        return ExecuteResult.from_json(self._json("POST", "/v1/execute", payload))

    # ---------------------------------------------------------------- sessions

    def create_session(self, files: Iterable[Tuple[str, Union[bytes, str]]] = ()) -> "Session":
        """POST /sessions, optionally seeding files [(sub_path, data)]."""
        files = list(files)
        if files:
            body, ctype = multipart.form_data(files=files)
            d = self._call("POST", "/sessions", body, {"Content-Type": ctype}).json()
        else:
            d = self._call("POST", "/sessions", b"").json()
        return Session(self, d["session_id"])

    session = create_session

    def execute_once(self, language: str, code: str,
                     files: Iterable[Tuple[str, Union[bytes, str]]] = ()) -> SessionRun:
        """POST /execute: code in a throw-away session."""
        return self._session_execute("/execute", language, code, files)

    def _session_execute(self, path: str, language: str, code: str,
                         files: Iterable[Tuple[str, Union[bytes, str]]]) -> SessionRun:
        body, ctype = multipart.form_data([("language", language), ("code", code)], list(files))
        resp = self._call("POST", path, body, {"Content-Type": ctype})
        info, out = multipart.parse_mixed(resp.headers.get("content-type", ""), resp.body)
        return SessionRun.from_parts(info, out)


def _quote(path: str) -> str:
    import urllib.parse
    return urllib.parse.quote(path, safe="/")


class Session:
    """A server-side working directory (docs/sessions.md).  Usable as a
    context manager: the session is deleted on exit."""

    def __init__(self, client: Client, session_id: str) -> None:
        self.client = client
        self.id = session_id

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.delete()

    def _files(self, path: str) -> str:
        return "/sessions/%s/files/%s" % (self.id, _quote(path.lstrip("/")))

    def put(self, path: str, data: Union[bytes, str]) -> int:
        """PUT a file (parents are created); returns its size."""
        if isinstance(data, str):
            data = data.encode("utf-8")
        d = self.client._call("PUT", self._files(path), data,
                              {"Content-Type": "application/octet-stream"}).json()
        return int(d["size"])

    def get(self, path: str) -> bytes:
        """A file's bytes."""
        return self.client._call("GET", self._files(path)).body

    def list(self, path: str = "") -> List[Entry]:
        """One level of a directory ("" is the session root)."""
        d = self.client._call("GET", self._files(path)).json()
        return [Entry(e["name"], e["type"], int(e["size"]), float(e["modified_at"]))
                for e in d["entries"]]

    def remove(self, path: str) -> None:
        """DELETE a file, a symlink or a directory tree."""
        self.client._call("DELETE", self._files(path))

    def execute(self, language: str, code: str,
                files: Iterable[Tuple[str, Union[bytes, str]]] = ()) -> SessionRun:
        """POST /sessions/{id}/execute; files are written first."""
        return self.client._session_execute("/sessions/%s/execute" % self.id, language, code, files)

    def delete(self) -> None:
        """DELETE /sessions/{id} (a session already gone is not an error)."""
        from .errors import NotFound
        try:
            self.client._call("DELETE", "/sessions/%s" % self.id)
        except NotFound:
            pass
