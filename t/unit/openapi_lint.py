"""openapi_lint.py - docs/openapi.yaml passes `redocly lint`, bundles whole
and renders.

redocly comes from the local npm install in tools/npm (./quickstart deps
runs `npm ci` there; this test installs nothing).  Checked:
  - `redocly lint --config docs/redocly.yaml` (the recommended rules) reports
    no error and no warning;
  - the bundled document (`redocly bundle`) keeps every operation whole:
    no YAML merge key survives, and POST /sessions/{id}/execute has its
    request body and responses (a `<<` merge used to lose them);
  - the check can fail: the same document with a description split by a
    comma in a flow mapping (the error the lint once found) fails it;
  - `redocly build-docs` renders an HTML reference that names the routes.
"""
import os
import subprocess
import tempfile

import tap

t = tap.Tap()
SRC = os.environ.get("RC_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
REDOCLY = os.path.join(SRC, "tools", "npm", "node_modules", ".bin", "redocly")
DOC = os.path.join(SRC, "docs", "openapi.yaml")
CONFIG = os.path.join(SRC, "docs", "redocly.yaml")

try:
    import yaml
except ImportError as e:
    t.ok(False, "python3-yaml is installed", str(e))
    t.exit()

if not os.access(REDOCLY, os.X_OK):
    t.ok(False, "redocly is installed in tools/npm (./quickstart deps)", "missing: " + REDOCLY)
    t.exit()


def redocly(*args, timeout=180):
    env = dict(os.environ, REDOCLY_TELEMETRY="off", REDOCLY_SUPPRESS_UPDATE_NOTICE="true",
               NO_COLOR="1")
    proc = subprocess.run([REDOCLY] + list(args), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          timeout=timeout, env=env, cwd=SRC)
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


def problems(output):
    return [line for line in output.splitlines()
            if " error " in line or " warning " in line or "warning  " in line]


rc, out = redocly("lint", "--config", CONFIG, "--format=stylish", DOC)
t.ok(rc == 0, "redocly lint docs/openapi.yaml exits 0", out[-3000:])
t.ok(not problems(out), "redocly lint reports no error and no warning", out[-3000:])

with tempfile.TemporaryDirectory(prefix="openapi-lint-") as tmp:
    bundled = os.path.join(tmp, "bundled.yaml")
    rc, out = redocly("bundle", DOC, "-o", bundled)
    t.ok(rc == 0 and os.path.exists(bundled), "redocly bundle writes the bundled document", out[-2000:])
    with open(bundled, encoding="utf-8") as f:
        text = f.read()
    doc = yaml.safe_load(text)

    def merge_keys(node):
        if isinstance(node, dict):
            return ("<<" in node) + sum(merge_keys(v) for v in node.values())
        if isinstance(node, list):
            return sum(merge_keys(v) for v in node)
        return 0

    t.eq(merge_keys(doc), 0, "no YAML merge key in the bundled document")
    op = doc["paths"]["/sessions/{id}/execute"]["post"]
    t.ok("requestBody" in op and "200" in op.get("responses", {}) and "409" in op["responses"],
         "POST /sessions/{id}/execute keeps its request body and responses when bundled", repr(op)[:500])

    # A flow mapping whose unquoted description holds a comma: the second
    # half becomes a key of the schema.
    good = 'stderr: {type: string, description: "The run\'s standard error (compiler diagnostics, tracebacks)."}'
    with open(DOC, encoding="utf-8") as f:
        broken = f.read()
    t.ok(good in broken, "the line the negative check breaks is in docs/openapi.yaml")
    broken = broken.replace(good, "stderr: {type: string, description: Standard error, at most RUN_OUTPUT_MAX.}")
    bad = os.path.join(tmp, "broken.yaml")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(broken)
    rc, out = redocly("lint", "--config", CONFIG, "--format=stylish", bad)
    t.ok(rc != 0 and "at most RUN_OUTPUT_MAX" in out,
         "a description split by a comma fails the lint (the check can fail)", out[-2000:])

    html = os.path.join(tmp, "api.html")
    rc, out = redocly("build-docs", DOC, "-o", html)
    ok = rc == 0 and os.path.exists(html)
    content = open(html, encoding="utf-8", errors="replace").read() if ok else ""
    t.ok(ok and "/v1/execute" in content and "/sessions/{id}/execute" in content,
         "redocly build-docs renders the HTML reference (%d bytes)" % len(content), out[-2000:])
t.exit()
