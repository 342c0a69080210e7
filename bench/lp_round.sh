#!/usr/bin/env bash
# Times one round's allocation computation of every LP/ILP policy on 1,000 active jobs and 3 GPU
# types (bench/lp_round.cpp). Usage: bash bench/lp_round.sh [jobs] [repetitions]
set -euo pipefail
cd "$(dirname "$0")/.."
cmake --preset release >/dev/null
cmake --build --preset release --target hetsim_bench_lp -j2 >/dev/null
./build/release/hetsim_bench_lp "${1:-1000}" "${2:-3}"
