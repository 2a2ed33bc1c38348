"""openapi.py - docs/openapi.yaml describes the API the code serves.

- every route of the router (t/unit/routes_dump prints the router's table,
  sessions included) is a path + method of the description;
- every path + method of the description is served (no stale entries);
- every example in it validates against its schema (JSON Schema 2020-12,
  OpenAPI 3.1's dialect), $refs into components resolved;
- a deliberately wrong example is refused (the check can fail);
- a path marked `x-served-by: nginx` (/openapi.yaml) is not the router's
  but has its location in both nginx configurations;
- the examples of /run's `asserts` are the format the checkers read:
  JSON text of {"arguments": [[...], ...]}.
Needs python3-yaml and python3-jsonschema (./quickstart deps).
"""
import copy
import os
import subprocess
import sys

import tap

t = tap.Tap()
try:
    import jsonschema
    import yaml
except ImportError as e:
    t.ok(False, "python3-yaml and python3-jsonschema are installed", str(e))
    t.exit()

SRC = os.environ.get("RC_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("RC_TOP_BUILDDIR", ".")
with open(os.path.join(SRC, "docs", "openapi.yaml"), encoding="utf-8") as f:
    doc = yaml.safe_load(f)

t.eq(doc.get("openapi", "")[:4], "3.1.", "docs/openapi.yaml is OpenAPI 3.1")

out = subprocess.run([os.path.join(BUILD, "t", "unit", "routes_dump")], check=True,
                     capture_output=True, text=True).stdout
served = sorted(tuple(line.split(" ", 1)) for line in out.splitlines() if line)
t.ok(len(served) >= 10, "the router lists its routes (%d)" % len(served), out)
METHODS = ("get", "put", "post", "delete", "head", "patch", "options")
NGINX_PATHS = sorted(p for p, item in doc["paths"].items() if item.get("x-served-by") == "nginx")
described = sorted((m.upper(), p) for p, item in doc["paths"].items() for m in item
                   if m in METHODS and p not in NGINX_PATHS)
missing = [r for r in served if r not in described]
t.ok(not missing, "every route the router serves is in docs/openapi.yaml", repr(missing))
stale = [r for r in described if r not in served]
t.ok(not stale, "every route of docs/openapi.yaml is served", repr(stale))
for conf in ("runcell.conf.in", "runcell-location.conf"):
    with open(os.path.join(SRC, "nginx", conf), encoding="utf-8") as f:
        text = f.read()
    absent = [p for p in NGINX_PATHS if "location = %s {" % p not in text]
    t.ok(NGINX_PATHS and not absent, "nginx/%s serves %s" % (conf, ", ".join(NGINX_PATHS)),
         repr(absent))

import json  # noqa: E402

asserts = doc["components"]["schemas"]["RunRequest"]["properties"]["asserts"]


def asserts_ok(text):
    try:
        value = json.loads(text)
    except ValueError:
        return False
    return (isinstance(value, dict) and isinstance(value.get("arguments"), list)
            and all(isinstance(a, list) for a in value["arguments"]))


run_examples = [e["value"]["asserts"] for e in
                doc["paths"]["/run"]["post"]["requestBody"]["content"]["application/json"]
                ["examples"].values()] + asserts.get("examples", [])
t.ok(len(run_examples) >= 3 and all(asserts_ok(a) for a in run_examples),
     "every asserts example is JSON text of {\"arguments\": [[...], ...]} (%d)" % len(run_examples),
     repr(run_examples))
t.ok(not asserts_ok('{"a": 1, "b": 2}'), "a guessed asserts format is refused by that check")
t.ok("4040" in doc["servers"][0]["url"], "servers: the default port 4040")


def to_defs(node):
    """The schema with #/components/schemas/X refs pointing at $defs."""
    if isinstance(node, dict):
        return {k: (v.replace("#/components/schemas/", "#/$defs/") if k == "$ref"
                    and isinstance(v, str) else to_defs(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [to_defs(v) for v in node]
    return node


DEFS = to_defs(doc["components"]["schemas"])


def resolve(node):
    """Follows a $ref to another part of the document (responses, ...)."""
    while isinstance(node, dict) and "$ref" in node and not node["$ref"].startswith(
            "#/components/schemas/"):
        target = doc
        for part in node["$ref"][2:].split("/"):
            target = target[part]
        node = target
    return node


def validator(schema):
    full = dict(to_defs(schema))
    full["$defs"] = DEFS
    return jsonschema.Draft202012Validator(full)


def media_types():
    """(where, media type object) for every request and response body."""
    for p, item in doc["paths"].items():
        for m, op in item.items():
            if m not in METHODS:
                continue
            body = resolve(op.get("requestBody"))
            for ctype, media in ((body or {}).get("content") or {}).items():
                yield "%s %s request %s" % (m.upper(), p, ctype), media
            for status, resp in op.get("responses", {}).items():
                for ctype, media in (resolve(resp).get("content") or {}).items():
                    yield "%s %s %s %s" % (m.upper(), p, status, ctype), media


n_examples = 0
bad = []
for where, media in media_types():
    examples = []
    if "example" in media:
        examples.append(media["example"])
    examples += [resolve(e).get("value") for e in (media.get("examples") or {}).values()]
    for ex in examples:
        n_examples += 1
        errors = list(validator(media.get("schema", {})).iter_errors(ex))
        if errors:
            bad.append("%s: %s" % (where, errors[0].message))
t.ok(n_examples >= 20, "the description carries examples (%d)" % n_examples)
t.ok(not bad, "every example validates against its schema", "\n".join(bad))

# The check can fail: a run answer without stdout, an execute request with a
# NUL in the language, are refused by their schemas.
run_resp = copy.deepcopy(doc["paths"]["/run"]["post"]["responses"]["200"]["content"]
                         ["application/json"])
del run_resp["example"]["stdout"]
t.ok(list(validator(run_resp["schema"]).iter_errors(run_resp["example"])),
     "a /run answer without stdout does not validate")
exe = doc["paths"]["/v1/execute"]["post"]["requestBody"]["content"]["application/json"]
wrong = dict(exe["example"], language="python\u0000evil")
t.ok(list(validator(exe["schema"]).iter_errors(wrong)),
     "an execute request with NUL in the language does not validate")
t.exit()
