"""langs.py - the language gate: the five core resource cases (OOM, CPU spin,
fork bomb, sleep forever, output flood) written in every language that
runs here, through POST /v1/execute, with the same after-job checks as
abuse.py (service alive, slot uid has no process, slot cgroups empty, host
mounts and canaries unchanged).

A language the service reports unavailable fails, except the three that
Debian 12 cannot install (dart, swift, zig): those are skipped loudly with
the manifest's reason, as the languages issue documents.

RC_ABUSE_LANGS=python,go limits the run (development).
"""

import os
import sys
import time

import rchttp
import tap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import abuse  # noqa: E402
import cases as casesmod  # noqa: E402

NOT_INSTALLABLE = {"dart", "swift", "zig"}
# Languages whose runtime reserves a lot at start (JVM, mono, BEAM): a
# larger memory limit so the OOM case fails in the program, not at boot.
BIG_RUNTIMES = {"java", "kotlin", "clojure", "csharp", "elixir", "golang", "haskell", "ts"}

OOM = "oom"
CPU = "cpu"
FORK = "fork"
SLEEP = "sleep"
FLOOD = "flood"

# What each core case must lead to (cases.py terms).  A runtime may catch
# memory exhaustion itself (JVM OutOfMemoryError, NoMemoryError, PHP's
# memory_limit): that is as safe as the cgroup's OOM kill.
EXPECT = {
    OOM: ["oomKilled||exit!=0&&out~(?i)memory|heap|alloc"],
    CPU: ["limit=cpu", "timedOut"],
    FORK: ["limit=cpu|wall||exit!=0"],
    SLEEP: ["limit=wall", "timedOut", "!idleTimedOut"],
    FLOOD: ["truncated", "outlen<=65536"],
}


def limits_for(case, slug):
    big = slug in BIG_RUNTIMES
    if case == OOM:
        return {"memoryMb": 256 if big else 128, "wallTimeMs": 30000, "idleMs": 30000, "cpuMs": 30000}
    if case == CPU:
        return {"cpuMs": 1500, "wallTimeMs": 40000, "idleMs": 40000}
    # a JVM or BEAM may need seconds to start on a loaded machine
    slow = 12000 if big else 4000
    if case == FORK:
        return {"pids": 64, "wallTimeMs": slow, "cpuMs": slow, "idleMs": slow}
    if case == SLEEP:
        return {"wallTimeMs": 2500, "idleMs": 30000, "cpuMs": 30000}
    return {"outputKb": 64, "wallTimeMs": slow, "idleMs": slow, "cpuMs": slow}


