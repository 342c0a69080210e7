#!/usr/bin/env bash
# Times the issue-7 performance target: a policy x 5-load x 3-seed sweep of a 1,000-job Gavel-style
# synthetic workload on gavel-108 (experiments/gavel108-load.json; fifo and srtf, the policies that
# exist so far), from scratch, on 2 threads. Prints wall time and peak RSS. Needs ../shared/data.
set -euo pipefail
cd "$(dirname "$0")/.."
B=./build/release/hetsim
spec=${1:-experiments/gavel108-load.json}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
/usr/bin/time -f "wall %e s, peak RSS %M KB" "$B" sweep "$spec" --out "$out" --jobs 2 --fresh
