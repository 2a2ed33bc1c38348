"""cbcheckers - the checker_text Codebattle's client sends for compiled
languages, reconstructed for the tests.

For compiled languages the client, not the runner, writes the checker: it
renders a per-language template with one block per assert, declaring a
variable `<argument_name><i>` (1-based) per argument with a literal value,
then calling the solution with those names in order
(the generator described in langs/README.md).  runcell must run
that text unmodified, so the tests feed it exactly this shape; the helper
files runcell ships (cpp prelude, gson, serde, cb_runtime for D, CbRuntime
for Haskell) are what these checkers rely on.

Task model used here:
  task = {"signature": [(name, type), ...], "output": type,
          "asserts": [{"arguments": [...], "expected": ...}, ...]}
  type = {"name": "integer"|"float"|"string"|"boolean"|"array"|"hash",
          "nested": type (array and hash only)}

checker_text(slug, task) -> str, or None for languages with no client
checker.  solution_wrap(slug, code) applies the client's solution wrapper.
"""

import json

INT = {"name": "integer"}
FLOAT = {"name": "float"}
STR = {"name": "string"}
BOOL = {"name": "boolean"}

# Codebattle's a+b: the task every language test and the image test submit.
SUM_TASK = {
    "signature": [("a", INT), ("b", INT)],
    "output": INT,
    "asserts": [{"arguments": [1, 1], "expected": 2},
                {"arguments": [2, 1], "expected": 3},
                {"arguments": [3, 2], "expected": 5}],
}


def array(t):
    return {"name": "array", "nested": t}


def hash_of(t):
    return {"name": "hash", "nested": t}


# ---------------------------------------------------------------- literals


def elixir_number(v):
    """Elixir's to_string for numbers: floats keep a fraction, exponents
    look like 1.0e-5."""
    if isinstance(v, bool):
        raise TypeError("bool is not a number")
    if isinstance(v, int):
        return str(v)
    r = repr(float(v))
    if "e" in r:
        mant, exp = r.split("e")
        if "." not in mant:
            mant += ".0"
        return "%se%d" % (mant, int(exp))
    if "." not in r:
        r += ".0"
    return r


def escape(s, dollar=False):
    """The client escapes backslash, newline, tab and quote only."""
    out = s.replace("\\", "\\\\").replace("\n", "\\n").replace("\t", "\\t").replace('"', '\\"')
    if dollar:
        out = out.replace("$", "\\$")
    return out


def _sorted_items(d):
    # Elixir keeps small maps (<= 32 keys) sorted by key.
    return sorted(d.items())


class Lang:
    """Type names and literal syntax of one language."""
    ints = floats = strs = bools = None

    def type_of(self, t):
        n = t["name"]
        if n == "integer":
            return self.ints
        if n == "float":
            return self.floats
        if n == "string":
            return self.strs
        if n == "boolean":
            return self.bools
        if n == "array":
            return self.array_type(self.type_of(t["nested"]))
        if n == "hash":
            return self.hash_type(self.type_of(t["nested"]))
        raise ValueError(n)

    def literal(self, v, t):
        n = t["name"]
        if n in ("integer", "float"):
            return elixir_number(v)
        if n == "string":
            return self.string(v)
        if n == "boolean":
            return "true" if v else "false"
        if n == "array":
            return self.array_lit([self.literal(x, t["nested"]) for x in v], t)
        if n == "hash":
            if not v:
                return self.empty_hash(t)
            return self.hash_lit([(self.string(k), self.literal(x, t["nested"]))
                                  for k, x in _sorted_items(v)], t)
        raise ValueError(n)

    def string(self, s):
        return '"%s"' % escape(s)

    def declare(self, name, t, value):
        raise NotImplementedError


class Cpp(Lang):
    ints, floats, strs, bools = "int", "double", "string", "bool"

    def array_type(self, e):
        return "vector<%s>" % e

    def hash_type(self, e):
        return "map<string, %s>" % e

    def array_lit(self, xs, t):
        return "{%s}" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "{%s}" % ", ".join("{%s, %s}" % p for p in kv)

    def empty_hash(self, t):
        return "{}"

    def declare(self, name, t, value):
        return "%s %s = %s;" % (self.type_of(t), name, value)


