#!/usr/bin/env bash
# t/fuzz/run.sh - the fuzz step of CI, as a TAP test (fuzz/README.md).
#
# 1. Configures and builds the libFuzzer targets in a build directory of
#    their own (RC_FUZZ_BUILD_DIR, default <build>/fuzz-build; quickstart
#    passes _build-fuzz/): CC=clang --enable-fuzzers, ASan and UBSan.
# 2. Checks that it would see each kind of failure, on a target that is
#    wrong on purpose (t/fuzz/canary_fuzz.c): a heap overflow, a leak,
#    undefined behaviour, a broken invariant; and passes a clean run.
# 3. Runs every target of FUZZ_TARGETS for RC_FUZZ_SECONDS (60) on a copy
#    of fuzz/corpus/<target>/ (the committed corpus is never written), with
#    fuzz/dict/<target>.dict as its dictionary when there is one,
#    RC_FUZZ_JOBS (the CPU count) at a time: one test point per target,
#    failed by any crash, leak, timeout, sanitizer report or broken
#    invariant, with the log's tail and the crashing input's path.  A
#    target without a committed corpus yet starts from an empty one.
#
# Without clang or libFuzzer every point is a skip that says what to
# install, except under RC_NO_SKIP=1 (CI), where it is a failure.
set -u

