#!/usr/bin/env bash
# The OSS-Fuzz and ClusterFuzzLite build script (fuzz/oss-fuzz/build.sh and
# .clusterfuzzlite/build.sh call it): builds every target of fuzz/targets.txt
# with $CC, $CXX, $CFLAGS, $CXXFLAGS and $LIB_FUZZING_ENGINE, and puts each in
# $OUT with its dictionary, options and seed corpus (fuzz/seeds.sh, from the
# project's own generators, files named by their sha1). The build goes to
# $WORK/accelcheck-oss-fuzz; one already configured there is built again
# where it changed.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
: "${OUT:?OUT names where the targets go}"
build=${WORK:-/tmp}/accelcheck-oss-fuzz

if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DACCELCHECK_BUILD_FUZZERS=ON -DACCELCHECK_BUILD_TESTS=OFF -DACCELCHECK_BUILD_BENCH=OFF
fi
cmake --build "$build"

mkdir -p "$OUT"
grep -E '^[a-z]' "$src/fuzz/targets.txt" | while read -r name _; do
  cp "$build/fuzz/$name" "$build/fuzz/$name.dict" "$build/fuzz/$name.options" "$OUT/"
  seeds=$(mktemp -d)
  corpus=$(mktemp -d)
  "$src/fuzz/seeds.sh" "$build/tools/accelcheck" "$name" "$seeds"
  find "$seeds" -type f -exec sh -c \
    'for f; do cp "$f" "$0/$(sha1sum "$f" | cut -d" " -f1)"; done' "$corpus" {} +
  rm -f "$OUT/${name}_seed_corpus.zip"
  (cd "$corpus" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  rm -rf "$seeds" "$corpus"
done
