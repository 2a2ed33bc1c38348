"""langtest.py - end-to-end tests of one language directory, judged the way
Codebattle's client judges them.

Each t/langs/<slug>.py calls main("<slug>").  For the language it submits
the a+b task (correct, `a - b`, syntax error, exception on the second call,
printing, endless loop) and the "all data types" task, exactly as the client
would (its solution wrapper, its generated checker_text for compiled
languages, asserts as a JSON string), and feeds each response to cbparse,
the re-implementation of the client's V2 parser.

Two ways to run a case:
  http    (default) POST /run to a real runcell-fcgi behind nginx, started
          by t/lib/rchttp.py for this language;
  direct  RC_LANGS_MODE=direct: copy langs/<slug> to a temp dir, write the
          request files, run the resolved `make -n -s test` with sh -c the
          way runcell does (stdin /dev/null, own process group, killed at
          the timeout).  For developing a language without the service.

Dart, Swift and Zig are not packaged by Debian 12: without their toolchain
the file skips with that reason.  Any other missing toolchain fails.

`langtest.py --bench SLUG... [-n N]` prints the median a+b latency per
language (direct mode unless RC_LANGS_MODE=http).
"""

import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.environ.get("RC_TOP_SRCDIR") or os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(SRCDIR, "t", "lib"))
sys.path.insert(0, HERE)

import cbcheckers as cb  # noqa: E402
import cbparse  # noqa: E402
import tap  # noqa: E402
from langcases import CASES, FD_MARKER  # noqa: E402

LANGS_DIR = os.path.join(SRCDIR, "langs")
UNPACKAGED = ("dart", "swift", "zig")

SUM_TASK = cb.SUM_TASK

ALL_TYPES_TASK = {
    "signature": [("a", cb.INT), ("b", cb.STR), ("c", cb.FLOAT), ("d", cb.BOOL),
                  ("e", cb.hash_of(cb.STR)), ("f", cb.array(cb.STR)),
                  ("g", cb.array(cb.array(cb.STR)))],
    "output": cb.array(cb.STR),
    "asserts": [{"arguments": [1, "a", 1.3, True, {"a": "b", "c": "d"}, ["d", "e"],
                               [["Jack", "Alice"]]],
                 "expected": ["asdf"]}],
}

# Timeout for the endless-loop case: past the language's compile time, so
# the kill lands while the solution runs (warm, on a 2-core machine).
LOOP_TIMEOUT_S = {"kotlin": 30, "clojure": 12, "haskell": 15, "java": 10, "golang": 10,
                  "rust": 10, "dlang": 10, "cpp": 8, "csharp": 8, "elixir": 6}
# Timeout for the other cases: generous, a slow CI machine must not flake.
CASE_TIMEOUT_S = 60


def manifest(slug):
    with open(os.path.join(LANGS_DIR, slug, "manifest.json")) as f:
        return json.load(f)


def resolved_command(slug):
    """What runcell runs per request: `make -n -s test`, resolved once."""
    out = subprocess.run(["make", "-n", "-s", "test"], cwd=os.path.join(LANGS_DIR, slug),
                         stdin=subprocess.DEVNULL, capture_output=True, text=True, check=True)
    return out.stdout


def request_for(slug, task, code):
    """The /run body Codebattle's client would send."""
    return {
        "checker_text": cb.checker_text(slug, task),
        "lang_slug": slug,
        "timeout": "%ds" % CASE_TIMEOUT_S,
        "solution_text": cb.solution_wrap(slug, code),
        "asserts": cb.asserts_text(task),
    }


class DirectRunner:
    """Runs a request without the service, as runcell's unsandboxed path
    does: a fresh copy of the language directory per request."""

    def __init__(self, slug):
        self.slug = slug
        self.man = manifest(slug)
        self.command = resolved_command(slug)

    def run(self, body, timeout_s):
        work = tempfile.mkdtemp(prefix="rclang-%s-" % self.slug)
        try:
            shutil.copytree(os.path.join(LANGS_DIR, self.slug), work, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns(".git", "manifest.json"))
            indir = os.path.join(work, self.man["inputDir"])
            os.makedirs(indir, exist_ok=True)
            with open(os.path.join(indir, self.man["solutionFile"]), "w") as f:
                f.write(body["solution_text"])
            if body.get("checker_text") is not None and self.man.get("checkerFile"):
                with open(os.path.join(indir, self.man["checkerFile"]), "w") as f:
                    f.write(body["checker_text"])
            if body.get("asserts") is not None:
                with open(os.path.join(indir, "asserts.json"), "w") as f:
                    f.write(body["asserts"])
            env = dict(os.environ)
            env.update(self.man.get("env", {}))
            env["HOME"] = work
            proc = subprocess.Popen(["/bin/sh", "-c", self.command], cwd=work, env=env,
                                    stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, start_new_session=True)
            try:
                out, err = proc.communicate(timeout=timeout_s)
                code = proc.returncode
                if code < 0:
                    code = 128 - code
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # our own child's group
                out, err = proc.communicate()
                code = None
            return {"exit_code": code, "stdout": out.decode("utf-8", "replace"),
                    "stderr": err.decode("utf-8", "replace")}
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def close(self):
        pass


