#!/usr/bin/env bash
# ISORC'24 scaling experiment (docs/EXPERIMENTS.md, "ISORC'24: speed-up against nodes under PS,
# all-reduce and hybrid"): one ResNet-50 job grown over 1..16 mixed V100/P100/K80 nodes of
# gavel-108-2rack under ps, ring, hierarchical, auto and the hybrid ar,ps,ar, alone and with
# background 2-node ring jobs on the rack uplinks; then the figure.
#   usage: bash experiments/isorc/run.sh        (from anywhere; builds hetsim if it is missing)
#   env:   HETSIM=path/to/hetsim  PYTHON=python with matplotlib  DATA=path/to/shared/data  OUT=results dir  BACKGROUND=K  MAX_NODES=N
#          FIGURE=png path (default docs/figures/isorc_scaling.png)
# Without the shared data it uses experiments/isorc/job_types.json (hand-chosen step times, README).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${HETSIM:-$ROOT/build/release/hetsim}
D=${DATA:-${HETSIM_SHARED_DATA:-$ROOT/../shared/data}}
OUT=${OUT:-$HERE/results}
BACKGROUND=${BACKGROUND:-4}
MAX_NODES=${MAX_NODES:-16}
FIGURE=${FIGURE:-$ROOT/docs/figures/isorc_scaling.png}
# Debian's python3 has python3-matplotlib (scripts/setup.sh); a python3 earlier on PATH may not.
PY=${PYTHON:-$( [ -x /usr/bin/python3 ] && echo /usr/bin/python3 || echo python3 )}
if [ ! -x "$B" ]; then
  echo "building hetsim (cmake --preset release) ..." >&2
  (cd "$ROOT" && cmake --preset release >/dev/null && nice cmake --build build/release -j2 --target hetsim >/dev/null)
fi
TABLE=$D/gavel/simulation_throughputs.json
if [ -f "$TABLE" ]; then PROFILE=(--throughputs "$TABLE"); else
  echo "no $TABLE: using $HERE/job_types.json" >&2
  PROFILE=(--job-types "$HERE/job_types.json")
fi
mkdir -p "$OUT" "$(dirname "$FIGURE")"
# One run gives both settings: rows with background 0 (alone) and background $BACKGROUND.
"$B" scaling --cluster gavel-108-2rack "${PROFILE[@]}" --job-type "ResNet-50 (batch size 64)" \
  --max-nodes "$MAX_NODES" --nodes-order mixed --hybrid ar,ps,ar --background "$BACKGROUND" --out "$OUT" \
  | tee "$OUT/scaling.txt"
"$PY" "$ROOT/scripts/plot_scaling.py" "$OUT/scaling.csv" "$FIGURE" \
  --title "ResNet-50 (batch 64) on gavel-108-2rack, mixed V100/P100/K80 nodes, analytic model (rebalanced)"
echo "wrote $OUT/scaling.csv, $OUT/scaling.txt, $FIGURE"