SNIPPETS = {
    "python": {
        OOM: "a = []\nwhile True:\n    a.append(bytearray(b'x' * (1 << 20)))\n",
        CPU: "n = 0\nwhile True:\n    n += 1\n",
        FORK: "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        SLEEP: "import time\ntime.sleep(10 ** 7)\n",
        FLOOD: "s = 'x' * 1000\nwhile True:\n    print(s)\n",
    },
    "ruby": {
        OOM: "a = []\nloop { a << ('x' * (1 << 20)) }\n",
        CPU: "n = 0\nwhile true\n  n += 1\nend\n",
        FORK: "loop do\n  begin\n    fork { sleep 600 }\n  rescue StandardError\n  end\nend\n",
        SLEEP: "sleep\n",
        FLOOD: "s = 'x' * 1000\nloop { puts s }\n",
    },
    "php": {
        OOM: "<?php\n$a = [];\nwhile (true) { $a[] = str_repeat('x', 1 << 20); }\n",
        CPU: "<?php\n$n = 0;\nwhile (true) { $n++; }\n",
        FORK: "<?php\n$keep = [];\nwhile (true) { $keep[] = @proc_open(['sleep', '600'], [], $p); }\n",
        SLEEP: "<?php\nsleep(10000000);\n",
        FLOOD: "<?php\n$s = str_repeat('x', 1000) . \"\\n\";\nwhile (true) { echo $s; }\n",
    },
    "js": {
        OOM: "const a = [];\nfor (;;) a.push(Buffer.alloc(1 << 20, 1));\n",
        CPU: "let n = 0;\nfor (;;) n++;\n",
        FORK: "const cp = require('child_process');\nfor (;;) { try { cp.spawn('sleep', ['600']); } catch (e) {} }\n",
        SLEEP: "setInterval(() => {}, 1 << 30);\n",
        # fs.writeSync: process.stdout.write would only queue inside node
        FLOOD: "const fs = require('fs');\nconst s = 'x'.repeat(1000) + '\\n';\n"
               "for (;;) { try { fs.writeSync(1, s); } catch (e) {} }\n",
    },
    "ts": {
        OOM: "declare const Buffer: any;\nconst a: any[] = [];\nfor (;;) a.push(Buffer.alloc(1 << 20, 1));\n",
        CPU: "let n: number = 0;\nfor (;;) n++;\n",
        FORK: "declare const require: any;\nconst cp = require('child_process');\n"
              "for (;;) { try { cp.spawn('sleep', ['600']); } catch (e) {} }\n",
        SLEEP: "setInterval((): void => {}, 1 << 30);\n",
        FLOOD: "declare const require: any;\nconst fs = require('fs');\nconst s: string = 'x'.repeat(1000) + '\\n';\n"
               "for (;;) { try { fs.writeSync(1, s); } catch (e) {} }\n",
    },
    "elixir": {
        OOM: "defmodule M do\n  def go(acc), do: go([:binary.copy(<<1>>, 1_048_576) | acc])\nend\nM.go([])\n",
        CPU: "defmodule M do\n  def spin(n), do: spin(n + 1)\nend\nM.spin(0)\n",
        FORK: "defmodule M do\n  def go do\n    try do\n      Port.open({:spawn_executable, \"/bin/sleep\"}, args: [\"600\"])\n"
              "    rescue\n      _ -> :ok\n    catch\n      _, _ -> :ok\n    end\n    go()\n  end\nend\nM.go()\n",
        SLEEP: "Process.sleep(:infinity)\n",
        FLOOD: "s = String.duplicate(\"x\", 1000)\nStream.repeatedly(fn -> IO.puts(s) end) |> Stream.run()\n",
    },
    "clojure": {
        OOM: "(def l (java.util.ArrayList.))\n(loop []\n  (let [b (byte-array (* 1024 1024))]\n"
             "    (java.util.Arrays/fill b (byte 1))\n    (.add l b))\n  (recur))\n",
        CPU: "(loop [n 0] (recur (inc n)))\n",
        FORK: "(loop []\n  (try (.start (ProcessBuilder. (into-array String [\"sleep\" \"600\"])))\n"
              "       (catch Throwable e nil))\n  (recur))\n",
        SLEEP: "(Thread/sleep Long/MAX_VALUE)\n",
        FLOOD: "(let [s (apply str (repeat 1000 \"x\"))]\n  (loop [] (println s) (recur)))\n",
    },
    "java": {
        OOM: "public class Main { public static void main(String[] a) {\n"
             "  java.util.List<byte[]> l = new java.util.ArrayList<>();\n"
             "  while (true) { byte[] b = new byte[1 << 20]; java.util.Arrays.fill(b, (byte) 1); l.add(b); }\n} }\n",
        CPU: "public class Main { public static void main(String[] a) {\n"
             "  long n = 0; while (true) { n++; if (n == -1) System.out.println(n); }\n} }\n",
        FORK: "public class Main { public static void main(String[] a) {\n"
              "  while (true) { try { new ProcessBuilder(\"sleep\", \"600\").start(); } catch (Throwable e) { } }\n} }\n",
        SLEEP: "public class Main { public static void main(String[] a) throws Exception {\n"
               "  Thread.sleep(Long.MAX_VALUE);\n} }\n",
        FLOOD: "public class Main { public static void main(String[] a) {\n"
               "  String s = \"x\".repeat(1000); while (true) System.out.println(s);\n} }\n",
    },
    "kotlin": {
        OOM: "fun main() {\n  val l = ArrayList<ByteArray>()\n"
             "  while (true) { val b = ByteArray(1 shl 20); b.fill(1); l.add(b) }\n}\n",
        CPU: "fun main() {\n  var n = 0L\n  while (true) { n++; if (n == -1L) println(n) }\n}\n",
        FORK: "fun main() {\n  while (true) { try { ProcessBuilder(\"sleep\", \"600\").start() } catch (e: Throwable) { } }\n}\n",
        SLEEP: "fun main() {\n  Thread.sleep(Long.MAX_VALUE)\n}\n",
        FLOOD: "fun main() {\n  val s = \"x\".repeat(1000)\n  while (true) println(s)\n}\n",
    },
    "csharp": {
        OOM: "using System; using System.Collections.Generic;\nclass P { static void Main() {\n"
             "  var l = new List<byte[]>();\n"
             "  while (true) { var b = new byte[1 << 20]; for (int i = 0; i < b.Length; i += 4096) b[i] = 1; l.Add(b); }\n} }\n",
        CPU: "class P { static void Main() {\n  long n = 0; while (true) { n++; if (n == -1) System.Console.WriteLine(n); }\n} }\n",
        FORK: "class P { static void Main() {\n  while (true) { try { System.Diagnostics.Process.Start(\"sleep\", \"600\"); }"
              " catch (System.Exception) { } }\n} }\n",
        SLEEP: "class P { static void Main() {\n  System.Threading.Thread.Sleep(System.Threading.Timeout.Infinite);\n} }\n",
        FLOOD: "class P { static void Main() {\n  var s = new string('x', 1000); while (true) System.Console.WriteLine(s);\n} }\n",
    },
    "golang": {
        OOM: "package main\n\nfunc main() {\n\tvar l [][]byte\n\tfor {\n\t\tb := make([]byte, 1<<20)\n"
             "\t\tfor i := range b {\n\t\t\tb[i] = 1\n\t\t}\n\t\tl = append(l, b)\n\t}\n}\n",
        CPU: "package main\n\nfunc main() {\n\tn := 0\n\tfor {\n\t\tn++\n\t\tif n < 0 {\n\t\t\tprintln(n)\n\t\t}\n\t}\n}\n",
        FORK: "package main\n\nimport \"os/exec\"\n\nfunc main() {\n\tfor {\n\t\t_ = exec.Command(\"sleep\", \"600\").Start()\n\t}\n}\n",
        SLEEP: "package main\n\nimport \"time\"\n\nfunc main() {\n\ttime.Sleep(1 << 62)\n}\n",
        FLOOD: "package main\n\nimport (\n\t\"os\"\n\t\"strings\"\n)\n\nfunc main() {\n"
               "\ts := []byte(strings.Repeat(\"x\", 1000) + \"\\n\")\n\tfor {\n\t\tif _, err := os.Stdout.Write(s); err != nil {\n"
               "\t\t\treturn\n\t\t}\n\t}\n}\n",
    },
    "rust": {
        OOM: "fn main() {\n    let mut l: Vec<Vec<u8>> = Vec::new();\n    loop {\n        l.push(vec![1u8; 1 << 20]);\n    }\n}\n",
        CPU: "fn main() {\n    let mut n: u64 = 0;\n    loop {\n        unsafe { std::ptr::write_volatile(&mut n, n + 1) };\n    }\n}\n",
        FORK: "fn main() {\n    loop {\n        let _ = std::process::Command::new(\"sleep\").arg(\"600\").spawn();\n    }\n}\n",
        SLEEP: "fn main() {\n    loop {\n        std::thread::sleep(std::time::Duration::from_secs(3600));\n    }\n}\n",
        FLOOD: "use std::io::Write;\nfn main() {\n    let s = \"x\".repeat(1000) + \"\\n\";\n    let o = std::io::stdout();\n"
               "    let mut l = o.lock();\n    while l.write_all(s.as_bytes()).is_ok() {}\n}\n",
    },
    "haskell": {
        OOM: "import Control.Monad\nimport Data.IORef\nimport qualified Data.ByteString as B\n\nmain :: IO ()\n"
             "main = do\n  ref <- newIORef []\n  forM_ [1 :: Int ..] $ \\i -> do\n"
             "    let b = B.replicate (1024 * 1024) (fromIntegral i)\n"
             "    B.length b `seq` modifyIORef' ref (b :)\n",
        CPU: "main :: IO ()\nmain = print (length [(1 :: Integer) ..])\n",
        FORK: "import Control.Exception\nimport Control.Monad\nimport System.Process\n\nmain :: IO ()\n"
              "main = forever $ do\n  r <- try (spawnProcess \"sleep\" [\"600\"]) :: IO (Either SomeException ProcessHandle)\n"
              "  return ()\n",
        SLEEP: "import Control.Concurrent\nimport Control.Monad\n\nmain :: IO ()\nmain = forever (threadDelay 1000000000)\n",
        FLOOD: "main :: IO ()\nmain = mapM_ putStrLn (repeat (replicate 1000 'x'))\n",
    },
    "dlang": {
        OOM: "import core.stdc.stdlib : malloc, exit;\nimport core.stdc.string : memset;\nimport std.stdio : stderr;\n"
             "__gshared char*[1 << 20] keep; // stored pointers: the optimizer cannot drop the allocations\n"
             "void main() {\n    for (size_t i = 0;; i++) {\n        auto p = cast(char*) malloc(1 << 20);\n"
             "        if (p is null) { stderr.writeln(\"malloc: out of memory\"); exit(3); }\n"
             "        memset(p, 1, 1 << 20);\n        keep[i % keep.length] = p;\n    }\n}\n",
        CPU: "import core.volatile : volatileStore;\nvoid main() {\n    ulong n;\n"
             "    for (;;) volatileStore(&n, n + 1);\n}\n",
        FORK: "import std.process : spawnProcess;\nvoid main() {\n    for (;;) {\n"
              "        try { spawnProcess([\"sleep\", \"600\"]); } catch (Exception e) {}\n    }\n}\n",
        SLEEP: "import core.thread : Thread;\nimport core.time : dur;\nvoid main() {\n"
               "    for (;;) Thread.sleep(dur!\"hours\"(1));\n}\n",
        FLOOD: "import std.stdio : writeln;\nimport std.array : replicate;\nvoid main() {\n"
               "    auto s = replicate(\"x\", 1000);\n    for (;;) writeln(s);\n}\n",
    },
    "c": {
        OOM: "#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\nint main(void) {\n"
             "  for (;;) {\n    char *p = malloc(1 << 20);\n"
             "    if (!p) { fputs(\"malloc: out of memory\\n\", stderr); return 3; }\n"
             "    memset(p, 1, 1 << 20);\n  }\n}\n",
        CPU: "int main(void) {\n  volatile unsigned long n = 0;\n  for (;;) n = n + 1;\n}\n",
        FORK: "#include <unistd.h>\nint main(void) {\n  for (;;) fork();\n}\n",
        SLEEP: "#include <unistd.h>\nint main(void) {\n  for (;;) pause();\n}\n",
        FLOOD: "#include <string.h>\n#include <unistd.h>\nint main(void) {\n  char s[1001];\n"
               "  memset(s, 'x', 1000); s[1000] = '\\n';\n"
               "  for (;;) if (write(1, s, sizeof s) < 0) return 1;\n}\n",
    },
    "bash": {
        OOM: "a=x\nwhile :; do a=\"$a$a\"; done\n",
        CPU: "while :; do :; done\n",
        FORK: "while :; do sleep 600 & done\n",
        SLEEP: "sleep 10000000\n",
        FLOOD: "s=$(printf '%1000s' '')\nwhile :; do echo \"$s\"; done\n",
    },
    "cpp": {
        OOM: "#include <cstdlib>\n#include <cstring>\n#include <cstdio>\nchar *keep[1 << 20];\nint main() {\n"
             "  for (unsigned i = 0;; i++) {\n    char *p = (char *) std::malloc(1 << 20);\n"
             "    if (!p) { std::fputs(\"malloc: out of memory\\n\", stderr); return 3; }\n"
             "    std::memset(p, 1, 1 << 20);\n    keep[i % (1 << 20)] = p;\n  }\n}\n",
        CPU: "int main() {\n  volatile unsigned long n = 0;\n  for (;;) n = n + 1;\n}\n",
        FORK: "#include <unistd.h>\nint main() {\n  for (;;) fork();\n}\n",
        SLEEP: "#include <unistd.h>\nint main() {\n  for (;;) pause();\n}\n",
        FLOOD: "#include <string>\n#include <unistd.h>\nint main() {\n  std::string s(1000, 'x');\n  s += '\\n';\n"
               "  for (;;) if (write(1, s.data(), s.size()) < 0) return 1;\n}\n",
    },
}


