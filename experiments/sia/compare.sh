#!/usr/bin/env bash
# Issue 14 item 5: sia, pollux, optimus, tiresias and gavel-maxmin (rigid) on Sia's saturn workloads
# on sia-64, 60 s rounds, one `hetsim compare` per workload; prints a markdown table of mean JCT,
# ratio to sia, GPU-hours and utilisation by GPU type (docs/EXPERIMENTS.md, "sia, pollux, optimus, tiresias and
# gavel-maxmin on the saturn workloads").
#   bash experiments/sia/compare.sh [WORKLOAD_DIR [OUT_DIR]]
# WORKLOAD_DIR defaults to ../shared/data/sia/workloads/saturn (workloads 1-5; Sia's artifact has 1-10
# in sia-simulator/workloads/saturn, the same format). Needs a release build (build/release/hetsim).
set -euo pipefail
cd "$(dirname "$0")/../.."
wl_dir=${1:-../shared/data/sia/workloads/saturn}
out=${2:-out/sia-compare}
bin=${HETSIM_BIN:-build/release/hetsim}
policies=sia,pollux,optimus,tiresias,gavel-maxmin
[ -x "$bin" ] || { echo "compare.sh: $bin not found: build first (bash scripts/test.sh)" >&2; exit 2; }
[ -d "$wl_dir" ] || { echo "compare.sh: workload folder $wl_dir not found (../shared/data absent?)" >&2; exit 2; }
mkdir -p "$out"
found=0
for n in 1 2 3 4 5 6 7 8 9 10; do
  wl="$wl_dir/workload-$n.csv"
  [ -f "$wl" ] || continue
  found=1
  "$bin" compare --cluster sia-64 --workload "$wl" --policies "$policies" --interval 60 \
    --out "$out/workload-$n" -q --log-level error
done
[ "$found" = 1 ] || { echo "compare.sh: no workload-N.csv in $wl_dir" >&2; exit 2; }
python3 - "$out" "$policies" <<'PY'
import json, os, sys
out, policies = sys.argv[1], sys.argv[2].split(",")
dirs = sorted((d for d in os.listdir(out) if d.startswith("workload-")), key=lambda d: int(d.split("-")[1]))
types = ["a100", "rtx2080ti", "t4"]
print("| workload | " + " | ".join(policies) + " |")
print("|---|" + "---|" * len(policies))
sums = {p: 0.0 for p in policies}
hours = {p: {t: 0.0 for t in types} for p in policies}
util = {p: {t: 0.0 for t in types} for p in policies}
for d in dirs:
    cells = []
    for p in policies:
        s = json.load(open(os.path.join(out, d, p, "summary.json")))
        jct = s["jct_s"]["mean"] if isinstance(s.get("jct_s"), dict) else s["jct_mean_s"]
        sums[p] += jct
        for t in types:
            hours[p][t] += s.get("gpu_hours_by_type", {}).get(t, 0.0)
            util[p][t] += s.get("utilization_by_type", {}).get(t, 0.0)
        cells.append(f"{jct:,.0f}")
    print(f"| {d.split('-')[1]} | " + " | ".join(cells) + " |")
k = len(dirs)
print("| mean | " + " | ".join(f"{sums[p] / k:,.0f}" for p in policies) + " |")
print("| ratio to sia | " + " | ".join(f"{sums[p] / sums['sia']:.2f}" for p in policies) + " |")
for t in types:
    print(f"| {t}: GPU-h / utilisation (mean) | " + " | ".join(f"{hours[p][t] / k:,.0f} / {100 * util[p][t] / k:.1f}%" for p in policies) + " |")
PY
