"""csharp.py - the csharp language end to end, judged like Codebattle's client
(see langtest.py: a+b ok / a-b / syntax error / exception / prints /
all data types / timeout), with the checker written the way Codebattle's
C# template is (nullable reference types, records, System.Text.Json,
pattern matching: cbcheckers._csharp).  Then C#-only cases: the NativeAOT
csc against csc.dll (where installed), a solution in C# 8-12 syntax, the
CompareNETObjects package Codebattle's image restores, and the toolchain
GET /v1/languages reports."""
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import langtest  # noqa: E402

MODERN = """namespace app
{
  public record Pair(int A, int B);

  public class Solution
  {
    public int solution(int a, int b)
    {
      string? label = a > 100 ? null : "small";
      var pair = new Pair(a, b);
      int[] parts = [pair.A, pair.B];
      return (pair, label) switch
      {
        ({ A: var x, B: var y }, not null) => parts.Sum() + (x - x) + (y - y),
        _ => -1,
      };
    }
  }
}
"""

COMPARE = """using KellermanSoftware.CompareNetObjects;

namespace app
{
  public class Solution
  {
    public int solution(int a, int b)
    {
      var logic = new CompareLogic();
      var same = logic.Compare(new List<int> { a, b }, new List<int> { a, b }).AreEqual;
      return same ? a + b : 0;
    }
  }
}
"""


SYNTAX = "namespace app { public class Solution { public int solution() { return 1 + ; } } }\n"
SEMANTIC = ("namespace app { public class Solution { public int solution(string s) {"
            " int x = s; Missing(); var m = new Nowhere(); return \"a\" * 2; } } }\n")
FEATURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "csharp_features.cs")


def _compile(work, compiler, who):
    """compiler's (exit code, output, assembly bytes or None) for the
    files in work/check, with the job's options made deterministic."""
    os.makedirs(os.path.join(work, who), exist_ok=True)
    out = os.path.join(work, who, "Checker.dll")
    if os.path.exists(out):
        os.unlink(out)
    p = subprocess.run(compiler + ["@prebuilt/csc.rsp", "-deterministic+", "-out:" + out,
                                   "GlobalUsings.cs", "Program.cs", "check/Checker.cs",
                                   "check/Solution.cs", "check/Features.cs"],
                       cwd=work, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                       timeout=120)
    data = None
    if p.returncode == 0:
        with open(out, "rb") as f:
            data = f.read()
    return p.returncode, (p.stdout + p.stderr).replace(work + "/", ""), data


def native_compiler(t):
    """Where install-toolchains built the NativeAOT csc (prebuilt/csc-aot),
    the job compiles with it, it emits the very bytes csc.dll emits for the
    client's checker, a modern solution and csharp_features.cs, and it
    reports syntax and type errors as csc.dll does."""
    cs = os.path.join(langtest.LANGS_DIR, "csharp")
    try:
        with open(os.path.join(cs, "prebuilt", "csc-aot")) as f:
            aot = f.read().strip()
        with open(os.path.join(cs, "prebuilt", "csc")) as f:
            dll = f.read().strip()
    except OSError:
        return  # mono, or the SDK without the native build: nothing to compare
    if os.environ.get("RC_CSHARP_AOT") == "0" or os.environ.get("RC_CSHARP_MONO") == "1":
        return  # the job was told to use another compiler
    command = langtest.resolved_command("csharp")
    t.ok(aot + " @prebuilt/csc.rsp " in command, "csharp job compiles with the NativeAOT csc %s" % aot,
         lambda: command)
    body = langtest.request_for("csharp", langtest.SUM_TASK, MODERN)
    work = tempfile.mkdtemp(prefix="rc-csc-aot-")
    try:
        shutil.copytree(cs, work, dirs_exist_ok=True)
        with open(os.path.join(work, "check", "Checker.cs"), "w") as f:
            f.write(body["checker_text"])
        shutil.copyfile(FEATURES, os.path.join(work, "check", "Features.cs"))
        res = {}
        for case, solution in (("ok", body["solution_text"]), ("syntax", SYNTAX),
                               ("semantic", SEMANTIC)):
            with open(os.path.join(work, "check", "Solution.cs"), "w") as f:
                f.write(solution)
            res[case] = (_compile(work, [aot], "aot"), _compile(work, ["dotnet", "exec", dll], "dll"))
        (a, d) = res["ok"]
        t.ok(a[0] == 0 and a[2] is not None and a[2] == d[2],
             "NativeAOT csc emits the same assembly as csc.dll for the client's checker"
             " and csharp_features.cs (%s bytes)" % (len(a[2]) if a[2] else None),
             lambda: "aot: %r\ndll: %r" % (a[:2], d[:2]))
        (a, d) = res["syntax"]
        t.ok(a[0] != 0 and "error CS1525" in a[1] and a[:2] == d[:2],
             "NativeAOT csc reports a syntax error as csc.dll does: %s" % a[1].strip()[:100],
             lambda: "aot: %r\ndll: %r" % (a[:2], d[:2]))
        # Roslyn binds method bodies on several threads and prints their
        # errors as they come (either compiler, run to run): the same
        # lines, in any order.
        (a, d) = res["semantic"]
        t.ok(a[0] != 0 and all(c in a[1] for c in ("CS0029", "CS0103", "CS0246", "CS0019"))
             and a[0] == d[0] and sorted(a[1].splitlines()) == sorted(d[1].splitlines()),
             "NativeAOT csc reports type errors as csc.dll does (%d lines)" % len(a[1].splitlines()),
             lambda: "aot: %r\ndll: %r" % (a[:2], d[:2]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def extra(t, submit, runner):
    native_compiler(t)
    resp, p, _ = submit(MODERN)
    t.ok(p["status"] == "ok" and p["success_count"] == 3,
         "csharp solution in modern syntax (record, string?, patterns, collection expression) is ok",
         lambda: langtest.explain(resp, p))
    resp, p, _ = submit(COMPARE)
    t.ok(p["status"] == "ok" and p["success_count"] == 3,
         "csharp solution using CompareNETObjects is ok", lambda: langtest.explain(resp, p))
    svc = getattr(runner, "svc", None)
    if svc is not None:
        r = svc.get("/v1/languages")
        langs = r.json if isinstance(r.json, list) else (r.json or {}).get("languages", [])
        cs = next((l for l in langs if l.get("language", l.get("slug")) == "csharp"), {})
        t.ok(".NET SDK" in str(cs.get("version")) if langtest.shutil.which("dotnet")
             else bool(cs.get("version")),
             "GET /v1/languages reports the csharp toolchain: %s" % cs.get("version"),
             lambda: "response: %s" % r.text[:1000])


langtest.main("csharp", extra)
