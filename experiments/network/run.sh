#!/usr/bin/env bash
# Placement under rack oversubscription, network alone vs shared (docs/EXPERIMENTS.md, "Placement
# under a shared, oversubscribed network"): runs the sweep experiments/network/oversubscription.json
# (5 traces x 3 oversubscriptions x 4 placements x 2 networks x 2 policies = 240 runs of 2,000 jobs,
# about 20-30 s on 2 cores; resumable: finished points are kept) and prints the tables of mean JCT.
#   usage: bash experiments/network/run.sh        (from anywhere; builds hetsim when missing)
#   env:   HETSIM=path/to/hetsim  OUT=output folder (default out/network-oversubscription)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
B=${HETSIM:-$ROOT/build/release/hetsim}
OUT=${OUT:-$ROOT/out/network-oversubscription}
if [ ! -x "$B" ]; then
  bash "$ROOT/scripts/setup.sh"
  (cd "$ROOT" && cmake --preset release >/dev/null && cmake --build --preset release -j2 --target hetsim >/dev/null)
fi
"$B" sweep "$HERE/oversubscription.json" --out "$OUT" -q
python3 "$HERE/table.py" "$OUT/results.csv"
