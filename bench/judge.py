#!/usr/bin/python3
"""bench/judge.py - issue 26's benchmark: a 50-test C++ a+b problem judged
three ways, side by side in one run, against running the binary bare.

  1. one POST /v1/judge (compiled once, 50 tests on the request's slots);
  2. 50 POST /v1/execute, one after another (what a Judge0-style client
     does: each compiles again);
  3. sessions: one compile into a session, then 50 runs of the binary,
     each a POST /sessions/{id}/execute.

Each row is the median of --runs rounds, interleaved (one round of every
way, then the next), every answer checked (verdicts, outputs) before its
time counts.  The per-test overhead is the marginal cost of a test, (one
judge of 51 tests - one judge of 1 test) / 50, against a bare run of the
same binary (bench/loop.c -i: fork, exec with the test on stdin, wait) at
the same parallelism, measured in the same minutes.  The judge rows come
from two services, RUN_JUDGE_PARALLEL=1 and 2 (two slots each).

Usage: bench/judge.py [--runs N] [--no-save]
Needs root (the sandbox), a build (RC_TOP_BUILDDIR, else <src>/_build),
nginx, g++ and cc.  Writes the table to bench/results/<date>-judge.md.
"""

import argparse
import datetime
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SRCDIR = os.path.dirname(HERE)
os.environ.setdefault("RC_TOP_SRCDIR", SRCDIR)
os.environ.setdefault("RC_TOP_BUILDDIR", os.path.join(SRCDIR, "_build"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "lib"))
sys.path.insert(0, os.path.join(SRCDIR, "t", "sessions"))

import rchttp  # noqa: E402
import sesslib  # noqa: E402

N_TESTS = 50
# Far from the service's default uids and the tests' range, as bench/run.
UID_BASES = ("3910000", "3920000")
AB = ("#include <cstdio>\nint main() { long long a, b; if (scanf(\"%lld %lld\", &a, &b) != 2) "
      "return 1; printf(\"%lld\\n\", a + b); return 0; }\n")
# The manifest's command (langs/cpp/manifest.json), for the bare binary and
# the session's compile.
CXX = ["g++", "-std=gnu++23", "-O2", "-pipe"]


def tests(n):
    return [{"stdin": "%d %d\n" % (i, 7 * i), "expected": "%d\n" % (8 * i)} for i in range(n)]


def judge_once(svc, n):
    body = {"language": "cpp", "files": [{"name": "main.cpp", "content": AB}], "tests": tests(n)}
    t0 = time.monotonic()
    r = svc.post_json("/v1/judge", body, timeout=600)
    dt = time.monotonic() - t0
    j = r.json or {}
    if r.status != 200 or j.get("verdict") != "accepted" or j.get("passed") != n:
        raise SystemExit("judge: unexpected answer %r" % r)
    return dt, j


def executes_once(svc):
    t0 = time.monotonic()
    for t in tests(N_TESTS):
        r = svc.post_json("/v1/execute", {"language": "cpp", "stdin": t["stdin"],
                                          "files": [{"name": "main.cpp", "content": AB}]}, timeout=600)
        if r.status != 200 or (r.json or {}).get("stdout") != t["expected"]:
            raise SystemExit("execute: unexpected answer %r" % r)
    return time.monotonic() - t0


def sessions_once(svc):
    c = sesslib.Client(svc)
    t0 = time.monotonic()
    sid = c.create(files=[("main.cpp", AB.encode())])
    st, info, _, r = c.run(sid, "bash", " ".join(CXX + ["-o", "a.out", "main.cpp"]))
    if st != 200 or info.get("return_code") != 0:
        raise SystemExit("session compile: %r" % r)
    for t in tests(N_TESTS):
        st, info, _, r = c.run(sid, "bash", "./a.out <<'EOF'\n%sEOF\n" % t["stdin"])
        if st != 200 or info.get("output") != t["expected"]:
            raise SystemExit("session run: %r" % r)
    dt = time.monotonic() - t0
    c.delete(sid)
    return dt


def bare(loop, binary, infile, conc, n=200):
    p = subprocess.run([loop, "-n", str(n), "-c", str(conc), "-w", "5", "-i", infile, "--", binary],
                       capture_output=True, text=True, check=True)
    fields = dict(kv.split("=") for kv in p.stdout.split())
    # Per test at this concurrency: the wall of n runs over n.
    return 1000.0 / float(fields["jobs_per_s"]), float(fields["p50_ms"])


