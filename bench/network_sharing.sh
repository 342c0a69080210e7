#!/usr/bin/env bash
# Cost of the shared network (issue 16): the 2,000-job Gavel MSR trace (ee9e8c) on gavel-108-2rack
# (4:1 oversubscribed uplinks) with --model analytic, --network alone vs --network shared, per
# placement. Prints CPU seconds (user + sys), peak RSS and mean JCT per run and the shared/alone
# CPU ratio (the target is at most 3x). Deterministic runs; only the timings vary.
#   usage: bash bench/network_sharing.sh   env: PLACEMENTS, POLICY (default srtf), REPEAT (runs per
#   row, the least CPU time is shown; default 5)
# Needs ../shared/data (or HETSIM_SHARED_DATA), GNU time (/usr/bin/time, Debian package `time`,
# installed by scripts/setup.sh) and a Release build (built here when missing).
set -euo pipefail
cd "$(dirname "$0")/.."
data="${HETSIM_SHARED_DATA:-../shared/data}"
trace="$data/gavel/traces/msr/seed=0/ee9e8c.trace"
table="$data/gavel/simulation_throughputs.json"
[ -f "$trace" ] && [ -f "$table" ] || { echo "bench: Gavel data not found under $data" >&2; exit 2; }
bin=./build/release/hetsim
if [ ! -x "$bin" ]; then
  bash scripts/setup.sh
  cmake --preset release >/dev/null && cmake --build --preset release -j2 --target hetsim >/dev/null
fi
policy="${POLICY:-srtf}"
repeat="${REPEAT:-5}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '%-15s %-7s %9s %8s %12s %7s\n' placement network "CPU s" "RSS MB" "JCT mean s" ratio
for placement in ${PLACEMENTS:-consolidate topology-aware network-aware}; do
  alone_cpu=""
  for network in alone shared; do
    cpu=""
    for _ in $(seq "$repeat"); do  # the least CPU time of `repeat` identical runs
      /usr/bin/time -f "%U %S %M" -o "$out/time" "$bin" run --cluster gavel-108-2rack --trace "$trace" \
        --throughputs "$table" --model analytic --policy "$policy" --placement "$placement" --network "$network" \
        -q --out "$out/run"
      read -r user sys rss_kb <"$out/time"
      cpu=$(python3 -c "c = $user + $sys; p = '$cpu'; print(f'{min(c, float(p)) if p else c:.2f}')")
    done
    jct=$(python3 -c "import json; print(f\"{json.load(open('$out/run/summary.json'))['jct_mean_s']:.0f}\")")
    if [ "$network" = alone ]; then alone_cpu=$cpu; ratio="-"; else ratio=$(python3 -c "print(f'{$cpu / max($alone_cpu, 0.01):.2f}x')"); fi
    printf '%-15s %-7s %9s %8d %12s %7s\n' "$placement" "$network" "$cpu" $((rss_kb / 1024)) "$jct" "$ratio"
  done
done
