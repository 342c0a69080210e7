#!/usr/bin/env bash
# Tests scripts/slurm-sweep.sh on a real Slurm: starts a one-node cluster on this machine (MUNGE,
# slurmctld, slurmd, all configured here in a temporary folder), runs tests/slurm/sweep.json as a
# 4-shard job array plus merge job, and compares the merged outputs byte for byte with a local
# `hetsim sweep` of the same spec (docs/EXPERIMENTS.md, "Beyond one machine").
#
#   bash scripts/slurm-test.sh      # HETSIM=/path/to/hetsim (default: build/release/hetsim)
#
# Checks: (1) the Slurm sweep's results.csv, failures.csv, points.csv and every file under points/
# equal the local sweep's; (2) submitting again resumes (every point skipped), keeps the first
# submission's logs and gives the same bytes; (3) a binary that starts here but not in the job
# (a shared library found only through LD_LIBRARY_PATH, submitted with --export=NONE) is caught by
# the compute-node check: exit 2, nothing submitted; (4) a HETSIM that is not executable: exit 2;
# (5) a check job that does not start within CHECK_TIMEOUT is cancelled: exit 2.
# Installs slurm-wlm and munge if missing (scripts/setup.sh --slurm). Runs as root (SlurmUser=root)
# on a machine without systemd: the daemons are plain background processes, stopped on exit.
# Exit 0 only when every check passed; otherwise what differed and the daemons' logs are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
wait_s=${SLURM_TEST_TIMEOUT:-120}   # the longest wait for the cluster or for one job
started=$SECONDS

say() { echo "slurm-test: $*"; }
absolute() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }

[ "$(id -u)" -eq 0 ] || { say "run as root (the test's slurmd runs jobs as root)"; exit 2; }
bash scripts/setup.sh --slurm
hetsim=$(absolute "${HETSIM:-$repo/build/release/hetsim}")
if [ ! -x "$hetsim" ]; then
  say "$hetsim not found: build it (bash scripts/test.sh, or cmake --preset release && cmake --build --preset release --target hetsim) or set HETSIM"
  exit 2
fi

tmp=$(mktemp -d /tmp/hetsim-slurm-test.XXXXXX)
chmod 755 "$tmp"   # munged wants every folder above its socket searchable by all
mkdir -p "$tmp/log" "$tmp/state" "$tmp/spool" "$tmp/run"
mkdir -m 700 "$tmp/munge"
pids=()
daemon_names=()

