# lib.sh - TAP and process helpers shared by the t/pkg/ shell tests.
#
# Sourced, not run.  TAP output goes to stdout (automake's tap-driver reads
# it); diagnostics are "# " lines.  Every process a test starts is recorded
# by PID with track_pid and stopped by stop_pid; nothing is ever killed by
# name.  Every wait is bounded.

TAP_N=0
TAP_FAILED=0
SRCDIR=${RC_TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILDDIR=${RC_TOP_BUILDDIR:-$SRCDIR}

plan () { echo "1..$1"; }

# ok COND-STATUS DESCRIPTION: "ok N" when the status is 0.
ok () {
  local status=$1; shift
  TAP_N=$((TAP_N + 1))
  if [ "$status" -eq 0 ]; then
    echo "ok $TAP_N - $*"
  else
    echo "not ok $TAP_N - $*"
    TAP_FAILED=$((TAP_FAILED + 1))
  fi
  return "$status"
}

# check DESCRIPTION CMD...: runs CMD and reports its status as one test.
check () {
  local desc=$1; shift
  "$@"
  ok $? "$desc"
}

skip () { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N # SKIP $*"; }
diag () { printf '%s\n' "$@" | sed 's/^/# /'; }
bail () { echo "Bail out! $*"; exit 1; }

# diag_file FILE [LINES]: the tail of a log as TAP diagnostics.
diag_file () {
  [ -f "$1" ] || return 0
  tail -n "${2:-20}" "$1" | sed 's/^/#   /'
}

# require_root: the package and network-namespace tests change the
# machine; without root they cannot run.  Under RC_NO_SKIP=1 (CI) that is a
# failure, otherwise the whole file is skipped.
require_root () {
  if [ "$(id -u)" != 0 ]; then
    if [ "${RC_NO_SKIP:-0}" = 1 ]; then
      echo "1..1"
      echo "not ok 1 - must run as root (RC_NO_SKIP=1)"
      exit 1
    fi
    echo "1..0 # SKIP needs root"
    exit 0
  fi
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds, for at
# most SECONDS of wall-clock time however long each try takes.
wait_for () {
  local deadline=$((SECONDS + $1)); shift
  while [ "$SECONDS" -lt "$deadline" ]; do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

TRACKED_PIDS=()
track_pid () { TRACKED_PIDS+=("$1"); }

# stop_pid PID [WAIT]: SIGTERM, wait up to WAIT seconds (default 20), then
# SIGKILL that PID and the children it still has.  Returns the exit status
# when the process was our child, else 0.
stop_pid () {
  local pid=$1 wait=${2:-20} i kids
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return $?; }
  kill -TERM "$pid" 2>/dev/null
  for ((i = 0; i < wait * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || break
    # A child that exited but was not reaped yet still answers kill -0.
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; then
    kids=$(ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' || true)
    diag "PID $pid did not stop in ${wait}s: SIGKILL"
    # shellcheck disable=SC2086 # one word per PID
    kill -KILL "$pid" $kids 2>/dev/null
  fi
  wait "$pid" 2>/dev/null
}

stop_tracked () {
  local pid
  for pid in "${TRACKED_PIDS[@]}"; do
    stop_pid "$pid" 10 || true
  done
  TRACKED_PIDS=()
}

# free_port: a TCP port nothing listens on at 127.0.0.1 right now.
free_port () {
  /usr/bin/python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])'
}

# http METHOD URL [BODY-FILE]: prints "<status> <body>" (curl, bounded).
http () {
  local method=$1 url=$2 body=${3:-} out status
  out=$(mktemp)
  if [ -n "$body" ]; then
    status=$(curl -sS -m 60 -o "$out" -w '%{http_code}' -X "$method" \
               -H 'Content-Type: application/json' --data-binary "@$body" "$url" 2>/dev/null)
  else
    status=$(curl -sS -m 60 -o "$out" -w '%{http_code}' -X "$method" "$url" 2>/dev/null)
  fi
  printf '%s %s\n' "${status:-000}" "$(cat "$out")"
  rm -f "$out"
}

# run_request_file FILE A B: a /run body for python whose solution
# multiplies; the expected result (A*B) can only come from running it.
run_request_file () {
  /usr/bin/python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
path, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
body = {
    "lang_slug": "python",
    "timeout": "20s",
    "solution_text": "def solution(a, b):\n    return a * b\n",
    "asserts": json.dumps({"arguments": [[a, b]]}),
    "checker_text": None,
}
with open(path, "w") as f:
    json.dump(body, f)
EOF
}

# run_result_ok "STATUS BODY" A B: the /run answer is 200, exit_code 0, and
# the checker printed the product.
run_result_ok () {
  /usr/bin/python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
line, a, b = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
status, _, body = line.partition(" ")
try:
    doc = json.loads(body)
    items = json.loads(doc["stdout"])
    values = [i.get("value") for i in items if i.get("type") == "result"]
except (ValueError, KeyError, TypeError, AttributeError):
    sys.exit(1)
sys.exit(0 if status == "200" and doc.get("exit_code") == 0 and values == [a * b] else 1)
EOF
}

# remove_cgroups_named NAME: removes what a killed runcell-fcgi left of its
# cgroup subtree (RUN_CGROUP_NAME).  NAME must be unique to the caller:
# processes still inside (jobs of the caller's server) are killed by PID,
# then the directories are removed bottom-up.  Bounded.
remove_cgroups_named () {
  local name=$1 d pid i
  [ -n "$name" ] || return 0
  while IFS= read -r d; do
    for ((i = 0; i < 50; i++)); do
      for pid in $(find "$d" -name cgroup.procs -exec cat {} + 2>/dev/null); do
        kill -KILL "$pid" 2>/dev/null
      done
      find "$d" -depth -type d -exec rmdir {} \; 2>/dev/null
      [ -d "$d" ] || break
      sleep 0.1
    done
  done < <(find /sys/fs/cgroup -maxdepth 5 -type d -name "$name" 2>/dev/null)
}
