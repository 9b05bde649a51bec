#!/usr/bin/env bash
# Sets everything up, builds, and runs every test suite (unit, numeric, lit,
# contract smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DFLUXION_BUILD_TESTS=ON
echo "== tests"
ctest --test-dir build --output-on-failure -j "$(nproc)"
