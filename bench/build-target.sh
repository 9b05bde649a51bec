# Sourced by the benchmark scripts: configures the Release benchmark tree
# (FLUXION_BENCH_BUILD_DIR, default build-bench/) if needed and builds the
# given targets. Sets `root` and `build`.
#   source "$(dirname "${BASH_SOURCE[0]}")/build-target.sh"
#   fluxion_bench_build target...
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${FLUXION_BENCH_BUILD_DIR:-$root/build-bench}"

fluxion_bench_build() {
  local generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  if [[ ! -f "$build/CMakeCache.txt" ]]; then
    cmake -S "$root" -B "$build" "${generator[@]}" \
      -DCMAKE_CXX_COMPILER="${CXX:-clang++-19}" \
      -DFLUXION_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  else
    cmake "$build" -DFLUXION_BUILD_BENCH=ON -DCMAKE_BUILD_TYPE=Release >/dev/null
  fi
  cmake --build "$build" --target "$@" -j "$(nproc)"
}
