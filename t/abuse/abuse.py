"""abuse.py - the abuse suite: every hostile program of t/abuse/progs through
POST /v1/execute on a real nginx + runcell-fcgi, as root, with the sandbox on.

Phase 1: one service with RUN_CONCURRENCY=1, so every case reuses slot 0
(the cross-request cases - keyrings, daemons, IPC, planted links - need
exactly that).  Phase 2: a second service with two slots for the cases
that attack a neighbour running at the same time ("pair:" headers).

Per case, two TAP points:
  1. the documented safe outcome (t/abuse/cases.py explains the terms),
     and no secret anywhere in the response: the service runs with a
     secret in its environment, every request carries a secret header and
     an httpoxy "Proxy:" header, and the canary file holds a secret;
  2. the slot is clean afterwards: /health answers 200 and the master is
     alive; no process of any slot uid (bounded wait); every slot cgroup
     empty; the host mount table unchanged (where a job's mount could
     leak); canary files (and core_pattern, hostname) unchanged; no
     kernel keys of a slot uid; and the next job on the same slot
     (clean_check.py) sees no leftover process, file, IPC object or key.
Each request has a timeout and the suite a deadline (RC_ABUSE_DEADLINE
seconds, default 1800), so it always ends by itself.

RC_ABUSE_ONLY=a.c,b.py runs a subset (development).  RC_ABUSE_VERBOSE=1
prints every response summary as TAP comments.
"""

import json
import os
import re
import secrets
import socket
import sys
import threading
import time

import rchttp
import tap

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cases as casesmod  # noqa: E402
import slotcheck  # noqa: E402

DEADLINE = time.monotonic() + float(os.environ.get("RC_ABUSE_DEADLINE", "1800"))
VERBOSE = os.environ.get("RC_ABUSE_VERBOSE") == "1"
CLEAN_WAIT = 5.0  # seconds a slot may take to be empty after the response


