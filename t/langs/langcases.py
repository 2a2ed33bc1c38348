"""langcases.py - the per-language solutions the language tests submit.

For every language: the a+b task (asserts [1,1]->2, [2,1]->3, [3,2]->5)
solved correctly, wrongly (a - b), with a syntax error, with an exception
on the second call, printing, looping forever; and the "all data types"
task from Codebattle's factory.  Texts are what a user types: the client's
wrapper (package lines, module.exports) is applied by cbcheckers.

CASES[slug] = {"ok": ..., "minus": ..., "syntax": ..., "raise": ...,
               "print": ..., "loop": ..., "types": ...}
"""

CASES = {}

CASES["python"] = {
    "ok": "def solution(a, b):\n    return a + b\n",
    "minus": "def solution(a, b):\n    return a - b\n",
    "syntax": "def solution(a, b)\n    return a +\n",
    "raise": "def solution(a, b):\n    if a == 2:\n        raise ValueError('boom')\n    return a + b\n",
    "print": "import os\ndef solution(a, b):\n    print('hello from', a)\n    os.write(1, b'raw-fd-write\\n')\n    return a + b\n",
    "loop": "def solution(a, b):\n    while True:\n        pass\n",
    "types": "def solution(a, b, c, d, e, f, g):\n    return ['asdf']\n",
}

CASES["ruby"] = {
    "ok": "def solution(a, b)\n  a + b\nend\n",
    "minus": "def solution(a, b)\n  a - b\nend\n",
    "syntax": "def solution(a, b)\n  a +\n",
    "raise": "def solution(a, b)\n  raise 'boom' if a == 2\n  a + b\nend\n",
    "print": "def solution(a, b)\n  puts \"hello from #{a}\"\n  STDOUT.syswrite(\"raw-fd-write\\n\")\n  a + b\nend\n",
    "loop": "def solution(a, b)\n  loop {}\nend\n",
    "types": "def solution(a, b, c, d, e, f, g)\n  ['asdf']\nend\n",
}

CASES["php"] = {
    "ok": "<?php\n\nfunction solution($a, $b)\n{\n    return $a + $b;\n}\n",
    "minus": "<?php\n\nfunction solution($a, $b)\n{\n    return $a - $b;\n}\n",
    "syntax": "<?php\n\nfunction solution($a, $b)\n{\n    return $a + ;\n}\n",
    "raise": "<?php\n\nfunction solution($a, $b)\n{\n    if ($a == 2) throw new Exception('boom');\n    return $a + $b;\n}\n",
    "print": "<?php\n\nfunction solution($a, $b)\n{\n    echo \"hello from $a\\n\";\n    return $a + $b;\n}\n",
    "loop": "<?php\n\nfunction solution($a, $b)\n{\n    while (true) {}\n}\n",
    "types": "<?php\n\nfunction solution($a, $b, $c, $d, $e, $f, $g)\n{\n    return ['asdf'];\n}\n",
}

_JS = {
    "ok": "const solution = (a, b) => a + b;\n",
    "minus": "const solution = (a, b) => a - b;\n",
    "syntax": "const solution = (a, b) => { return a + ; };\n",
    "raise": "const solution = (a, b) => {\n  if (a === 2) throw new Error('boom');\n  return a + b;\n};\n",
    "print": "const _ = require('lodash');\nconst solution = (a, b) => {\n  console.log('hello from', a);\n  return _.add(a, b);\n};\n",
    "loop": "const solution = (a, b) => {\n  while (true) {}\n};\n",
    "types": "const solution = (a, b, c, d, e, f, g) => ['asdf'];\n",
}
CASES["js"] = dict(_JS)
CASES["ts"] = dict(_JS)
CASES["ts"].update({
    "ok": "const solution = (a: number, b: number): number => a + b;\n",
    "types": ("const solution = (a: number, b: string, c: number, d: boolean,"
              " e: Record<string, string>, f: string[], g: string[][]): string[] => ['asdf'];\n"),
    "print": "import * as R from 'rambda';\nconst solution = (a: number, b: number): number => {\n"
             "  console.log('hello from', a);\n  return R.add(a, b);\n};\n",
})

