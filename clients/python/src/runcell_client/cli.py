"""cli.py - runcell-client, the remote command line of runcell.

    runcell-client run main.py [more files] [--stdin in.txt] [--lang python]
                   [--url http://host:4040] [--arg A]... [--wall-ms N] ...
    runcell-client languages [--url ...]

`run` sends the files to POST /v1/execute (the first is the entry point;
the language comes from its extension unless --lang names it), shows a
progress line on stderr while the job runs, then writes the program's
stdout and stderr to its own and exits with the program's exit status:
128+N when signal N ended it, 124 when a time limit did, 137 for the
memory limit (the conventions of timeout(1) and of a SIGKILL).  A failed
compilation prints the compiler's output and exits with its status.
runcell-client's own failures (no answer, an error status) exit 125.
The URL comes from --url, else RUNCELL_URL, else http://127.0.0.1:4040.
"""
import argparse
import os
import signal
import sys
import threading
import time
from typing import List, Optional

from .client import Client
from .errors import RuncellError, TransportError
from .models import Limits, StepResult

EXTENSIONS = {
    ".py": "python", ".js": "js", ".mjs": "js", ".ts": "ts", ".rb": "ruby", ".php": "php",
    ".c": "c", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".sh": "bash", ".go": "golang",
    ".rs": "rust", ".java": "java", ".kt": "kotlin", ".cs": "csharp", ".hs": "haskell",
    ".d": "dlang", ".ex": "elixir", ".exs": "elixir", ".clj": "clojure", ".dart": "dart",
    ".swift": "swift", ".zig": "zig",
}
SELF_FAILURE = 125


class Progress:
    """A line on stderr, rewritten in place, while the job runs."""

    def __init__(self, text: str, enabled: bool) -> None:
        self.text = text
        self.enabled = enabled
        self.done = threading.Event()
        self.thread: Optional[threading.Thread] = None
        self.t0 = time.monotonic()

    def _loop(self) -> None:
        spin = "|/-\\"
        i = 0
        while not self.done.wait(0.1 if i else 0):
            sys.stderr.write("\r%s %s %.1f s" % (spin[i % 4], self.text, time.monotonic() - self.t0))
            sys.stderr.flush()
            i += 1

    def __enter__(self) -> "Progress":
        if self.enabled:
            self.thread = threading.Thread(target=self._loop, daemon=True)
            self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        if self.thread is not None:
            self.thread.join()
            # Erase the line on a terminal; elsewhere end it.
            sys.stderr.write("\r\033[K" if sys.stderr.isatty() else "\n")
            sys.stderr.flush()


def _exit_status(step: StepResult) -> int:
    if step.exit_code is not None:
        return step.exit_code
    # A limit names why the kill came, whatever the signal was.
    if step.limit == "memory":
        return 137
    if step.limit in ("wall", "idle", "cpu"):
        return 124
    if step.signal:
        try:
            return 128 + int(signal.Signals[step.signal])
        except KeyError:
            return 128 + signal.SIGKILL
    return 1


def cmd_run(ns: argparse.Namespace) -> int:
    files = []
    for path in ns.files:
        try:
            with open(path, encoding="utf-8") as f:
                files.append((os.path.basename(path), f.read()))
        except (OSError, UnicodeDecodeError) as e:
            print("runcell-client: %s: %s" % (path, e), file=sys.stderr)
            return SELF_FAILURE
    language = ns.lang or EXTENSIONS.get(os.path.splitext(ns.files[0])[1].lower())
    if not language:
        print("runcell-client: cannot tell the language of %s: use --lang" % ns.files[0], file=sys.stderr)
        return SELF_FAILURE
    stdin = None
    if ns.stdin == "-":
        stdin = sys.stdin.read()
    elif ns.stdin is not None:
        try:
            with open(ns.stdin, encoding="utf-8") as f:
                stdin = f.read()
        except (OSError, UnicodeDecodeError) as e:
            print("runcell-client: %s: %s" % (ns.stdin, e), file=sys.stderr)
            return SELF_FAILURE
    limits = Limits(wall_time_ms=ns.wall_ms, idle_ms=ns.idle_ms, cpu_ms=ns.cpu_ms,
                    memory_mb=ns.memory_mb, pids=ns.pids, output_kb=ns.output_kb)
    show = ns.progress == "always" or (ns.progress == "auto" and sys.stderr.isatty())
    client = Client(ns.url, timeout=ns.timeout)
    try:
        with Progress("runcell-client: %s (%s) on %s" % (files[0][0], language, ns.url), show):
            result = client.execute(language, files, stdin=stdin, args=ns.arg or None,
                                    limits=limits if limits.to_json() else None)
    except (RuncellError, TransportError) as e:
        print("runcell-client: %s" % e, file=sys.stderr)
        return SELF_FAILURE
    if result.stage == "compile" and result.compile is not None:
        sys.stdout.write(result.compile.stdout)
        sys.stdout.flush()
        sys.stderr.write(result.compile.stderr)
        print("runcell-client: compilation failed", file=sys.stderr)
        return _exit_status(result.compile) or 1
    sys.stdout.write(result.stdout)
    sys.stdout.flush()
    sys.stderr.write(result.stderr)
    if result.limit:
        print("runcell-client: the %s limit ended the program" % result.limit, file=sys.stderr)
    if result.truncated:
        print("runcell-client: output truncated at the output limit", file=sys.stderr)
    return _exit_status(result)


def cmd_languages(ns: argparse.Namespace) -> int:
    try:
        langs = Client(ns.url, timeout=ns.timeout).languages()
    except (RuncellError, TransportError) as e:
        print("runcell-client: %s" % e, file=sys.stderr)
        return SELF_FAILURE
    for lang in langs:
        state = lang.version or "" if lang.available else "unavailable: %s" % (lang.reason or "")
        print("%-10s %s" % (lang.language, state))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="runcell-client", description="Run code on a runcell server.")
    p.add_argument("--url", default=os.environ.get("RUNCELL_URL", "http://127.0.0.1:4040"),
                   help="runcell's URL (default $RUNCELL_URL or http://127.0.0.1:4040)")
    p.add_argument("--timeout", type=float, default=660.0, help="seconds to wait for the answer")
    sub = p.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run", help="run files with POST /v1/execute")
    r.add_argument("files", nargs="+", help="the entry point first, then the other files")
    r.add_argument("--lang", help="language slug or alias (default: from the extension)")
    r.add_argument("--stdin", help="a file fed to the program's stdin (- for this stdin)")
    r.add_argument("--arg", action="append", help="an argument for the program (repeat)")
    r.add_argument("--wall-ms", type=int, help="wall-clock limit, milliseconds")
    r.add_argument("--idle-ms", type=int, help="idle limit, milliseconds")
    r.add_argument("--cpu-ms", type=int, help="CPU limit, milliseconds")
    r.add_argument("--memory-mb", type=int, help="memory limit, MiB")
    r.add_argument("--pids", type=int, help="processes and threads at once")
    r.add_argument("--output-kb", type=int, help="stdout and stderr together, KiB")
    r.add_argument("--progress", choices=("auto", "always", "never"), default="auto",
                   help="the progress line on stderr (auto: on a terminal)")
    r.set_defaults(func=cmd_run)
    lang = sub.add_parser("languages", help="list the server's languages")
    lang.set_defaults(func=cmd_languages)
    return p


def main(argv: Optional[List[str]] = None) -> int:
    ns = parser().parse_args(argv)
    return int(ns.func(ns))


if __name__ == "__main__":
    sys.exit(main())