class Java(Lang):
    ints, floats, strs, bools = "Integer", "Double", "String", "Boolean"

    def array_type(self, e):
        return "List<%s>" % e

    def hash_type(self, e):
        return "Map<String, %s>" % e

    def array_lit(self, xs, t):
        return "List.of(%s)" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "Map.ofEntries(%s)" % ", ".join("entry(%s, %s)" % p for p in kv)

    def empty_hash(self, t):
        return "Map.of()"

    def declare(self, name, t, value):
        return "%s %s = %s;" % (self.type_of(t), name, value)


class Kotlin(Lang):
    ints, floats, strs, bools = "Int", "Double", "String", "Boolean"

    def array_type(self, e):
        return "List<%s>" % e

    def hash_type(self, e):
        return "Map<String, %s>" % e

    def array_lit(self, xs, t):
        return "listOf(%s)" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "mapOf(%s)" % ", ".join("%s to %s" % p for p in kv)

    def empty_hash(self, t):
        return "mapOf()"

    def declare(self, name, t, value):
        return "var %s: %s = %s;" % (name, self.type_of(t), value)


class CSharp(Lang):
    ints, floats, strs, bools = "int", "double", "string", "bool"

    def array_type(self, e):
        return "List<%s>" % e

    def hash_type(self, e):
        return "Dictionary<string, %s>" % e

    def array_lit(self, xs, t):
        return "new() {%s}" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "new() {%s}" % ", ".join("{%s, %s}" % p for p in kv)

    def empty_hash(self, t):
        return "new()"

    def declare(self, name, t, value):
        return "%s %s = %s;" % (self.type_of(t), name, value)


class Go(Lang):
    ints, floats, strs, bools = "int", "float64", "string", "bool"

    def array_type(self, e):
        return "[]%s" % e

    def hash_type(self, e):
        return "map[string]%s" % e

    def array_lit(self, xs, t):
        return "%s{%s}" % (self.type_of(t), ", ".join(xs))

    def hash_lit(self, kv, t):
        return "%s{%s}" % (self.type_of(t), ", ".join("%s: %s" % p for p in kv))

    def empty_hash(self, t):
        return "{}"  # the client's bug: not valid Go (kept on purpose)

    def declare(self, name, t, value):
        return "var %s %s = %s" % (name, self.type_of(t), value)


class Rust(Lang):
    ints, floats, strs, bools = "i64", "f64", "String", "bool"

    def string(self, s):
        return 'String::from("%s")' % escape(s)

    def array_type(self, e):
        return "Vec<%s>" % e

    def hash_type(self, e):
        return "HashMap<String, %s>" % e

    def array_lit(self, xs, t):
        return "vec![%s]" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "HashMap::from([%s])" % ", ".join("(%s, %s)" % p for p in kv)

    def empty_hash(self, t):
        return "HashMap::new()"

    def declare(self, name, t, value):
        return "let %s: %s = %s;" % (name, self.type_of(t), value)


class Swift(Lang):
    ints, floats, strs, bools = "Int", "Double", "String", "Bool"

    def array_type(self, e):
        return "[%s]" % e

    def hash_type(self, e):
        return "[String: %s]" % e

    def array_lit(self, xs, t):
        return "[%s]" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "[%s]" % ", ".join("%s: %s" % p for p in kv)

    def empty_hash(self, t):
        return "[String: Any]()"

    def declare(self, name, t, value):
        return "let %s: %s = %s" % (name, self.type_of(t), value)


class Zig(Lang):
    ints, floats, strs, bools = "i64", "f64", "[]const u8", "bool"

    def array_type(self, e):
        return "[]const %s" % e

    def hash_type(self, e):
        return "std.StringHashMap(%s)" % e

    def array_lit(self, xs, t):
        return "&.{%s}" % ", ".join(xs)

    def hash_lit(self, kv, t):
        puts = " ".join("m.put(%s, %s) catch unreachable;" % p for p in kv)
        return ("blk: { var m = %s.init(std.heap.page_allocator); %s break :blk m; }"
                % (self.type_of(t), puts))

    def empty_hash(self, t):
        return self.hash_lit([], t)

    def declare(self, name, t, value):
        return "const %s: %s = %s;" % (name, self.type_of(t), value)