show_logs() {
  local f
  for f in "$tmp"/log/*; do
    [ -f "$f" ] || continue
    echo "----- $f (last 40 lines)"
    tail -n 40 "$f"
  done
}
cleanup() {
  local status=$? i pid
  if [ "${#pids[@]}" -gt 1 ]; then   # slurmctld is up: cancel whatever of ours is still queued
    scancel --quiet --user=root 2>/dev/null || true
  fi
  for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
    pid=${pids[i]}
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$pid" 2>/dev/null; then
      say "${daemon_names[i]} (pid $pid) did not stop on SIGTERM; killing it"
      kill -9 "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
fail() {
  say "FAIL: $*"
  show_logs
  exit 1
}
start_daemon() {   # start_daemon NAME COMMAND...: runs it in the background, its output in log/NAME.out
  local name=$1
  shift
  "$@" > "$tmp/log/$name.out" 2>&1 &
  pids+=("$!")
  daemon_names+=("$name")
}

# MUNGE with a key of its own and its own socket, so the machine's munged (if any) is not involved.
mungekey --create --keyfile="$tmp/munge/munge.key"
start_daemon munged munged --foreground --key-file="$tmp/munge/munge.key" --socket="$tmp/run/munge.socket" \
  --pid-file="$tmp/run/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/munged.seed"
for _ in $(seq 50); do [ -S "$tmp/run/munge.socket" ] && break; sleep 0.1; done
munge -n -S "$tmp/run/munge.socket" | unmunge -S "$tmp/run/munge.socket" > /dev/null ||
  fail "munged did not start (its socket $tmp/run/munge.socket does not answer)"

# Two free TCP ports for slurmctld and slurmd (another Slurm may use the default 6817/6818).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))')
host=$(hostname -s)
# The node as slurmd sees it: CPUs, sockets, cores, threads, RealMemory.
node_hw=$(slurmd -C | head -n 1 | sed 's/^NodeName=[^ ]* //')
export SLURM_CONF=$tmp/slurm.conf
cat > "$SLURM_CONF" <<EOF
# Written by scripts/slurm-test.sh: one node, one partition, everything under $tmp.
ClusterName=hetsimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$tmp/run/munge.socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/run/slurmctld.pid
SlurmdPidFile=$tmp/run/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
# Processes tracked through /proc, no task binding: no cgroup folders made outside $tmp.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# No slurmdbd: sacct has no data; scontrol show job remembers ended jobs for MinJobAge seconds.
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$tmp/log/jobcomp.log
MinJobAge=600
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
MailProg=/bin/true
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 $node_hw State=UNKNOWN
PartitionName=hetsimtest Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
start_daemon slurmctld slurmctld -D -f "$SLURM_CONF"
start_daemon slurmd slurmd -D -N "$host" -f "$SLURM_CONF"

deadline=$((SECONDS + wait_s))
until [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; do
  for i in "${!pids[@]}"; do
    kill -0 "${pids[i]}" 2>/dev/null || fail "${daemon_names[i]} exited while starting"
  done
  [ "$SECONDS" -lt "$deadline" ] || fail "node $host not idle after ${wait_s} s (sinfo: $(sinfo -h -o '%P %t %N' 2>&1))"
  sleep 0.5
done
say "one-node Slurm up: node $host idle in partition hetsimtest ($((SECONDS - started)) s since start)"

# job_lines ID: `scontrol show job -o` of a job (one line per array task).
job_lines() { scontrol show job -o "$1" 2>/dev/null || true; }
wait_job() {   # wait_job ID WHAT: until every task of the job has ended; fails on a timeout
  local id=$1 what=$2 lines deadline=$((SECONDS + wait_s))
  while :; do
    lines=$(job_lines "$id")
    if [ -n "$lines" ] && ! grep -Eq 'JobState=(PENDING|CONFIGURING|RUNNING|COMPLETING|REQUEUED|SUSPENDED)' <<<"$lines"; then
      return 0
    fi
    [ "$SECONDS" -lt "$deadline" ] || fail "$what (job $id) did not end within ${wait_s} s: $(squeue 2>&1)"
    sleep 0.5
  done
}
expect_completed() {   # expect_completed ID WHAT: every task COMPLETED with exit code 0:0
  local lines
  lines=$(job_lines "$1")
  if grep -v 'JobState=COMPLETED' <<<"$lines" | grep -q . || grep -v ' ExitCode=0:0 ' <<<"$lines" | grep -q .; then
    fail "$2 (job $1) did not complete cleanly: $(grep -o 'JobId=[0-9]* .*JobState=[A-Z_]*\|ExitCode=[0-9:]*' <<<"$lines" | tr '\n' ' ')"
  fi
}
run_sweep() {   # run_sweep OUTPUT_FILE: submits the spec as 4 shards; sets merge_id and array_id
  bash scripts/slurm-sweep.sh tests/slurm/sweep.json "$tmp/out-slurm" 4 1 -- --partition=hetsimtest \
    > "$1" 2>&1 || { cat "$1"; fail "slurm-sweep.sh exited non-zero"; }
  array_id=$(sed -n 's/.* as array job \([0-9]*\) and the merge as job .*/\1/p' "$1")
  merge_id=$(sed -n 's/.* and the merge as job \([0-9]*\) .*/\1/p' "$1")
  if [ -z "$array_id" ] || [ -z "$merge_id" ]; then cat "$1"; fail "no job ids in slurm-sweep.sh's output"; fi
  wait_job "$merge_id" "the merge"
  wait_job "$array_id" "the shard array"
  expect_completed "$array_id" "the shard array"
  expect_completed "$merge_id" "the merge"
}
compare_outputs() {   # compare_outputs WHAT: Slurm sweep vs local sweep, byte for byte
  local rel compared=0 differ=0 extra
  while IFS= read -r -d '' rel; do
    compared=$((compared + 1))
    if ! cmp -s "$tmp/out-local/$rel" "$tmp/out-slurm/$rel"; then
      differ=$((differ + 1))
      say "differs ($1): $rel"
      cmp "$tmp/out-local/$rel" "$tmp/out-slurm/$rel" 2>&1 || true
      diff "$tmp/out-local/$rel" "$tmp/out-slurm/$rel" 2>&1 | head -n 10 || true
    fi
  done < <(cd "$tmp/out-local" && find . -type f -printf '%P\0' | sort -z)
  # Files only the Slurm sweep wrote, other than its shard tables and logs.
  extra=$(comm -13 <(cd "$tmp/out-local" && find . -type f -printf '%P\n' | sort) \
    <(cd "$tmp/out-slurm" && find . -type f -printf '%P\n' | sort) | grep -Ev '^slurm/|\.shard-[0-9]+-of-4\.csv$' || true)
  [ -z "$extra" ] || { say "only in the Slurm sweep ($1): $extra"; differ=$((differ + 1)); }
  [ "$compared" -ge 13 ] || fail "only $compared files in the local sweep's output"
  [ "$differ" -eq 0 ] || fail "$differ of $compared files differ ($1)"
  say "$1: $compared files byte-identical to the local sweep (results.csv, failures.csv, points.csv, points/*/*)"
}

passed=0
# (1) A 4-shard sweep through slurm-sweep.sh against the same spec swept locally.
run_sweep "$tmp/submit-1.txt"
say "submission 1: slurm-sweep.sh printed:"
sed 's/^/    /' "$tmp/submit-1.txt"
first_logs=$(sed -n 's/^  logs: *\([^ ]*\)\/ .*/\1/p' "$tmp/submit-1.txt")
"$hetsim" sweep tests/slurm/sweep.json --out "$tmp/out-local" --jobs 2 -q
compare_outputs "4 Slurm shards + merge"
passed=$((passed + 1))

