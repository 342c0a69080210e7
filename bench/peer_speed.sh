#!/usr/bin/env bash
# Wall time and peak memory of hetsim against Gavel's own Python simulator
# (stanford-futuredata/gavel, scheduler/scripts/drivers/simulate_scheduler_with_trace.py) on the
# same traces, cluster and throughput table, with the same policy (fifo) and 360 s rounds. hetsim
# runs with `--model-param spread=consolidated`, Gavel's rate for jobs spread over servers. Both
# print the average JCT, so the table also shows that they simulated the same thing.
#
# Usage: bash bench/peer_speed.sh [trace ...]
#   default traces: Gavel's physical-cluster max_min_fairness (96 jobs, 8:8:8 GPUs) and the
#   2,000-job MSR trace ee9e8c (36:36:36 GPUs).
# Environment: GAVEL_REPO = an existing checkout of Gavel (else it is cloned from GitHub at the
#   commit the fidelity references were made with); HETSIM_SHARED_DATA = the data folder.
# Gavel's LP policies need cvxpy and its runtime needs grpc; neither is used by fifo, so tiny
# stand-in modules (written below) only let its imports succeed. Needs numpy for /usr/bin/python3
# (python3-numpy, installed by scripts/setup.sh through python3-pandas).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${HETSIM_SHARED_DATA:-$root/../shared/data}"
hetsim="$root/build/release/hetsim"
gavel_commit=c4fa40097339e9608ab71fd64c8bdea96a5e4a4c
[ -x "$hetsim" ] || { cmake --preset release >/dev/null && cmake --build --preset release -j2 --target hetsim >/dev/null; }
table="$data/gavel/simulation_throughputs.json"
[ -f "$table" ] || { echo "peer_speed: $table not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
if [ -n "${GAVEL_REPO:-}" ]; then
  gavel="$GAVEL_REPO"
else
  gavel="$work/gavel"
  git clone -q https://github.com/stanford-futuredata/gavel "$gavel"
  git -C "$gavel" checkout -q "$gavel_commit"
fi
stubs="$work/stubs"
mkdir -p "$stubs/runtime/rpc"
for m in cvxpy grpc matrix_completion psutil; do
  printf 'def __getattr__(name):\n    raise AttributeError(name)\n' >"$stubs/$m.py"
done
: >"$stubs/runtime/__init__.py"
: >"$stubs/runtime/rpc/__init__.py"
: >"$stubs/runtime/rpc/scheduler_client.py"
: >"$stubs/runtime/rpc/scheduler_server.py"

if [ "$#" -gt 0 ]; then
  traces=("$@")
else
  traces=("$data/gavel/traces/physical_cluster/max_min_fairness.trace" "$data/gavel/traces/msr/seed=0/ee9e8c.trace")
fi

printf '%-22s %6s %9s | %10s %9s %14s | %10s %9s %14s | %8s\n' trace jobs cluster \
  "Gavel s" "Gavel MB" "Gavel JCT s" "hetsim s" "hetsim MB" "hetsim JCT s" speed-up
for trace in "${traces[@]}"; do
  name="$(basename "$trace" .trace)"
  jobs=$(grep -c . "$trace")
  fields=$(head -1 "$trace" | awk -F'\t' '{print NF}')
  # Gavel's driver reads only the 10-field form (the MSR traces have 7 fields) and stops with a
  # KeyError on a (job type, GPU count) its table lacks (hetsim extrapolates those, docs/models.md):
  # keep only the jobs the table measures on all three GPU types, so both simulate the same jobs.
  if [ "$fields" = 7 ]; then
    /usr/bin/python3 - "$table" "$trace" >"$work/$name.trace" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
measured = set(table["v100"]) & set(table["p100"]) & set(table["k80"])
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if str((f[0], int(f[6]))) in measured:
        print("\t".join([f[0], f[1], "", f[2], f[3], f[4], f[6], "1", "-1", f[5]]))
PY
    jobs=$(grep -c . "$work/$name.trace")
    spec=36:36:36 preset=gavel-108
  else
    cp "$trace" "$work/$name.trace"
    spec=8:8:8 preset=gavel-24
  fi
  (cd "$gavel/scheduler" && PYTHONPATH="$stubs:." /usr/bin/time -f '%e %M' -o "$work/gavel.time" \
    /usr/bin/python3 scripts/drivers/simulate_scheduler_with_trace.py -t "$work/$name.trace" -p fifo -c "$spec" \
    --num_gpus_per_server 4:4:4 --seed 0 --time_per_iteration 360 --throughputs_file "$table" >"$work/gavel.log" 2>&1)
  gavel_jct=$(sed -n 's/^Average job completion time: \([0-9.]*\) seconds.*/\1/p' "$work/gavel.log" | head -1)
  /usr/bin/time -f '%e %M' -o "$work/hetsim.time" "$hetsim" run --cluster "$preset" --trace "$work/$name.trace" \
    --throughputs "$table" --model-param spread=consolidated --policy fifo --mechanism gavel --interval 360 --seed 0 \
    -q --out "$work/out"
  hetsim_jct=$(sed -n 's/.*"jct_mean_s": \([0-9.]*\).*/\1/p' "$work/out/summary.json")
  read -r gs gk <"$work/gavel.time"
  read -r hs hk <"$work/hetsim.time"
  awk -v n="$name" -v j="$jobs" -v c="$spec" -v gs="$gs" -v gk="$gk" -v gj="$gavel_jct" -v hs="$hs" -v hk="$hk" -v hj="$hetsim_jct" \
    'BEGIN{printf "%-22s %6d %9s | %10.2f %9.0f %14.1f | %10.2f %9.0f %14.1f | %7.0fx\n", n, j, c, gs, gk/1024, gj, hs, hk/1024, hj, gs/(hs>0.005?hs:0.005)}'
done
