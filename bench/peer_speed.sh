#!/usr/bin/env bash
# CPU time and peak memory of hetsim against its peers' own Python simulators on the same inputs
# (issue 19's table), checking on every row that both print the same average JCT:
#  - Gavel (stanford-futuredata/gavel, scheduler/scripts/drivers/simulate_scheduler_with_trace.py):
#    the MSR trace ee9e8c reduced to the 1,627 jobs Gavel's table measures, 36:36:36 GPUs, 360 s
#    rounds, fifo and fifo_perf (hetsim: gavel-108, --mechanism gavel, fifo / fifo-perf,
#    `--model-param spread=consolidated`, Gavel's rate for jobs spread over servers).
#  - The Pollux simulator (petuum/adaptdl, branch osdi21-artifact, simulator/simulator.py): its
#    workloads under tiresias and optimus, 16 nodes x 4 GPUs, 60 s rounds (hetsim: pollux-64).
#    hetsim reproduces these within 3% (scripts/pollux_fidelity.py), not exactly: the table prints
#    the difference, and only Gavel's rows must match to 0.001%.
# Peer code is never committed or downloaded by this script: point it at checkouts.
#
# Usage: bash bench/peer_speed.sh
# Environment:
#   GAVEL_REPO   checkout of Gavel at c4fa40097339e9608ab71fd64c8bdea96a5e4a4c (git clone
#                https://github.com/stanford-futuredata/gavel). Needs Debian python3-numpy; its
#                cvxpy/grpc/matrix_completion/psutil/runtime.rpc imports are unused by fifo, so tiny
#                stand-in modules (written below, in a temporary folder) let them succeed.
#   POLLUX_REPO  checkout of adaptdl's osdi21-artifact branch (git clone -b osdi21-artifact
#                https://github.com/petuum/adaptdl), or its simulator/ folder. Needs python3-numpy,
#                python3-pandas, python3-scipy (Debian). Its autograd and pymoo have no Debian package:
#                where they do not import, this script writes stand-ins (in a temporary folder): an
#                autograd.grad by the complex step (exact to rounding on the analytic objective of
#                goodput.fit_perf_params; on 2026-12-04 tiresias and optimus on workload-1 printed the
#                published averages 2473.65 and 4087.0625 s with it) and a pymoo that only imports, so
#                the pollux policy's rows are skipped with a note.
#   POLLUX_ROWS  policy:workload list (default "tiresias:1 optimus:1 optimus:2 optimus:3 optimus:6").
#   HETSIM_REPEAT  hetsim runs per row, timed together and divided (default 10: its runs take
#                milliseconds, below /usr/bin/time's 10 ms resolution).
#   HETSIM_SHARED_DATA  the data folder (default ../shared/data beside the checkout).
#   HETSIM_BIN   the hetsim binary (default build/release/hetsim).
#   HETSIM_CACHE_DIR  hetsim's Delaunay triangulation cache (docs/models.md): on by default in
#                ~/.cache/hetsim, so the repeated runs of a Pollux row read the triangulations the
#                first stored; HETSIM_CACHE_DIR=off times Qhull's build in every run.
# Peers take minutes per row (Gavel MSR fifo about 265 s of CPU): rows run one at a time.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
data="${HETSIM_SHARED_DATA:-$root/../shared/data}"
hetsim="${HETSIM_BIN:-$root/build/release/hetsim}"
repeat=${HETSIM_REPEAT:-10}
[[ $repeat =~ ^[1-9][0-9]{0,3}$ ]] || { echo "peer_speed: HETSIM_REPEAT must be a whole number 1-9999, not '$repeat'" >&2; exit 2; }
[ -x "$hetsim" ] || { echo "peer_speed: build first (cmake --preset release && cmake --build build/release -j2)" >&2; exit 2; }
table="$data/gavel/simulation_throughputs.json"
[ -f "$table" ] || { echo "peer_speed: $table not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# CPU seconds (user + sys) and peak RSS MB of a command: "S MB" on stdout; its output goes to log.
cpu_of() {  # timefile, log, then the command
  local f=$1 log=$2; shift 2
  /usr/bin/time -f '%U %S %M' -o "$f" "$@" >"$log" 2>&1 || { echo "failed"; return 0; }
  awk '{printf "%.3f %.1f\n", $1 + $2, $3 / 1024}' "$f"
}

# hetsim run repeated $repeat times under one timer: "S_per_run MB JCT".
hetsim_row() {  # run arguments...
  local out="$work/hetsim-out"
  printf '%s\0' "$@" >"$work/args"
  cat >"$work/repeat.sh" <<'SH'
set -e
mapfile -d '' args <"$1"
for ((i = 0; i < $2; i++)); do "$3" run -q "${args[@]}" --out "$4"; done
SH
  read -r s mb < <(cpu_of "$work/hetsim.time" "$work/hetsim.log" bash "$work/repeat.sh" "$work/args" "$repeat" "$hetsim" "$out")
  local jct
  jct=$(sed -n 's/.*"jct_mean_s": \([0-9.]*\).*/\1/p' "$out/summary.json")
  awk -v s="$s" -v r="$repeat" -v mb="$mb" -v j="$jct" 'BEGIN{printf "%.4f %s %s\n", s / r, mb, j}'
}

row() {  # label, peer s, peer MB, peer JCT, hetsim s, hetsim MB, hetsim JCT, required tolerance (fraction)
  awk -v l="$1" -v ps="$2" -v pm="$3" -v pj="$4" -v hs="$5" -v hm="$6" -v hj="$7" -v tol="$8" 'BEGIN{
    d = pj > 0 ? (hj - pj) / pj : 0; ok = (d <= tol && d >= -tol) ? "same" : "DIFFERS";
    printf "%-40s | %9.2f %6.0f %13.3f | %9.4f %6.1f %13.3f | %+8.3f%% %-7s | %7.0fx\n",
      l, ps, pm, pj, hs, hm, hj, 100 * d, ok, ps / (hs > 0.0001 ? hs : 0.0001);
    exit (ok == "same" ? 0 : 1) }'
}

