#!/usr/bin/env bash
# Installs what is missing, builds hetsim (Release) and runs the main job on the built-in default:
# cluster 'default' (8 V100 + 8 K80), a seeded synthetic workload, policy fifo; outputs in out/default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release >/dev/null
cmake --build --preset release -j"$(nproc)" --target hetsim
./build/release/hetsim run --out out/default "$@"
