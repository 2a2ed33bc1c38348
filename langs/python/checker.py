"""checker.py - runs check/solution.py against check/asserts.json.

Prints ONE JSON array on the real stdout, on a line of its own: per assert
an item {"type": "result"|"error", "value": ..., "output": "...", "time": "..."}.
A solution that cannot be loaded gives a single error item (exit 0), which
Codebattle's parser turns into status "error".  What the solution prints
through print() / sys.stdout lands in the item's output.  Raw writes to
fd 1 (os.write, C extensions, child processes) are not held back: they go
straight to the real stdout, so they reach the response even when the
timeout kills the run or the solution leaves by os._exit (issue 16).  The
array is preceded by a newline, so such writes stay on lines of their own
and the client's line-by-line fallback still finds the array.
"""
import io
import json
import os
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    # sys.__stdout__ is fd 1 too: unbuffered, so what the solution writes
    # through it is not lost in a buffer when the run is killed.
    sys.stdout.flush()
    sys.__stdout__ = sys.stdout = io.TextIOWrapper(
        io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="replace",
        write_through=True)
    items = []
    try:
        items = run()
    finally:
        data = ("\n" + json.dumps(items, ensure_ascii=False) + "\n").encode("utf-8")
        while data:
            data = data[os.write(1, data):]


class Capture:
    """A text stdout with a .buffer, like the real one, kept in memory."""

    def __init__(self):
        self.raw = io.BytesIO()
        self.stream = io.TextIOWrapper(self.raw, encoding="utf-8", errors="replace",
                                       write_through=True)

    def text(self):
        self.stream.flush()
        return self.raw.getvalue().decode("utf-8", "replace")


def run():
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
        output = captured.text()
        item = {"type": kind, "value": value, "output": output, "time": "%.7f" % elapsed}
        try:
            json.dumps(item, allow_nan=False)
        except (TypeError, ValueError) as e:
            item = {"type": "error", "value": "result is not JSON: %s" % e,
                    "output": output, "time": item["time"]}
        items.append(item)
    return items


main()
