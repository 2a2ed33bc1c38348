"""c_bash.py - c and bash come from the one language registry
(langs/<slug>/manifest.json) and run through every entry point: GET
/v1/languages lists them with a version, /v1/execute compiles and runs
them, /run runs them (no checker: the program's own output and exit
code), and the sessions API runs them with nothing left in the session
(issue 16, defect 2: /v1/execute had no c and no bash)."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "sessions"))

import rchttp  # noqa: E402
import sesslib  # noqa: E402
import tap  # noqa: E402

t = tap.Tap()
if os.geteuid() != 0:
    t.skip("needs root (the sandbox)", name="c_bash")
    t.exit()
try:
    svc = rchttp.Service(env={"RUN_CONCURRENCY": 2}, languages="c,bash,python").start()
except rchttp.StartError as e:
    t.bail("service did not start: %s" % e)

C = "#include <stdio.h>\nint main(void){ int n; if (scanf(\"%d\", &n) != 1) n = 0;" \
    " printf(\"c says %d\\n\", n * 2); return 3; }\n"
SH = "read n; echo \"bash says $((n * 2))\"; echo err >&2; exit 4\n"

r = svc.get("/v1/languages")
langs = {l["language"]: l for l in (r.json or {}).get("languages", [])}
for slug in ("c", "bash"):
    l = langs.get(slug, {})
    t.ok(r.status == 200 and l.get("available") is True and l.get("version"),
         "GET /v1/languages lists %s with its version" % slug, repr(l or r))
t.ok("sh" in langs.get("bash", {}).get("aliases", []), "bash answers to the alias sh", repr(langs))

r = svc.post_json("/v1/execute", {"language": "c", "stdin": "21",
                                  "files": [{"name": "main.c", "content": C}]})
j = r.json or {}
t.eq((r.status, j.get("stage"), j.get("exitCode"), j.get("stdout"), (j.get("compile") or {}).get("exitCode")),
     (200, "run", 3, "c says 42\n", 0), "/v1/execute: c compiles and runs", repr(r))
r = svc.post_json("/v1/execute", {"language": "c",
                                  "files": [{"name": "main.c", "content": "int main(void){ return nope; }"}]})
j = r.json or {}
t.ok(r.status == 200 and j.get("stage") == "compile" and "nope" in (j.get("compile") or {}).get("stderr", ""),
     "/v1/execute: a c compile error stops at the compile stage with diagnostics", repr(r))
r = svc.post_json("/v1/execute", {"language": "bash", "stdin": "5\n",
                                  "files": [{"name": "main.sh", "content": SH}]})
j = r.json or {}
t.eq((r.status, j.get("exitCode"), j.get("stdout"), j.get("stderr")), (200, 4, "bash says 10\n", "err\n"),
     "/v1/execute: bash runs", repr(r))
r = svc.post_json("/v1/execute", {"language": "sh", "files": [{"name": "x.sh", "content": "echo $0 ok"}]})
t.ok(r.status == 200 and (r.json or {}).get("stdout", "").endswith("ok\n"),
     "/v1/execute: the alias sh runs bash", repr(r))

r = svc.post_json("/run", rchttp.run_body("#include <stdio.h>\nint main(void){ puts(\"run c\"); return 2; }\n",
                                          lang="c", timeout="30s"))
j = r.json or {}
t.eq((r.status, j.get("exit_code"), j.get("stdout")), (200, 2, "run c\n"),
     "/run: c runs the solution (no checker)", repr(r))
r = svc.post_json("/run", rchttp.run_body("echo run bash; exit 5\n", lang="bash", timeout="10s"))
j = r.json or {}
t.eq((r.status, j.get("exit_code"), j.get("stdout")), (200, 5, "run bash\n"),
     "/run: bash runs the solution (no checker)", repr(r))

c = sesslib.Client(svc)
for lang, code, want in (("c", C.replace("return 3", "return 0"), "c says 0"),
                         ("bash", "echo \"bash says $(pwd)\"", "bash says /sandbox")):
    sid = c.create()
    st, info, files, resp = c.run(sid, lang, code)
    t.ok(st == 200 and info["return_code"] == 0 and want in info["output"],
         "sessions: %s runs" % lang, repr(info or resp))
    t.eq(c.listing(sid, ""), {}, "sessions: %s leaves nothing in the session" % lang)
    c.delete(sid)
svc.stop()
t.exit()
