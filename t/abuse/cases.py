"""cases.py - the hostile programs of t/abuse/progs and their expected outcomes.

Each program carries its own table row in header comments (C: /* key: ... */,
Python: # key: ...), so the program and what it must lead to are read
together:

    abuse:   one-line description (with the catalogue id, e.g. R3)
    limits:  wallTimeMs=1500 cpuMs=1000 ...   (on top of DEFAULT_LIMITS)
    expect:  terms that must ALL hold (see below)
    stdin:   N            send N bytes of stdin
    next:    other.py     run this one right after, on the same slot
    pair:    other.c      run both at once on two slots (phase 2)
    role:    followup | pair   not run on its own

Expectation terms, separated by spaces (regexes cannot contain spaces: use
\\s).  A term may be "A||B" (either) and an alternative "A&&B" (both):

    oomKilled timedOut idleTimedOut truncated     the flag is true
    !oomKilled !timedOut ...                      the flag is false
    limit=cpu|wall   limit=null                   which limit ended the run
    exit=0  exit!=0  exitCode=null                exit!=0 also matches a signal
    signal=SIGSEGV|SIGKILL
    stdout~REGEX  stdout!~REGEX  stderr~REGEX     re.search, multi-line
    out~REGEX                                     stdout and stderr together
    !stdout~REGEX                                 same as stdout!~REGEX
    wallMs<N wallMs>=N cpuMs<N cpuMs>=N memoryPeakKb>=N
    outlen<=N                                     len(stdout)+len(stderr) in bytes,
                                                  without runcell's own
                                                  "runner: killed: ..." line
                                                  (added after an OOM kill,
                                                  outside the output budget)
    compile=fail|ok|any                           compiled languages only
    probe                                         probe.h/probe.py protocol: a
                                                  "probe-done attempts=N escaped=0"
                                                  line, N denied lines, no ESCAPED
"""

import base64
import os
import re

HERE = os.path.dirname(os.path.abspath(__file__))
PROGS = os.path.join(HERE, "progs")

# Every case starts from these (small, so the suite is quick) and its
# header overrides them.  Each is below the manifests' defaults.
DEFAULT_LIMITS = {"wallTimeMs": 5000, "idleMs": 10000, "cpuMs": 4000, "memoryMb": 128,
                  "pids": 64, "outputKb": 256}

# Under software CPU emulation (the cgroup v2 guest of t/vm on a host
# without KVM) programs run several times slower: the default clocks are
# stretched so a case is not cut short before the behaviour it tests.
# Limits a case sets itself are kept: those are what it tests.
if os.environ.get("RC_VM_ACCEL") == "tcg":
    for _key in ("wallTimeMs", "idleMs", "cpuMs"):
        DEFAULT_LIMITS[_key] *= 10

HELPERS = ("probe.h", "probe.py")

_HEADER = re.compile(r"^\s*(?:/\*|//|#)\s*(abuse|limits|expect|stdin|next|pair|role):\s*(.*?)\s*(?:\*/)?\s*$")


_CLOCK_TERMS = re.compile(r"wall|cpu|idle|timedOut|Ms[<>=]")


class Case:
    def __init__(self, path):
        self.path = path
        self.file = os.path.basename(path)
        self.name, self.ext = os.path.splitext(self.file)
        self.description = ""
        self.limits = dict(DEFAULT_LIMITS)
        self.expect = []
        self.stdin_bytes = 0
        self.next = None
        self.pair = None
        self.role = None
        explicit_clocks = set()
        with open(path, encoding="utf-8") as f:
            self.source = f.read()
        for line in self.source.splitlines()[:12]:
            m = _HEADER.match(line)
            if not m:
                continue
            key, value = m.groups()
            if key == "abuse":
                self.description = value
            elif key == "limits":
                for kv in value.split():
                    k, _, v = kv.partition("=")
                    self.limits[k] = int(v)
                    explicit_clocks.add(k)
            elif key == "expect":
                self.expect = value.split()
            elif key == "stdin":
                self.stdin_bytes = int(value)
            elif key == "next":
                self.next = value
            elif key == "pair":
                self.pair = value
            elif key == "role":
                self.role = value
        # Under emulation a case's own clocks are stretched too, unless the
        # clocks are what it tests (its expectation names one).
        if os.environ.get("RC_VM_ACCEL") == "tcg" and not _CLOCK_TERMS.search(" ".join(self.expect)):
            for k in explicit_clocks & {"wallTimeMs", "idleMs", "cpuMs"}:
                self.limits[k] *= 10
        if not self.description:
            raise ValueError("%s: no 'abuse:' description line" % self.file)
        if not self.expect:
            raise ValueError("%s: no 'expect:' line" % self.file)

    @property
    def kind(self):
        return "python" if self.ext == ".py" else "c"

    @property
    def compiled(self):
        return self.kind == "c"

    def helper(self):
        return "probe.py" if self.kind == "python" else "probe.h"

    def source_for(self, subst):
        text = self.source
        for k, v in subst.items():
            text = text.replace("@%s@" % k, str(v))
        return text

    def http_timeout(self):
        # the compile step has its own 60 s budget; then the run's wall limit
        return (60 if self.compiled else 0) + self.limits["wallTimeMs"] / 1000.0 + 30

    def __repr__(self):
        return "<Case %s>" % self.file