def med(xs):
    return statistics.median(xs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=5, help="interleaved rounds (default 5)")
    ap.add_argument("--no-save", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("bench/judge.py: needs root (the sandbox)")

    work = tempfile.mkdtemp(prefix="rc-bench-judge-", dir=os.environ["RC_TOP_BUILDDIR"])
    os.chmod(work, 0o755)
    loop = os.path.join(work, "loop")
    subprocess.run(["cc", "-O2", "-o", loop, os.path.join(HERE, "loop.c")], check=True)
    src, binary, infile = (os.path.join(work, x) for x in ("main.cpp", "a.out", "in"))
    with open(src, "w") as f:
        f.write(AB)
    with open(infile, "w") as f:
        f.write("3 21\n")
    subprocess.run(CXX + ["-o", binary, src], check=True)

    load0 = os.getloadavg()[0]
    svcs = {}
    try:
        for par, uid in zip((1, 2), UID_BASES):
            env = {"RUN_CONCURRENCY": 2, "RUN_JUDGE_PARALLEL": par, "RUN_UID_BASE": uid,
                   "MAX_SESSIONS": 8}
            svcs[par] = rchttp.Service(env=env, languages="cpp,bash", name="bench-judge").start()
        rows = {k: [] for k in ("judge1", "judge2", "one1", "one2", "exec", "sess", "bare1",
                                "bare2", "p50_1", "p50_2")}
        compile_ms = []
        for _ in range(args.runs):
            for par in (1, 2):
                dt, j = judge_once(svcs[par], N_TESTS + 1)
                rows["judge%d" % par].append(dt)
                compile_ms.append(j["compile"]["wallMs"])
                rows["one%d" % par].append(judge_once(svcs[par], 1)[0])
                per, p50 = bare(loop, binary, infile, par)
                rows["bare%d" % par].append(per)
                rows["p50_%d" % par].append(p50)
            rows["exec"].append(executes_once(svcs[2]))
            rows["sess"].append(sessions_once(svcs[2]))
        bare1 = (med(rows["bare1"]), med(rows["p50_1"]))
        bare2 = (med(rows["bare2"]), med(rows["p50_2"]))
    finally:
        for s in svcs.values():
            s.stop()
    load1 = os.getloadavg()[0]

    judge50 = {p: med(rows["one%d" % p]) + (med(rows["judge%d" % p]) - med(rows["one%d" % p])) * 50 / 51
               for p in (1, 2)}
    per_test = {p: (med(rows["judge%d" % p]) - med(rows["one%d" % p])) / N_TESTS * 1000 for p in (1, 2)}
    ex, se = med(rows["exec"]), med(rows["sess"])
    lines = [
        "# /v1/judge: a 50-test C++ a+b, three ways (issue 26)",
        "",
        "Machine: %s, %d cores, kernel %s; load average %.2f at start, %.2f at end; %d interleaved "
        "rounds, medians; runcell build %s; %s UTC."
        % (platform.node(), os.cpu_count(), platform.release(), load0, load1, args.runs,
           os.environ["RC_TOP_BUILDDIR"], datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")),
        "",
        "| way | wall for 50 tests | per test | x /v1/judge (parallel 2) |",
        "|---|---|---|---|",
        "| one `POST /v1/judge`, RUN_JUDGE_PARALLEL=2 | %.3f s | %.1f ms | 1.0 |"
        % (judge50[2], judge50[2] * 1000 / N_TESTS),
        "| one `POST /v1/judge`, RUN_JUDGE_PARALLEL=1 | %.3f s | %.1f ms | %.1f |"
        % (judge50[1], judge50[1] * 1000 / N_TESTS, judge50[1] / judge50[2]),
        "| 50 `POST /v1/execute`, one after another | %.3f s | %.1f ms | %.1f |"
        % (ex, ex * 1000 / N_TESTS, ex / judge50[2]),
        "| sessions: one compile, 50 `POST /sessions/{id}/execute` | %.3f s | %.1f ms | %.1f |"
        % (se, se * 1000 / N_TESTS, se / judge50[2]),
        "",
        "Per-test overhead: the marginal cost of a test, (judge of 51 tests - judge of 1) / 50, "
        "against the bare binary at the same parallelism (bench/loop.c -i, wall per run).",
        "",
        "| parallel | judge, per test | bare run, per test | overhead | bare p50 |",
        "|---|---|---|---|---|",
    ]
    for p, b in ((1, bare1), (2, bare2)):
        lines.append("| %d | %.2f ms | %.2f ms | %+.2f ms | %.2f ms |"
                     % (p, per_test[p], b[0], per_test[p] - b[0], b[1]))
    lines += [
        "",
        "Compile inside the judge (the compile step's wallMs, median): %d ms.  Goals: /v1/judge at "
        "least 10x faster than 50 /v1/execute: %.1fx (%s); per-test overhead within 1 ms of a bare "
        "run: %+.2f ms at parallel 2 (%s), %+.2f ms at parallel 1."
        % (med(compile_ms), ex / judge50[2], "met" if ex / judge50[2] >= 10 else "not met",
           per_test[2] - bare2[0], "met" if per_test[2] - bare2[0] <= 1 else "not met",
           per_test[1] - bare1[0]),
    ]
    text = "\n".join(lines) + "\n"
    print(text)
    if not args.no_save:
        out = os.path.join(HERE, "results", "%s-judge.md" % datetime.date.today().isoformat())
        with open(out, "w") as f:
            f.write(text)
        print("saved %s" % out)
    subprocess.run(["rm", "-rf", work], check=False)


if __name__ == "__main__":
    main()
