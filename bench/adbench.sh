#!/usr/bin/env bash
# ADBench with Fluxion: configures a Release tree with the benchmarks
# (build-bench, or $FLUXION_BENCH_BUILD_DIR), builds fluxion_adbench_bench,
# runs it once per problem (GMM, bundle adjustment, LSTM, Burgers), measures
# the compile time of the plugin-compiled sources with and without the
# plugin, and writes the ADBench section of bench/RESULTS.md.
#   bench/adbench.sh [--quick] [extra Google Benchmark flags]
# --quick: GMM with n = 100 points, one size of the other problems (about
# 2.5 minutes instead of about five on two cores). The program cross-checks
# every method's derivatives before timing; a mismatch stops the script.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/build-target.sh"
out="$root/bench/RESULTS.md"

quick=()
if [[ "${1:-}" == "--quick" ]]; then
  quick=(--quick)
  shift
fi

fluxion_bench_build fluxion_adbench_bench

export ADBENCH_LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
export ADBENCH_REPS=5
for a in "$@"; do
  [[ "$a" == --benchmark_repetitions=* ]] && ADBENCH_REPS="${a#*=}"
done
jsons=()
# One process per problem; run from the build tree, where ADOL-C puts the
# tape files of tapes larger than its buffers (it removes them at exit).
for problem in gmm ba lstm burgers; do
  json="$build/adbench-$problem.json"
  echo "== ADBench: $problem"
  (cd "$build" && ./bin/fluxion_adbench_bench --problem="$problem" "${quick[@]}" \
     --benchmark_out="$json" --benchmark_out_format=json "$@")
  jsons+=("$json")
done

echo "== compile times (with and without the plugin)"
python3 "$root/bench/compile_times.py" "$build" "$build/adbench-compile.json" \
  bench/adbench/gmm.cpp bench/adbench/ba.cpp bench/adbench/lstm.cpp \
  bench/adbench/burgers.cpp

python3 "$root/bench/adbench_report.py" "$out" "$build/adbench-compile.json" \
  "${jsons[@]}"