class Dlang(Lang):
    """runcell's own D contract (Codebattle never had a D image)."""
    ints, floats, strs, bools = "long", "double", "string", "bool"

    def array_type(self, e):
        return "%s[]" % e

    def hash_type(self, e):
        return "%s[string]" % e

    def array_lit(self, xs, t):
        return "[%s]" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "[%s]" % ", ".join("%s: %s" % p for p in kv)

    def empty_hash(self, t):
        return "null"

    def declare(self, name, t, value):
        return "%s %s = %s;" % (self.type_of(t), name, value)


class Haskell(Lang):
    """runcell's own Haskell contract: Solution.hs + Checker.hs."""
    ints, floats, strs, bools = "Int", "Double", "String", "Bool"

    def literal(self, v, t):
        if t["name"] == "boolean":
            return "True" if v else "False"
        if t["name"] in ("integer", "float") and elixir_number(v).startswith("-"):
            return "(%s)" % elixir_number(v)
        return Lang.literal(self, v, t)

    def array_type(self, e):
        return "[%s]" % e

    def hash_type(self, e):
        return "Map.Map String %s" % e

    def array_lit(self, xs, t):
        return "[%s]" % ", ".join(xs)

    def hash_lit(self, kv, t):
        return "Map.fromList [%s]" % ", ".join("(%s, %s)" % p for p in kv)

    def empty_hash(self, t):
        return "Map.empty"

    def declare(self, name, t, value):
        return "let %s = %s :: %s" % (name, value, self.type_of(t))


LANGS = {"cpp": Cpp(), "java": Java(), "kotlin": Kotlin(), "csharp": CSharp(),
         "golang": Go(), "rust": Rust(), "swift": Swift(), "zig": Zig(),
         "dlang": Dlang(), "haskell": Haskell()}


def _checks(slug, task):
    lang = LANGS[slug]
    out = []
    for i, a in enumerate(task["asserts"], 1):
        decls, names = [], []
        for (name, t), v in zip(task["signature"], a["arguments"]):
            var = "%s%d" % (name, i)
            decls.append(lang.declare(var, t, lang.literal(v, t)))
            names.append(var)
        out.append((i, decls, ", ".join(names)))
    return out


def _indent(lines, n):
    return "\n".join(" " * n + l for l in lines)


# ---------------------------------------------------------------- templates
# Each reproduces what the client's template does (the runtime structure
# and the items it prints); the generated code is ours.


def _cpp(task):
    body = []
    for i, decls, expr in _checks("cpp", task):
        body.append(_indent(decls, 4))
        body.append("    RunTest(finalResults_, buffer_, [&]{ return solution(%s); });" % expr)
    return """#include "solution.cpp"

int main() {
  std::stringstream buffer_;
  std::streambuf *oldBuf_ = std::cout.rdbuf(buffer_.rdbuf());
  std::vector<std::string> finalResults_;

  try {
%s
  } catch (const std::exception &e) {
    SendError(finalResults_, e.what());
  }

  std::cout.rdbuf(oldBuf_);
  for (auto const &line : finalResults_) std::cout << line << "\\n";
  std::cout << buffer_.str() << "\\n";
}
""" % "\n".join(body)