# (2) Submitting again: every point is skipped, the first submission's logs stay, same bytes.
run_sweep "$tmp/submit-2.txt"
second_logs=$(sed -n 's/^  logs: *\([^ ]*\)\/ .*/\1/p' "$tmp/submit-2.txt")
if [ -z "$first_logs" ] || [ -z "$second_logs" ] || [ "$first_logs" = "$second_logs" ]; then
  fail "the two submissions' log folders are not distinct: '$first_logs' and '$second_logs'"
fi
for i in 0 1 2 3; do
  [ -s "$first_logs/shard-$i.log" ] || fail "the first submission's $first_logs/shard-$i.log is gone"
  grep -q '3 already done, 0 run now' "$second_logs/shard-$i.log" ||
    fail "shard $i did not skip its done points on resubmission: $(cat "$second_logs/shard-$i.log")"
done
for f in "$first_logs/merge.log" "$second_logs/merge.log"; do [ -s "$f" ] || fail "$f is missing"; done
compare_outputs "resubmitted"
passed=$((passed + 1))

# (3) The compute-node check: a binary that needs LD_LIBRARY_PATH here, submitted with --export=NONE.
mkdir -p "$tmp/fake/lib"
printf 'int hetsim_test_dep(void) { return 0; }\n' > "$tmp/fake/dep.c"
cat > "$tmp/fake/main.c" <<'EOF'
#include <stdio.h>
int hetsim_test_dep(void);
int main(void) { puts("hetsim (fake for slurm-test.sh): spec is valid"); return hetsim_test_dep(); }
EOF
cc -shared -fPIC -o "$tmp/fake/lib/libhetsimtestdep.so" "$tmp/fake/dep.c"
cc -o "$tmp/fake/hetsim" "$tmp/fake/main.c" -L"$tmp/fake/lib" -lhetsimtestdep
LD_LIBRARY_PATH=$tmp/fake/lib "$tmp/fake/hetsim" > /dev/null || fail "the fake binary does not run here"
jobs_before=$(squeue -h -o %i | wc -l)
status=0
LD_LIBRARY_PATH=$tmp/fake/lib HETSIM=$tmp/fake/hetsim bash scripts/slurm-sweep.sh tests/slurm/sweep.json \
  "$tmp/out-fake" 4 1 -- --partition=hetsimtest --export=NONE > "$tmp/submit-fake.txt" 2>&1 || status=$?
say "a binary with a library missing on the node: slurm-sweep.sh exited $status and printed:"
sed 's/^/    /' "$tmp/submit-fake.txt"
[ "$status" -eq 2 ] || fail "expected exit 2 from the compute-node check, got $status"
grep -q "does not start on compute node $host" "$tmp/submit-fake.txt" || fail "the message does not name node $host"
grep -q "libhetsimtestdep.so" "$tmp/submit-fake.txt" || fail "the message does not show the loader's error"
[ "$(squeue -h -o %i | wc -l)" -eq "$jobs_before" ] || fail "jobs were queued after a failed check: $(squeue 2>&1)"
if ls "$tmp"/out-fake/slurm/*/shard.sh > /dev/null 2>&1; then fail "shard scripts were written after a failed check"; fi
passed=$((passed + 1))

# (4) HETSIM pointing at a file that is not executable: refused before anything reaches Slurm.
printf 'not a binary\n' > "$tmp/not-executable"
status=0
HETSIM=$tmp/not-executable bash scripts/slurm-sweep.sh tests/slurm/sweep.json "$tmp/out-nx" 4 1 \
  > "$tmp/submit-nx.txt" 2>&1 || status=$?
if [ "$status" -ne 2 ] || ! grep -q 'is not an executable file' "$tmp/submit-nx.txt"; then
  fail "a non-executable HETSIM: exit $status, $(cat "$tmp/submit-nx.txt")"
fi
say "a non-executable HETSIM: exit 2, $(cat "$tmp/submit-nx.txt")"
passed=$((passed + 1))

# (5) A check job that cannot start in time (held back by --begin): exit 2, the job cancelled.
status=0
CHECK_TIMEOUT=3 bash scripts/slurm-sweep.sh tests/slurm/sweep.json "$tmp/out-held" 4 1 \
  -- --partition=hetsimtest --begin=now+1hour > "$tmp/submit-held.txt" 2>&1 || status=$?
if [ "$status" -ne 2 ] || ! grep -q 'did not end within 3 s (state PENDING, reason BeginTime)' "$tmp/submit-held.txt"; then
  fail "a check job held back: exit $status, $(cat "$tmp/submit-held.txt")"
fi
[ "$(squeue -h -o %i | wc -l)" -eq "$jobs_before" ] || fail "the held check job was not cancelled: $(squeue 2>&1)"
say "a check job that does not start within CHECK_TIMEOUT: exit 2, $(tail -n 1 "$tmp/submit-held.txt")"
passed=$((passed + 1))

say "took $((SECONDS - started)) s"
echo "slurm-test: $passed passed, 0 failed"