CASES["elixir"] = {
    "ok": "defmodule Solution do\n  def solution(a, b) do\n    a + b\n  end\nend\n",
    "minus": "defmodule Solution do\n  def solution(a, b) do\n    a - b\n  end\nend\n",
    "syntax": "defmodule Solution do\n  def solution(a, b) do\n    a +\n  end\nend\n",
    "raise": "defmodule Solution do\n  def solution(a, b) do\n    if a == 2, do: raise(\"boom\")\n    a + b\n  end\nend\n",
    "print": "defmodule Solution do\n  def solution(a, b) do\n    IO.puts(\"hello from #{a}\")\n    a + b\n  end\nend\n",
    "loop": "defmodule Solution do\n  def solution(a, b), do: solution(a, b)\nend\n",
    "types": "defmodule Solution do\n  def solution(_a, _b, _c, _d, _e, _f, _g), do: [\"asdf\"]\nend\n",
}

CASES["clojure"] = {
    "ok": "(defn solution [a b]\n  (+ a b))\n",
    "minus": "(defn solution [a b]\n  (- a b))\n",
    "syntax": "(defn solution [a b]\n  (+ a b)\n",
    "raise": "(defn solution [a b]\n  (when (= a 2) (throw (Exception. \"boom\")))\n  (+ a b))\n",
    "print": "(defn solution [a b]\n  (println \"hello from\" a)\n  (+ a b))\n",
    "loop": "(defn solution [a b]\n  (loop [] (recur)))\n",
    "types": "(defn solution [a b c d e f g]\n  [\"asdf\"])\n",
}

CASES["cpp"] = {
    "ok": "int solution(int a, int b) {\n  return a + b;\n}\n",
    "minus": "int solution(int a, int b) {\n  return a - b;\n}\n",
    "syntax": "int solution(int a, int b) {\n  return a + ;\n}\n",
    "raise": "int solution(int a, int b) {\n  if (a == 2) throw std::runtime_error(\"boom\");\n  return a + b;\n}\n",
    "print": "int solution(int a, int b) {\n  cout << \"hello from \" << a << endl;\n  return a + b;\n}\n",
    "loop": "int solution(int a, int b) {\n  volatile int x = 0;\n  while (true) x++;\n}\n",
    "types": ("vector<string> solution(int a, string b, double c, bool d, map<string, string> e,"
              " vector<string> f, vector<vector<string>> g) {\n  return {\"asdf\"};\n}\n"),
}

CASES["java"] = {
    "ok": "public class Solution {\n    public Integer solution(Integer a, Integer b) {\n        return a + b;\n    }\n}\n",
    "minus": "public class Solution {\n    public Integer solution(Integer a, Integer b) {\n        return a - b;\n    }\n}\n",
    "syntax": "public class Solution {\n    public Integer solution(Integer a, Integer b) {\n        return a + ;\n    }\n}\n",
    "raise": ("public class Solution {\n    public Integer solution(Integer a, Integer b) {\n"
              "        if (a == 2) throw new RuntimeException(\"boom\");\n        return a + b;\n    }\n}\n"),
    "print": ("public class Solution {\n    public Integer solution(Integer a, Integer b) {\n"
              "        System.out.println(\"hello from \" + a);\n        return a + b;\n    }\n}\n"),
    "loop": "public class Solution {\n    public Integer solution(Integer a, Integer b) {\n        while (true) {}\n    }\n}\n",
    "types": ("import java.util.*;\n\npublic class Solution {\n"
              "    public List<String> solution(Integer a, String b, Double c, Boolean d,"
              " Map<String, String> e, List<String> f, List<List<String>> g) {\n"
              "        return List.of(\"asdf\");\n    }\n}\n"),
}

