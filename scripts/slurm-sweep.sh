#!/usr/bin/env bash
# Runs a hetsim experiment spec as a Slurm job array: one array task per shard, then one merge job
# that waits for all of them (docs/EXPERIMENTS.md, "Beyond one machine").
#
#   bash scripts/slurm-sweep.sh SPEC OUT_DIR [SHARDS] [THREADS_PER_SHARD] [-- extra sbatch options]
#   bash scripts/slurm-sweep.sh -h     # this text
#
# Example: bash scripts/slurm-sweep.sh experiments/gavel108-load.json /shared/out/g108 8 4 -- --partition=cpu
#
# Every shard writes into OUT_DIR itself (it must be on a file system all nodes share); shard I runs
# the points whose index mod SHARDS == I, skipping points already done, so a re-submitted array
# resumes. The merge job then writes OUT_DIR/results.csv over all points, byte-identical to a
# single-machine `hetsim sweep`. HETSIM (default: build/release/hetsim of this repository) must be
# reachable from the compute nodes; so must the spec's data files.
#
# Before submitting, the spec is checked here (`hetsim sweep --dry-run`) and a one-task job with
# the same sbatch options runs `hetsim --version` on a compute node; if that fails (binary not on
# the node, a shared library missing there), nothing is submitted and the exit code is 2.
# CHECK_TIMEOUT=S (default 300) bounds the wait for that job; CHECK_TIMEOUT=0 skips it.
# Each submission keeps its own logs and job scripts in OUT_DIR/slurm/<date>-<time>[-N]/.
set -euo pipefail

# usage [STATUS]: the header comment above; to stdout for -h/--help (exit 0), else to stderr.
usage() {
  local status=${1:-2} fd=2
  [ "$status" -ne 0 ] || fd=1
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&"$fd"
  exit "$status"
}
die() { echo "slurm-sweep: $*" >&2; exit 2; }
absolute() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

