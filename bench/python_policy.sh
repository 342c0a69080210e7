#!/usr/bin/env bash
# Benchmark of a Python policy on hetsim's engine (issue 12, point 5): the least-attained-service
# rule written in Python with the numpy view (examples/python/las.py, loaded with --policy-file)
# against the same rule in C++ (`--policy las`, src/policy/las.cpp) on Gavel's 2,000-job MSR trace
# (gavel-108). Prints, per run, CPU seconds (user + sys, best of REPS, default 3) and peak RSS from
# GNU time; checks that jobs.csv is byte-identical; and splits the Python run's extra CPU into
#   start-up  the interpreter, numpy and the hetsim package (a run of the built-in 60-job default
#             workload with the Python policy minus the same run in C++)
#   per pass  in one process (hetsim.run, no start-up): (Python - C++) / scheduling passes, and of
#             that the CPU inside the policy's schedule() (time.process_time) and the rest: building
#             the view, calling into Python and reading the decision (the crossing).
# Needs the release build with Python (bash scripts/setup.sh; cmake --preset release; cmake --build
# --preset release), /usr/bin/time, and ../shared/data (or HETSIM_SHARED_DATA).
set -euo pipefail
cd "$(dirname "$0")/.."
reps="${REPS:-3}"
bin=./build/release/hetsim
py=/usr/bin/python3
export PYTHONPATH="$PWD/build/release/python"
data="${HETSIM_SHARED_DATA:-../shared/data}"
trace="$data/gavel/traces/msr/seed=0/ee9e8c.trace"
table="$data/gavel/simulation_throughputs.json"
for f in "$trace" "$table" "$bin" "$PYTHONPATH/hetsim/__init__.py"; do
  [ -e "$f" ] || { echo "python_policy: $f not found (build first; set HETSIM_SHARED_DATA for the data)" >&2; exit 2; }
done
work=build/bench/python-policy
mkdir -p "$work"
msr=(--cluster gavel-108 --trace "$trace" --throughputs "$table")

# best NAME ARGS...: runs `hetsim run ARGS -q --out work/NAME` REPS times; prints "cpu_s rss_kb" of the
# fastest run.
best() {
  local name="$1" best_cpu="" best_rss="" line cpu rss
  shift
  for _ in $(seq "$reps"); do
    line=$( { /usr/bin/time -f "%U %S %M" "$bin" run "$@" -q --out "$work/$name" >/dev/null; } 2>&1 | tail -1)
    cpu=$(awk '{printf "%.3f", $1 + $2}' <<<"$line")
    rss=$(awk '{print $3}' <<<"$line")
    if [ -z "$best_cpu" ] || awk -v a="$cpu" -v b="$best_cpu" 'BEGIN{exit !(a < b)}'; then best_cpu=$cpu; best_rss=$rss; fi
  done
  echo "$best_cpu $best_rss"
}

read -r cpp_cpu cpp_rss < <(best cpp "${msr[@]}" --policy las)
read -r py_cpu py_rss < <(best py "${msr[@]}" --policy-file examples/python/las.py)
read -r cpp0_cpu _ < <(best cpp0 --policy las)
read -r py0_cpu _ < <(best py0 --policy-file examples/python/las.py)
identical=no
cmp -s "$work/cpp/jobs.csv" "$work/py/jobs.csv" && identical=yes
# In one process (no start-up): CPU of the C++ and the Python run (best of REPS), the passes, and the
# CPU inside the policy's schedule() (time.process_time, the same clock).
read -r passes run_cpp_s run_py_s inside_s < <("$py" - "$trace" "$table" "$reps" <<'PYEOF'
import sys, time
sys.path.insert(0, "examples/python")
import hetsim, las
class Timed(las.LeastAttainedService):
    name = "timed-las"
    def schedule(self, view):
        t = time.process_time()
        d = super().schedule(view)
        Timed.inside += time.process_time() - t
        Timed.passes += 1
        return d
kw = dict(cluster="gavel-108", trace=sys.argv[1], throughputs=sys.argv[2])
best = {}
for _ in range(int(sys.argv[3])):
    for p in ("las", Timed):
        Timed.passes, Timed.inside = 0, 0.0
        t = time.process_time()
        hetsim.run(policy=p, **kw)
        cpu = time.process_time() - t
        key = "cpp" if p == "las" else "py"
        if key not in best or cpu < best[key][0]:
            best[key] = (cpu, Timed.passes, Timed.inside)
print(best["py"][1], best["cpp"][0], best["py"][0], best["py"][2])
PYEOF
)
awk -v c="$cpp_cpu" -v p="$py_cpu" -v cr="$cpp_rss" -v pr="$py_rss" -v c0="$cpp0_cpu" -v p0="$py0_cpu" \
    -v n="$passes" -v rc="$run_cpp_s" -v rp="$run_py_s" -v in_s="$inside_s" -v same="$identical" 'BEGIN {
  printf "%-34s %10s %12s\n", "run (MSR, 2,000 jobs, gavel-108)", "CPU s", "peak RSS MB"
  printf "%-34s %10.3f %12.1f\n", "las (C++)", c, cr / 1024
  printf "%-34s %10.3f %12.1f\n", "py-las (Python, numpy view)", p, pr / 1024
  printf "ratio Python / C++: %.2fx (target <= 3x); jobs.csv byte-identical: %s\n", p / c, same
  printf "start-up (interpreter, numpy, hetsim; 60-job default run, Python - C++): %.3f s\n", p0 - c0
  per = (rp - rc) / n
  printf "in-process: C++ %.3f s, Python %.3f s over %d passes: %.1f us per pass, of which %.1f us inside\n", rc, rp, n, per * 1e6, in_s / n * 1e6
  printf "schedule() (the rule in Python) and %.1f us crossing (view, call, decision)\n", per * 1e6 - in_s / n * 1e6
}'