CASES["kotlin"] = {
    "ok": "fun solution(a: Int, b: Int): Int {\n    return a + b\n}\n",
    "minus": "fun solution(a: Int, b: Int): Int {\n    return a - b\n}\n",
    "syntax": "fun solution(a: Int, b: Int): Int {\n    return a +\n}\n",
    "raise": "fun solution(a: Int, b: Int): Int {\n    if (a == 2) throw RuntimeException(\"boom\")\n    return a + b\n}\n",
    "print": "fun solution(a: Int, b: Int): Int {\n    println(\"hello from \" + a)\n    return a + b\n}\n",
    "loop": "fun solution(a: Int, b: Int): Int {\n    var x = 0\n    while (x >= 0) { x = (x + 1) % 1000 }\n    return x\n}\n",
    "types": ("fun solution(a: Int, b: String, c: Double, d: Boolean, e: Map<String, String>,"
              " f: List<String>, g: List<List<String>>): List<String> {\n    return listOf(\"asdf\")\n}\n"),
}

CASES["golang"] = {
    "ok": "func solution(a int, b int) int {\n\treturn a + b\n}\n",
    "minus": "func solution(a int, b int) int {\n\treturn a - b\n}\n",
    "syntax": "func solution(a int, b int) int {\n\treturn a +\n}\n",
    "raise": "func solution(a int, b int) int {\n\tif a == 2 {\n\t\tpanic(\"boom\")\n\t}\n\treturn a + b\n}\n",
    "print": "import \"fmt\"\n\nfunc solution(a int, b int) int {\n\tfmt.Println(\"hello from\", a)\n\treturn a + b\n}\n",
    "loop": "func solution(a int, b int) int {\n\tfor {\n\t}\n}\n",
    "types": ("func solution(a int, b string, c float64, d bool, e map[string]string, f []string,"
              " g [][]string) []string {\n\treturn []string{\"asdf\"}\n}\n"),
}

CASES["rust"] = {
    "ok": "pub fn solution(a: i64, b: i64) -> i64 {\n    a + b\n}\n",
    "minus": "pub fn solution(a: i64, b: i64) -> i64 {\n    a - b\n}\n",
    "syntax": "pub fn solution(a: i64, b: i64) -> i64 {\n    a +\n}\n",
    "raise": "pub fn solution(a: i64, b: i64) -> i64 {\n    if a == 2 {\n        panic!(\"boom\");\n    }\n    a + b\n}\n",
    "print": "pub fn solution(a: i64, b: i64) -> i64 {\n    println!(\"hello from {}\", a);\n    a + b\n}\n",
    "loop": "pub fn solution(a: i64, b: i64) -> i64 {\n    loop {}\n}\n",
    "types": ("use std::collections::HashMap;\n\npub fn solution(a: i64, b: String, c: f64, d: bool,"
              " e: HashMap<String, String>, f: Vec<String>, g: Vec<Vec<String>>) -> Vec<String> {\n"
              "    vec![String::from(\"asdf\")]\n}\n"),
}

_CS_HEAD = "using System;\nusing System.Collections.Generic;\n\nnamespace app\n{\n  public class Solution\n  {\n"
_CS_TAIL = "  }\n}\n"
CASES["csharp"] = {
    "ok": _CS_HEAD + "    public int solution(int a, int b)\n    {\n      return a + b;\n    }\n" + _CS_TAIL,
    "minus": _CS_HEAD + "    public int solution(int a, int b)\n    {\n      return a - b;\n    }\n" + _CS_TAIL,
    "syntax": _CS_HEAD + "    public int solution(int a, int b)\n    {\n      return a + ;\n    }\n" + _CS_TAIL,
    "raise": _CS_HEAD + ("    public int solution(int a, int b)\n    {\n"
                         "      if (a == 2) throw new Exception(\"boom\");\n      return a + b;\n    }\n") + _CS_TAIL,
    "print": _CS_HEAD + ("    public int solution(int a, int b)\n    {\n"
                         "      Console.WriteLine(\"hello from \" + a);\n      return a + b;\n    }\n") + _CS_TAIL,
    "loop": _CS_HEAD + "    public int solution(int a, int b)\n    {\n      while (true) {}\n    }\n" + _CS_TAIL,
    "types": _CS_HEAD + ("    public List<string> solution(int a, string b, double c, bool d,"
                         " Dictionary<string, string> e, List<string> f, List<List<string>> g)\n    {\n"
                         "      return new List<string> {\"asdf\"};\n    }\n") + _CS_TAIL,
}

