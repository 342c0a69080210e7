#!/usr/bin/env bash
# Benchmark of how a run's cost grows with the backlog (issue 11, point 5). Prints CPU seconds
# (user + sys) and peak RSS per run:
#   burst    N Gavel-typed jobs all submitted at t=0 on the 16-GPU `default` preset (v100 + k80)
#            with Gavel's throughput table, N = 10k, 20k, 40k, 80k
#   philly   the full Philly trace (82,247 jobs) on philly-2048 and on pollux-64
#   1M       1,000,000 Poisson-arrival jobs on philly-2048 --cluster-scale 5 (10,240 GPUs)
# each under fifo, srtf and tiresias. A run over TIMEOUT_S seconds of wall time (default 60; on a
# loaded machine wall time exceeds CPU time) is killed and shown as "timeout". ONLY=<regex> keeps the rows whose name matches (e.g. ONLY='burst.*fifo').
# Needs: cmake + the build dependencies (scripts/setup.sh), python3, GNU time (/usr/bin/time,
# Debian package `time`, in scripts/setup.sh) and coreutils `timeout`; the Philly trace from
# ../shared/data (or HETSIM_SHARED_DATA). Traces are generated once, deterministically (fixed
# seeds, bench/gen_native.py), into build/bench/; nothing here is committed.
set -euo pipefail
cd "$(dirname "$0")/.."
timeout_s="${TIMEOUT_S:-60}"
only="${ONLY:-.}"
bin=./build/release/hetsim
if [ ! -x "$bin" ]; then
  bash scripts/setup.sh
  cmake --preset release >/dev/null
  cmake --build --preset release -j2
fi
[ -x /usr/bin/time ] || bash scripts/setup.sh
data="${HETSIM_SHARED_DATA:-../shared/data}"
philly="$data/pollux/traces/philly.csv"
table="$data/gavel/simulation_throughputs.json"
for f in "$philly" "$table"; do
  [ -f "$f" ] || { echo "scaling: $f not found (set HETSIM_SHARED_DATA)" >&2; exit 2; }
done
work=build/bench
mkdir -p "$work"

# gen NAME ARGS...: the trace build/bench/NAME.csv, written once.
gen() {
  local file="$work/$1.csv"
  shift
  [ -s "$file" ] || python3 bench/gen_native.py "$@" "$file.tmp"
  [ -s "$file" ] || mv "$file.tmp" "$file"
  echo "$file"
}

# measure NAME ARGS...: one hetsim run, one table row.
measure() {
  local name="$1"
  shift
  [[ "$name" =~ $only ]] || return 0
  local stats="$work/time.$$" rc=0
  /usr/bin/time -f "%U %S %M" -o "$stats" timeout "$timeout_s" "$bin" run "$@" -q --out "$work/out/$name" \
    >/dev/null 2>"$work/stderr.$$" || rc=$?
  # Exit code 3 = outputs written, some jobs rejected (e.g. Philly's 128-GPU jobs on pollux-64).
  if [ "$rc" -eq 3 ]; then rc=0; fi
  if [ "$rc" -eq 124 ]; then
    printf '%-28s %10s %10s\n' "$name" "timeout" "-"
  elif [ "$rc" -ne 0 ]; then
    printf '%-28s %10s %10s\n' "$name" "error $rc" "-"
    sed 's/^/    /' "$work/stderr.$$" >&2
  else
    read -r user sys rss_kb < <(tail -n 1 "$stats")
    printf '%-28s %10.2f %10.1f\n' "$name" "$(awk -v u="$user" -v s="$sys" 'BEGIN{print u+s}')" \
      "$(awk -v k="$rss_kb" 'BEGIN{print k/1024}')"
  fi
  rm -f "$stats" "$work/stderr.$$"
}

policies="${POLICIES:-fifo srtf tiresias}"
printf '%-28s %10s %10s   (timeout %s s per run)\n' "run" "CPU s" "RSS MB" "$timeout_s"
for n in 10000 20000 40000 80000; do
  trace=$(gen "burst-$n" burst "$n" "$table")
  for p in $policies; do
    measure "burst-$((n / 1000))k-$p" --cluster default --trace "$trace" --throughputs "$table" --policy "$p"
  done
done
for cluster in philly-2048 pollux-64; do
  for p in $policies; do measure "philly-$cluster-$p" --cluster "$cluster" --trace "$philly" --policy "$p"; done
done
# 10,240 GPUs; 1.8 GPUs x 3,642 s per job on average, so a 0.9 s mean gap loads the cluster ~70%.
trace=$(gen "poisson-1m" poisson 1000000 0.9)
for p in $policies; do
  measure "1m-philly-2048x5-$p" --cluster philly-2048 --cluster-scale 5 --trace "$trace" --policy "$p"
done
