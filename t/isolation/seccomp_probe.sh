#!/bin/bash
# seccomp_probe.sh - runs t/isolation/syscall_probe inside the real sandbox
# (`runcell exec`), so the filter is checked exactly as user code meets it:
# after the privilege drop, in the job's namespaces, as the slot uid.  The
# probe arrives as a job file (the build dir may be under /tmp, which the
# sandbox replaces with its own tmpfs) and prints the TAP this test reports:
# one line per denied syscall on the x86_64, x32 and i386 entries, plus
# controls that must reach the kernel.
#
# Needs root (the sandbox does).  Without root it skips, unless
# RC_NO_SKIP=1 (CI), where skipping is a failure.
set -u

top=${RC_TOP_BUILDDIR:-.}
runcell=$top/runcell
probe=$top/t/isolation/syscall_probe

if [ "$(id -u)" != 0 ]; then
  if [ "${RC_NO_SKIP:-0}" = 1 ]; then
    echo "1..1"
    echo "not ok 1 - the sandbox needs root (RC_NO_SKIP=1)"
    exit 1
  fi
  echo "1..0 # SKIP the sandbox needs root"
  exit 0
fi
for f in "$runcell" "$probe"; do
  if [ ! -x "$f" ]; then
    echo "Bail out! $f not built"
    exit 1
  fi
done

# Its own uid range and cgroup subtree (runcell exec names it after its
# pid), so this can run in parallel with the other isolation tests.
export RUN_UID_BASE=30500
result=$(mktemp -d)
trap 'rm -rf -- "$result"' EXIT
# The probe's TAP is the job's stdout, passed through unchanged; the job's
# exit status is the probe's (1 when a line failed).
"$runcell" exec --slot 0 --timeout 60s --pids 64 --result-json "$result/summary.json" \
  --file "syscall_probe=$probe" -- /sandbox/syscall_probe
status=$?
if [ "$status" != 0 ]; then
  echo "# runcell exec exited $status; summary:"
  sed 's/^/# /' "$result/summary.json" 2>/dev/null
fi
exit "$status"