_HS = "module Solution where\n\nimport qualified Data.Map as Map\nimport Debug.Trace (trace)\n\n"
CASES["haskell"] = {
    "ok": _HS + "solution :: Int -> Int -> Int\nsolution a b = a + b\n",
    "minus": _HS + "solution :: Int -> Int -> Int\nsolution a b = a - b\n",
    "syntax": _HS + "solution :: Int -> Int -> Int\nsolution a b = a +\n",
    "raise": _HS + "solution :: Int -> Int -> Int\nsolution a b = if a == 2 then error \"boom\" else a + b\n",
    # Solutions are pure: Debug.Trace writes to stderr, never into the JSON
    "print": _HS + "solution :: Int -> Int -> Int\nsolution a b = trace (\"hello from \" ++ show a) (a + b)\n",
    "loop": _HS + "solution :: Int -> Int -> Int\nsolution a b = length (repeat a)\n",
    "types": _HS + ("solution :: Int -> String -> Double -> Bool -> Map.Map String String -> [String]"
                    " -> [[String]] -> [String]\nsolution _ _ _ _ _ _ _ = [\"asdf\"]\n"),
}

CASES["dlang"] = {
    "ok": "long solution(long a, long b)\n{\n    return a + b;\n}\n",
    "minus": "long solution(long a, long b)\n{\n    return a - b;\n}\n",
    "syntax": "long solution(long a, long b)\n{\n    return a + ;\n}\n",
    "raise": "long solution(long a, long b)\n{\n    if (a == 2) throw new Exception(\"boom\");\n    return a + b;\n}\n",
    "print": "import std.stdio : writeln;\n\nlong solution(long a, long b)\n{\n    writeln(\"hello from \", a);\n    return a + b;\n}\n",
    "loop": "long solution(long a, long b)\n{\n    while (true) {}\n}\n",
    "types": ("string[] solution(long a, string b, double c, bool d, string[string] e, string[] f,"
              " string[][] g)\n{\n    return [\"asdf\"];\n}\n"),
}

CASES["dart"] = {
    "ok": "int solution(int a, int b) {\n  return a + b;\n}\n",
    "minus": "int solution(int a, int b) {\n  return a - b;\n}\n",
    "syntax": "int solution(int a, int b) {\n  return a + ;\n}\n",
    "raise": "int solution(int a, int b) {\n  if (a == 2) throw Exception('boom');\n  return a + b;\n}\n",
    "print": "int solution(int a, int b) {\n  print('hello from $a');\n  return a + b;\n}\n",
    "loop": "int solution(int a, int b) {\n  while (true) {}\n}\n",
    "types": ("List<String> solution(int a, String b, double c, bool d, Map<String, String> e,"
              " List<String> f, List<List<String>> g) {\n  return ['asdf'];\n}\n"),
}

