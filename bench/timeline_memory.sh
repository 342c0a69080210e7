#!/usr/bin/env bash
# Benchmark: what --timeline costs. Runs the same fifo replay of N synthetic jobs (default 300,000,
# Poisson arrivals every 5 s on average, on philly-2048) without and with --timeline and prints
# CPU time, peak RSS and the ratio with/without. The timeline is streamed while the run goes, so
# its memory is the open allocations only (issue 18's bound: at most 1.5x the run without it).
#   bash bench/timeline_memory.sh [N]
# Needs a Release build (scripts/run-default.sh builds one) and /usr/bin/time (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-300000}
bin=./build/release/hetsim
[ -x "$bin" ] || { echo "bench: build first (bash scripts/run-default.sh)" >&2; exit 2; }
work=$(mktemp -d /tmp/hetsim-timeline-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
python3 bench/gen_native.py poisson "$n" 5 "$work/trace.csv"
measure() {  # label, extra args...
  local label=$1; shift
  /usr/bin/time -f "%U %S %M" -o "$work/time" "$bin" run -q --cluster philly-2048 --trace "$work/trace.csv" \
    --policy fifo --out "$work/$label" "$@"
  read -r user sys rss < "$work/time"
  echo "$label $(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}') $rss"
}
without=$(measure without)
with=$(measure with --timeline "$work/with/timeline.json")
cmp -s "$work/without/jobs.csv" "$work/with/jobs.csv" || { echo "bench: jobs.csv differs with --timeline" >&2; exit 1; }
read -r _ cpu0 rss0 <<< "$without"
read -r _ cpu1 rss1 <<< "$with"
size=$(du -m "$work/with/timeline.json" | cut -f1)
printf '%d jobs, fifo, philly-2048\n' "$n"
printf '  without --timeline  CPU %7.2f s  peak RSS %7.1f MB\n' "$cpu0" "$(awk -v k="$rss0" 'BEGIN{print k/1024}')"
printf '  with --timeline     CPU %7.2f s  peak RSS %7.1f MB  (timeline.json %d MB)\n' "$cpu1" \
  "$(awk -v k="$rss1" 'BEGIN{print k/1024}')" "$size"
printf '  ratio with/without: CPU %.2fx, peak RSS %.2fx\n' "$(awk -v a="$cpu1" -v b="$cpu0" 'BEGIN{print a/b}')" \
  "$(awk -v a="$rss1" -v b="$rss0" 'BEGIN{print a/b}')"