class HttpRunner:
    """Runs a request through nginx + runcell-fcgi (t/lib/rchttp.py)."""

    def __init__(self, slug):
        import rchttp
        self.slug = slug
        self.svc = rchttp.Service(languages=slug, env={"RUN_CONCURRENCY": "2"},
                                  start_timeout=120).start()

    def run(self, body, timeout_s):
        body = dict(body, timeout="%ds" % timeout_s)
        r = self.svc.post_json("/run", body, timeout=timeout_s + 60)
        if r.status != 200 or not isinstance(r.json, dict):
            return {"http_error": "HTTP %d: %s" % (r.status, r.text[:500])}
        return r.json

    def close(self):
        self.svc.stop()


def make_runner(slug, mode=None):
    mode = mode or os.environ.get("RC_LANGS_MODE", "http")
    return DirectRunner(slug) if mode == "direct" else HttpRunner(slug)


def explain(resp, parsed):
    return ("exit_code: %r\nparsed: %s\n--- stdout\n%s\n--- stderr\n%s"
            % (resp.get("exit_code"), json.dumps({k: v for k, v in parsed.items() if k != "items"}),
               (resp.get("stdout") or "")[-3000:], (resp.get("stderr") or "")[-3000:]))


def main(slug, extra=None):
    """extra(t, submit, runner): a language's own further cases, run after
    the common ones on the same runner."""
    t = tap.Tap()
    man = manifest(slug)
    missing = [p for p in man.get("requires", []) if shutil.which(p) is None]
    if missing:
        reason = man.get("unavailableReason")
        if slug in UNPACKAGED and reason:
            print("1..0 # SKIP %s (%s not on PATH)" % (reason, ", ".join(missing)))
            sys.exit(0)
        t.ok(False, "%s toolchain present" % slug,
             "missing on PATH: %s (run langs/install-toolchains %s)" % (", ".join(missing), slug))
        t.exit()

    try:
        runner = make_runner(slug)
    except Exception as e:  # the service did not start: nothing can be tested
        t.bail("%s: cannot start the runner: %s" % (slug, e))

    cases = CASES[slug]

    def submit(code, task=SUM_TASK, timeout_s=CASE_TIMEOUT_S):
        body = request_for(slug, task, code)
        start = time.monotonic()
        resp = runner.run(body, timeout_s)
        elapsed = time.monotonic() - start
        if "http_error" in resp:
            return resp, {"status": "http_error", "output_error": resp["http_error"],
                          "success_count": 0, "items": []}, elapsed
        parsed = cbparse.parse(resp["exit_code"], resp["stdout"], resp["stderr"], task["asserts"])
        return resp, parsed, elapsed

    try:
        # 1. a + b: every assert passes
        resp, p, took = submit(cases["ok"])
        t.ok(p["status"] == "ok" and p["success_count"] == 3, "%s a+b is ok (%.2fs)" % (slug, took),
             lambda: explain(resp, p))
        results = [i.get("value") for i in p["items"] if i.get("type") == "result"]
        t.ok(results == [2, 3, 5], "%s a+b result items are 2, 3, 5" % slug,
             lambda: explain(resp, p))

        # 2. a - b: parsed, every assert fails
        resp, p, _ = submit(cases["minus"])
        t.ok(p["status"] == "failure" and p["success_count"] == 0,
             "%s a-b is a failure with 0 successes" % slug, lambda: explain(resp, p))

        # 3. syntax error: status error (non-zero exit or one error item)
        resp, p, _ = submit(cases["syntax"])
        t.ok(p["status"] == "error", "%s syntax error gives status error" % slug,
             lambda: explain(resp, p))

        # 3b. Codebattle's own "error" case: the bare text "sdf" ("sdf();" for php)
        resp, p, _ = submit("sdf();" if slug == "php" else "sdf")
        t.ok(p["status"] == "error", "%s Codebattle's \"sdf\" solution gives status error" % slug,
             lambda: explain(resp, p))

        # 4. exception on the second call
        resp, p, _ = submit(cases["raise"])
        error_items = [i for i in p["items"] if i.get("type") == "error"]
        t.ok(p["status"] != "ok" and (p["status"] == "error" or error_items),
             "%s exception mid-run gives error status or error items" % slug,
             lambda: explain(resp, p))
        text = json.dumps(error_items) + (resp.get("stdout") or "") + (resp.get("stderr") or "")
        t.ok("boom" in text, "%s exception message reaches the client" % slug,
             lambda: explain(resp, p))

        # 5. a solution that prints: still parses ok, output in the item
        resp, p, _ = submit(cases["print"])
        t.ok(p["status"] == "ok" and p["success_count"] == 3,
             "%s printing solution still parses ok" % slug, lambda: explain(resp, p))
        if slug == "haskell":
            t.ok("hello from 1" in (resp.get("stderr") or ""),
                 "haskell trace output goes to stderr (pure solutions cannot print)",
                 lambda: explain(resp, p))
        else:
            first = next((i for i in p["items"] if i.get("type") == "result"), {})
            t.ok("hello from" in str(first.get("output", "")) and "1" in str(first.get("output")),
                 "%s printed text lands in the first item's output" % slug,
                 lambda: explain(resp, p))

        # 6. all data types
        resp, p, _ = submit(cases["types"], task=ALL_TYPES_TASK)
        t.ok(p["status"] == "ok" and p["success_count"] == 1,
             "%s all-data-types task is ok" % slug, lambda: explain(resp, p))

        # 7. endless loop: killed at the timeout, exit_code null, status error
        limit = LOOP_TIMEOUT_S.get(slug, 5)
        resp, p, took = submit(cases["loop"], timeout_s=limit)
        t.ok(resp.get("exit_code", 0) is None and p["status"] == "error",
             "%s endless loop is killed at the %ds timeout (exit_code null)" % (slug, limit),
             lambda: explain(resp, p))
        t.ok(took < limit + 10, "%s timeout answered in %.1fs" % (slug, took))

        # 8. issue 16: what the solution wrote to fd 1 before the timeout
        # killed it, or before a hard exit, is in stdout
        if "fd_timeout" in cases:
            resp, p, _ = submit(cases["fd_timeout"], timeout_s=limit)
            t.ok(resp.get("exit_code", 0) is None
                 and FD_MARKER in (resp.get("stdout") or ""),
                 "%s fd-1 write then timeout: the write is in stdout" % slug,
                 lambda: explain(resp, p))
        if "fd_exit" in cases:
            resp, p, _ = submit(cases["fd_exit"])
            t.ok(resp.get("exit_code") not in (0, None)
                 and FD_MARKER in (resp.get("stdout") or ""),
                 "%s fd-1 write then hard exit: the write is in stdout" % slug,
                 lambda: explain(resp, p))

        if extra:
            extra(t, submit, runner)

        # The manifest's version command, run by the worker (as root
        # without capabilities, docs/design.md): a version on stderr
        # only (java -version, kotlinc -version) used to list "".
        if isinstance(runner, HttpRunner):
            r = runner.svc.get("/v1/languages")
            entry = {x.get("language"): x for x in
                     (r.json or {}).get("languages", [])}.get(slug, {})
            t.ok(r.status == 200 and bool((entry.get("version") or "").strip()),
                 "%s: GET /v1/languages gives its toolchain's version (%r)"
                 % (slug, entry.get("version")), repr(entry or r))
    finally:
        runner.close()
    t.exit()


