#!/usr/bin/env bash
# Sets everything up, builds, and runs every test suite (unit, numeric, lit,
# contract smoke, bench/'s derivative cross-checks), then the quick part of
# the sanitizer checks (scripts/sanitize.sh --quick, in build-asan/).
# FLUXION_SANITIZE_CHECK=full runs all of them instead, =off none.
set -euo pipefail
cd "$(dirname "$0")/.."
# The benchmark programs are not tests (bench/run.sh builds and runs them);
# leaving them out keeps this within CI's time on two cores. The derivative
# cross-checks under bench/ are tests and are built.
scripts/setup.sh -DFLUXION_BUILD_TESTS=ON -DFLUXION_BUILD_BENCH=OFF
echo "== tests"
ctest --test-dir build --output-on-failure -j "$(nproc)"
case "${FLUXION_SANITIZE_CHECK:-quick}" in
  quick) echo "== sanitizers (scripts/sanitize.sh --quick)"; scripts/sanitize.sh --quick --plugin "$PWD/build/lib/FluxionPlugin.so" ;;
  full)  echo "== sanitizers (scripts/sanitize.sh)"; scripts/sanitize.sh --plugin "$PWD/build/lib/FluxionPlugin.so" ;;
  off)   echo "== sanitizers: skipped (FLUXION_SANITIZE_CHECK=off)" ;;
  *)     echo "FLUXION_SANITIZE_CHECK must be quick, full or off" >&2; exit 2 ;;
esac
