#!/usr/bin/env bash
# Benchmark: CPU time and peak RSS of the round-based policies of issue 19 against its targets:
# heet, afs and srsf on 10,000 generated jobs on heet-120, heet on the ITP trace cluster04
# (pollux-64 x 4), gavel-maxmin on 1,000 generated jobs on gavel-108, pollux on the Pollux
# simulator's workloads 1-8 (pollux-64, 60 s rounds).
#   bash bench/policy_speed.sh [BEFORE_BINARY]
# With BEFORE_BINARY (e.g. a copy of an older build) every workload also runs on it, the jobs.csv
# of both must be byte-identical (a speed-up must not change results), and both figures print.
# Environment: HETSIM_SHARED_DATA = the data folder (default ../shared/data beside the checkout);
# BENCH_MSR=1 adds the LP policies on the full MSR trace (a few minutes more);
# BENCH_TIMEOUT_S = seconds after which a run is stopped and reported as "> N" (default 120;
# every row ends within seconds today: the bound guards against a regression that hangs).
# Needs a Release build (scripts/run-default.sh builds one) and /usr/bin/time (scripts/setup.sh).
set -euo pipefail
before=${1:-}
# BEFORE_BINARY as given from the caller's folder, before the cd below.
case $before in ""|/*) ;; *) before=$PWD/$before ;; esac
cd "$(dirname "$0")/.."
bin=./build/release/hetsim
data="${HETSIM_SHARED_DATA:-../shared/data}"
limit_s=${BENCH_TIMEOUT_S:-120}
[[ $limit_s =~ ^[1-9][0-9]{0,5}$ ]] || { echo "bench: BENCH_TIMEOUT_S must be a whole number of seconds, not '$limit_s'" >&2; exit 2; }
[ -x "$bin" ] || { echo "bench: build first (bash scripts/run-default.sh)" >&2; exit 2; }
if [ -n "$before" ]; then
  [ -f "$before" ] && [ -x "$before" ] || { echo "bench: $before is not an executable file" >&2; exit 2; }
  version=$("$before" --version 2>&1) && [[ $version == hetsim* ]] ||
    { echo "bench: $before is not a working hetsim binary ('--version' printed '${version:0:200}')" >&2; exit 2; }
fi
table="$data/gavel/simulation_throughputs.json"
itp="$data/elasticflow-itp/raw-traces/cluster04.csv"
for f in "$table" "$itp"; do [ -f "$f" ] || { echo "bench: $f not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }; done
work=$(mktemp -d /tmp/hetsim-policy-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Prints "CPU_s RSS_MB" of one run, "> N wall" when it was stopped, or "failed"; outputs go to
# $work/$out.
measure() {  # binary, out, run arguments...
  local binary=$1 out=$2; shift 2
  local rc=0
  timeout "$limit_s" /usr/bin/time -f "%U %S %M" -o "$work/$out.time" "$binary" run -q "$@" --out "$work/$out" \
    >/dev/null 2>"$work/$out.err" || rc=$?
  case $rc in
    0) awk '{printf "%.2f %.1f", $1 + $2, $3 / 1024}' "$work/$out.time" ;;
    124) echo "> $limit_s wall" ;;
    *) echo "failed ($rc)"; sed 's/^/  /' "$work/$out.err" >&2; echo "$out" >> "$work/failed" ;;
  esac
}

row() {  # label, target CPU s, run arguments...
  local label=$1 target=$2; shift 2
  local after old=""
  after=$(measure "$bin" "after-$label" "$@")
  if [ -n "$before" ]; then
    old=$(measure "$before" "before-$label" "$@")
    if [ -f "$work/after-$label/jobs.csv" ] && [ -f "$work/before-$label/jobs.csv" ] &&
        ! cmp -s "$work/after-$label/jobs.csv" "$work/before-$label/jobs.csv"; then
      echo "bench: $label: jobs.csv differs between $before and $bin" >&2
      exit 1
    fi
  fi
  printf '%-36s %-18s %-18s  target < %s s CPU, < 100 MB\n' "$label" "${old:--}" "$after" "$target"
}

printf '%-36s %-18s %-18s\n' "workload" "before (s MB)" "after (s MB)"
row "heet, 10,000 jobs, heet-120" 5 --cluster heet-120 --generate 10000 --throughputs "$table" --policy heet
row "afs, 10,000 jobs, heet-120" 5 --cluster heet-120 --generate 10000 --throughputs "$table" --policy afs
row "srsf, 10,000 jobs, heet-120" 5 --cluster heet-120 --generate 10000 --throughputs "$table" --policy srsf
row "heet, ITP cluster04, pollux-64 x4" 5 --cluster pollux-64 --cluster-scale 4 --trace "$itp" --format itp --policy heet
row "gavel-maxmin, 1,000 jobs, gavel-108" 10 --cluster gavel-108 --generate 1000 --throughputs "$table" \
  --policy gavel-maxmin
# pollux on the Pollux simulator's workloads as scripts/pollux_fidelity.py runs them (issue 19: 0.3 s each).
for n in 1 2 3 4 5 6 7 8; do
  wl="$data/pollux/workloads/workload-$n.csv"
  [ -f "$wl" ] || { echo "bench: $wl not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }
  row "pollux, Pollux workload-$n, pollux-64" 0.3 --cluster pollux-64 --workload "$wl" --policy pollux --interval 60
done
# BENCH_MSR=1: the LP policies on the full 2,000-job MSR trace (issue 19: each under 10 s), with
# their default parameters (grouped LPs since issue 19; a BEFORE_BINARY older than that solves per job).
if [ "${BENCH_MSR:-0}" = 1 ]; then
  msr="$data/gavel/traces/msr/seed=0/ee9e8c.trace"
  for p in gavel-maxmin gavel-throughput gavel-ftf gavel-makespan; do
    # shellcheck disable=SC2086  # $p is a policy and its parameters
    row "$p, MSR 2,000 jobs" 10 --cluster gavel-108 --trace "$msr" --throughputs "$table" --policy $p
  done
fi
if [ -s "$work/failed" ]; then
  echo "bench: $(wc -l < "$work/failed") run(s) failed (their errors above): $(tr '\n' ' ' < "$work/failed")" >&2
  exit 1
fi
