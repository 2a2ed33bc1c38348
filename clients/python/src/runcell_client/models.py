"""models.py - the answers of runcell's API as typed records.

Field names follow the API (docs/openapi.yaml) in Python's spelling; each
record keeps the raw JSON in `raw`, so a field a newer runcell adds is
never lost to an older client.
"""
import base64
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional


@dataclass
class Limits:
    """Per-request limits of /v1/execute; None takes the language's default.
    Units are in the names: milliseconds, mebibytes, kibibytes."""
    wall_time_ms: Optional[int] = None
    idle_ms: Optional[int] = None
    cpu_ms: Optional[int] = None
    memory_mb: Optional[int] = None
    pids: Optional[int] = None
    output_kb: Optional[int] = None

    _NAMES = {"wall_time_ms": "wallTimeMs", "idle_ms": "idleMs", "cpu_ms": "cpuMs",
              "memory_mb": "memoryMb", "pids": "pids", "output_kb": "outputKb"}

    def to_json(self) -> Dict[str, int]:
        return {api: getattr(self, py) for py, api in self._NAMES.items()
                if getattr(self, py) is not None}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> "Limits":
        back = {api: py for py, api in cls._NAMES.items()}
        return cls(**{back[k]: v for k, v in data.items() if k in back})


@dataclass
class RunResult:
    """POST /run: exit_code is None when the timeout ended the run."""
    exit_code: Optional[int]
    stdout: str
    stderr: str
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    def checker_items(self) -> List[Dict[str, Any]]:
        """The JSON items the language's checker printed: one JSON array,
        or one JSON object per line; lines that are not JSON are skipped."""
        import json
        text = self.stdout.strip()
        try:
            value = json.loads(text)
            if isinstance(value, list):
                return [v for v in value if isinstance(v, dict)]
        except ValueError:
            pass
        items: List[Dict[str, Any]] = []
        for line in text.splitlines():
            try:
                value = json.loads(line)
            except ValueError:
                continue
            if isinstance(value, dict):
                items.append(value)
            elif isinstance(value, list):
                items.extend(v for v in value if isinstance(v, dict))
        return items

    def results(self) -> List[Any]:
        """The `value` of every item of type "result", in order."""
        return [i.get("value") for i in self.checker_items() if i.get("type") == "result"]


def _text(v: Any) -> str:
    """An output as text: /v1 answers one that is not UTF-8 as
    {"base64": ...} (the bytes stay in raw); here its bytes are decoded,
    U+FFFD for what is not UTF-8."""
    if isinstance(v, dict) and isinstance(v.get("base64"), str):
        return base64.b64decode(v["base64"]).decode("utf-8", "replace")
    return v if isinstance(v, str) else ""


@dataclass
class StepResult:
    """One step (compile or run) of /v1/execute."""
    exit_code: Optional[int]
    signal: Optional[str]
    stdout: str
    stderr: str
    timed_out: bool
    idle_timed_out: bool
    truncated: bool
    oom_killed: bool
    limit: Optional[str]
    wall_ms: int
    cpu_ms: int
    memory_peak_kb: int
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "StepResult":
        return cls(exit_code=d.get("exitCode"), signal=d.get("signal"), stdout=_text(d.get("stdout")),
                   stderr=_text(d.get("stderr")), timed_out=bool(d.get("timedOut")),
                   idle_timed_out=bool(d.get("idleTimedOut")), truncated=bool(d.get("truncated")),
                   oom_killed=bool(d.get("oomKilled")), limit=d.get("limit"),
                   wall_ms=int(d.get("wallMs", 0)), cpu_ms=int(d.get("cpuMs", 0)),
                   memory_peak_kb=int(d.get("memoryPeakKb", 0)), raw=dict(d))


@dataclass
class ExecuteResult(StepResult):
    """POST /v1/execute: the run step, with the compile step when there is
    one; stage is "compile" when compilation failed and nothing ran."""
    stage: str = "run"
    compile: Optional[StepResult] = None

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "ExecuteResult":
        step = StepResult.from_json(d)
        comp = d.get("compile")
        return cls(**{k: getattr(step, k) for k in step.__dataclass_fields__},
                   stage=d.get("stage", "run"),
                   compile=StepResult.from_json(comp) if isinstance(comp, dict) else None)


@dataclass
class Language:
    """One entry of GET /v1/languages."""
    language: str
    aliases: List[str]
    version: Optional[str]
    available: bool
    reason: Optional[str]
    checker_required: bool
    default_limits: Limits
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> "Language":
        return cls(language=d["language"], aliases=list(d.get("aliases", [])), version=d.get("version"),
                   available=bool(d.get("available")), reason=d.get("reason"),
                   checker_required=bool(d.get("checkerRequired")),
                   default_limits=Limits.from_json(d.get("defaultLimits", {})), raw=dict(d))


@dataclass
class Entry:
    """One entry of a session directory listing."""
    name: str
    type: str
    size: int
    modified_at: float


@dataclass
class SessionRun:
    """POST /sessions/{id}/execute or /execute: the JSON part and the files
    the run created or changed (sub_path -> bytes)."""
    output: str
    return_code: Optional[int]
    execution_time: float
    timed_out: bool
    truncated: bool
    oom_killed: bool
    deleted_files: List[str]
    omitted_files: List[str]
    files: Dict[str, bytes]
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def from_parts(cls, d: Mapping[str, Any], files: Dict[str, bytes]) -> "SessionRun":
        return cls(output=d.get("output", ""), return_code=d.get("return_code"),
                   execution_time=float(d.get("execution_time", 0.0)),
                   timed_out=bool(d.get("timed_out")), truncated=bool(d.get("truncated")),
                   oom_killed=bool(d.get("oom_killed")), deleted_files=list(d.get("deleted_files", [])),
                   omitted_files=list(d.get("omitted_files", [])), files=files, raw=dict(d))
