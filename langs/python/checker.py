"""checker.py - runs check/solution.py against check/asserts.json.

Prints ONE JSON array on the real stdout: per assert an item
{"type": "result"|"error", "value": ..., "output": "...", "time": "..."}.
A solution that cannot be loaded gives a single error item (exit 0), which
Codebattle's parser turns into status "error".  Everything the solution
prints, through print() or straight to fd 1, lands in the item's output:
fd 1 is pointed at a scratch file for the whole run, and the JSON goes to a
private duplicate of the original stdout.
"""
import io
import json
import os
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    real_out = os.fdopen(os.dup(1), "w", encoding="utf-8", closefd=True)
    scratch = tempfile.TemporaryFile()
    sys.stdout.flush()
    os.dup2(scratch.fileno(), 1)
    items = []
    try:
        items = run(scratch)
    finally:
        real_out.write(json.dumps(items, ensure_ascii=False))
        real_out.write("\n")
        real_out.flush()


class Capture:
    """A text stdout with a .buffer, like the real one, kept in memory."""

    def __init__(self):
        self.raw = io.BytesIO()
        self.stream = io.TextIOWrapper(self.raw, encoding="utf-8", errors="replace",
                                       write_through=True)

    def text(self):
        self.stream.flush()
        return self.raw.getvalue().decode("utf-8", "replace")


def take_fd_output(scratch):
    """Returns what was written to fd 1 since the last call."""
    scratch.seek(0)
    data = scratch.read()
    scratch.seek(0)
    scratch.truncate()
    return data.decode("utf-8", "replace")


def run(scratch):
    try:
        with open(os.path.join(HERE, "check", "asserts.json"), encoding="utf-8") as f:
            calls = json.load(f)["arguments"]
        sys.path.insert(0, HERE)
        sys.stdout = Capture().stream  # load-time prints are dropped
        from check.solution import solution  # noqa: E402 (user code)
    except BaseException:  # SyntaxError, ImportError, SystemExit at import ...
        sys.stdout = sys.__stdout__
        return [{"type": "error", "value": traceback.format_exc(), "output": "", "time": "0"}]

    items = []
    for args in calls:
        captured = Capture()
        sys.stdout = captured.stream
        start = time.perf_counter()
        try:
            value = solution(*args)
            kind = "result"
        except BaseException as e:  # a per-call failure must not stop the others
            value, kind = str(e), "error"
        elapsed = time.perf_counter() - start
        sys.stdout = sys.__stdout__
        try:
            sys.__stdout__.flush()
        except (OSError, ValueError):
            pass
        output = captured.text() + take_fd_output(scratch)
        item = {"type": kind, "value": value, "output": output, "time": "%.7f" % elapsed}
        try:
            json.dumps(item, allow_nan=False)
        except (TypeError, ValueError) as e:
            item = {"type": "error", "value": "result is not JSON: %s" % e,
                    "output": output, "time": item["time"]}
        items.append(item)
    return items


main()