case ${1:-} in -h|--help) usage 0 ;; esac
[ $# -ge 2 ] || usage
positional=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do positional+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift   # what remains goes to sbatch
if [ ${#positional[@]} -lt 2 ] || [ ${#positional[@]} -gt 4 ]; then usage; fi
[ -n "${positional[0]}" ] || die "SPEC is empty: give the experiment spec's path"
[ -n "${positional[1]}" ] || die "OUT_DIR is empty: give the folder the shards write into"
spec=$(absolute "${positional[0]}")
out=$(absolute "${positional[1]}")
# Left out, SHARDS and THREADS_PER_SHARD take their defaults; given empty, they are refused below.
shards=${positional[2]-4}
threads=${positional[3]-2}
# Bounds keep bash's arithmetic far from overflow and catch typos; Slurm's own limits
# (MaxArraySize, a node's CPUs) are checked by sbatch.
max_shards=100000 max_threads=4096 max_check_timeout_s=86400
positive_at_most() {   # positive_at_most NAME VALUE MAX
  [[ $2 =~ ^[1-9][0-9]{0,8}$ ]] && [ "$2" -le "$3" ] ||
    die "$1 must be a whole number from 1 to $3, not '$2'"
}
positive_at_most SHARDS "$shards" "$max_shards"
positive_at_most THREADS_PER_SHARD "$threads" "$max_threads"
check_timeout=${CHECK_TIMEOUT:-300}
[[ $check_timeout =~ ^[0-9]{1,9}$ ]] && [ "$check_timeout" -le "$max_check_timeout_s" ] ||
  die "CHECK_TIMEOUT must be a number of seconds from 0 to $max_check_timeout_s, not '$check_timeout'"
repo=$(cd "$(dirname "$0")/.." && pwd)
[ -n "${HETSIM-unset}" ] || die "HETSIM is set but empty: unset it or give the hetsim binary's path"
hetsim=$(absolute "${HETSIM:-$repo/build/release/hetsim}")
[ -f "$hetsim" ] && [ -x "$hetsim" ] ||
  die "$hetsim is not an executable file (build first, or set HETSIM to the hetsim binary)"
version=$("$hetsim" --version 2>&1) && [[ $version == hetsim* ]] ||
  die "$hetsim is not a working hetsim binary: '$hetsim --version' printed '${version:0:200}'"
command -v sbatch >/dev/null || die "sbatch not found: run this on a Slurm submit host"

# Fail here, before anything is queued, when the spec is bad (unknown key, missing file, policy).
# hetsim has printed its own error on stderr; this line says who stopped and that nothing was queued.
dry_status=0
points=$("$hetsim" sweep "$spec" --out "$out" --dry-run) || dry_status=$?
[ "$dry_status" -eq 0 ] ||
  die "'hetsim sweep --dry-run' rejected $spec (exit $dry_status, its message above); nothing was submitted"
point_count=$(sed -n 's/.* is valid: \([0-9]*\) points\{0,1\}$/\1/p' <<<"$points" | tail -n 1)
if [ -n "$point_count" ] && [ "$shards" -gt "$point_count" ]; then
  die "SHARDS ($shards) is more than the spec's $point_count points: some array tasks would run nothing"
fi

# This submission's folder: never one an earlier submission wrote.
mkdir -p "$out/slurm"
stamp=$(date +%Y%m%d-%H%M%S)
logs=$out/slurm/$stamp
n=1
until mkdir "$logs" 2>/dev/null; do
  [ -e "$logs" ] || die "cannot create $logs"
  n=$((n + 1))
  logs=$out/slurm/$stamp-$n
done
printf '%s\n' "$points" > "$logs/points.txt"
verdict=$(tail -n 1 "$logs/points.txt")   # "spec NAME is valid: N points"
echo "slurm-sweep: ${verdict:-spec checked} (list: $logs/points.txt)" >&2

# job_field ID FIELD: a field of `scontrol show job` (empty once Slurm has forgotten the job).
job_field() {
  { scontrol show job -o "$1" 2>/dev/null || true; } | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1
}
# job_state ID: the job's state, from scontrol or, after Slurm has forgotten it, from sacct.
job_state() {
  local state
  state=$(job_field "$1" JobState)
  if [ -z "$state" ] && command -v sacct >/dev/null; then
    state=$({ sacct -n -X -P -j "$1" -o State 2>/dev/null || true; } | head -n 1 | cut -d' ' -f1)
  fi
  printf '%s\n' "$state"
}

# Does the binary start on a compute node of the partition the user asked for?
if [ "$check_timeout" -gt 0 ]; then
  {
    echo '#!/usr/bin/env bash'
    echo '# slurm-sweep.sh: does the binary start on this compute node?'
    printf 'hetsim=%q\n' "$hetsim"
    cat <<'EOF'
echo "node: $(hostname)"
"$hetsim" --version
status=$?
echo "exit: $status"
exit "$status"
EOF
  } > "$logs/check.sh"
  check_status=0
  check_id=$(sbatch --parsable --time=00:05:00 "$@" --job-name=hetsim-check \
    --ntasks=1 --cpus-per-task=1 --output="$logs/check.log" "$logs/check.sh") || check_status=$?
  check_id=${check_id%%;*}
  [ "$check_status" -eq 0 ] && [ -n "$check_id" ] ||
    die "sbatch refused the compute-node check job (exit $check_status, its message above: the sbatch options" \
      "after -- apply to every job); nothing was submitted"
  echo "slurm-sweep: checking that $hetsim starts on a compute node (job $check_id, up to ${check_timeout} s)" >&2
  deadline=$((SECONDS + check_timeout))
  state=""
  while :; do
    state=$(job_state "$check_id")
    case $state in
      ""|PENDING|CONFIGURING|RUNNING|COMPLETING|REQUEUED|RESIZING|SUSPENDED|STAGE_OUT) ;;
      *) break ;;
    esac
    if [ "$SECONDS" -ge "$deadline" ]; then
      reason=$(job_field "$check_id" Reason)
      scancel "$check_id" 2>/dev/null || true
      die "the compute-node check (job $check_id) did not end within ${check_timeout} s" \
        "(state ${state:-unknown}${reason:+, reason $reason}); it was cancelled and nothing was submitted." \
        "If the cluster is busy, retry with CHECK_TIMEOUT=1800 (seconds), or skip the check with CHECK_TIMEOUT=0."
    fi
    sleep 2
  done
  node=$(job_field "$check_id" NodeList)
  exit_code=$(job_field "$check_id" ExitCode)
  # The log is written on the node; on a shared file system it shows up here within seconds.
  for _ in 1 2 3 4 5; do [ -s "$logs/check.log" ] && break; sleep 1; done
  if [ -z "$node" ] && [ -s "$logs/check.log" ]; then
    node=$(sed -n 's/^node: //p' "$logs/check.log" | head -n 1)
  fi
  if [ "$state" != COMPLETED ]; then
    {
      echo "slurm-sweep: $hetsim does not start on compute node ${node:-unknown}:"
      echo "  the check job $check_id ($hetsim --version) ended $state${exit_code:+, exit code $exit_code}."
      if [ -s "$logs/check.log" ]; then
        echo "  Its output ($logs/check.log):"
        sed 's/^/    /' "$logs/check.log"
      else
        echo "  Its log $logs/check.log did not appear here: is $out on a file system the compute nodes share?"
      fi
      echo "  The binary and the shared libraries it needs must be there on the compute nodes (check with"
      echo "  'srun ${*:+$* }ldd $hetsim'); HETSIM=/path/to/hetsim picks another binary. Nothing was submitted."
    } >&2
    exit 2
  fi
  if ! grep -q '^exit: 0$' "$logs/check.log" 2>/dev/null; then
    echo "slurm-sweep: warning: the check job $check_id ran on ${node:-unknown} but its log $logs/check.log" \
      "is not visible here; the shards write into $out, which must be shared with the compute nodes" >&2
  fi
fi

{
  echo '#!/usr/bin/env bash'
  echo '# slurm-sweep.sh: one shard of the sweep (array task I runs shard I)'
  printf 'hetsim=%q spec=%q out=%q shards=%d threads=%d\n' "$hetsim" "$spec" "$out" "$shards" "$threads"
  cat <<'EOF'
exec "$hetsim" sweep "$spec" --out "$out" --shard "$SLURM_ARRAY_TASK_ID/$shards" --jobs "$threads"
EOF
} > "$logs/shard.sh"
{
  echo '#!/usr/bin/env bash'
  echo '# slurm-sweep.sh: merge the shards once all of them have ended'
  printf 'hetsim=%q spec=%q out=%q\n' "$hetsim" "$spec" "$out"
  cat <<'EOF'
exec "$hetsim" merge "$spec" --out "$out"
EOF
} > "$logs/merge.sh"
array_status=0
array_id=$(sbatch --parsable "$@" \
  --job-name=hetsim-sweep --array="0-$((shards - 1))" --cpus-per-task="$threads" \
  --output="$logs/shard-%a.log" "$logs/shard.sh") || array_status=$?
array_id=${array_id%%;*}
[ "$array_status" -eq 0 ] && [ -n "$array_id" ] ||
  die "sbatch refused the shard array (exit $array_status, its message above); nothing was submitted"
merge_status=0
merge_id=$(sbatch --parsable "$@" \
  --job-name=hetsim-merge --dependency="afterany:$array_id" --cpus-per-task=1 \
  --output="$logs/merge.log" "$logs/merge.sh") || merge_status=$?
merge_id=${merge_id%%;*}
if [ "$merge_status" -ne 0 ] || [ -z "$merge_id" ]; then
  {
    echo "slurm-sweep: the shards were submitted as array job $array_id, but submitting the merge job failed"
    echo "  (sbatch exit $merge_status, its message above). The shards run and write into $out;"
    echo "  once they have ended (squeue -j $array_id), merge by hand:"
    printf '    %q merge %q --out %q\n' "$hetsim" "$spec" "$out"
    echo "  or cancel them: scancel $array_id"
  } >&2
  exit 2
fi

resubmit=(bash "$(absolute "$0")" "$spec" "$out" "$shards" "$threads")
if [ $# -gt 0 ]; then resubmit+=(-- "$@"); fi
resubmit_line=$(printf '%q ' "${resubmit[@]}")
if [ -n "${HETSIM:-}" ]; then resubmit_line="HETSIM=$(printf '%q' "$hetsim") $resubmit_line"; fi
last=$((shards - 1))
check_note=""
if [ "$check_timeout" -gt 0 ]; then check_note=", check.log"; fi
{
  echo "slurm-sweep: submitted $shards shards as array job $array_id and the merge as job $merge_id" \
    "(it starts when every shard has ended)"
  echo "  watch:   squeue -j $array_id,$merge_id"
  echo "  logs:    $logs/ (shard-0.log .. shard-$last.log, merge.log$check_note; job scripts *.sh)"
  echo "  results: $out/results.csv, written by job $merge_id; failures.csv lists points that failed or did not run"
  echo "  merged?  sacct -j $merge_id -X -o JobID,JobName,State,ExitCode  (COMPLETED 0:0 = every point merged;"
  echo "           FAILED 4:0 = some points failed or did not run, see failures.csv and $logs/merge.log;"
  echo "           without accounting: scontrol show job $merge_id, within a few minutes of its end)"
  echo "  resume:  ${resubmit_line% }"
  echo "           (points already done are skipped; that submission's logs go to a new folder in $out/slurm/)"
} | tee "$logs/submitted.txt"
