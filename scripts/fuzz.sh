#!/usr/bin/env bash
# Builds the libFuzzer harnesses (cmake --preset fuzz, build/fuzz) and runs each one for a budget.
#   scripts/fuzz.sh                       every harness, 20 s each (what .ci/run does)
#   scripts/fuzz.sh --seconds 3600        an hour each
#   scripts/fuzz.sh --runs 10000000 trace_native cluster_json   10M executions of two harnesses
#   scripts/fuzz.sh --fork 1 ...          one extra libFuzzer worker process (-fork=1)
#   scripts/fuzz.sh --jobs 1              one harness at a time (default: as many at once as cores,
#                                         each still gets its full budget; results print in order)
# Each harness works on build/fuzz/corpus/<target>, a copy of tests/fuzz/corpus/<target> that grows
# between runs (the committed seeds stay small). Prints executions, exec/s and the result per
# harness; exits 1 on any crash, leak, timeout or out-of-memory, keeping the input that caused it
# under build/fuzz/artifacts/ (the path is printed; replay it with `<harness> <file>`).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=20
runs=""
fork=""
jobs=$(nproc)
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --fork) fork="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2
      case "$jobs" in ""|*[!0-9]*|0) echo "fuzz.sh: --jobs needs a whole number of at least 1" >&2; exit 2 ;; esac ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
    *) targets+=("$1"); shift ;;
  esac
done

bash scripts/setup.sh
nice -n 10 cmake --preset fuzz >/dev/null
nice -n 10 cmake --build --preset fuzz -j2 >/dev/null

bin=build/fuzz/tests/fuzz
if [ ${#targets[@]} -eq 0 ]; then
  for f in tests/fuzz/fuzz_*.cpp; do
    name=$(basename "$f" .cpp)
    targets+=("${name#fuzz_}")
  done
fi

mkdir -p build/fuzz/artifacts build/fuzz/logs
# A hang (one input running longer than -timeout seconds) and a blow-up (more than -rss_limit_mb)
# fail like crashes; leaks are reported by LeakSanitizer at exit.
common=(-timeout=10 -rss_limit_mb=2048 -print_final_stats=1)
if [ -n "$runs" ]; then common+=(-runs="$runs"); else common+=(-max_total_time="$seconds"); fi
[ -n "$fork" ] && common+=(-fork="$fork")
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

for t in "${targets[@]}"; do
  if [ ! -x "$bin/fuzz_$t" ]; then
    echo "fuzz.sh: no harness fuzz_$t (tests/fuzz/fuzz_$t.cpp)" >&2
    exit 2
  fi
done

# One harness: runs it on its corpus and writes its table row to build/fuzz/logs/<t>.row, whose
# first word is 0 (passed) or 1 (failed). Rows are printed in target order once all have finished,
# so the table reads the same whatever order the parallel runs end in.
fuzz_one() {
  local t="$1" harness="$bin/fuzz_$1"
  local corpus=build/fuzz/corpus/$t log=build/fuzz/logs/$t.log start elapsed rc=0 execs rate
  local result=ok failed=0 artifact kind args
  mkdir -p "$corpus"
  [ -d "tests/fuzz/corpus/$t" ] && cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
  args=("${common[@]}" -artifact_prefix="build/fuzz/artifacts/$t-")
  [ -f "tests/fuzz/dict/$t.dict" ] && args+=(-dict="tests/fuzz/dict/$t.dict")
  log=build/fuzz/logs/$t.log
  start=$(date +%s)
  rc=0
  nice -n 15 "$harness" "${args[@]}" "$corpus" >"$log" 2>&1 || rc=$?
  elapsed=$(( $(date +%s) - start ))
  # -print_final_stats gives the totals; in fork mode the last status line ("#N ... exec/s: R") does.
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if [ -z "$execs" ]; then
    execs=$(grep -oE '^#[0-9]+' "$log" | tail -1 | tr -d '#' || true)
    rate=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -1 | cut -d' ' -f2 || true)
  fi
  result=ok
  if [ "$rc" -ne 0 ]; then
    failed=1
    artifact=$(grep -oE "Test unit written to [^ ]+" "$log" | tail -1 | awk '{print $NF}' || true)
    kind=$(grep -oE "ERROR: [A-Za-z]+: [a-z -]+|runtime error|ParseDictionaryFile: error" "$log" | head -1 || true)
    result="FAILED (${kind:-exit $rc}): ${artifact:-no artifact}; log $log"
  fi
  printf '%s %-22s %12s %9s %8s  %s\n' "$failed" "$t" "${execs:-?}" "${rate:-?}" "$elapsed" "$result" \
    >build/fuzz/logs/"$t".row
}

# libFuzzer runs one process per harness: running as many harnesses at once as there are cores
# keeps each one's time budget while the whole run takes 1/jobs of the time.
running=0
for t in "${targets[@]}"; do
  rm -f build/fuzz/logs/"$t".row
  fuzz_one "$t" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then wait -n || true; running=$((running - 1)); fi
done
wait || true

failed=0
printf '%-22s %12s %9s %8s  %s\n' target executions exec/s seconds result
for t in "${targets[@]}"; do
  row=build/fuzz/logs/"$t".row
  if [ ! -f "$row" ]; then echo "$t: the harness run ended without a result" >&2; failed=1; continue; fi
  [ "$(cut -d' ' -f1 "$row")" = 1 ] && failed=1
  cut -d' ' -f2- "$row"
done
exit "$failed"
