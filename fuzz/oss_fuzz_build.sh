#!/usr/bin/env bash
# OSS-Fuzz build script: builds every fuzz target with $CC/$CXX and
# $LIB_FUZZING_ENGINE, and puts each target with its dictionary, options and
# seed corpus (written by the project's own generators, files named by sha1)
# into $OUT.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${WORK:-/tmp}/accelcheck-oss-fuzz

cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DACCELCHECK_BUILD_FUZZERS=ON -DACCELCHECK_BUILD_TESTS=OFF -DACCELCHECK_BUILD_BENCH=OFF
cmake --build "$build"

seeds=$build/seeds
rm -rf "$seeds" && "$build/tools/accelcheck" conformance --generate "$seeds" >/dev/null
for fuzzer in "$build"/fuzz/*_fuzzer; do
  name=$(basename "$fuzzer")
  cp "$fuzzer" "$OUT/"
  cp "$build/fuzz/$name.dict" "$build/fuzz/$name.options" "$OUT/"
  corpus=$(mktemp -d)
  find "$seeds" -type f ! -name manifest.json -exec sh -c \
    'for f; do cp "$f" "$0/$(sha1sum "$f" | cut -d" " -f1)"; done' "$corpus" {} +
  (cd "$corpus" && zip -q -r "$OUT/${name}_seed_corpus.zip" .)
  rm -rf "$corpus"
done
