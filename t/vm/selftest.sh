#!/bin/bash
# selftest.sh - the t/vm plumbing test, run inside the guest by
# `run-vm --selftest MODE` (never by plain `make check`).  Mode: unified
# only.  It proves the guest is what the real suites need: cgroup2 alone at
# /sys/fs/cgroup with memory, pids and cpu available, the v2 files runcell's
# cgroup code opens, the kernel enforcing memory.max with an OOM kill that
# memory.events counts, and cgroup.kill emptying a cgroup.  MODE (from
# /payload/vm/env) also checks run-vm itself: "fail" adds one failing
# result, "hang" never finishes, so the host must kill the guest.
set -u
. /payload/vm/env 2> /dev/null || RCVM_SELFTEST=pass

n=0
fails=0
ok () {
  n=$((n + 1))
  if [ "$1" = 0 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fails=$((fails + 1)); fi
}

echo "1..14"
fstype=$(stat -f -c %T /sys/fs/cgroup)
ok "$([ "$fstype" = cgroup2fs ]; echo $?)" "/sys/fs/cgroup is cgroup2 ($fstype)"
v1=$(awk '$3 == "cgroup" { print $2 }' /proc/mounts | tr '\n' ' ')
ok "$([ -z "$v1" ]; echo $?)" "no cgroup v1 hierarchy mounted (${v1:-none})"
ctl=$(cat /sys/fs/cgroup/cgroup.controllers)
for c in memory pids cpu; do
  case " $ctl " in *" $c "*) r=0 ;; *) r=1 ;; esac
  ok $r "controller $c available at the root ($ctl)"
done

cg=/sys/fs/cgroup/rcvm-selftest
mkdir -p $cg/a
echo "+memory +pids +cpu" > /sys/fs/cgroup/cgroup.subtree_control
echo "+memory +pids +cpu" > $cg/cgroup.subtree_control
missing=
for f in memory.max memory.swap.max memory.oom.group memory.peak memory.events \
  memory.current pids.max cpu.stat cpu.weight cgroup.kill cgroup.events; do
  [ -e $cg/a/$f ] || missing="$missing $f"
done
ok "$([ -z "$missing" ]; echo $?)" "v2 files runcell uses exist in a child (missing:${missing:- none})"

# memory.max is enforced: a 64 MiB cgroup, python allocating 256 MiB.
echo 64M > $cg/a/memory.max
echo 0 > $cg/a/memory.swap.max
echo 1 > $cg/a/memory.oom.group
before=$(awk '$1 == "oom_kill" { print $2 }' $cg/a/memory.events)
sh -c "read -r self _ < /proc/self/stat; echo \$self > $cg/a/cgroup.procs;
       exec python3 -c 'b = bytearray(256 << 20); print(len(b))'" > /dev/null 2>&1
st=$?
after=$(awk '$1 == "oom_kill" { print $2 }' $cg/a/memory.events)
ok "$([ $st = 137 ]; echo $?)" "allocation beyond memory.max is SIGKILLed (exit $st)"
ok "$([ "$after" -gt "$before" ]; echo $?)" "memory.events oom_kill counts it ($before -> $after)"
peak=$(cat $cg/a/memory.peak)
ok "$([ "$peak" -le $((64 << 20)) ] && [ "$peak" -gt $((32 << 20)) ]; echo $?)" \
  "memory.peak is near the limit ($peak)"

# cgroup.kill empties a cgroup, double-forked daemons included.
sh -c "read -r self _ < /proc/self/stat; echo \$self > $cg/a/cgroup.procs;
       setsid sh -c 'sleep 1000 & sleep 1000' > /dev/null 2>&1 < /dev/null &"
sleep 1
pop=$(awk '$1 == "populated" { print $2 }' $cg/a/cgroup.events)
echo 1 > $cg/a/cgroup.kill
for _ in $(seq 50); do
  [ "$(awk '$1 == "populated" { print $2 }' $cg/a/cgroup.events)" = 0 ] && break
  sleep 0.1
done
pop2=$(awk '$1 == "populated" { print $2 }' $cg/a/cgroup.events)
ok "$([ "$pop" = 1 ] && [ "$pop2" = 0 ]; echo $?)" "cgroup.kill empties the cgroup (populated $pop -> $pop2)"
rmdir $cg/a $cg

# The trees are where the host has them, whatever those paths are (inside
# the checkout, as _build/ is, or anywhere else).
src=${RC_TOP_SRCDIR:-}
bld=${RC_TOP_BUILDDIR:-}
ok "$([ -n "$src" ] && [ -f "$src/configure.ac" ] && [ -x "$src/t/vm/run-vm" ]; echo $?)" \
  "source tree at its host path ${src:-unset}"
ok "$([ -n "$bld" ] && [ -f "$bld/Makefile" ] && grep -q "^abs_top_builddir = $bld\$" "$bld/Makefile"; echo $?)" \
  "configured build tree at its host path ${bld:-unset} (abs_top_builddir matches)"

# The guest has no network beyond lo.
ifs=$(ls /sys/class/net | tr '\n' ' ')
ok "$([ "$ifs" = "lo " ]; echo $?)" "only lo in the guest ($ifs)"

case "${RCVM_SELFTEST:-pass}" in
  fail) ok 1 "deliberate failure (run-vm --selftest fail must exit non-zero)" ;;
  hang) echo "# hanging on purpose (run-vm --selftest hang must time out)"; sleep 100000 ;;
  *) ok 0 "plumbing mode ${RCVM_SELFTEST:-pass}" ;;
esac
[ $fails = 0 ]
