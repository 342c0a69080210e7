#!/usr/bin/env bash
# Deadlines met on the ElasticFlow traces (docs/EXPERIMENTS.md, "Deadlines: the ElasticFlow
# traces"): runs the sweeps experiments/deadlines/elasticflow-traces.json (8 traces x 4 policies)
# and elasticflow-traces-gavel.json (gavel-maxmin on the 5 traces where it finishes in minutes),
# resumable (finished points are kept), and prints the table of deadlines met.
#   usage: bash experiments/deadlines/run.sh      (from anywhere; builds hetsim when missing)
#   env:   HETSIM=path/to/hetsim  OUT=output folder (default out/deadlines-elasticflow; gavel-maxmin's
#          points go to OUT-gavel)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${HETSIM:-$ROOT/build/release/hetsim}
OUT=${OUT:-$ROOT/out/deadlines-elasticflow}
if [ ! -x "$B" ]; then
  bash "$ROOT/scripts/setup.sh"
  (cd "$ROOT" && cmake --preset release >/dev/null && cmake --build --preset release -j2 --target hetsim >/dev/null)
fi
# Exit code 3 (some jobs rejected at admission: elasticflow's admission control, and jobs asking
# for more GPUs of one type than sia-64 has) is an outcome here, not a failure.
"$B" sweep "$HERE/elasticflow-traces.json" --out "$OUT" --jobs 2 -q || [ $? -eq 3 ]
"$B" sweep "$HERE/elasticflow-traces-gavel.json" --out "$OUT-gavel" --jobs 2 -q || [ $? -eq 3 ]
python3 "$HERE/table.py" "$OUT/results.csv" "$OUT-gavel/results.csv"
