#!/usr/bin/env bash
# Installs the Debian packages hetsim needs, only those missing. Idempotent; silent when all are
# present. Run as root (or with sudo available) on Debian 12.
#
#   bash scripts/setup.sh           # what building and testing hetsim needs
#   bash scripts/setup.sh --slurm   # that, plus Slurm and MUNGE for scripts/slurm-test.sh
set -euo pipefail
slurm=0
for arg in "$@"; do
  case $arg in
    --slurm) slurm=1 ;;
    *) echo "setup: unknown option $arg (only --slurm)" >&2; exit 2 ;;
  esac
done
packages=(
  build-essential cmake          # compiler and build
  graphviz                       # `dot` to render `hetsim topology --dot` graphs
  libboost-graph-dev             # cluster topology graph (Boost.Graph)
  nlohmann-json3-dev             # JSON specs, tables and outputs
  libcli11-dev                   # command line
  libfmt-dev                     # formatting
  catch2                         # tests (Catch2 v2)
  libeigen3-dev                  # least squares, tensor completion
  libglpk-dev                    # LP/ILP policies (GLPK)
  libltdl-dev                    # GLPK's static archive needs libltdl's (the CLI links GLPK statically)
  coinor-libclp-dev pkg-config   # the LP policies' --param solver=clp back end (COIN-OR Clp)
  libqhull-dev                   # Delaunay interpolation of unmeasured placements (Qhull, as scipy)
  python3-matplotlib python3-pandas  # scripts/plot.py, the Python module's results, examples
  pybind11-dev python3-dev       # the `hetsim` Python module and --policy-file (embedded Python)
  python3-numpy python3-scipy    # Python policies' views; the max-min linprog example
  python3-pytest                 # the Python tests (run by ctest)
  chromium chromium-driver python3-selenium  # tests/browser: scripts/report.py's pages in headless Chromium
  time                           # /usr/bin/time for the benchmarks
  clang libclang-rt-14-dev       # scripts/fuzz.sh: clang++ and libFuzzer (libclang_rt.fuzzer), its sanitizers
)
# Opt-in: scripts/slurm-test.sh starts a one-node Slurm (slurmctld, slurmd, the sbatch/squeue
# clients) with MUNGE authentication on localhost to run scripts/slurm-sweep.sh for real.
# The packages' own services are not used: the test starts its daemons with its own configuration.
if [ "$slurm" -eq 1 ]; then packages+=(slurm-wlm munge); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "setup: installing ${missing[*]}" >&2
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
