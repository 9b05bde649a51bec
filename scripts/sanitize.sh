#!/usr/bin/env bash
# Builds Fluxion with AddressSanitizer and UndefinedBehaviorSanitizer in a
# tree of its own (build-asan/) and runs the sanitized suites (README,
# "Sanitizers"). Exits non-zero on any failure or sanitizer report.
#
# Usage: scripts/sanitize.sh [--quick] [--build-dir DIR] [--plugin SO]
#                            [extra cmake args...]
#
# --plugin SO uses an already built (uninstrumented) FluxionPlugin.so, such
# as build/lib/FluxionPlugin.so, instead of building the plugin and its
# uninstrumented copy of the engine again (scripts/test.sh passes it).
#
# The tree is configured with FLUXION_SANITIZE=ON (the engine, fluxion-gen and
# the engine tests instrumented; the plugin, which runs inside clang, links an
# uninstrumented copy of the engine) and FLUXION_SANITIZE_TESTS=ON (the
# programs built from generated code and the runtime's unit tests
# instrumented). Suites:
#
#   canary        a program with an out-of-bounds read in a generated adjoint,
#                 a signed overflow and a leak must fail with reports; the
#                 built programs must contain the sanitizers' checks
#   numeric       plugin-built numeric tests at -O1, sanitized
#   second-order  plugin-built second-order tests, sanitized
#   unit          the runtime's unit tests (tape, checkpointing), sanitized
# and, unless --quick (what CI runs, through scripts/test.sh: the generated
# code and the runtime; the engine's own instrumented build is the longest
# part of this script and is left to the full run):
#   lit-tool      lit's fluxion-gen tests with the sanitized fluxion-gen
#   gen-sources   the sanitized fluxion-gen over every numeric and
#                 second-order test source (the round trip's first half)
#   numeric-O3    the numeric tests at -O3, sanitized
#   engine        the engine's unit tests, sanitized
#   roundtrip     the rest of the round trip: fluxion-gen's output built by g++
#                 with its sanitizers, run and compared with the plugin builds
set -uo pipefail
cd "$(dirname "$0")/.."
root=$PWD

quick=0
build=build-asan
plugin=
cmake_args=()
while (($#)); do
  case "$1" in
    --quick) quick=1 ;;
    --build-dir) build=$2; shift ;;
    --build-dir=*) build=${1#*=} ;;
    --plugin) plugin=$2; shift ;;
    --plugin=*) plugin=${1#*=} ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) cmake_args+=("$1") ;;
  esac
  shift
done
jobs=$(nproc)
((jobs > 2)) && jobs=2  # the machines this runs on have two cores

# The sanitizer runtimes of clang 19 (g++'s come with g++), and what the
# build itself needs when scripts/setup.sh has not run.
packages=(libclang-rt-19-dev clang-19 libclang-19-dev llvm-19-dev llvm-19-tools
          libgtest-dev cmake ninja-build python3 g++)
scripts/install-packages.sh "${packages[@]}" || exit 1

# Every report is fatal and has a symbolized stack trace. Leak detection stays
# on: fluxion-gen, the tests and the runtime must not leak. Options the caller
# sets come last and win.
symbolizer=/usr/lib/llvm-19/bin/llvm-symbolizer
export ASAN_SYMBOLIZER_PATH=$symbolizer
export ASAN_OPTIONS="halt_on_error=1:detect_leaks=1:detect_stack_use_after_return=1:check_initialization_order=1:strict_init_order=1:strict_string_checks=1:print_summary=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:report_error_type=1:print_summary=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
# Leaks inside Clang's own libraries are suppressed (lsan-suppressions.txt
# says which, and why); Fluxion's own code gets no exemption.
export LSAN_OPTIONS="report_objects=1:print_suppressions=0:suppressions=$root/scripts/lsan-suppressions.txt${LSAN_OPTIONS:+:$LSAN_OPTIONS}"

start=$SECONDS
phase_start=$SECONDS
results=()
failed=0
passed=0
note() { printf '\n== %s\n' "$*"; }
# record NAME STATUS: one line of the summary, with the phase's time.
record() {
  local t=$((SECONDS - phase_start))
  if [[ $2 == 0 ]]; then
    results+=("$(printf '  %-13s passed  %4ds' "$1" "$t")"); ((passed++))
  else
    results+=("$(printf '  %-13s FAILED  %4ds' "$1" "$t")"); ((failed++))
  fi
  phase_start=$SECONDS
}
finish() {
  note "sanitizers: summary ($((SECONDS - start))s in all, tree $build)"
  printf '%s\n' "${results[@]}"
  echo "sanitizers: $passed passed, $failed failed"
  ((failed == 0))
  exit $?
}

note "configuring $build (FLUXION_SANITIZE=ON, FLUXION_SANITIZE_TESTS=ON)"
mkdir -p "$build"
if ! cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-19/bin/clang++ \
    -DFLUXION_SANITIZE=ON -DFLUXION_SANITIZE_TESTS=ON \
    -DFLUXION_BUILD_TESTS=ON -DFLUXION_BUILD_BENCH=OFF \
    -DFLUXION_PREBUILT_PLUGIN="$plugin" "${cmake_args[@]}" >"$build/sanitize-configure.log" 2>&1; then
  cat "$build/sanitize-configure.log"; record configure 1; finish
fi
record configure 0

targets=(fluxion_numeric_tests fluxion_second_order_tests fluxion_unit_tests)
[[ -n $plugin ]] || targets+=(FluxionPlugin)
((quick)) || targets+=(fluxion-gen fluxion_numeric_tests_O3 fluxion_engine_tests)
note "building ${targets[*]} (-j$jobs)"
if ! cmake --build "$build" -j "$jobs" --target "${targets[@]}"; then
  record build 1; finish
fi
record build 0

# --- canary: are the checks there, and do reports fail? ---------------------
note "canary: sanitizer checks in the built programs, and reports are fatal"
canary_ok=0
# An instrumented program calls ASan's __asan_report_* and UBSan's
# __ubsan_handle_*_abort (the handlers that do not recover); it must call no
# recovering UBSan handler. The plugin must reference neither runtime (clang
# could not load it).
has_checks() {
  local calls recovering
  calls=$(objdump -d --no-show-raw-insn "$1" |
    grep -oE 'call +[0-9a-f]+ <__(asan_report|ubsan_handle)[a-z0-9_]*' |
    sed 's/.*<//' | sort -u)
  recovering=$(grep -v -e '^__asan_' -e '_abort$' -e '^__ubsan_handle_builtin_unreachable$' \
    -e '^__ubsan_handle_missing_return$' -e '^__ubsan_handle_cfi_' <<<"$calls")
  if [[ -n $recovering ]]; then
    echo "  $1 calls recovering UBSan handlers: "$recovering; return 1
  fi
  grep -q '^__asan_report_' <<<"$calls" && grep -q '^__ubsan_handle_.*_abort$' <<<"$calls"
}
programs=(bin/fluxion_numeric_tests bin/fluxion_second_order_tests
          bin/fluxion_unit_tests)
((quick)) || programs=(bin/fluxion-gen "${programs[@]}")
for prog in "${programs[@]}"; do
  if has_checks "$build/$prog"; then echo "  $prog: instrumented"
  else echo "  $prog: NOT instrumented"; canary_ok=1; fi
done
if nm -u "$build/lib/FluxionPlugin.so" | grep -c '__asan_\|__ubsan_' >/dev/null; then
  echo "  lib/FluxionPlugin.so: instrumented (clang cannot load it)"; canary_ok=1
else
  echo "  lib/FluxionPlugin.so: uninstrumented"
fi
canary=$build/canary/sanitizer_canary
mkdir -p "$build/canary"
if /usr/lib/llvm-19/bin/clang++ -std=c++17 -O1 -I runtime/include \
     -fplugin="$build/lib/FluxionPlugin.so" \
     -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
     -gline-tables-only scripts/sanitizer_canary.cpp -o "$canary"; then
  for fault in none asan ubsan leak; do
    out=$("$canary" "$fault" 2>&1); rc=$?
    case $fault in
      none)  want="" ;;
      asan)  want="heap-buffer-overflow" ;;
      ubsan) want="signed integer overflow" ;;
      leak)  want="LeakSanitizer: detected memory leaks" ;;
    esac
    if [[ $fault == none ]]; then
      if ((rc == 0)); then echo "  no fault: exit 0"
      else echo "  no fault: exit $rc"; echo "$out"; canary_ok=1; fi
    elif ((rc != 0)) && grep -q "$want" <<<"$out"; then
      echo "  $fault: exit $rc with '$want'"
    else
      echo "  $fault: exit $rc, expected a failure with '$want':"; echo "$out"; canary_ok=1
    fi
  done
