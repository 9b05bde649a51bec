#!/usr/bin/env bash
# Sets everything up, builds, and runs the quick-start example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DFLUXION_BUILD_TESTS=OFF
echo "== examples/quickstart"
build/bin/quickstart
