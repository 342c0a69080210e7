#!/usr/bin/env bash
# Experiment: the same Gavel workload (MSR trace ee9e8c, 2,000 jobs) under each placement policy,
# with Gavel's measured table and with the analytic model, on gavel-108 and gavel-108-2rack.
# Prints JCT statistics, utilisation and fragmentation per run (docs/EXPERIMENTS.md discusses them).
# Needs ../shared/data (or HETSIM_SHARED_DATA) and a Release build.
set -euo pipefail
cd "$(dirname "$0")/.."
data="${HETSIM_SHARED_DATA:-../shared/data}"
trace="$data/gavel/traces/msr/seed=0/ee9e8c.trace"
table="$data/gavel/simulation_throughputs.json"
[ -f "$trace" ] && [ -f "$table" ] || { echo "bench: Gavel data not found under $data" >&2; exit 2; }
bin=./build/release/hetsim
[ -x "$bin" ] || { echo "bench: build first (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
out=$(mktemp -d)
printf '%-16s %-9s %-5s %-15s %10s %10s %10s %6s %6s %6s\n' cluster model policy placement "JCT mean" "JCT p50" "JCT p95" util frag wall
for cluster in ${CLUSTERS:-gavel-108 gavel-108-2rack}; do
  for model in ${MODELS:-auto analytic}; do
    for policy in ${POLICIES:-fifo srtf}; do
      for placement in ${PLACEMENTS:-consolidate spread topology-aware random}; do
        /usr/bin/time -f "%e" -o "$out/time" "$bin" run --cluster "$cluster" --trace "$trace" --throughputs "$table" \
          --model "$model" --policy "$policy" --placement "$placement" -q --out "$out/run"
        python3 - "$out/run/summary.json" "$cluster" "$model" "$policy" "$placement" "$(cat "$out/time")" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
name = "gavel-table" if sys.argv[3] == "auto" else sys.argv[3]
print(f"{sys.argv[2]:<16} {name:<9} {sys.argv[4]:<5} {sys.argv[5]:<15} {s['jct_mean_s']:10.0f} {s['jct_p50_s']:10.0f} "
      f"{s['jct_p95_s']:10.0f} {s['utilization']:6.3f} {s['fragmentation']:6.3f} {float(sys.argv[6]):6.2f}")
PY
      done
    done
  done
done
rm -rf "$out"