def main():
    t = tap.Tap()
    if os.geteuid() != 0:
        t.skip("the language gate needs root (the sandbox is on only as root)", name="language gate")
        t.exit()
    only = [x for x in os.environ.get("RC_ABUSE_LANGS", "").split(",") if x]
    suite = abuse.Suite(t)
    suite.canaries.create()
    svc = rchttp.Service(env={"RUN_CONCURRENCY": "1", "RUN_SANDBOX": "on",
                              "RC_ABUSE_SECRET": suite.env_secret},
                         languages=",".join(only) if only else "", name="abuse-langs")
    try:
        svc.start()
    except rchttp.StartError as e:
        suite.canaries.remove()
        t.bail("service did not start: %s" % e)
    suite.svc = svc
    try:
        r = svc.get("/v1/languages", timeout=60)
        listed = {}
        if r.status == 200 and isinstance(r.json, dict):
            listed = {lang.get("language"): lang for lang in r.json.get("languages", [])}
        t.ok(listed, "GET /v1/languages lists languages", repr(r))
        suite.mounts0 = abuse.slotcheck.mount_table()
        suite.canary0 = suite.canaries.snapshot()
        gated = []
        for slug in sorted(set(SNIPPETS) | NOT_INSTALLABLE):
            if only and slug not in only:
                continue
            lang = listed.get(slug)
            man = abuse.manifest(slug) or {}
            if lang is None or not lang.get("available", False):
                reason = (lang or {}).get("reason") or man.get("unavailableReason") or "not offered"
                if slug in NOT_INSTALLABLE:
                    # documented platform gap (issue 9): a loud skip, never a pass
                    t.diag("LANGUAGE NOT GATED: %s: %s" % (slug, reason))
                    t.n += 1
                    t.skipped += 1
                    t._emit("ok %d - %s: core abuse cases # SKIP %s" % (t.n, slug, reason))
                else:
                    t.ok(False, "%s: available for the gate" % slug, "reason: %s" % reason)
                continue
            if slug not in SNIPPETS:
                t.ok(False, "%s: has core abuse snippets" % slug)
                continue
            main_name = (man.get("execute") or {}).get("main")
            if not t.ok(main_name, "%s: manifest names its entry file" % slug):
                continue
            all_ok = True
            for case in (OOM, CPU, FORK, SLEEP, FLOOD):
                all_ok &= run_one(t, suite, svc, slug, main_name, case)
            if all_ok:
                gated.append(slug)
        t.diag("languages gated: %d (%s)" % (len(gated), ", ".join(gated)))
    finally:
        svc.stop()
        suite.canaries.remove()
    t.exit()


def run_one(t, suite, svc, slug, main_name, case):
    body = {"language": slug, "files": [{"name": main_name, "content": SNIPPETS[slug][case]}],
            "limits": limits_for(case, slug)}
    t0 = time.monotonic()
    try:
        r = svc.post_json("/v1/execute", body, timeout=150)
    except OSError as e:
        return t.ok(False, "%s %s: request" % (slug, case), str(e))
    res = r.json if r.status == 200 else None
    label = "%s %s" % (slug, case)
    if res is None:
        t.ok(False, label, "HTTP %d %r" % (r.status, r.body[:400]))
        ok = False
    else:
        bad = casesmod.failed_terms(EXPECT[case], res)
        if res.get("stage") == "compile":
            bad.append("did not compile")
        leaks = suite.secrets_in(r.body)
        ok = t.ok(not bad and not leaks, label, lambda: "failed: %s leaks: %s (%.1f s)\n%s" % (
            bad, leaks, time.monotonic() - t0, casesmod.summary(res)))
    problems = suite.post_checks(svc, [0], label)
    ok &= t.ok(not problems, "%s: service alive, slot clean, host unchanged" % label, "\n".join(problems))
    return ok


if __name__ == "__main__":
    main()