def _java(task):
    body = []
    for i, decls, expr in _checks("java", task):
        body.append(_indent(decls, 12))
        body.append("""            start_ = System.nanoTime();
            Object result%d_ = instance_.solution(%s);
            time_ = String.format("%%.7f", (System.nanoTime() - start_) / 1_000_000_000.0);
            results_.add(new AssertResult(result%d_, takeOutput(captured_), time_));""" % (i, expr, i))
    return """package solution;

import java.io.*;
import java.util.*;
import static java.util.Map.entry;

import com.google.gson.Gson;

public class Checker {
    public static void main(String... args_) {
        PrintStream realOut_ = System.out;
        List<AssertResult> results_ = new ArrayList<AssertResult>();
        try {
            Solution instance_ = new Solution();
            ByteArrayOutputStream captured_ = new ByteArrayOutputStream();
            System.setOut(new PrintStream(captured_));
            long start_;
            String time_;
%s
            System.setOut(realOut_);
            for (AssertResult r : results_) System.out.println(r);
        } catch (Exception e) {
            System.setOut(realOut_);
            e.printStackTrace(System.out);
            StringWriter trace_ = new StringWriter();
            e.printStackTrace(new PrintWriter(trace_));
            System.out.println(new ErrorMessage(trace_.toString()));
        }
    }

    private static String takeOutput(ByteArrayOutputStream captured) {
        System.out.flush();
        String text = captured.toString();
        captured.reset();
        return text;
    }
}

class AssertResult {
    private String type = "result";
    private Object value;
    private String output;
    private String time;

    AssertResult(Object value, String output, String time) {
        this.value = value;
        this.output = output;
        this.time = time;
    }

    @Override
    public String toString() { return new Gson().toJson(this); }
}

class ErrorMessage {
    private String type = "error";
    private String value;

    ErrorMessage(String value) { this.value = value; }

    @Override
    public String toString() { return new Gson().toJson(this); }
}
""" % "\n".join(body)


def _kotlin(task):
    body = []
    for i, decls, expr in _checks("kotlin", task):
        body.append(_indent(decls, 4))
        body.append("""    start = System.nanoTime()
    var result%d: Any = solution(%s)
    time = String.format("%%.7f", (System.nanoTime() - start) / 1_000_000_000.0)
    results.add(AssertResult(result%d, takeOutput(captured), time))""" % (i, expr, i))
    return """package solution

import java.io.ByteArrayOutputStream
import java.io.PrintStream
import java.util.ArrayList
import com.google.gson.Gson

fun main(args: Array<String>) {
  val realOut: PrintStream = System.out
  val results: ArrayList<AssertResult> = ArrayList()
  try {
    val captured = ByteArrayOutputStream()
    System.setOut(PrintStream(captured))
    var start: Long
    var time: String
%s
    System.setOut(realOut)
    results.forEach { println(it) }
  } catch (e: Exception) {
    System.setOut(realOut)
    println(ErrorMessage(e.toString()))
  }
}

fun takeOutput(captured: ByteArrayOutputStream): String {
  System.out.flush()
  val text = captured.toString()
  captured.reset()
  return text
}

data class AssertResult(val value: Any?, val output: String, val time: String) {
  private val type = "result"
  override fun toString(): String = Gson().toJson(this)
}

data class ErrorMessage(val value: String) {
  private val type = "error"
  override fun toString(): String = Gson().toJson(this)
}
""" % "\n".join(body)


def _csharp(task):
    """Written the way Codebattle's C# template is (for the .NET SDK, C# 8+):
    nullable reference types, records serialized by System.Text.Json,
    pattern matching, target-typed new(); it does not compile under mono's
    mcs."""
    body = []
    for i, decls, expr in _checks("csharp", task):
        body.append(_indent(decls, 8))
        body.append("""        watch.Restart();
        object? result%d_ = instance.solution(%s);
        results.Add(Collect(result%d_, watch, captured));""" % (i, expr, i))
    return """using System.Diagnostics;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;

namespace app
{
  public record AssertResult(
      [property: JsonPropertyName("type")] string Type,
      [property: JsonPropertyName("value")] object? Value,
      [property: JsonPropertyName("output")] string Output,
      [property: JsonPropertyName("time")] double Time);

  public record ErrorMessage(
      [property: JsonPropertyName("type")] string Type,
      [property: JsonPropertyName("value")] string Value);

  public class Checker
  {
    private static readonly JsonSerializerOptions JsonOptions = new()
    {
      Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping,
      NumberHandling = JsonNumberHandling.AllowNamedFloatingPointLiterals,
    };

    public static void Test(bool success)
    {
      TextWriter realOut = Console.Out;
      var captured = new StringWriter(new StringBuilder());
      List<AssertResult> results = new();
      string? failure = null;
      try
      {
        var instance = new Solution();
        var watch = new Stopwatch();
        Console.SetOut(captured);
%s
      }
      catch (Exception e)
      {
        failure = e switch
        {
          { InnerException: { } inner } => inner.Message,
          _ => e.Message,
        };
        Console.SetOut(realOut);
        Console.WriteLine(JsonSerializer.Serialize(new ErrorMessage("error", failure), JsonOptions));
        Console.WriteLine(e);
        return;
      }
      Console.SetOut(realOut);
      foreach (var result in results)
        Console.WriteLine(JsonSerializer.Serialize(result, JsonOptions));
    }

    private static AssertResult Collect(object? value, Stopwatch watch, StringWriter captured)
    {
      watch.Stop();
      captured.Flush();
      var sb = captured.GetStringBuilder();
      string output = sb.ToString();
      sb.Clear();
      object? shown = value switch
      {
        double d when double.IsNaN(d) || double.IsInfinity(d) => null,
        null => null,
        _ => value,
      };
      return new AssertResult("result", shown, output, watch.Elapsed.TotalMilliseconds);
    }
  }
}
""" % "\n".join(body)


