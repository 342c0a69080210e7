#!/usr/bin/env bash
# Sia fidelity (docs/EXPERIMENTS.md, "Sia on its saturn workloads"): hetsim's sia and pollux on Sia's
# 10 saturn workloads on sia-64, against the Sia paper's Table 3 ratio and, with SIA_ARTIFACT set to
# Sia's sia-simulator/ folder, against Sia's own simulator. Arguments go to fidelity.py.
set -euo pipefail
cd "$(dirname "$0")/../.."
exec python3 experiments/sia/fidelity.py "$@"
