#!/usr/bin/env bash
# The formulations corpus: builds the programs in the benchmark tree
# (build-bench, or $FLUXION_BENCH_BUILD_DIR), then
#   1. times every problem's formulations (fluxion_formulations_bench, one
#      process per problem; it cross-checks every derivative first and stops
#      on a mismatch),
#   2. runs each formulation's first derivative call in fresh processes
#      (fluxion_formulations_first_call, RUNS processes per method),
#   3. measures the plugin's added compile time against the compile of each
#      formulation's hand-written adjoint (compile_times.py),
#   4. compiles the natural spellings in refused/ that the plugin refused
#      when the corpus was written (refused.py),
# and writes the Formulations section of bench/RESULTS.md (report.py).
#   bench/formulations/run.sh [RUNS] [extra Google Benchmark flags]
# About 15 minutes on two cores.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/../build-target.sh"
here="$root/bench/formulations"
out="$root/bench/RESULTS.md"
runs=5
if [[ "${1:-}" =~ ^[0-9]+$ ]]; then
  runs="$1"
  shift
fi

fluxion_bench_build fluxion_formulations_bench fluxion_formulations_first_call

export FORMULATIONS_LOAD="$(cut -d' ' -f1-3 /proc/loadavg)"
jsons=()
# One process per problem, run from the build tree, where ADOL-C puts the
# tape files of tapes larger than its buffers.
for problem in burgers gmm lstm ba; do
  json="$build/formulations-$problem.json"
  echo "== formulations: $problem"
  (cd "$build" && ./bin/fluxion_formulations_bench --problem="$problem" \
     --benchmark_out="$json" --benchmark_out_format=json "$@")
  jsons+=("$json")
done

# First calls: one size per problem, every formulation, Fluxion and the
# hand-written adjoint, each in `runs` fresh processes (interleaved).
first="$build/formulations-first-call.txt"
: > "$first"
echo "== first calls ($runs processes each)"
cases=()
for form in swap scratch inplace callee vector vector_swap; do
  cases+=("burgers n1000_steps1000 $form")
done
for form in helpers inline components eigen eigen_compact; do
  cases+=("gmm d64_K10_n1000 $form")
done
for form in helpers inline; do
  cases+=("lstm l4_c4096_b14 $form")
  cases+=("ba ba1_n49_m7776_p31843 $form")
done
for run in $(seq "$runs"); do
  for c in "${cases[@]}"; do
    for method in fluxion manual; do
      # shellcheck disable=SC2086
      (cd "$build" && ./bin/fluxion_formulations_first_call $c $method) \
        >> "$first" || true
    done
  done
done

echo "== compile times"
python3 "$here/compile_times.py" "$build" "$build/formulations-compile.json"
echo "== natural spellings the plugin refuses (refused/)"
python3 "$here/refused.py" "$build" "$build/formulations-refused.json"

python3 "$here/report.py" "$out" "$first" "$build/formulations-compile.json" \
  "$build/formulations-refused.json" "${jsons[@]}"
