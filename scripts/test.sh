#!/usr/bin/env bash
# Installs what is missing, builds and runs the whole test suite through ctest.
#   scripts/test.sh             Release build (build/release)
#   scripts/test.sh --sanitize  Debug build with AddressSanitizer + UndefinedBehaviorSanitizer (build/sanitize)
set -euo pipefail
cd "$(dirname "$0")/.."
preset=release
[ "${1:-}" = "--sanitize" ] && preset=sanitize
bash scripts/setup.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
ctest --preset "$preset" -j"$(nproc)"