def bench(slugs, n):
    for slug in slugs:
        if any(shutil.which(p) is None for p in manifest(slug).get("requires", [])):
            print("%-8s unavailable" % slug)
            continue
        runner = make_runner(slug, os.environ.get("RC_LANGS_MODE", "direct"))
        try:
            body = request_for(slug, SUM_TASK, CASES[slug]["ok"])
            runner.run(body, CASE_TIMEOUT_S)  # warm-up
            times = []
            for _ in range(n):
                start = time.monotonic()
                resp = runner.run(body, CASE_TIMEOUT_S)
                times.append(time.monotonic() - start)
                p = cbparse.parse(resp.get("exit_code"), resp.get("stdout", ""),
                                  resp.get("stderr", ""), SUM_TASK["asserts"])
                if p["status"] != "ok":
                    print("%-8s not ok: %s" % (slug, p["status"]))
                    break
            print("%-8s median %.3fs  min %.3fs  max %.3fs  (n=%d)"
                  % (slug, statistics.median(times), min(times), max(times), len(times)))
            sys.stdout.flush()
        finally:
            runner.close()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--bench":
        args = sys.argv[2:]
        count = 5
        if "-n" in args:
            i = args.index("-n")
            count = int(args[i + 1])
            del args[i:i + 2]
        bench(args or sorted(CASES), count)
    elif len(sys.argv) == 2:
        main(sys.argv[1])
    else:
        print("usage: langtest.py SLUG | --bench [SLUG...] [-n N]", file=sys.stderr)
        sys.exit(2)