def load(progs=PROGS):
    cases = {}
    for name in sorted(os.listdir(progs)):
        if name in HELPERS or not name.endswith((".c", ".cpp", ".py")):
            continue
        c = Case(os.path.join(progs, name))
        cases[c.file] = c
    for c in cases.values():
        for other in (c.next, c.pair):
            if other and other not in cases:
                raise ValueError("%s refers to missing %s" % (c.file, other))
    return cases


# -- evaluating an expectation against a /v1/execute response ---------------


def _cmp(value, op, want):
    if value is None:
        return False
    return {"<": value < want, "<=": value <= want, ">": value > want, ">=": value >= want,
            "=": value == want}[op]


RUNNER_LINE = re.compile(r"runner: killed: [^\n]*\n?\Z")


def _text(r, key):
    """An output of the response as text: /v1 answers an output that is not
    UTF-8 as {"base64": ...}; its bytes are decoded with U+FFFD here."""
    v = r.get(key) if isinstance(r, dict) else None
    if isinstance(v, dict) and "base64" in v:
        return base64.b64decode(v["base64"]).decode("utf-8", "replace")
    return v or ""


def _outlen(r):
    err = _text(r, "stderr")
    if r.get("oomKilled"):
        err = RUNNER_LINE.sub("", err)
    return len(_text(r, "stdout").encode("utf-8", "replace")) + len(
        err.encode("utf-8", "replace"))


def probe_verdict(stdout):
    """(ok, why) for the probe protocol."""
    m = re.search(r"^probe-done attempts=(\d+) escaped=(\d+)$", stdout or "", re.M)
    if not m:
        return False, "no probe-done line (the probe did not finish)"
    attempts, escaped = int(m.group(1)), int(m.group(2))
    denied = len(re.findall(r"^denied ", stdout, re.M))
    escapes = re.findall(r"^ESCAPED .*$", stdout, re.M)
    if escapes or escaped:
        return False, "escapes: %s" % "; ".join(escapes)
    if attempts == 0 or denied != attempts:
        return False, "attempts=%d but %d denied lines" % (attempts, denied)
    return True, "%d attempts, all denied" % attempts


def check_term(term, r):
    """True when the single term holds for response dict r."""
    if "||" in term:
        return any(check_term(t, r) for t in term.split("||"))
    if "&&" in term:
        return all(check_term(t, r) for t in term.split("&&"))
    neg = term.startswith("!")
    if neg:
        return not check_term(term[1:], r)
    if term in ("oomKilled", "timedOut", "idleTimedOut", "truncated"):
        return r.get(term) is True
    if term == "probe":
        return probe_verdict(_text(r, "stdout"))[0]
    m = re.match(r"^(stdout|stderr|out)(!?)~(.*)$", term)
    if m:
        if m.group(1) == "out":
            text = _text(r, "stdout") + "\n" + _text(r, "stderr")
        else:
            text = _text(r, m.group(1))
        found = re.search(m.group(3), text, re.M) is not None
        return found != (m.group(2) == "!")
    m = re.match(r"^limit=(.*)$", term)
    if m:
        allowed = m.group(1).split("|")
        return (r.get("limit") is None and "null" in allowed) or r.get("limit") in allowed
    if term == "exit=0":
        return r.get("exitCode") == 0
    if term == "exit!=0":
        return r.get("exitCode") not in (0,) and (r.get("exitCode") is not None or r.get("signal"))
    if term == "exitCode=null":
        return r.get("exitCode") is None
    m = re.match(r"^signal=(.*)$", term)
    if m:
        return r.get("signal") in m.group(1).split("|")
    m = re.match(r"^compile=(fail|ok|any)$", term)
    if m:
        comp = r.get("compile")
        if not isinstance(comp, dict):
            return False
        failed = r.get("stage") == "compile"
        return {"fail": failed, "ok": not failed and comp.get("exitCode") == 0, "any": True}[m.group(1)]
    m = re.match(r"^(wallMs|cpuMs|memoryPeakKb|outlen)(<=|>=|<|>|=)(\d+)$", term)
    if m:
        value = _outlen(r) if m.group(1) == "outlen" else r.get(m.group(1))
        return _cmp(value, m.group(2), int(m.group(3)))
    raise ValueError("unknown expectation term %r" % term)


def failed_terms(expect, r):
    return [t for t in expect if not check_term(t, r)]


def summary(r):
    """A short one-line view of a response for diagnostics."""
    if not isinstance(r, dict):
        return repr(r)[:300]
    keys = ("stage", "exitCode", "signal", "limit", "timedOut", "idleTimedOut", "oomKilled",
            "truncated", "wallMs", "cpuMs", "memoryPeakKb")
    s = " ".join("%s=%s" % (k, r.get(k)) for k in keys if k in r)
    s += "\nstdout: %r\nstderr: %r" % (_text(r, "stdout")[:1500], _text(r, "stderr")[:600])
    comp = r.get("compile")
    if isinstance(comp, dict):
        s += "\ncompile: exit=%s limit=%s stderr=%r" % (comp.get("exitCode"), comp.get("limit"),
                                                       _text(comp, "stderr")[:400])
    return s
