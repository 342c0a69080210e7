#!/usr/bin/env bash
# Benchmark: replay all 82,247 Philly jobs on philly-2048 under fifo; prints wall time and peak RSS.
# Needs ../shared/data (or HETSIM_SHARED_DATA) and a Release build (scripts/run-default.sh builds one).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${HETSIM_SHARED_DATA:-../shared/data}"
trace="$data/pollux/traces/philly.csv"
[ -f "$trace" ] || { echo "bench: $trace not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }
bin=./build/release/hetsim
[ -x "$bin" ] || { echo "bench: build first (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
for policy in ${POLICIES:-fifo srtf}; do
  /usr/bin/time -f "%e %M" -o /tmp/hetsim-bench.$$ "$bin" run --cluster philly-2048 --trace "$trace" \
    --policy "$policy" -q --out "/tmp/hetsim-bench-$policy"
  read -r wall rss < /tmp/hetsim-bench.$$
  jobs=$(python3 -c "import json;s=json.load(open('/tmp/hetsim-bench-$policy/summary.json'));print(s['completed'],'/',s['jobs_read'])")
  printf 'philly-2048 %-6s completed %s  wall %6.2f s  peak RSS %6.1f MB\n' "$policy" "$jobs" "$wall" "$(awk -v k="$rss" 'BEGIN{print k/1024}')"
done
rm -f /tmp/hetsim-bench.$$
