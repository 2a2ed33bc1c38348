"""cbparse_self.py - the parser the language tests trust, checked against
the cases Codebattle's own parser tests describe (codebattle-client.md,
section 2): framings, WARNING noise, the single error item, OOM/SIGTERM
exit codes, undecodable output, Elixir `==`.  Also checks that cbcheckers
renders literals the way the client does."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import cbcheckers as cb  # noqa: E402
import cbparse  # noqa: E402
import tap  # noqa: E402

t = tap.Tap()
A = [{"arguments": [1, 1], "expected": 2}, {"arguments": [2, 1], "expected": 3}]

p = cbparse.parse(0, '[{"type":"result","value":2},{"type":"result","value":3}]', "", A)
t.eq((p["status"], p["success_count"]), ("ok", 2), "JSON array framing")

p = cbparse.parse(0, '{"type":"result","value":2}\n{"type":"result","value":4}\n\n', "", A)
t.eq((p["status"], p["success_count"]), ("failure", 1), "one object per line, one wrong")

p = cbparse.parse(0, 'WARNING: something\n[{"type":"result","value":2.0},{"type":"result","value":3}]', "", A)
t.eq(p["status"], "ok", "WARNING lines removed; 2.0 == 2")

p = cbparse.parse(0, 'noise\n[{"type":"result","value":2},{"type":"result","value":3}]\nmore noise', "", A)
t.eq(p["status"], "ok", "noise around one JSON array line")

p = cbparse.parse(0, '[{"type":"error","value":"bad"}]', "trace", A)
t.eq((p["status"], p["output_error"]), ("error", "STDERR:\nbadtrace"), "single error item")

p = cbparse.parse(0, '[{"type":"result","value":2},{"type":"error","value":"x"}]', "", A)
t.eq((p["status"], p["success_count"]), ("failure", 1), "error item after a result")

p = cbparse.parse(0, '[{"type":"result","value":2}]', "", A)
t.eq((p["status"], p["asserts_count"]), ("failure", 2), "missing items count as failures")

p = cbparse.parse(0, "just text", "", A)
t.eq((p["status"], p["success_count"]), ("failure", 0), "undecodable output is a failure")

p = cbparse.parse(0, '[{"type":"output","output":"hi"},{"type":"result","value":2},{"type":"result","value":3}]', "", A)
t.eq((p["status"], p["output_error"]), ("ok", "hi"), "output item is skipped by the zip")

p = cbparse.parse(2, "Killed", "", A)
t.eq(p["output_error"], cbparse.OOM_TEXT, "exit 2 + Killed is out of memory")
p = cbparse.parse(143, "", "SIGTERM", A)
t.eq(p["output_error"], cbparse.SIGTERM_TEXT, "exit 143 + SIGTERM is too slow")
p = cbparse.parse(None, '[{"type":"result","value":2},{"type":"result","value":3}]', "", A)
t.eq(p["status"], "error", "exit_code null (timeout) is an error whatever stdout says")
p = cbparse.parse(37, "", "oops", A)
t.eq((p["status"], p["output_error"]), ("error", "STDERR: oops\n\nSTDOUT: \n"), "other exit codes")

p = cbparse.parse(0, "42\n", "", A)
t.eq(p["status"], "client_crash", "a bare scalar would crash the client's item lookup")

t.ok(cbparse.elixir_eq({"a": [1, 2.0]}, {"a": [1.0, 2]}), "== ignores int/float difference")
t.ok(not cbparse.elixir_eq(True, 1), "true is not 1")
t.ok(not cbparse.elixir_eq([1, 2], [2, 1]), "list order matters")

t.eq(cb.elixir_number(1.3), "1.3", "float literal 1.3")
t.eq(cb.elixir_number(1e-05), "1.0e-5", "float literal 1.0e-5")
t.eq(cb.elixir_number(100.0), "100.0", "float literal 100.0")
task = {"signature": [("a", cb.INT), ("b", cb.STR)], "asserts": [{"arguments": [1, 'q"\n'], "expected": 0}]}
t.ok('int a1 = 1;' in cb.checker_text("cpp", task) and 'string b1 = "q\\"\\n";' in cb.checker_text("cpp", task),
     "cpp declarations are <name><i> with escaped literals")
t.ok('let b1: String = String::from("q\\"\\n");' in cb.checker_text("rust", task), "rust wraps strings")
t.ok("var a1 int = 1" in cb.checker_text("golang", task), "go declaration")
t.eq(cb.asserts_text(task), '{"arguments": [[1, "q\\"\\n"]]}', "asserts is a JSON string of arguments")
t.exit()