# Stand-ins for the Pollux simulator's two pip-only imports, written into folder $1 (none of the
# peer's code). autograd.grad: complex-step differentiation, d f/d x_i = Im f(x + i h e_i) / h with
# h = 1e-30 -- no subtraction, so exact to rounding for analytic functions (Squire and Trapp, SIAM
# Review 40(1), 1998), which the fitted objective is (log, sqrt, powers, np.select on real masks).
write_pollux_stubs() {
  local d=$1
  mkdir -p "$d/autograd"
  cat >"$d/autograd/__init__.py" <<'PY'
import numpy as _np
from . import numpy  # noqa: F401  (autograd.numpy is plain numpy here)


def grad(fun, argnum=0):
    def gradient(*args):
        x = _np.asarray(args[argnum], dtype=float)
        g = _np.empty_like(x)
        for i in range(x.size):
            z = x.astype(complex)
            z.flat[i] += 1e-30j
            call = list(args)
            call[argnum] = z
            g.flat[i] = _np.imag(fun(*call)) / 1e-30
        return g
    return gradient
PY
  echo 'from numpy import *  # noqa: F401,F403' >"$d/autograd/numpy.py"
  local m f
  for m in "" model algorithms operators operators/crossover util util/nds; do
    mkdir -p "$d/pymoo/$m"; : >"$d/pymoo/$m/__init__.py"
  done
  for f in model/crossover:Crossover model/mutation:Mutation model/problem:Problem model/repair:Repair \
           algorithms/nsga2:NSGA2 util/nds/non_dominated_sorting:NonDominatedSorting; do
    printf 'class %s:\n    def __init__(self, *args, **kwargs):\n        raise RuntimeError("pymoo stand-in")\n' \
      "${f#*:}" >"$d/pymoo/${f%%:*}.py"
  done
  printf 'def minimize(*args, **kwargs):\n    raise RuntimeError("pymoo stand-in")\n' >"$d/pymoo/optimize.py"
  printf 'def crossover_mask(*args, **kwargs):\n    raise RuntimeError("pymoo stand-in")\n' \
    >"$d/pymoo/operators/crossover/util.py"
}

printf '%-40s | %9s %6s %13s | %9s %6s %13s | %-17s | %8s\n' workload "peer s" "MB" "peer JCT s" \
  "hetsim s" "MB" "hetsim JCT s" "JCT difference" ratio
status=0

# --- Gavel ---
if [ -z "${GAVEL_REPO:-}" ]; then
  echo "(Gavel rows skipped: set GAVEL_REPO to a checkout of https://github.com/stanford-futuredata/gavel at" \
    "c4fa40097339e9608ab71fd64c8bdea96a5e4a4c; needs Debian python3-numpy)"
else
  stubs="$work/stubs"
  mkdir -p "$stubs/runtime/rpc"
  for m in cvxpy grpc matrix_completion psutil; do
    printf 'def __getattr__(name):\n    raise AttributeError(name)\n' >"$stubs/$m.py"
  done
  : >"$stubs/runtime/__init__.py"
  : >"$stubs/runtime/rpc/__init__.py"
  : >"$stubs/runtime/rpc/scheduler_client.py"
  : >"$stubs/runtime/rpc/scheduler_server.py"
  # Gavel's driver reads only the 10-field form (the MSR traces have 7 fields) and stops with a
  # KeyError on a (job type, GPU count) its table lacks (hetsim extrapolates those, docs/models.md):
  # keep only the jobs the table measures on all three GPU types, so both simulate the same jobs.
  /usr/bin/python3 - "$table" "$data/gavel/traces/msr/seed=0/ee9e8c.trace" >"$work/msr.trace" <<'PY'
