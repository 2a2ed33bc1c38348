"""tap.py - a tiny TAP (Test Anything Protocol) emitter for runcell's tests.

automake's tap-driver.sh reads what this prints.  Usage:

    import tap
    t = tap.Tap(plan=3)          # or tap.Tap() and t.done() at the end
    t.ok(1 + 1 == 2, "adds")
    t.eq(got, want, "same answer")
    t.skip("needs clang", count=1)
    t.exit()                     # exit status 1 if anything failed

Diagnostics go to stdout as "# ..." lines after a failure, where the driver
keeps them in the test's .log.  Skipping is for things the environment truly
lacks; bubblewrap's rule applies: with RC_NO_SKIP=1 (CI), skip() becomes a
failure, so a privileged test can never pass by skipping.
"""

import os
import sys
import traceback


class Tap:
    def __init__(self, plan=None, out=None):
        self.out = out or sys.stdout
        self.n = 0
        self.failed = 0
        self.skipped = 0
        self.plan = None
        self.finished = False
        if plan is not None:
            self.set_plan(plan)

    def _emit(self, line):
        self.out.write(line + "\n")
        self.out.flush()

    def set_plan(self, count):
        if self.plan is not None:
            raise RuntimeError("plan already set")
        self.plan = count
        self._emit("1..%d" % count)

    def diag(self, message):
        for line in str(message).splitlines() or [""]:
            self._emit("# " + line)

    def ok(self, cond, name, diag=None):
        """One test point; diag (a string or a callable giving one) is shown
        only on failure, so expensive context costs nothing on success."""
        self.n += 1
        name = str(name).replace("#", "\\#").replace("\n", " ")
        if cond:
            self._emit("ok %d - %s" % (self.n, name))
        else:
            self.failed += 1
            self._emit("not ok %d - %s" % (self.n, name))
            if diag is not None:
                self.diag(diag() if callable(diag) else diag)
        return bool(cond)

    def eq(self, got, want, name, diag=None):
        def explain():
            text = "got:  %r\nwant: %r" % (got, want)
            if diag is not None:
                text += "\n" + (diag() if callable(diag) else str(diag))
            return text

        return self.ok(got == want, name, explain)

    def skip(self, reason, count=1, name="skipped"):
        if os.environ.get("RC_NO_SKIP") in ("1", "true", "yes"):
            for _ in range(count):
                self.ok(False, "%s (skip not allowed: RC_NO_SKIP set): %s" % (name, reason))
            return
        for _ in range(count):
            self.n += 1
            self.skipped += 1
            self._emit("ok %d - %s # SKIP %s" % (self.n, name, reason))

    def bail(self, reason):
        """Stops the whole file: the driver records an ERROR."""
        self._emit("Bail out! %s" % str(reason).replace("\n", " "))
        self.finished = True
        sys.exit(255)

    def done(self):
        """Ends a run without an up-front plan."""
        if self.plan is None:
            self.set_plan(self.n)
        self.finished = True

    def exit(self):
        self.done()
        if self.plan is not None and self.plan != self.n:
            self.diag("planned %d tests but ran %d" % (self.plan, self.n))
            sys.exit(1)
        sys.exit(1 if self.failed else 0)

    def run(self, name, fn, *args, **kwargs):
        """Runs fn; an exception becomes a failed test point with its
        traceback instead of killing the whole file."""
        try:
            return fn(*args, **kwargs)
        except Exception:
            self.ok(False, "%s raised" % name, traceback.format_exc())
            return None
