"""k8s.py - the Kubernetes manifests in packaging/k8s build and validate.

  - `kubectl kustomize packaging/k8s` builds them (Debian's kubectl, package
    kubernetes-client, or any newer one);
  - tools/npm/k8s-validate.mjs validates every object against the
    Kubernetes schemas (kubernetes-models, from the local npm install):
    types, required fields, and unknown fields (a typo is an error);
  - the check can fail: a misspelt field and a wrong type are refused;
  - what the deployment promises: a privileged pod on port 4040 named http,
    a readiness probe that runs a canary job (runcell-container ready, which
    the image's entrypoint implements), /health liveness, a preStop drain and
    a grace period above RUN_TIMEOUT_MAX plus the drain delay, requests
    sized from RUN_CONCURRENCY (cpu = slots, memory = slots x 512Mi +
    512Mi), one Service runner-<slug> per language slug of langs/ (port 80
    to 4040) selecting the pods, a PodDisruptionBudget over the same pods.
"""
import copy
import json
import os
import re
import shutil
import subprocess

import tap

t = tap.Tap()
SRC = os.environ.get("RC_TOP_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
K8S = os.path.join(SRC, "packaging", "k8s")
NODE_DIR = os.path.join(SRC, "tools", "npm")
VALIDATE = os.path.join(NODE_DIR, "k8s-validate.mjs")

try:
    import yaml
except ImportError as e:
    t.ok(False, "python3-yaml is installed", str(e))
    t.exit()


def validate(text):
    proc = subprocess.run(["node", VALIDATE, "-"], input=text.encode(), stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=120, cwd=NODE_DIR)
    results = [json.loads(l) for l in proc.stdout.decode().splitlines() if l.startswith("{")]
    return proc.returncode, results, proc.stderr.decode(errors="replace")


def build():
    kubectl = shutil.which("kubectl")
    if kubectl is None:
        t.skip("kubectl is not installed (./quickstart deps installs kubernetes-client)",
               name="kubectl kustomize packaging/k8s")
        with open(os.path.join(K8S, "kustomization.yaml")) as f:
            kust = yaml.safe_load(f)
        text = ""
        for r in kust["resources"]:
            with open(os.path.join(K8S, r)) as f:
                text += "---\n" + f.read()
        return text
    proc = subprocess.run([kubectl, "kustomize", K8S], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=120)
    err = proc.stderr.decode(errors="replace")
    t.ok(proc.returncode == 0 and not err.strip(), "kubectl kustomize packaging/k8s builds, no warning", err)
    return proc.stdout.decode()


def main():
    if not os.path.exists(os.path.join(NODE_DIR, "node_modules", "kubernetes-models")):
        t.ok(False, "kubernetes-models is installed in tools/npm (./quickstart deps)")
        t.exit()
    text = build()
    docs = [d for d in yaml.safe_load_all(text) if d]
    rc, results, err = validate(text)
    bad = [r for r in results if r.get("errors")]
    t.ok(rc == 0 and not bad and len(results) == len(docs) and len(docs) >= 22,
         "every object (%d) validates against the Kubernetes schemas, unknown fields included"
         % len(results), json.dumps(bad, indent=1) + err)

    by = {(d["kind"], d["metadata"]["name"]): d for d in docs}
    dep = by.get(("Deployment", "runcell"))
    t.ok(dep is not None, "a Deployment runcell")
    if dep is None:
        t.exit()

    # The check can fail.
    broken = copy.deepcopy(dep)
    c0 = broken["spec"]["template"]["spec"]["containers"][0]
    c0["readinessProbe"]["exec"]["comand"] = c0["readinessProbe"]["exec"].pop("command")
    rc, results, _ = validate(yaml.safe_dump(broken))
    t.ok(rc != 0 and any("comand" in e for r in results for e in r["errors"]),
         "a misspelt field (readinessProbe.exec.comand) is refused", repr(results))
    broken = copy.deepcopy(dep)
    broken["spec"]["template"]["spec"]["containers"][0]["ports"][0]["containerPort"] = "4040"
    rc, results, _ = validate(yaml.safe_dump(broken))
    t.ok(rc != 0, "a wrong type (containerPort as a string) is refused", repr(results))

    pod = dep["spec"]["template"]
    spec = pod["spec"]
    c = spec["containers"][0]
    labels = pod["metadata"]["labels"]
    t.ok(all(labels.get(k) == v for k, v in dep["spec"]["selector"]["matchLabels"].items()),
         "the Deployment's selector matches its pods")
    t.ok(c.get("securityContext", {}).get("privileged") is True, "the container is privileged")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    t.eq(ports, {"http": 4040}, "the container's port http is 4040")
    ready = c.get("readinessProbe", {}).get("exec", {}).get("command")
    t.eq(ready, ["/usr/sbin/runcell-container", "ready"],
         "readiness runs the canary job (runcell-container ready), not only /health")
    with open(os.path.join(SRC, "packaging", "oci", "runcell-container")) as f:
        entry = f.read()
    t.ok("/v1/execute" in entry and re.search(r"^\s+ready\) ready ;;", entry, re.M)
         and re.search(r"^\s+drain\) drain ;;", entry, re.M),
         "the image's entrypoint implements ready (a POST /v1/execute canary) and drain")
    t.eq(c.get("livenessProbe", {}).get("httpGet", {}).get("path"), "/health", "liveness is GET /health")
    t.eq(c.get("lifecycle", {}).get("preStop", {}).get("exec", {}).get("command"),
         ["/usr/sbin/runcell-container", "drain"], "preStop drains (not ready, then wait)")

    cm = next((d for d in docs if d["kind"] == "ConfigMap"), None)
    t.ok(cm is not None and any(e.get("configMapRef", {}).get("name") == cm["metadata"]["name"]
                                for e in c.get("envFrom", [])),
         "the container reads the runcell ConfigMap", repr(c.get("envFrom")))
    conf = (cm or {}).get("data", {})
    slots = int(conf.get("RUN_CONCURRENCY", "10"))
    timeout_max = conf.get("RUN_TIMEOUT_MAX", "10m")
    m = re.fullmatch(r"(\d+)(s|m)", timeout_max)
    timeout_s = int(m.group(1)) * (60 if m.group(2) == "m" else 1) if m else 600
    drain = int(conf.get("RUNCELL_DRAIN_DELAY", "10"))
    grace = spec.get("terminationGracePeriodSeconds", 30)
    t.ok(grace > timeout_s + drain, "terminationGracePeriodSeconds %d > RUN_TIMEOUT_MAX %d s + drain %d s"
         % (grace, timeout_s, drain))
    req = c.get("resources", {}).get("requests", {})
    want_mem = "%dMi" % (slots * 512 + 512)
    t.ok(str(req.get("cpu")) == str(slots) and req.get("memory") == want_mem
         and c["resources"].get("limits", {}).get("memory") == want_mem,
         "requests sized from RUN_CONCURRENCY=%d: cpu %d, memory %s" % (slots, slots, want_mem),
         repr(c.get("resources")))

    slugs = sorted(d for d in os.listdir(os.path.join(SRC, "langs"))
                   if os.path.isfile(os.path.join(SRC, "langs", d, "manifest.json"))
                   and d not in ("bash", "c"))
    t.eq(len(slugs), 18, "langs/ has the 18 contest slugs")
    wrong = []
    for s in slugs:
        svc = by.get(("Service", "runner-" + s))
        if svc is None:
            wrong.append("runner-%s missing" % s)
            continue
        sp = svc["spec"]
        p = sp["ports"]
        if not (len(p) == 1 and p[0]["port"] == 80 and ports.get(p[0]["targetPort"], p[0]["targetPort"]) == 4040):
            wrong.append("runner-%s ports %r" % (s, p))
        if not all(labels.get(k) == v for k, v in sp["selector"].items()):
            wrong.append("runner-%s selector %r" % (s, sp["selector"]))
    t.ok(not wrong, "a Service runner-<slug> for each of the 18 slugs, port 80 -> 4040, selecting the pods",
         "\n".join(wrong))
    pdb = next((d for d in docs if d["kind"] == "PodDisruptionBudget"), None)
    t.ok(pdb is not None and all(labels.get(k) == v for k, v in pdb["spec"]["selector"]["matchLabels"].items())
         and (pdb["spec"].get("maxUnavailable") == 1 or pdb["spec"].get("minAvailable")),
         "a PodDisruptionBudget over the runcell pods", repr(pdb))
    t.ok(dep["spec"].get("replicas", 1) >= 2, "two replicas, so the budget lets one drain at a time")
    t.exit()


if __name__ == "__main__":
    main()
