#!/usr/bin/env bash
# Sets everything up, builds, and runs every test suite (unit, numeric, lit,
# contract smoke), then the quick part of the sanitizer checks
# (scripts/sanitize.sh --quick, in build-asan/). FLUXION_SANITIZE_CHECK=full
# runs all of them instead, FLUXION_SANITIZE_CHECK=off none.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh -DFLUXION_BUILD_TESTS=ON
echo "== tests"
ctest --test-dir build --output-on-failure -j "$(nproc)"
case "${FLUXION_SANITIZE_CHECK:-quick}" in
  quick) echo "== sanitizers (scripts/sanitize.sh --quick)"; scripts/sanitize.sh --quick ;;
  full)  echo "== sanitizers (scripts/sanitize.sh)"; scripts/sanitize.sh ;;
  off)   echo "== sanitizers: skipped (FLUXION_SANITIZE_CHECK=off)" ;;
  *)     echo "FLUXION_SANITIZE_CHECK must be quick, full or off" >&2; exit 2 ;;
esac
