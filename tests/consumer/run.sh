#!/usr/bin/env bash
# The installed package, used from outside: installs the build into a
# temporary prefix, moves the prefix (the package must be relocatable), and
#  - checks that no installed text file names the build tree, the source
#    tree or the install-time prefix;
#  - checks fluxion-config and pkg-config (fluxion.pc) output, and compiles
#    and runs main.cpp with the pkg-config flags, with the plugin and through
#    fluxion-gen and g++;
#  - configures, builds and runs this directory's CMake project with
#    clang++-19 (the plugin, through Fluxion::Fluxion) and with g++
#    (fluxion_generate_sources), and checks that editing a header the
#    differentiated code calls, or the source, runs fluxion-gen again;
#  - with clangd-19 when installed: clangd --check reports no error in
#    main.cpp with the compile database of fluxion_declarations (and the
#    call to energy_grad as an error with CMake's own), and clangd completes
#    the call with energy_grad's parameters and shows them as signature help
#    (clangd_complete.py; not with CMake's own database);
#  - with clang++-14 when installed: find_package fails with the error
#    naming Clang 19, and FLUXION_USE_PLUGIN=OFF builds through fluxion-gen
#    (with the Makefile generator, and C++20 through CXX_STANDARD rather
#    than a compile feature).
# Usage: tests/consumer/run.sh <fluxion build dir>
# (ctest -L consumer runs it on the build tree). FLUXION_CONSUMER_KEEP=1 keeps
# the temporary directory.
set -euo pipefail
[[ $# -eq 1 ]] || { echo "usage: $0 <fluxion build dir>" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
source_dir=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$build/CMakeCache.txt")
# The Clang the plugin is built for (the build's FLUXION_CLANGXX), and g++.
clangxx=$(sed -n 's/^FLUXION_CLANGXX:FILEPATH=//p' "$build/CMakeCache.txt")
clangxx=${FLUXION_CONSUMER_CLANGXX:-${clangxx:-clang++-19}}
gxx=${FLUXION_CONSUMER_GXX:-g++}
start=$SECONDS

work=$(mktemp -d "${TMPDIR:-/tmp}/fluxion-consumer.XXXXXX")
if [[ -n "${FLUXION_CONSUMER_KEEP:-}" ]]; then
  echo "== consumer: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi

step() { echo "== consumer: $*"; }
fail() { echo "consumer test FAILED: $*" >&2; exit 1; }
generator=()
command -v ninja > /dev/null && generator=(-G Ninja)

# The model term of the consumer goes from S x^2 to S x^3 (and its closed-form
# derivative with it): a stale fluxion-gen output keeps the old adjoint.
edit_model() {
  sleep 1  # a newer modification time on any file system
  sed -i 's/CONSUMER_SCALE \* x \* x;/CONSUMER_SCALE * x * x * x;/;
          s/CONSUMER_SCALE \* 2 \* x;/CONSUMER_SCALE * 3 * x * x;/' \
    "$1/include/consumer_model.hpp"
  grep -q 'x \* x \* x;' "$1/include/consumer_model.hpp" || fail "cannot edit $1"
}

# configure NAME CXX [cmake args...]: a fresh copy of the project in
# $work/NAME-src, built in $work/NAME.
configure() {
  local name=$1 cxx=$2; shift 2
  rm -rf "$work/$name-src" "$work/$name"
  cp -r "$here" "$work/$name-src"
  CXX=$cxx cmake -S "$work/$name-src" -B "$work/$name" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "$@" \
    > "$work/$name.configure.log" 2>&1
}
build_and_run() {
  local name=$1
  cmake --build "$work/$name" > "$work/$name.build.log" 2>&1 ||
    { cat "$work/$name.build.log"; fail "$name: build"; }
  "$work/$name/consumer" || fail "$name: the gradient differs from the closed form"
}

# check_clangd NAME: clangd reports no error in main.cpp with the database of
# fluxion_declarations and completes a partly typed call with energy_grad and
# its parameters, and (a check of the check) with CMake's own database it
# reports the energy_grad call as an error and does not offer energy_grad.
clangd=$(command -v clangd-19 || true)
check_clangd() {
  local name=$1
  if [[ -z "$clangd" ]]; then
    step "$name: clangd-19 not installed, fluxion_declarations not checked"
    return
  fi
  (cd "$work/$name-src" &&
   "$clangd" --compile-commands-dir="$work/$name/fluxion-clangd" \
     --check="$work/$name-src/main.cpp" > "$work/$name.clangd.log" 2>&1) ||
    { grep -E '^E\[' "$work/$name.clangd.log"; fail "$name: clangd reports errors"; }
  grep -q "All checks completed, 0 errors" "$work/$name.clangd.log" ||
    fail "$name: clangd --check did not complete"
  if (cd "$work/$name-src" &&
      "$clangd" --compile-commands-dir="$work/$name" \
        --check="$work/$name-src/main.cpp" > "$work/$name.clangd-plain.log" 2>&1); then
    fail "$name: clangd finds energy_grad without the declarations"
  fi
  grep -q "undeclared identifier 'energy_grad'" "$work/$name.clangd-plain.log" ||
    fail "$name: not the expected clangd error without the declarations"
  if ! command -v python3 > /dev/null; then
    step "$name: python3 not installed, clangd's completion not checked"
    return
  fi
  python3 "$here/clangd_complete.py" "$clangd" "$work/$name/fluxion-clangd" \
    "$work/$name-src/main.cpp" energy_grad > "$work/$name.clangd-complete.log" 2>&1 ||
    { cat "$work/$name.clangd-complete.log"
      fail "$name: clangd does not complete energy_grad with its signature"; }
  python3 "$here/clangd_complete.py" --absent "$clangd" "$work/$name" \
    "$work/$name-src/main.cpp" energy_grad > "$work/$name.clangd-complete-plain.log" 2>&1 ||
    { cat "$work/$name.clangd-complete-plain.log"
      fail "$name: clangd's completion, without the declarations, is not as expected"; }
}

step "install $build"
cmake --install "$build" --prefix "$work/staged" > "$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install"; }
mv "$work/staged" "$work/prefix"
prefix=$work/prefix
for path in "$work/staged" "$build" "$source_dir"; do
  if grep -rIlF "$path" "$prefix"; then
    fail "installed files above name $path"
  fi
done
for file in lib/cmake/Fluxion/FluxionConfig.cmake \
            lib/cmake/Fluxion/FluxionConfigVersion.cmake \
            lib/pkgconfig/fluxion.pc lib/FluxionPlugin.so bin/fluxion-gen \
            bin/fluxion-config include/fluxion/fluxion.hpp; do
  [[ -e "$prefix/$file" ]] || fail "$file is not installed"
done
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")$/\1/p' \
  "$prefix/lib/cmake/Fluxion/FluxionConfigVersion.cmake")
[[ -n "$version" ]] || fail "no version in FluxionConfigVersion.cmake"

step "fluxion-config from the moved prefix"
[[ "$("$prefix/bin/fluxion-config" --cxxflags)" == "-I$prefix/include" ]] ||
  fail "fluxion-config --cxxflags: $("$prefix/bin/fluxion-config" --cxxflags)"
[[ "$("$prefix/bin/fluxion-config" --plugin)" == "$prefix/lib/FluxionPlugin.so" ]] ||
  fail "fluxion-config --plugin: $("$prefix/bin/fluxion-config" --plugin)"
[[ "$("$prefix/bin/fluxion-config" --version)" == "$version" ]] ||
  fail "fluxion-config --version: $("$prefix/bin/fluxion-config" --version)"

step "pkg-config fluxion"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
[[ "$(pkg-config --modversion fluxion)" == "$version" ]] ||
  fail "pkg-config --modversion: $(pkg-config --modversion fluxion)"
pkg-config --atleast-version=0.2 fluxion || fail "pkg-config --atleast-version=0.2"
cflags=$(pkg-config --cflags fluxion | sed "s/[[:space:]]*$//")
[[ "$cflags" == -I* && "$(realpath "${cflags#-I}")" == "$prefix/include" ]] ||
  fail "pkg-config --cflags: $cflags"
plugin=$(pkg-config --variable=plugin fluxion)
[[ "$(realpath "$plugin")" == "$prefix/lib/FluxionPlugin.so" ]] ||
  fail "pkg-config --variable=plugin: $plugin"
[[ -x "$(pkg-config --variable=fluxion_gen fluxion)" ]] ||
  fail "pkg-config --variable=fluxion_gen: $(pkg-config --variable=fluxion_gen fluxion)"
"$clangxx" -std=c++20 $cflags -fplugin="$plugin" -I"$here/include" \
  -DCONSUMER_SCALE=3 "$here/main.cpp" -o "$work/pkg-config-consumer" ||
  fail "$clangxx with the pkg-config flags"
"$work/pkg-config-consumer" || fail "pkg-config build: wrong gradient"
"$(pkg-config --variable=fluxion_gen fluxion)" "$here/main.cpp" \
  -o "$work/pkg-config-main.gen.cpp" -- -std=c++20 $cflags -I"$here/include" \
  -DCONSUMER_SCALE=3 || fail "fluxion-gen with the pkg-config flags"
"$gxx" -std=c++20 $cflags -I"$here/include" -iquote "$here" -DCONSUMER_SCALE=3 \
  "$work/pkg-config-main.gen.cpp" -o "$work/pkg-config-consumer-gen" ||
  fail "$gxx with the pkg-config flags"
"$work/pkg-config-consumer-gen" || fail "pkg-config + fluxion-gen build: wrong gradient"

step "$clangxx: Fluxion::Fluxion loads the plugin"
configure clang19 "$clangxx" "${generator[@]}" ||
  { cat "$work/clang19.configure.log"; fail "clang19: configure"; }
grep -q "loads the plugin" "$work/clang19.configure.log" ||
  fail "clang19: the plugin is not enabled"
build_and_run clang19
check_clangd clang19

step "$gxx: fluxion_generate_sources"
configure gcc "$gxx" "${generator[@]}" ||
  { cat "$work/gcc.configure.log"; fail "gcc: configure"; }
grep -q "does not load the plugin" "$work/gcc.configure.log" ||
  fail "gcc: no message pointing to fluxion_generate_sources"
build_and_run gcc
grep -q "fluxion-gen main.cpp" "$work/gcc.build.log" || fail "gcc: fluxion-gen did not run"
check_clangd gcc
build_and_run gcc
if grep -q "fluxion-gen main.cpp" "$work/gcc.build.log"; then
  fail "gcc: fluxion-gen ran again with nothing changed"
fi
edit_model "$work/gcc-src"
build_and_run gcc
grep -q "fluxion-gen main.cpp" "$work/gcc.build.log" ||
  fail "gcc: editing a header did not run fluxion-gen again"
sleep 1
touch "$work/gcc-src/main.cpp"
build_and_run gcc
grep -q "fluxion-gen main.cpp" "$work/gcc.build.log" ||
  fail "gcc: editing the source did not run fluxion-gen again"

if command -v clang++-14 > /dev/null; then
  step "clang++-14: a clear error, and FLUXION_USE_PLUGIN=OFF"
  if configure clang14 clang++-14 "${generator[@]}"; then
    fail "clang14: find_package(Fluxion) accepted Clang 14"
  fi
  grep -q "Fluxion's plugin is built for Clang 19" "$work/clang14.configure.log" ||
    { cat "$work/clang14.configure.log"; fail "clang14: not the expected error"; }
  configure clang14 clang++-14 -G "Unix Makefiles" -DFLUXION_USE_PLUGIN=OFF \
    -DCONSUMER_CXX_STANDARD=ON ||
    { cat "$work/clang14.configure.log"; fail "clang14: configure with FLUXION_USE_PLUGIN=OFF"; }
  build_and_run clang14
  edit_model "$work/clang14-src"
  build_and_run clang14
  grep -q "fluxion-gen main.cpp" "$work/clang14.build.log" ||
    fail "clang14 (Makefiles): editing a header did not run fluxion-gen again"
else
  step "clang++-14 not installed: the wrong-Clang error is not checked"
fi

step "all checks passed in $((SECONDS - start)) s"
