#!/usr/bin/env bash
# Builds and runs every test: the g++ build with warnings as errors (unit,
# property, conformance and corpus tests), then the clang build of the fuzz
# targets under ASan+UBSan (seed regression and a short bounded fuzz run).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
ctest --test-dir build --output-on-failure -j "$(nproc)"

CC=clang CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DACCELCHECK_WERROR=ON -DACCELCHECK_BUILD_FUZZERS=ON -DACCELCHECK_BUILD_TESTS=OFF \
  -DACCELCHECK_BUILD_BENCH=OFF >/dev/null
cmake --build build-fuzz -j "$(nproc)"
ctest --test-dir build-fuzz --output-on-failure
