#!/usr/bin/python3
"""interactive.py - stdin-to-stdout latency of a process (issue 27).

    RC_TOP_SRCDIR=... RC_TOP_BUILDDIR=... PYTHONPATH=t/lib \
      bench/interactive.py [--rounds N] [--save bench/results/DATE-interactive.md]

For each client: a python echo process (POST /v1/processes), one
subscriber on its events (GET .../events, kept open), then N round trips on
one keep-alive connection: the time from sending a stdin POST to reading
the stdout event that carries the same line back (after the POST's 204).
The client speaks HTTP on raw sockets so that its own CPU stays small.  Concurrency 1 is one
client; concurrency 8 is eight clients at once, each its own OS process
(no shared interpreter lock) with a process of its own on its own slot.
Every round trip is checked: the event must carry exactly the line sent.

For scale, in the same minutes: the HTTP floor (GET /health on a kept
connection, through nginx to a worker and back) and the same echo program
bare, driven through a pipe by this script (write a line, read it back).
Output is a Markdown table (p50, p90, p99, max in ms); --save writes it
with the machine's description.  Loopback only; root (the sandbox).
"""

import argparse
import http.client
import json
import multiprocessing
import os
import platform
import signal
import socket
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "t", "lib"))

import rchttp  # noqa: E402

ECHO = ("import sys\n"
        "while True:\n"
        "    line = sys.stdin.readline()\n"
        "    if not line:\n"
        "        break\n"
        "    sys.stdout.write(line)\n"
        "    sys.stdout.flush()\n")


def pct(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round(p / 100.0 * (len(s) - 1))))]


class RawEvents:
    """The event stream on a raw socket, de-chunked by hand: the client's
    own CPU per event must be small next to what it measures (eight of
    them share the machine's cores with the service)."""

    def __init__(self, port, path):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: bench\r\nAccept: text/event-stream\r\n\r\n"
                           % path).encode())
        self.raw = b""
        while b"\r\n\r\n" not in self.raw:
            self.raw += self.sock.recv(65536)
        head, self.raw = self.raw.split(b"\r\n\r\n", 1)
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError("events: %r" % head[:80])
        self.text = b""  # de-chunked event text

    def wait_for(self, marker):
        """Reads until marker is in the event text; drops what precedes it."""
        while marker not in self.text:
            # One chunk: "<hex size>\r\n<data>\r\n".
            while True:
                eol = self.raw.find(b"\r\n")
                if eol >= 0:
                    size = int(self.raw[:eol], 16)
                    if len(self.raw) >= eol + 2 + size + 2:
                        self.text += self.raw[eol + 2:eol + 2 + size]
                        self.raw = self.raw[eol + 2 + size + 2:]
                        break
                data = self.sock.recv(65536)
                if not data:
                    raise RuntimeError("events: the stream ended")
                self.raw += data
        self.text = self.text[self.text.index(marker) + len(marker):]


def client(port, rounds, warmup):
    """One client: its process, its subscriber, rounds round trips.
    Returns (latencies in ms, failures)."""
    body = {"language": "python", "files": [{"name": "main.py", "content": ECHO}],
            "limits": {"wallTimeMs": 300000, "idleMs": 60000}}
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("POST", "/v1/processes", body=json.dumps(body),
                 headers={"Content-Type": "application/json"})
    r = conn.getresponse()
    created = json.loads(r.read() or b"{}")
    if r.status != 201:
        return [], ["start: %d %r" % (r.status, created)]
    pid = created["id"]
    events = RawEvents(port, "/v1/processes/%s/events" % pid)
    events.wait_for(b"event: stage")
    post = None
    lat, failures = [], []
    for i in range(warmup + rounds):
        line = "%d-%d\n" % (os.getpid(), i)
        # The event that carries it back: {"data":"<line>"}, its newline escaped.
        marker = ('{"data":"%s\\n"}' % line[:-1]).encode()
        req = ("POST /v1/processes/%s/stdin HTTP/1.1\r\nHost: bench\r\n"
               "Content-Length: %d\r\n\r\n%s" % (pid, len(line), line)).encode()
        if i % 500 == 0:
            # nginx closes a client connection after keepalive_requests
            # (1000): a new one, outside the timed part.
            if post is not None:
                post.close()
            post = socket.create_connection(("127.0.0.1", port), timeout=30)
            post.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        t0 = time.perf_counter()
        post.sendall(req)
        answer = b""
        while b"\r\n\r\n" not in answer:
            data = post.recv(4096)
            if not data:
                break
            answer += data
        if not answer.startswith(b"HTTP/1.1 204"):
            failures.append("round %d: %r" % (i, answer[:80]))
            break
        try:
            events.wait_for(marker)
        except (OSError, RuntimeError) as e:
            failures.append("round %d: %s" % (i, e))
            break
        t1 = time.perf_counter()
        if i >= warmup:
            lat.append((t1 - t0) * 1000.0)
    post.close()
    conn.request("DELETE", "/v1/processes/" + pid)
    conn.getresponse().read()
    events.sock.close()
    conn.close()
    return lat, failures


