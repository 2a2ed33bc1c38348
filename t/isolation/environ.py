"""environ.py - the job's environment is exactly the allowlist: PATH, LANG,
LC_ALL, TZ, RUN_ENV_ALLOW keys, HOME=/sandbox.  A secret in the caller's
environment never reaches the job (hostile-programs §0 #11), nor do the
places where secrets are kept on disk (/root, the state dir)."""

import os

import isolib

t = isolib.start(plan=8, uid_base=30020)
env = dict(os.environ)
env.update({"DB_PASSWORD": "hunter2-secret", "HTTP_PROXY": "http://evil", "LANG": "C.UTF-8",
            "HOME": "/root", "RC_ALLOWED_KEY": "allowed-value"})
env.pop("RUN_ENV_ALLOW", None)

r = isolib.run(["/bin/cat", "/proc/self/environ"], env=env)
pairs = [p for p in r.out.split("\0") if p]
keys = sorted(p.split("=", 1)[0] for p in pairs)
t.ok("hunter2-secret" not in r.out and "DB_PASSWORD" not in keys, "secret absent", r)
t.ok("HTTP_PROXY" not in keys, "HTTP_PROXY absent", r)
t.ok(set(keys) <= {"PATH", "LANG", "LC_ALL", "TZ", "HOME"}, "keys within the allowlist", keys)
t.ok("HOME=/sandbox" in pairs, "HOME=/sandbox", pairs)
t.ok("LANG=C.UTF-8" in pairs, "allowlisted LANG passed through", pairs)

env["RUN_ENV_ALLOW"] = "RC_ALLOWED_KEY"
r = isolib.run(["/bin/cat", "/proc/self/environ"], env=env)
t.ok("RC_ALLOWED_KEY=allowed-value" in r.out.split("\0") and "hunter2" not in r.out,
     "RUN_ENV_ALLOW adds exactly its keys", r)

secret = "/root/rc-iso-secret-%d" % os.getpid()
with open(secret, "w") as f:
    f.write("root-secret\n")
os.chmod(secret, 0o644)
try:
    r = isolib.sh("cat %s; ls -A /root | wc -l" % secret)
    t.ok("root-secret" not in r.out and r.out.strip() == "0", "/root is an empty mask", r)
finally:
    os.unlink(secret)

state = os.environ.get("RUN_STATE_DIR", "/run/runcell/state")
# Not in the job's root at all (issue 13: nothing of the host but its binds).
r = isolib.sh("test -e %s || echo absent; grep -c ' %s ' /proc/self/mountinfo" % (state, state))
t.eq(r.out.split(), ["absent", "0"], "the state dir is absent from the job's root", r)
t.exit()