def _csharp_mono(task):
    """The mono-adapted C# checker (C# 7: no nullable annotations, no
    records), for comparing the mono fallback with the .NET SDK (bench)."""
    body = []
    for i, decls, expr in _checks("csharp", task):
        body.append(_indent(decls, 8))
        body.append("""        start = DateTime.Now.Ticks;
        object result%d_ = instance.solution(%s);
        results.Add(new AssertResult { type = "result", value = result%d_,
                                       output = TakeOutput(sb),
                                       time = (DateTime.Now.Ticks - start) / 10000.0 });""" % (i, expr, i))
    return """using System;
using System.IO;
using System.Collections.Generic;
using System.Text;
using System.Text.Json;

namespace app
{
  public class Checker
  {
    public static void Test(bool success)
    {
      TextWriter oldOut = Console.Out;
      StringBuilder sb = new StringBuilder();
      List<AssertResult> results = new List<AssertResult>();
      try {
        Solution instance = new Solution();
        long start = 0;
        Console.SetOut(new StringWriter(sb));
%s
        Console.SetOut(oldOut);
        foreach (AssertResult r in results) Console.WriteLine(r);
      } catch (Exception e) {
        Console.SetOut(oldOut);
        Console.WriteLine(new ErrorMessage { type = "error", value = e.Message });
        Console.WriteLine(e);
      }
    }

    static string TakeOutput(StringBuilder sb)
    {
      string text = sb.ToString();
      sb.Clear();
      return text;
    }

    class AssertResult
    {
      public string type { get; set; }
      public object value { get; set; }
      public string output { get; set; }
      public double time { get; set; }
      public override string ToString() { return JsonSerializer.Serialize(this); }
    }

    class ErrorMessage
    {
      public string type { get; set; }
      public string value { get; set; }
      public override string ToString() { return JsonSerializer.Serialize(this); }
    }
  }
}
""" % "\n".join(body)


def _golang(task):
    body = []
    checks = _checks("golang", task)
    for i, decls, expr in checks:
        body.append(_indent(decls, 2))
        body.append("""  reader_, writer_, err_ = os.Pipe()
  if err_ == nil {
    os.Stdout = writer_
  }
  start_ = time.Now()
  result_ = result{Type: "result"}
  result_.Value = solution(%s)
  result_.Time = fmt.Sprintf("%%.7f", float64(time.Since(start_).Nanoseconds())/float64(time.Second))
  os.Stdout = stdout_
  if writer_ != nil {
    writer_.Close()
    if out_, e := io.ReadAll(reader_); e == nil {
      result_.Output = string(out_)
    }
    reader_.Close()
  }
  results_ = append(results_, result_)""" % expr)
    return """package main

import (
  "encoding/json"
  "fmt"
  "io"
  "os"
  "time"
)

type result struct {
  Type   string `json:"type"`
  Value  any    `json:"value"`
  Time   string `json:"time"`
  Output string `json:"output,omitempty"`
}

func main() {
  var (
    start_   time.Time
    result_  result
    reader_  *os.File
    writer_  *os.File
    err_     error
    stdout_  = os.Stdout
    results_ = make([]result, 0, %d)
  )
%s
  if err_ = json.NewEncoder(stdout_).Encode(results_); err_ != nil {
    fmt.Fprintln(stdout_, "Marshaler error")
  }
}
""" % (len(checks), "\n".join(body))


