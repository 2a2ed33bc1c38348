"""csharp.py - the csharp language end to end, judged like Codebattle's client
(see langtest.py: a+b ok / a-b / syntax error / exception / prints /
all data types / timeout), with the checker written the way Codebattle's
C# template is (nullable reference types, records, System.Text.Json,
pattern matching: cbcheckers._csharp).  Then C#-only cases: a solution in
C# 8-12 syntax, the CompareNETObjects package Codebattle's image restores,
and the toolchain GET /v1/languages reports."""
import os
import sys

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


def extra(t, submit, runner):
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