else
  canary_ok=1
fi
record canary $canary_ok

# --- fluxion-gen, instrumented (full run only) ------------------------------
if ((!quick)); then
  lit=$(sed -n 's/^FLUXION_LIT:FILEPATH=//p' "$build/CMakeCache.txt")
  [[ $lit == *.py ]] && lit="python3 $lit"
  note "lit-tool: tests/lit/tool with the sanitized fluxion-gen"
  $lit -sv -j "$jobs" --filter '^Fluxion :: tool/' "$build/tests/lit"
  record lit-tool $?
fi

# --- generated code and the runtime, instrumented ----------------------------
# One process per program (ctest would start one per test). The whole output
# is shown on failure, the closing line otherwise; all of it is kept in
# $build/sanitize-logs/.
run_gtest() {  # NAME PROGRAM
  note "$1: $2"
  mkdir -p "$build/sanitize-logs"
  local log=$build/sanitize-logs/$1.log rc
  (cd "$build" && "$2" --gtest_color=no) >"$log" 2>&1
  rc=$?
  if ((rc == 0)); then grep -E '^\[  PASSED  \]' "$log"; else cat "$log"; echo "  exit $rc"; fi
  record "$1" $rc
}
run_gtest numeric bin/fluxion_numeric_tests
run_gtest second-order bin/fluxion_second_order_tests
run_gtest unit bin/fluxion_unit_tests

if ((!quick)); then
  # fluxion-gen over every test source of the numeric and second-order suites,
  # as the round trip runs it (-k 0: every source, even after a failure).
  note "gen-sources: the sanitized fluxion-gen over every numeric and second-order source"
  mapfile -t generated < <(ninja -C "$build" -t targets all |
    sed -n 's|^\(tests/roundtrip/[^ ]*\.cpp\): CUSTOM_COMMAND$|\1|p')
  echo "  ${#generated[@]} sources"
  ninja -C "$build" -j "$jobs" -k 0 "${generated[@]}"
  record gen-sources $?
  run_gtest numeric-O3 bin/fluxion_numeric_tests_O3
  run_gtest engine bin/fluxion_engine_tests
  note "roundtrip: fluxion-gen output built by g++ with its sanitizers, compared with the plugin builds"
  if cmake --build "$build" -j "$jobs" --target fluxion_roundtrip_numeric fluxion_roundtrip_second_order; then
    ctest --test-dir "$build" --output-on-failure -R '^fluxion_roundtrip_'
    record roundtrip $?
  else
    record roundtrip 1
  fi
fi
finish