CASES["swift"] = {
    "ok": "func solution(_ a: Int, _ b: Int) -> Int {\n  return a + b\n}\n",
    "minus": "func solution(_ a: Int, _ b: Int) -> Int {\n  return a - b\n}\n",
    "syntax": "func solution(_ a: Int, _ b: Int) -> Int {\n  return a +\n}\n",
    "raise": "func solution(_ a: Int, _ b: Int) -> Int {\n  if a == 2 { fatalError(\"boom\") }\n  return a + b\n}\n",
    "print": "func solution(_ a: Int, _ b: Int) -> Int {\n  print(\"hello from \\(a)\")\n  return a + b\n}\n",
    "loop": "func solution(_ a: Int, _ b: Int) -> Int {\n  while true {}\n}\n",
    "types": ("func solution(_ a: Int, _ b: String, _ c: Double, _ d: Bool, _ e: [String: String],"
              " _ f: [String], _ g: [[String]]) -> [String] {\n  return [\"asdf\"]\n}\n"),
}

CASES["zig"] = {
    "ok": "pub fn solution(a: i64, b: i64) i64 {\n    return a + b;\n}\n",
    "minus": "pub fn solution(a: i64, b: i64) i64 {\n    return a - b;\n}\n",
    "syntax": "pub fn solution(a: i64, b: i64) i64 {\n    return a + ;\n}\n",
    "raise": "pub fn solution(a: i64, b: i64) i64 {\n    if (a == 2) @panic(\"boom\");\n    return a + b;\n}\n",
    "print": ("const std = @import(\"std\");\npub fn solution(a: i64, b: i64) i64 {\n"
              "    std.io.getStdOut().writer().print(\"hello from {d}\\n\", .{a}) catch {};\n    return a + b;\n}\n"),
    "loop": "pub fn solution(a: i64, b: i64) i64 {\n    while (true) {}\n}\n",
    "types": ("pub fn solution(a: i64, b: []const u8, c: f64, d: bool, e: @import(\"std\").StringHashMap([]const u8),"
              " f: []const []const u8, g: []const []const []const u8) []const []const u8 {\n"
              "    return &.{\"asdf\"};\n}\n"),
}

# Issue 16: output written to fd 1 before a kill or a hard exit is kept.
# Only languages whose own checker (langs/<slug>/) captures the solution
# have these; the marker is what stdout must hold.
FD_MARKER = "fd1-before-the-end"
CASES["python"]["fd_timeout"] = (
    "import os\ndef solution(a, b):\n    os.write(1, b'%s\\n')\n    while True:\n        pass\n"
    % FD_MARKER)
CASES["python"]["fd_exit"] = (
    "import os\ndef solution(a, b):\n    os.write(1, b'%s\\n')\n    os._exit(3)\n" % FD_MARKER)
CASES["ruby"]["fd_timeout"] = (
    "def solution(a, b)\n  STDOUT.syswrite(\"%s\\n\")\n  loop {}\nend\n" % FD_MARKER)
CASES["ruby"]["fd_exit"] = (
    "def solution(a, b)\n  STDOUT.syswrite(\"%s\\n\")\n  exit!(3)\nend\n" % FD_MARKER)
CASES["php"]["fd_timeout"] = (
    "<?php\nfunction solution($a, $b) {\n  fwrite(STDOUT, \"%s\\n\");\n  while (true) {}\n}\n"
    % FD_MARKER)
CASES["php"]["fd_exit"] = (
    "<?php\nfunction solution($a, $b) {\n  fwrite(STDOUT, \"%s\\n\");\n  exit(3);\n}\n" % FD_MARKER)
# csharp: the client's checker captures Console.Out in memory; a raw write
# to the process's stdout stream (fd 1) is live.
_CS_FD = ("    public int solution(int a, int b)\n    {\n"
          "      using var fd1 = Console.OpenStandardOutput();\n"
          "      var bytes = System.Text.Encoding.UTF8.GetBytes(\"%s\\n\");\n"
          "      fd1.Write(bytes, 0, bytes.Length);\n      fd1.Flush();\n" % FD_MARKER)
CASES["csharp"]["fd_timeout"] = _CS_HEAD + _CS_FD + "      while (true) {}\n    }\n" + _CS_TAIL
CASES["csharp"]["fd_exit"] = _CS_HEAD + _CS_FD + "      Environment.Exit(3);\n      return 0;\n    }\n" + _CS_TAIL
