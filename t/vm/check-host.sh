#!/bin/bash
# check-host.sh - `runcell --check-host` inside the t/vm guest, as TAP.
# Mode: unified only (run by `make check-vm`, never by plain `make check`).
# The host check must see the guest for what it is: a pure cgroup v2 host
# with the memory, pids and cpu controllers, and nothing missing.
set -u
runcell=${RC_TOP_BUILDDIR:-.}/runcell

echo "1..4"
if [ ! -x "$runcell" ]; then
  for i in 1 2 3 4; do echo "not ok $i - $runcell not built"; done
  exit 1
fi
# The languages of the checkout, as every other test runs them (the
# default /usr/local/share/runcell/langs is an installed runcell's).
export RUN_LANGS_DIR=${RUN_LANGS_DIR:-${RC_TOP_SRCDIR:-$(dirname "$0")/../..}/langs}
out=$("$runcell" --check-host 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/# /'
fails=0
check () {
  if [ "$2" = 0 ]; then echo "ok $1 - $3"; else echo "not ok $1 - $3"; fails=$((fails + 1)); fi
}
check 1 "$rc" "runcell --check-host exits 0 (exit $rc)"
echo "$out" | grep -Eq '^ok +cgroup mode: unified'
check 2 $? "reports cgroup mode unified"
missing=
for c in memory pids cpu; do
  echo "$out" | grep -Eq "^ok .*controller.*\\b$c\\b" || missing="$missing $c"
done
check 3 "$([ -z "$missing" ]; echo $?)" "reports the memory, pids and cpu controllers (missing:${missing:- none})"
echo "$out" | grep -Eq '^MISSING'
check 4 "$([ $? != 0 ]; echo $?)" "nothing reported missing"
[ $fails = 0 ]