def client_entry(args):
    return client(*args)


def pool_child():
    # A pool's child is a fork of this process: it must not stop the
    # service (rchttp's SIGTERM and exit handlers) when the pool ends it.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    del rchttp._live[:]


def health(port, rounds):
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    out = []
    for i in range(rounds + 20):
        t0 = time.perf_counter()
        conn.request("GET", "/health")
        conn.getresponse().read()
        if i >= 20:
            out.append((time.perf_counter() - t0) * 1000.0)
    conn.close()
    return out


def bare(rounds):
    p = subprocess.Popen([sys.executable, "-c", ECHO], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, bufsize=0)
    out = []
    for i in range(rounds + 20):
        line = ("%d\n" % i).encode()
        t0 = time.perf_counter()
        p.stdin.write(line)
        got = p.stdout.readline()
        if got != line:
            raise RuntimeError("bare echo: %r" % got)
        if i >= 20:
            out.append((time.perf_counter() - t0) * 1000.0)
    p.stdin.close()
    p.wait()
    return out


def row(name, values):
    return "| %s | %d | %.3f | %.3f | %.3f | %.3f |" % (
        name, len(values), statistics.median(values), pct(values, 90), pct(values, 99),
        max(values))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=500)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--save", default=None)
    args = ap.parse_args()

    env = {"RUN_CONCURRENCY": 8, "RUN_MAX_PROCESSES": 8, "RUN_SPARE_WORKERS": 18}
    lines = []
    with rchttp.Service(env=env, languages="python") as svc:
        load0 = os.getloadavg()[0]
        floor = health(svc.port, args.rounds)
        base = bare(args.rounds)
        one, fail1 = client(svc.port, args.rounds, args.warmup)
        ctx = multiprocessing.get_context("fork")
        with ctx.Pool(8, initializer=pool_child) as pool:
            results = pool.map(client_entry, [(svc.port, args.rounds, args.warmup)] * 8)
        eight = [v for lat, _ in results for v in lat]
        fail8 = [f for _, fs in results for f in fs]
        load1 = os.getloadavg()[0]
        died = "worker_exited" in svc.fcgi_log_tail(100000)
    if fail1 or fail8 or not one or not eight or died:
        print("failures: %r %r (worker died: %s)" % (fail1[:3], fail8[:3], died))
        return 1
    lines.append("| | round trips | p50 ms | p90 ms | p99 ms | max ms |")
    lines.append("|---|---|---|---|---|---|")
    lines.append(row("stdin POST -> stdout event, concurrency 1", one))
    lines.append(row("stdin POST -> stdout event, concurrency 8", eight))
    lines.append(row("GET /health, kept connection (the HTTP floor)", floor))
    lines.append(row("the same echo program bare, through a pipe", base))
    lines.append("")
    lines.append("Load average %.1f before, %.1f after; %d round trips per client after %d "
                 "of warm-up; goal: p50 < 2 ms over loopback." % (load0, load1, args.rounds,
                                                                  args.warmup))
    text = "\n".join(lines)
    print(text)
    if args.save:
        head = ("# Interactive processes: stdin to stdout latency (issue 27)\n\n"
                "`bench/interactive.py --rounds %d`, %s UTC.  Machine: %s, %d cores, kernel %s; "
                "shared with other builds and tests, so read the load average.\n\n"
                % (args.rounds, time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
                   platform.machine(), os.cpu_count(), platform.release()))
        with open(args.save, "w", encoding="utf-8") as f:
            f.write(head + text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
