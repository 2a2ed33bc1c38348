"""probe.py - helpers shared by the hostile Python programs of t/abuse.

Same protocol as probe.h: each attempt runs in a forked child (a seccomp
kill ends only that attempt); one line per attempt,
    denied <name>: <errno name | killed by SIG...>
    ESCAPED <name>: <what worked>
and a last line "probe-done attempts=N escaped=M".  An attempt callable
returns normally when the forbidden thing WORKED and raises OSError when
it was refused.
"""
import errno
import os
import signal
import sys

attempts = 0
escaped = 0


def report(name, bad, detail):
    global attempts, escaped
    attempts += 1
    if bad:
        escaped += 1
    print("%s %s: %s" % ("ESCAPED" if bad else "denied", name, detail), flush=True)


def probe(name, fn):
    sys.stdout.flush()
    pid = os.fork()
    if pid == 0:
        code = 200
        try:
            fn()
        except OSError as e:
            code = e.errno if e.errno and 0 < e.errno < 200 else 199
        except BaseException:
            code = 198
        os._exit(code)
    _, st = os.waitpid(pid, 0)
    if os.WIFEXITED(st) and os.WEXITSTATUS(st) == 200:
        report(name, True, "call succeeded")
    elif os.WIFEXITED(st) and os.WEXITSTATUS(st) == 198:
        report(name, True, "attempt raised something other than OSError (probe bug?)")
    elif os.WIFEXITED(st):
        code = os.WEXITSTATUS(st)
        report(name, False, errno.errorcode.get(code, "exit %d" % code))
    elif os.WIFSIGNALED(st):
        report(name, False, "killed by %s" % signal.Signals(os.WTERMSIG(st)).name)
    else:
        report(name, True, "odd wait status %d" % st)


def done():
    print("probe-done attempts=%d escaped=%d" % (attempts, escaped), flush=True)
    sys.exit(1 if escaped else 0)
