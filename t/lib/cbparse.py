"""cbparse - Codebattle's V2 output parser, re-implemented for the tests.

The language tests must judge a /run response exactly as Codebattle's
client would (its output parser, described in langs/README.md): the
client never sees an "expected" value from the runner; it decodes the
checker's items and compares them, in order, with its own asserts.  This
module reproduces those rules, including the odd ones (WARNING-line removal,
line-by-line fallback, the single-error-item rule, Elixir `==` semantics),
so a test passes only when the real client would give the same status.

parse(exit_code, stdout, stderr, asserts) -> dict with
  status         "ok" | "failure" | "error" | "client_crash"
  success_count  asserts whose item is a matching "result"
  asserts_count  len(asserts)
  output_error   what the client shows as the error/output text
  items          the decoded items (after framing), for diagnostics
asserts is a list of {"arguments": [...], "expected": value}.
"""

import json
import re

OOM_TEXT = "Your solution ran out of memory, please, rewrite it"
SIGTERM_TEXT = ("Your solution was executed for longer than 15 seconds, "
                "try to write more optimally")

_decoder = json.JSONDecoder()


def _decode(text):
    """Strict whole-string JSON decode; surrounding whitespace allowed.

    Raises ValueError on anything else, like Jason.decode!."""
    text = text.strip(" \t\r\n")
    value, end = _decoder.raw_decode(text)
    if end != len(text):
        raise ValueError("trailing data")
    return value


def elixir_eq(a, b):
    """Elixir's `==` on decoded JSON: 1 == 1.0, key order ignored, booleans
    are atoms (never numbers), lists compare element-wise in order."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(elixir_eq(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return (set(a) == set(b)
                and all(elixir_eq(a[k], b[k]) for k in a))
    if a is None or b is None:
        return a is None and b is None
    return type(a) is type(b) and a == b


def _wrap(value):
    """Elixir List.wrap: nil -> [], list -> itself, other -> [other]."""
    if value is None:
        return []
    if isinstance(value, list):
        return value
    return [value]


def frame(stdout):
    """Turns checker stdout into the item list the client works on."""
    cleaned = re.sub(r"WARNING:[^\n]*\n", "", stdout)
    try:
        return _wrap(_decode(cleaned))
    except ValueError:
        pass
    decoded = []
    for line in cleaned.split("\n"):
        line = line.strip()
        if not line:
            continue
        try:
            value = _decode(line)
        except ValueError:
            continue
        if value is None or value is False:
            continue
        decoded.append(value)
    if len(decoded) == 1 and isinstance(decoded[0], list) and decoded[0]:
        return decoded[0]
    if not decoded:
        return [{"type": "output"}]
    return decoded


def parse(exit_code, stdout, stderr, asserts):
    result = {"status": None, "success_count": 0,
              "asserts_count": len(asserts), "output_error": "", "items": []}
    if exit_code is None or exit_code != 0:
        both = (stdout or "") + (stderr or "")
        if exit_code == 2 and "Killed" in both:
            result["output_error"] = OOM_TEXT
        elif exit_code == 143 and "SIGTERM" in both:
            result["output_error"] = SIGTERM_TEXT
        else:
            result["output_error"] = "STDERR: %s\n\nSTDOUT: %s\n" % (stderr, stdout)
        result["status"] = "error"
        result["asserts_count"] = 0
        return result

    items = frame(stdout)
    result["items"] = items
    # The client indexes item["type"]: a bare scalar or list crashes it.
    if not all(isinstance(i, dict) for i in items):
        result["status"] = "client_crash"
        result["output_error"] = "non-object item in checker output"
        return result

    if len(items) == 1 and items[0].get("type") == "error":
        result["status"] = "error"
        result["asserts_count"] = 0
        result["output_error"] = "STDERR:\n" + str(items[0].get("value")) + (stderr or "")
        return result

    outputs = [i for i in items if i.get("type") == "output"]
    if outputs:
        result["output_error"] = outputs[0].get("output", "")
    checks = [i for i in items if i.get("type") != "output"]
    success = 0
    for item, expect in zip(checks, asserts):
        if item.get("type") == "result" and elixir_eq(item.get("value"), expect["expected"]):
            success += 1
    result["success_count"] = success
    result["status"] = "ok" if success == len(asserts) and asserts else "failure"
    return result