def manifest(slug):
    try:
        with open(os.path.join(rchttp.SRCDIR, "langs", slug, "manifest.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def pick_languages(svc):
    """{"c": (language, main file name), "python": (...)} from what the
    service offers: a "c" language if there is one, else cpp (the programs
    are valid C and C++)."""
    r = svc.get("/v1/languages", timeout=30)
    offered = {}
    if r.status == 200 and isinstance(r.json, dict):
        for lang in r.json.get("languages", []):
            names = [lang.get("language")] + list(lang.get("aliases") or [])
            for n in names:
                offered[n] = lang
    out = {}
    for kind, candidates, default_main in (("c", ("c", "cpp"), "main.cpp"),
                                           ("python", ("python",), "main.py")):
        for cand in candidates:
            lang = offered.get(cand)
            if lang and lang.get("available", True):
                slug = lang.get("language", cand)
                m = manifest(slug) or {}
                main = (m.get("execute") or {}).get("main") or default_main
                out[kind] = (cand, main)
                break
    return out, r


class Suite:
    def __init__(self, t):
        self.t = t
        self.env_secret = "rcenvsecret" + secrets.token_hex(10)
        self.header_secret = "rchdrsecret" + secrets.token_hex(10)
        self.proxy_secret = "rcproxysecret" + secrets.token_hex(6)
        # Only files nobody else on a shared machine changes: our own canary
        # directory (with a stand-in for a template file) and the kernel
        # settings a job would love to rewrite.  (/etc/passwd was watched
        # once, and another test adding a system user turned it red.)
        self.canaries = slotcheck.Canaries(extra=[
            "/proc/sys/kernel/core_pattern", "/proc/sys/kernel/hostname",
            "/proc/sys/kernel/modprobe", "/proc/sys/kernel/dmesg_restrict",
            "/proc/sys/user/max_user_namespaces"])
        self.svc = None
        self.langs = {}
        self.slots = [0]
        self.mounts0 = None
        self.canary0 = None

    # -- requests -------------------------------------------------------------

    def secrets_in(self, body):
        return [s for s in (self.env_secret, self.header_secret, self.proxy_secret, self.canaries.secret)
                if s.encode() in body]

    def subst(self):
        return {"CANARY_DIR": self.canaries.dir, "API_PORT": self.svc.port,
                "API_SOCKET": self.svc.socket_path,
                "TEMPLATE_FILE": os.path.join(self.canaries.dir, "template.py"),
                "HOST_NAME": socket.gethostname()}

    def body_for(self, case):
        lang, main = self.langs[case.kind]
        files = [{"name": main, "content": case.source_for(self.subst())}]
        helper = case.helper()
        with open(os.path.join(casesmod.PROGS, helper), encoding="utf-8") as f:
            files.append({"name": helper, "content": f.read()})
        body = {"language": lang, "files": files, "limits": case.limits}
        if case.stdin_bytes:
            body["stdin"] = ("0123456789abcde\n" * (case.stdin_bytes // 16 + 1))[:case.stdin_bytes]
        return body

    def execute(self, case, svc=None):
        """(response, parsed dict or None, seconds).  429 (slot still busy
        being cleaned) is retried for a bounded time."""
        svc = svc or self.svc
        headers = {"X-Abuse-Secret": self.header_secret, "Proxy": "http://%s:3128/" % self.proxy_secret}
        body = self.body_for(case)
        t0 = time.monotonic()
        deadline = t0 + 15
        while True:
            try:
                r = svc.post_json("/v1/execute", body, headers=headers, timeout=case.http_timeout())
            except OSError as e:
                return rchttp.Response(0, "request failed: %s" % e, {}, b"", time.monotonic() - t0), None, \
                    time.monotonic() - t0
            if r.status != 429 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        return r, (r.json if r.status == 200 else None), time.monotonic() - t0

    # -- checks ---------------------------------------------------------------

    def wait_clean(self, svc, slots):
        uids = [svc.uid_base + s for s in slots]

        def clean():
            procs = slotcheck.procs_of_uids(uids)
            busy, _ = slotcheck.slot_cgroup_procs(svc.cgroup_name, slots)
            return not procs and not busy

        t0 = time.monotonic()
        rchttp.wait_until(clean, CLEAN_WAIT, 0.02)
        return time.monotonic() - t0

    def post_checks(self, svc, slots, label):
        """Problems found on the host after a job (empty list: clean)."""
        problems = []
        waited = self.wait_clean(svc, slots)
        uids = [svc.uid_base + s for s in slots]
        procs = slotcheck.procs_of_uids(uids)
        if procs:
            problems.append("processes of slot uids %d s after the response: %r" % (CLEAN_WAIT, procs[:10]))
        busy, seen = slotcheck.slot_cgroup_procs(svc.cgroup_name, slots)
        if busy:
            problems.append("slot cgroups not empty: %r" % busy)
        if not seen:
            problems.append("no slot cgroup found below our cgroup (%s): cannot verify"
                            % svc.cgroup_name)
        if svc.fcgi.poll() is not None:
            problems.append("runcell-fcgi master exited with %s" % svc.fcgi.returncode)
        try:
            h = svc.get("/health", timeout=10)
            if h.status != 200:
                problems.append("/health answered %d" % h.status)
        except OSError as e:
            problems.append("/health failed: %s" % e)
        gone, new, ignored = slotcheck.mount_diff(self.mounts0, slotcheck.mount_table(),
                                                  (svc.tmp, self.canaries.dir, rchttp.BUILDDIR))
        if gone or new:
            problems.append("host mount table changed: gone %r new %r" % (gone[:5], new[:5]))
        if ignored and VERBOSE:
            self.t.diag("%s: mount changes elsewhere on the host (not checked): %r" % (label, ignored[:3]))
        cdiff = slotcheck.Canaries.diff(self.canary0, self.canaries.snapshot())
        if cdiff:
            problems.append("canaries changed: %s" % "; ".join(cdiff[:5]))
        keys = slotcheck.key_users(set(uids))
        if keys:
            problems.append("kernel keys of slot uids remain: %r" % keys)
        if VERBOSE:
            self.t.diag("%s: slot empty after %.3f s" % (label, waited))
        return problems

    def clean_job(self, svc, label):
        """Runs clean_check.py on the slot; problems found by it."""
        c = self.cases["clean_check.py"]
        r, res, _ = self.execute(c, svc)
        if res is None:
            return ["clean job after %s: HTTP %d %r" % (label, r.status, r.body[:200])]
        bad = casesmod.failed_terms(c.expect, res)
        leaks = self.secrets_in(r.body)
        out = []
        if bad:
            out.append("clean job after %s failed %s: %s" % (label, bad, casesmod.summary(res)))
        if leaks:
            out.append("clean job leaked secrets")
        return out

    # -- running cases ----------------------------------------------------------

    def check_outcome(self, case, r, res, secs):
        label = "%s: %s" % (case.file, case.description)
        if res is None:
            self.t.ok(False, label, "HTTP %d %s after %.1f s: %r" % (r.status, r.reason, secs, r.body[:500]))
            return None
        bad = casesmod.failed_terms(case.expect, res)
        leaks = self.secrets_in(r.body)

        def why():
            text = ""
            if bad:
                text += "failed terms: %s\n" % " ".join(bad)
            if "probe" in case.expect:
                text += "probe: %s\n" % casesmod.probe_verdict(res.get("stdout"))[1]
            if leaks:
                text += "SECRET LEAKED in the response: %r\n" % leaks
            return text + casesmod.summary(res)

        self.t.ok(not bad and not leaks, label, why)
        if VERBOSE:
            self.t.diag("%s (%.2f s): %s" % (case.file, secs, casesmod.summary(res).splitlines()[0]))
        return res

    def run_chain(self, case):
        """Runs case, then its "next:" follow-ups, each with its checks."""
        while case is not None:
            if time.monotonic() > DEADLINE:
                self.t.ok(False, "%s: not run, suite deadline passed" % case.file)
                return
            r, res, secs = self.execute(case)
            self.check_outcome(case, r, res, secs)
            problems = self.post_checks(self.svc, [0], case.file)
            if case.next is None:
                problems += self.clean_job(self.svc, case.file)
            self.t.ok(not problems, "%s: service alive, slot clean, host unchanged" % case.file,
                      "\n".join(problems))
            case = self.cases[case.next] if case.next else None

    def run_pair(self, svc2, a, b):
        results = {}

        def go(case, key, delay):
            time.sleep(delay)
            results[key] = self.execute(case, svc2)

        th = [threading.Thread(target=go, args=(a, "a", 0)),
              threading.Thread(target=go, args=(b, "b", 0.2))]
        for x in th:
            x.start()
        for x in th:
            x.join(max(a.http_timeout(), b.http_timeout()) + 30)
        for case, key in ((a, "a"), (b, "b")):
            if key not in results:
                self.t.ok(False, "%s: no answer in the pair run" % case.file)
                continue
            self.check_outcome(case, *results[key])
        ra, rb = results.get("a", (None, None, 0))[1], results.get("b", (None, None, 0))[1]
        if ra and rb:
            ua = re.search(r"A uid=(\d+)", ra.get("stdout") or "")
            ub = re.search(r"B uid=(\d+)", rb.get("stdout") or "")
            self.t.ok(ua and ub and ua.group(1) != ub.group(1), "%s + %s: the two slots run as different uids"
                      % (a.file, b.file), lambda: "A: %r B: %r" % (ua and ua.group(0), ub and ub.group(0)))
        problems = self.post_checks(svc2, [0, 1], "%s+%s" % (a.file, b.file))
        self.t.ok(not problems, "%s + %s: both slots clean, host unchanged" % (a.file, b.file),
                  "\n".join(problems))

    def main(self):
        t = self.t
        if os.geteuid() != 0:
            t.skip("the abuse suite needs root (the sandbox is on only as root)", name="abuse suite")
            t.exit()
        self.cases = casesmod.load()
        only = [x for x in os.environ.get("RC_ABUSE_ONLY", "").split(",") if x]
        t.diag("%d hostile programs (%d C, %d Python)" % (
            len(self.cases), sum(c.kind == "c" for c in self.cases.values()),
            sum(c.kind == "python" for c in self.cases.values())))
        self.canaries.create()
        try:
            self.phase1(only)
            self.phase2(only)
        finally:
            self.canaries.remove()
        t.exit()

    def start(self, concurrency, name):
        env = {"RUN_CONCURRENCY": str(concurrency), "RUN_SANDBOX": "on",
               "RC_ABUSE_SECRET": self.env_secret, "DB_PASSWORD": self.env_secret,
               "AWS_SECRET_ACCESS_KEY": self.env_secret}
        langs = ["python", "cpp"] + (["c"] if manifest("c") else [])
        svc = rchttp.Service(env=env, languages=",".join(langs), name=name)
        svc.start()
        return svc

    def phase1(self, only):
        t = self.t
        try:
            self.svc = self.start(1, "abuse1")
        except rchttp.StartError as e:
            t.bail("service did not start: %s" % e)
        try:
            self.langs, lr = pick_languages(self.svc)
            if not t.ok("c" in self.langs and "python" in self.langs,
                        "GET /v1/languages offers a C/C++ and a Python entry",
                        "got %r from %r" % (self.langs, lr)):
                t.bail("no usable languages")
            t.diag("C programs run as %r, Python as %r" % (self.langs["c"], self.langs["python"]))
            self.mounts0 = slotcheck.mount_table()
            self.canary0 = self.canaries.snapshot()
            for case in self.cases.values():
                if case.role or case.pair:
                    continue
                if only and case.file not in only:
                    continue
                self.run_chain(case)
        finally:
            self.svc.stop()

    def phase2(self, only):
        pairs = [c for c in self.cases.values() if c.pair and (not only or c.file in only)]
        if not pairs:
            return
        svc2 = self.start(2, "abuse2")
        self.svc = svc2
        try:
            self.slots = [0, 1]
            self.mounts0 = slotcheck.mount_table()
            self.canary0 = self.canaries.snapshot()
            for a in pairs:
                if time.monotonic() > DEADLINE:
                    self.t.ok(False, "%s: not run, suite deadline passed" % a.file)
                    continue
                self.run_pair(svc2, a, self.cases[a.pair])
        finally:
            svc2.stop()


if __name__ == "__main__":
    Suite(tap.Tap()).main()