import json, sys
table = json.load(open(sys.argv[1]))
measured = set(table["v100"]) & set(table["p100"]) & set(table["k80"])
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if str((f[0], int(f[6]))) in measured:
        print("\t".join([f[0], f[1], "", f[2], f[3], f[4], f[6], "1", "-1", f[5]]))
PY
  jobs=$(grep -c . "$work/msr.trace")
  for policy in fifo fifo_perf; do
    read -r ps pm < <(cd "$GAVEL_REPO/scheduler" && PYTHONPATH="$stubs:." cpu_of "$work/gavel.time" "$work/gavel.log" \
      /usr/bin/python3 scripts/drivers/simulate_scheduler_with_trace.py -t "$work/msr.trace" -p "$policy" -c 36:36:36 \
      --num_gpus_per_server 4:4:4 --seed 0 --time_per_iteration 360 --throughputs_file "$table")
    pj=$(sed -n 's/^Average job completion time: \([0-9.]*\) seconds.*/\1/p' "$work/gavel.log" | head -1)
    [ -n "$pj" ] || { echo "peer_speed: Gavel printed no average JCT ($policy); its log ends:" >&2; tail -5 "$work/gavel.log" >&2; status=1; continue; }
    read -r hs hm hj < <(hetsim_row --cluster gavel-108 --trace "$work/msr.trace" --throughputs "$table" \
      --model-param spread=consolidated --policy "${policy/_/-}" --mechanism gavel --interval 360 --seed 0)
    row "Gavel MSR $jobs jobs, $policy" "$ps" "$pm" "$pj" "$hs" "$hm" "$hj" 0.00001 || status=1
  done
fi

# --- Pollux simulator ---
pollux_sim=""
if [ -n "${POLLUX_REPO:-}" ]; then
  for d in "$POLLUX_REPO/simulator" "$POLLUX_REPO"; do [ -f "$d/simulator.py" ] && { pollux_sim=$d; break; }; done
  [ -n "$pollux_sim" ] || echo "(Pollux rows skipped: no simulator.py in $POLLUX_REPO or $POLLUX_REPO/simulator)"
fi
pollux_stubs=""
if [ -z "${POLLUX_REPO:-}" ]; then
  echo "(Pollux rows skipped: set POLLUX_REPO to a checkout of https://github.com/petuum/adaptdl branch" \
    "osdi21-artifact; needs python3-numpy, python3-pandas, python3-scipy)"
elif [ -n "$pollux_sim" ]; then
  if ! /usr/bin/python3 -c 'import autograd, pymoo' >/dev/null 2>&1; then
    pollux_stubs="$work/pollux-stubs"
    write_pollux_stubs "$pollux_stubs"
    echo "(Pollux simulator: autograd and/or pymoo are stand-ins written by this script: grad by the complex" \
      "step, pymoo import-only, so pollux-policy rows are skipped)"
  fi
  if ! (cd "$pollux_sim" && PYTHONPATH="$pollux_stubs" /usr/bin/python3 -c 'import simulator' >/dev/null 2>&1); then
    echo "(Pollux rows skipped: its simulator does not import here; install python3-numpy python3-pandas" \
      "python3-scipy)"
    pollux_sim=""
  fi
fi
if [ -n "$pollux_sim" ]; then
  interval=$(sed -n 's/.*"interval_s": \([0-9]*\).*/\1/p' "$root/experiments/pollux/reference.json")
  tolerance=$(sed -n 's/.*"tolerance": \([0-9.]*\).*/\1/p' "$root/experiments/pollux/reference.json")
  for spec in ${POLLUX_ROWS:-tiresias:1 optimus:1 optimus:2 optimus:3 optimus:6}; do
    policy=${spec%%:*} n=${spec##*:}
    wl="$data/pollux/workloads/workload-$n.csv"
    if [ -n "$pollux_stubs" ] && [ "$policy" = pollux ]; then
      echo "(row $spec skipped: the pollux policy needs the real pymoo)"; continue
    fi
    read -r ps pm < <(cd "$pollux_sim" && PYTHONPATH="$pollux_stubs" cpu_of "$work/pollux.time" "$work/pollux.log" /usr/bin/python3 simulator.py "$wl" \
      --policy "$policy" --interval "$interval")
    pj=$(sed -n 's/^Average JCT: \([0-9.]*\).*/\1/p' "$work/pollux.log" | tail -1)
    [ -n "$pj" ] || { echo "peer_speed: the Pollux simulator printed no average JCT ($spec); its log ends:" >&2; tail -5 "$work/pollux.log" >&2; status=1; continue; }
    read -r hs hm hj < <(hetsim_row --cluster pollux-64 --workload "$wl" --policy "$policy" --interval "$interval")
    row "Pollux workload-$n, $policy" "$ps" "$pm" "$pj" "$hs" "$hm" "$hj" "$tolerance" || status=1
  done
fi
exit $status
