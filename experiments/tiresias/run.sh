#!/usr/bin/env bash
# Tiresias fidelity (docs/EXPERIMENTS.md): hetsim's tiresias-* policies vs Tiresias' own simulator
# on the first 3,000 Philly jobs, 32 nodes x 8 GPUs. Arguments go to fidelity.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 experiments/tiresias/fidelity.py "$@"
