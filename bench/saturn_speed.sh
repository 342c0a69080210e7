#!/usr/bin/env bash
# Benchmark: the elastic policies on Sia's saturn workloads (issue 14; Jayaram Subramanya et al.,
# SOSP'23, github.com/siasosp23/artifacts sia-simulator/workloads/saturn) on sia-64, 60 s rounds:
# per workload and policy the CPU seconds (user + system) and peak RSS of `hetsim run`
# (/usr/bin/time -f), the mean JCT and GPU-hours per type from its summary.json. Target: every run
# under 10 s CPU. A run that exits non-zero shows as "failed (rc)" with its first error line
# below the table; the script goes on and exits 1 at the end.
#   POLICIES="pollux optimus tiresias" bash bench/saturn_speed.sh [EXTRA run arguments...]
# Environment: POLICIES (default "sia pollux optimus tiresias"); HETSIM_SHARED_DATA = the data
# folder (default ../shared/data beside the checkout; the workloads are its
# sia/workloads/saturn/workload-N.csv, as many as are there); HETSIM = the binary (default
# build/release/hetsim). Extra arguments go to every run (e.g. --param type_choice=largest).
# Needs a Release build and /usr/bin/time (scripts/setup.sh).
set -uo pipefail
cd "$(dirname "$0")/.."
bin=${HETSIM:-./build/release/hetsim}
data="${HETSIM_SHARED_DATA:-../shared/data}"
policies=${POLICIES:-sia pollux optimus tiresias}
[ -x "$bin" ] || { echo "bench: $bin not found: build first (bash scripts/run-default.sh)" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: /usr/bin/time missing (apt-get install time)" >&2; exit 2; }
dir="$data/sia/workloads/saturn"
mapfile -t workloads < <(ls "$dir"/workload-*.csv 2>/dev/null | sort -V)
[ ${#workloads[@]} -gt 0 ] || { echo "bench: no $dir/workload-*.csv (set HETSIM_SHARED_DATA)" >&2; exit 2; }
work=$(mktemp -d /tmp/hetsim-saturn-bench.XXXXXX)
trap 'rm -rf "$work"' EXIT

# Summary fields of one run: "jct_mean_s t4_h a100_h rtx_h" (GPU-hours per type, '-' if absent).
summary() {
  python3 - "$1" <<'EOF'
import json, sys
s = json.load(open(sys.argv[1]))
h = s.get("gpu_hours_by_type", {})
print("%.1f %s" % (s["jct_mean_s"], " ".join("%.1f" % h[k] if k in h else "-" for k in ("t4", "a100", "rtx2080ti"))))
EOF
}

printf '%-12s %-9s %8s %8s %12s %8s %8s %8s\n' workload policy cpu_s rss_mb jct_mean_s t4_h a100_h rtx_h
status=0
for wl in "${workloads[@]}"; do
  name=$(basename "$wl" .csv)
  for policy in $policies; do
    out="$work/$name-$policy"
    rc=0
    /usr/bin/time -f "%U %S %M" -o "$out.time" "$bin" run -q --cluster sia-64 --workload "$wl" --policy "$policy" \
      --interval 60 --out "$out" "$@" >/dev/null 2>"$out.err" || rc=$?
    if [ $rc -ne 0 ] || [ ! -f "$out/summary.json" ]; then
      printf '%-12s %-9s %s\n' "$name" "$policy" "failed ($rc)"
      echo "$name $policy: $(grep -v '^Command exited' "$out.err" | head -1)" >> "$work/failed"
      status=1
      continue
    fi
    read -r cpu rss < <(awk '{printf "%.2f %.1f", $1 + $2, $3 / 1024}' "$out.time")
    read -r jct t4 a100 rtx < <(summary "$out/summary.json")
    printf '%-12s %-9s %8s %8s %12s %8s %8s %8s\n' "$name" "$policy" "$cpu" "$rss" "$jct" "$t4" "$a100" "$rtx"
  done
done
if [ -s "$work/failed" ]; then
  echo "bench: failed runs:" >&2
  sed 's/^/  /' "$work/failed" >&2
fi
exit $status
