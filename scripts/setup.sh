#!/usr/bin/env bash
# Installs what Fluxion needs on Debian 12 (if missing), then configures and
# builds it in build/. Usage: scripts/setup.sh [extra cmake args...]
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(clang-19 libclang-19-dev llvm-19-dev llvm-19-tools libeigen3-dev
          libgtest-dev libbenchmark-dev libadolc-dev cmake ninja-build python3 g++
          pkg-config clangd-19 libceres-dev libc++-19-dev libc++abi-19-dev)
scripts/install-packages.sh "${packages[@]}"

echo "== configuring"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_COMPILER=/usr/lib/llvm-19/bin/clang++ "$@"
echo "== building"
cmake --build build -j "$(nproc)"
