"""readonly.py - the inherited filesystem is read-only and nosuid inside a
job, and the language template can be changed only in the job's own copy
(the overlay's upper layer): the host's template is never modified."""

import os
import shutil
import tempfile

import isolib

t = isolib.start(plan=8, uid_base=30000)
EROFS = 30

for path in ("/usr/runcell-probe", "/etc/runcell-probe", "/var/runcell-probe"):
    r = isolib.run(["./probe", "open", path], probe=True)
    t.eq(r.out.strip(), "errno %d" % EROFS, "write to %s fails with EROFS" % path, r)

r = isolib.sh("grep -E ' / ' /proc/self/mountinfo | head -1")
t.ok(" ro," in r.out and "nosuid" in r.out, "/ is mounted ro,nosuid", r)

# A template below the build dir (which may itself be under /tmp: the job's
# fresh /tmp must not hide it).
tmpl = tempfile.mkdtemp(prefix="rc-tmpl-", dir=isolib.TOP_BUILD)
try:
    os.mkdir(os.path.join(tmpl, "sub"))
    with open(os.path.join(tmpl, "data.txt"), "w") as f:
        f.write("original\n")
    os.chmod(tmpl, 0o755)
    script = ("cat data.txt; rm -f data.txt && echo replaced > data.txt; cat data.txt; "
              "mkdir sub/new && echo mkdir-ok; ./probe open %s/data.txt" % tmpl)
    r = isolib.sh(script, probe=True, options=["--template", tmpl])
    lines = r.out.split("\n")
    # The host path is read-only, hidden when it lies below /tmp, or out of
    # the slot uid's reach when a parent directory is private (EACCES).
    t.ok(lines[:3] == ["original", "replaced", "mkdir-ok"]
         and lines[3] in ("errno %d" % EROFS, "errno 2", "errno 13"),
         "template visible, its copy writable, the host path not writable", r)
    with open(os.path.join(tmpl, "data.txt")) as f:
        t.eq(f.read(), "original\n", "host template file unchanged")
    t.eq(sorted(os.listdir(tmpl)), ["data.txt", "sub"], "nothing added to the host template")
    t.eq(os.listdir(os.path.join(tmpl, "sub")), [], "host template subdir untouched")
finally:
    shutil.rmtree(tmpl)
t.exit()