def _rust(task):
    body = []
    checks = _checks("rust", task)
    for i, decls, expr in checks:
        body.append("""    {
%s
        let (reader_, writer_) = match pipe() {
            Ok((r, w)) => (Some(r), Some(w)),
            Err(_) => (None, None),
        };
        if let Some(w) = writer_ {
            unsafe { libc::dup2(w.as_raw_fd(), io::stdout().as_raw_fd()); }
        }
        let start_ = time::Instant::now();
        let mut result_ = Result {
            typ: String::from("result"),
            value: solution::solution(%s),
            time: start_.elapsed(),
            output: String::new(),
        };
        if let Some(mut r) = reader_ {
            let _ = io::stdout().flush();
            unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
            let _ = r.read_to_string(&mut result_.output);
        }
        results_.push(result_);
    }""" % (_indent(decls, 8), expr))
    return """#![allow(warnings)]

use libc::c_int;
use serde::Serialize;
use serde_with::{serde_as, DurationSecondsWithFrac};
use std::{
    collections::HashMap,
    fs::File,
    io::{self, Read, Write},
    os::fd::{AsRawFd, FromRawFd},
    process::exit,
    time::{self, Duration},
};

mod solution;

#[serde_as]
#[derive(Serialize, Debug)]
struct Result<T> {
    #[serde(rename = "type")]
    typ: String,
    value: T,
    #[serde_as(as = "DurationSecondsWithFrac<String>")]
    time: Duration,
    #[serde(skip_serializing_if = "String::is_empty")]
    output: String,
}

fn pipe() -> std::io::Result<(File, File)> {
    let mut fds: [c_int; 2] = [0; 2];
    if unsafe { libc::pipe(fds.as_mut_ptr()) } != 0 {
        return Err(io::Error::new(io::ErrorKind::Other, "pipe"));
    }
    Ok(unsafe { (File::from_raw_fd(fds[0]), File::from_raw_fd(fds[1])) })
}

fn main() {
    let stdout_ = unsafe { File::from_raw_fd(libc::dup(io::stdout().as_raw_fd())) };
    let mut results_ = Vec::with_capacity(%d);
%s
    unsafe { libc::dup2(stdout_.as_raw_fd(), io::stdout().as_raw_fd()); }
    let mut out_ = io::stdout().lock();
    if serde_json::to_writer(&mut out_, &results_).is_err() {
        eprintln!("Encoding error");
        exit(0);
    }
    let _ = out_.flush();
}
""" % (len(checks), "\n".join(body))


def _swift(task):
    body = []
    for i, decls, expr in _checks("swift", task):
        body.append(_indent(decls, 4))
        body.append("    results.append(runTest { solution(%s) })" % expr)
    return """import Foundation

struct Item: Encodable {
  let type: String
  let value: AnyEncodable
  let time: String
  let output: String?
}

struct AnyEncodable: Encodable {
  let wrapped: Encodable
  func encode(to encoder: Encoder) throws { try wrapped.encode(to: encoder) }
}

func runTest<T: Encodable>(_ body: () -> T) -> Item {
  let pipe = Pipe()
  let saved = dup(STDOUT_FILENO)
  dup2(pipe.fileHandleForWriting.fileDescriptor, STDOUT_FILENO)
  let start = Date()
  let value = body()
  let elapsed = Date().timeIntervalSince(start)
  fflush(stdout)
  dup2(saved, STDOUT_FILENO)
  close(saved)
  pipe.fileHandleForWriting.closeFile()
  let text = String(data: pipe.fileHandleForReading.readDataToEndOfFile(), encoding: .utf8) ?? ""
  return Item(type: "result", value: AnyEncodable(wrapped: value),
              time: String(format: "%%.7f", elapsed), output: text.isEmpty ? nil : text)
}

@main
struct Checker {
  static func main() {
    var results: [Item] = []
%s
    let data = try! JSONEncoder().encode(results)
    print(String(data: data, encoding: .utf8)!)
  }
}
""" % "\n".join(body)