SRC=${RC_TOP_SRCDIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${RC_TOP_BUILDDIR:-$PWD}
FUZZ_BUILD=${RC_FUZZ_BUILD_DIR:-$BUILD/fuzz-build}
FUZZ_SECONDS=${RC_FUZZ_SECONDS:-60}
NPROC=$(nproc 2>/dev/null || echo 2)
JOBS=${RC_FUZZ_JOBS:-$NPROC}
RUNS=$FUZZ_BUILD/fuzz-runs
CANARIES="overflow leak ub invariant"

n=0
failed=0
ok () { n=$((n + 1)); echo "ok $n - $*"; }
not_ok () { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $*"; }
diag () { sed 's/^/# /'; }

# The targets, as fuzz/Makefile.inc lists them (the build's own list).
targets_of () {
  sed -n '/^FUZZ_TARGETS *=/,/[^\\]$/p' "$SRC/fuzz/Makefile.inc" \
    | sed 's/^FUZZ_TARGETS *=//; s/\\$//' | tr -s ' \t' '\n\n' | sed '/^$/d'
}
TARGETS=$(targets_of)
n_targets=$(echo "$TARGETS" | wc -w)
# Canaries (4 + the clean run), the listing check, one per target.
echo "1..$((n_targets + 6))"

skip_all () {
  local why=$1 i
  for ((i = 0; i < n_targets + 6; i++)); do
    if [ "${RC_NO_SKIP:-0}" = 1 ]; then
      not_ok "fuzz step: $why (RC_NO_SKIP=1)"
    else
      n=$((n + 1)); echo "ok $n # SKIP $why"
    fi
  done
  exit $((failed > 0))
}

# ---------------------------------------------------------------- build

command -v clang >/dev/null 2>&1 \
  || skip_all "no clang: apt-get install clang libclang-rt-14-dev (./quickstart test installs them)"

build () {
  local stamp=$FUZZ_BUILD/.fuzz-configure-args args="CC=clang --enable-fuzzers"
  if [ ! -f "$FUZZ_BUILD/Makefile" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$args" ] \
     || [ "$SRC/configure" -nt "$FUZZ_BUILD/Makefile" ]; then
    # New flags do not rebuild the objects made with the old ones (a
    # library without -fno-sanitize-recover would let UBSan reports
    # pass): a reconfigured directory starts clean.
    if [ -f "$FUZZ_BUILD/Makefile" ]; then make -C "$FUZZ_BUILD" clean || return 1; fi
    (cd "$FUZZ_BUILD" && CC=clang "$SRC/configure" -q --enable-fuzzers) || return 1
    printf '%s' "$args" > "$stamp"
  fi
  make -C "$FUZZ_BUILD" -j"$NPROC" fuzzers t/fuzz/canary_fuzz
}
t0=$SECONDS
mkdir -p "$FUZZ_BUILD"
LOG=$FUZZ_BUILD/fuzz-build.log
if ! build > "$LOG" 2>&1; then
  tail -n 30 "$LOG" | diag
  grep -q 'needs clang with libFuzzer' "$LOG" \
    && skip_all "no libFuzzer runtime: apt-get install libclang-rt-14-dev"
  for ((i = 0; i < n_targets + 6; i++)); do not_ok "fuzz build failed (log: $LOG)"; done
  exit 1
fi
echo "# built in $FUZZ_BUILD in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- one run

# verdict LOG RC: prints why the run failed, nothing when it passed.  A
# pass is exit 0, libFuzzer's closing "Done N runs" line and no report.
verdict () {
  local log=$1 rc=$2 why
  why=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|broken invariant|SUMMARY: |==[0-9]+== ?ERROR' "$log")
  if [ -n "$why" ]; then
    echo "$why"
  elif [ "$rc" != 0 ]; then
    echo "exit $rc"
  elif ! grep -q '^Done [0-9]* runs' "$log"; then
    echo "no closing 'Done N runs' line"
  fi
}

# run_target BINARY NAME CORPUS SECONDS [ENV...]: one campaign in
# $RUNS/NAME (corpus copy, log, crash inputs); leaves $RUNS/NAME/rc.
run_target () {
  local bin=$1 name=$2 corpus=$3 secs=$4 dir=$RUNS/$2 rc=0 dict=()
  shift 4
  if [ -f "$SRC/fuzz/dict/$name.dict" ]; then dict=(-dict="$SRC/fuzz/dict/$name.dict"); fi
  rm -rf "$dir"
  mkdir -p "$dir/corpus"
  if [ -n "$corpus" ]; then cp -R "$corpus/." "$dir/corpus/"; fi
  (cd "$dir" && env "$@" UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
     ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
     "$bin" -max_total_time="$secs" -timeout=25 -rss_limit_mb=2560 -print_final_stats=1 \
     "${dict[@]}" -artifact_prefix="$dir/" corpus > "$dir/log" 2>&1) || rc=$?
  echo "$rc" > "$dir/rc"
}

# ---------------------------------------------------------------- canaries

canary=$FUZZ_BUILD/t/fuzz/canary_fuzz
for mode in $CANARIES none; do
  run_target "$canary" "canary-$mode" "" 5 FUZZ_CANARY="$mode" &
done
wait
for mode in $CANARIES; do
  dir=$RUNS/canary-$mode
  why=$(verdict "$dir/log" "$(cat "$dir/rc")")
  if [ -n "$why" ]; then
    ok "the fuzz step fails a target with a fault ($mode): $why"
  else
    not_ok "the fuzz step did not notice a target with a fault ($mode)"
    tail -n 20 "$dir/log" | diag
  fi
done
why=$(verdict "$RUNS/canary-none/log" "$(cat "$RUNS/canary-none/rc")")
if [ -z "$why" ]; then
  ok "the fuzz step passes a clean target"
else
  not_ok "the fuzz step failed a clean target: $why"
  tail -n 20 "$RUNS/canary-none/log" | diag
fi

# Every fuzz/*_fuzz.c is a target CI runs.
unlisted=
for f in "$SRC"/fuzz/*_fuzz.c; do
  t=$(basename "$f" _fuzz.c)
  echo "$TARGETS" | grep -qx "$t" || unlisted="$unlisted $t"
done
if [ -z "$unlisted" ]; then
  ok "every fuzz/*_fuzz.c is listed in FUZZ_TARGETS"
else
  not_ok "fuzz/*_fuzz.c not listed in FUZZ_TARGETS (fuzz/Makefile.inc):$unlisted"
fi

# ---------------------------------------------------------------- targets

t0=$SECONDS
running=0
for t in $TARGETS; do
  corpus=$SRC/fuzz/corpus/$t
  [ -d "$corpus" ] || corpus=
  if [ "$running" -ge "$JOBS" ]; then
    wait -n
    running=$((running - 1))
  fi
  run_target "$FUZZ_BUILD/fuzz/${t}_fuzz" "$t" "$corpus" "$FUZZ_SECONDS" &
  running=$((running + 1))
done
wait
echo "# targets ran for $((SECONDS - t0)) s, $JOBS at a time"

for t in $TARGETS; do
  dir=$RUNS/$t
  note=
  if [ ! -d "$SRC/fuzz/corpus/$t" ]; then
    note=" (no fuzz/corpus/$t/ yet: started empty; fuzz/README.md, 'A new target')"
  fi
  why=$(verdict "$dir/log" "$(cat "$dir/rc" 2>/dev/null || echo missing)")
  if [ -z "$why" ]; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
    cov=$(grep -E '^#[0-9]+' "$dir/log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+')
    ok "$t: $runs runs in ${FUZZ_SECONDS} s ($speed exec/s), $cov$note"
  else
    not_ok "$t: $why"
    tail -n 40 "$dir/log" | diag
    for a in "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*; do
      [ -e "$a" ] && echo "# input: $a (reproduce: $FUZZ_BUILD/fuzz/${t}_fuzz $a)"
    done
  fi
done
exit $((failed > 0))
