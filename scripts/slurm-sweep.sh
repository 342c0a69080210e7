#!/usr/bin/env bash
# Runs a hetsim experiment spec as a Slurm job array: one array task per shard, then one merge job
# that waits for all of them (docs/EXPERIMENTS.md, "Beyond one machine").
#
#   bash scripts/slurm-sweep.sh SPEC OUT_DIR [SHARDS] [THREADS_PER_SHARD] [-- extra sbatch options]
#
# Example: bash scripts/slurm-sweep.sh experiments/gavel108-load.json /shared/out/g108 8 4 -- --partition=cpu
#
# Every shard writes into OUT_DIR itself (it must be on a file system all nodes share); shard I runs
# the points whose index mod SHARDS == I, skipping points already done, so a re-submitted array
# resumes. The merge job then writes OUT_DIR/results.csv over all points, byte-identical to a
# single-machine `hetsim sweep`. HETSIM (default: build/release/hetsim) must be reachable from the
# compute nodes; so must the spec's data files.
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,14p' "$0" >&2
  exit 2
fi
positional=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do positional+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift   # what remains goes to sbatch
spec=${positional[0]} out=${positional[1]} shards=${positional[2]:-4} threads=${positional[3]:-2}
hetsim=${HETSIM:-$(pwd)/build/release/hetsim}
[ -x "$hetsim" ] || { echo "slurm-sweep: $hetsim not found (build first or set HETSIM)" >&2; exit 2; }
# Fail here, before anything is queued, when the spec is bad (unknown key, missing file, policy).
"$hetsim" sweep "$spec" --out "$out" --dry-run
mkdir -p "$out/slurm"
array_id=$(sbatch --parsable "$@" \
  --job-name="hetsim-sweep" --array="0-$((shards - 1))" --cpus-per-task="$threads" \
  --output="$out/slurm/shard-%a.log" \
  --wrap="'$hetsim' sweep '$spec' --out '$out' --shard \$SLURM_ARRAY_TASK_ID/$shards --jobs $threads")
merge_id=$(sbatch --parsable "$@" \
  --job-name="hetsim-merge" --dependency="afterany:$array_id" --cpus-per-task=1 \
  --output="$out/slurm/merge.log" \
  --wrap="'$hetsim' merge '$spec' --out '$out'")
echo "submitted shards as array job $array_id and the merge as job $merge_id; results: $out/results.csv"
