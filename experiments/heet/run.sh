#!/usr/bin/env bash
# Heet evaluation (docs/EXPERIMENTS.md): testbed scale (heet-12, prototype trace and profiles) and
# simulation scale (heet-120, Philly-derived workloads at 3 arrival rates x 3 seeds), heet vs srsf
# vs afs (+ gavel-maxmin when registered), heet under oracle profiles and under collaborative
# filtering from 10/25/50% profiled cells. Writes results/results.csv, results/table.md and SVG plots.
#   usage: bash experiments/heet/run.sh        (from the repository root, after building)
#   env:   HETSIM=path/to/hetsim  DATA=path/to/shared/data  OUT=results dir
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${HETSIM:-$ROOT/build/release/hetsim}
D=${DATA:-$ROOT/../shared/data}
OUT=${OUT:-$HERE/results}
PROFILES=$D/heet-prototype/profiles.json
RATES="60 120 240"      # jobs per hour
SEEDS="1 2 3"
JOBS=480
FRACTIONS="0.10 0.25 0.50"
[ -x "$B" ] || { echo "build hetsim first (cmake --preset release && cmake --build --preset release)" >&2; exit 2; }
POLICIES="heet srsf afs"
if "$B" list policies 2>/dev/null | grep -qx 'gavel-maxmin'; then POLICIES="$POLICIES gavel-maxmin"; fi
mkdir -p "$OUT/runs" "$OUT/traces"
CSV=$OUT/results.csv
echo "scale,rate_per_h,seed,policy,profiling,jct_mean_s,makespan_s,completed,jobs" > "$CSV"

run() {  # scale rate seed policy profiling(oracle|fraction) trace [extra args...]
  local scale=$1 rate=$2 seed=$3 policy=$4 prof=$5 trace=$6; shift 6
  local dir="$OUT/runs/$scale-r$rate-s$seed-$policy-$prof"
  # 120 s rounds for every policy (heet/srsf/afs default to it; gavel-maxmin would use 360 s).
  local args=(--throughputs "$PROFILES" --policy "$policy" --seed "$seed" --interval 120 --out "$dir" -q "$@")
  [ "$prof" = oracle ] || args+=(--profiling cf --profiled-fraction "$prof")
  "$B" run --trace "$trace" "${args[@]}" 2> "$dir.log" || { echo "run failed: $dir (see $dir.log)" >&2; exit 1; }
  python3 - "$dir/summary.json" "$scale" "$rate" "$seed" "$policy" "$prof" >> "$CSV" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(",".join(sys.argv[2:7] + [f"{s['jct_mean_s']:.3f}", f"{s['makespan_s']:.3f}", str(s['completed']), str(s['jobs_read'])]))
PY
}

# Testbed scale: the prototype's 18-job trace on its 12-GPU cluster (arrival rounds of 120 s).
for s in 0 1 2; do for p in $POLICIES; do
  run testbed 0 "$s" "$p" oracle "$D/heet-prototype/trace.dat" --cluster heet-12 --format heet
done; done
for f in $FRACTIONS; do for s in 0 1 2; do
  run testbed 0 "$s" heet "$f" "$D/heet-prototype/trace.dat" --cluster heet-12 --format heet
done; done

# Simulation scale.
for r in $RATES; do for s in $SEEDS; do
  t="$OUT/traces/philly-r$r-s$s.csv"
  python3 "$HERE/make_workload.py" "$D/pollux/traces/philly.csv" "$PROFILES" "$r" "$JOBS" "$s" "$t"
  for p in $POLICIES; do run sim "$r" "$s" "$p" oracle "$t" --cluster heet-120; done
  for f in $FRACTIONS; do run sim "$r" "$s" heet "$f" "$t" --cluster heet-120; done
done; done

python3 "$HERE/report.py" "$CSV" "$OUT"
echo "wrote $OUT/table.md, $OUT/*.svg, $CSV"
