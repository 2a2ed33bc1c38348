# abuse: I1/J4 printenv from Python and a child shell (Judge0 #564); the service secret must not appear
# expect: exit=0 stdout~HOME=/sandbox !stdout~(?m)^(HTTP_|RUN_|REQUEST_|SCRIPT_|CONTENT_|SERVER_|GATEWAY_|FCGI|RC_ABUSE|DOCUMENT_|QUERY_STRING)
import os
import subprocess
for k, v in sorted(os.environ.items()):
    print("%s=%s" % (k, v))
try:
    print(subprocess.run(["env"], capture_output=True, text=True, timeout=5).stdout)
except (OSError, subprocess.SubprocessError) as e:
    print("env: %s" % e)
for p in ("/proc/self/environ", "/proc/1/environ", "/proc/%d/environ" % os.getppid()):
    try:
        print(p, open(p, "rb").read().replace(b"\0", b"\n").decode(errors="replace"))
    except OSError as e:
        print(p, "unreadable", e.errno)