def _zig(task):
    body = []
    for i, decls, expr in _checks("zig", task):
        body.append(_indent(decls, 4))
        body.append("    try runTest(&results, solution.solution(%s));" % expr)
    return """const std = @import("std");
const solution = @import("solution.zig");

fn runTest(list: *std.ArrayList(u8), value: anytype) !void {
    if (list.items.len > 1) try list.append(',');
    try std.json.stringify(.{ .type = "result", .value = value, .time = @as(f64, 0), .output = "" }, .{}, list.writer());
}

pub fn main() !void {
    var results = std.ArrayList(u8).init(std.heap.page_allocator);
    try results.append('[');
%s
    try results.append(']');
    try std.io.getStdOut().writeAll(results.items);
}
""" % "\n".join(body)


def _dart(task):
    lines = []
    for a in task["asserts"]:
        lits = ", ".join(_dart_literal(v, t) for (_, t), v in zip(task["signature"], a["arguments"]))
        lines.append("  runTest(() => solution(%s));" % lits)
    return """import 'dart:async';
import 'dart:convert';
import 'package:check/solution.dart';

void runTest(dynamic Function() body) {
  final out = StringBuffer();
  final watch = Stopwatch()..start();
  try {
    final value = runZoned(body, zoneSpecification: ZoneSpecification(
        print: (self, parent, zone, line) => out.writeln(line)));
    print(jsonEncode({"type": "result", "value": value, "output": out.toString(),
                      "time": watch.elapsedMilliseconds}));
  } catch (e) {
    print(out);
    print(e);
    print(jsonEncode({"type": "error", "value": e.toString()}));
  }
}

void main() {
%s
}
""" % "\n".join(lines)


def _dart_literal(v, t):
    n = t["name"]
    if n in ("integer", "float"):
        return elixir_number(v)
    if n == "string":
        return '"%s"' % escape(v, dollar=True)
    if n == "boolean":
        return "true" if v else "false"
    if n == "array":
        return "[%s]" % ", ".join(_dart_literal(x, t["nested"]) for x in v)
    return "{%s}" % ", ".join('"%s": %s' % (escape(k, dollar=True), _dart_literal(x, t["nested"]))
                              for k, x in _sorted_items(v))


def _dlang(task):
    body = []
    for i, decls, expr in _checks("dlang", task):
        body.append("        {\n%s\n            results ~= runTest(() => solution.solution(%s));\n        }"
                    % (_indent(decls, 12), expr))
    return """static import solution;
import cb_runtime;

void main() {
    string[] results;
    try {
%s
    } catch (Throwable e) {
        results ~= errorLine(e.msg);
    }
    finish(results);
}
""" % "\n".join(body)


def _haskell(task):
    body = []
    for i, decls, expr in _checks("haskell", task):
        body.extend("  " + d for d in decls)
        body.append("  runTest (solution %s)" % expr.replace(",", ""))
    return """module Main (main) where

import qualified Data.Map as Map
import CbRuntime
import Solution

main :: IO ()
main = runChecks $ do
%s
""" % "\n".join(body)


TEMPLATES = {"cpp": _cpp, "java": _java, "kotlin": _kotlin, "csharp": _csharp,
             "csharp_mono": _csharp_mono,
             "golang": _golang, "rust": _rust, "swift": _swift, "zig": _zig,
             "dart": _dart, "dlang": _dlang, "haskell": _haskell}


def checker_text(slug, task):
    fn = TEMPLATES.get(slug)
    return fn(task) if fn else None


def solution_wrap(slug, code):
    """The client's solution_wrapper (languages.ex)."""
    if slug == "java":
        return "package solution;\n\n" + code
    if slug == "kotlin":
        return "package solution\n" + code
    if slug == "golang":
        return "package main\n" + code
    if slug == "js":
        return code + "\nmodule.exports = solution;"
    if slug == "ts":
        return code + "\nexport default solution;"
    return code


def asserts_text(task):
    """What RemoteZig sends as `asserts`: a JSON string of arguments only."""
    return json.dumps({"arguments": [a["arguments"] for a in task["asserts"]]})
