#!/usr/bin/env bash
# The line and branch coverage that fuzz corpora reach, per format:
#   tools/fuzz_coverage.sh CORPORA OUT [TARGET...]
# builds the fuzz targets with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping, no sanitizer) in
# build-coverage/ (ACCELCHECK_COVERAGE_BUILD), replays CORPORA/<target> (the
# layout fuzz/campaign.py keeps; without it, the target's seeds) through each
# target once, and writes for each target OUT/<target>.txt (llvm-cov report of
# its format's validators/ and reference_exec/ folders, per file with the
# totals), OUT/<target>/index.html (the annotated sources) and one line of
# OUT/summary.tsv: target, format, inputs, lines covered/total, branches
# covered/total. Every target of fuzz/targets.txt by default.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
corpora=$1 out=$2
shift 2
build=${ACCELCHECK_COVERAGE_BUILD:-$src/build-coverage}
llvm_cov=$(command -v llvm-cov-14 || command -v llvm-cov)
llvm_profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)

if [ ! -f "$build/CMakeCache.txt" ]; then
  CC=clang CXX=clang++ LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
    CFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    CXXFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DACCELCHECK_BUILD_FUZZERS=ON -DACCELCHECK_BUILD_TESTS=OFF -DACCELCHECK_BUILD_BENCH=OFF
fi
cmake --build "$build"

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(grep -E '^[a-z]' "$src/fuzz/targets.txt" | awk '{print $1}')
fi
mkdir -p "$out"
printf 'target\tformat\tinputs\tlines_covered\tlines\tbranches_covered\tbranches\n' >"$out/summary.tsv"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for target in "${targets[@]}"; do
  format=$(awk -v t="$target" '$1 == t {print $2}' "$src/fuzz/targets.txt")
  if [ -z "$format" ]; then
    echo "fuzz_coverage.sh: $target is not a target of fuzz/targets.txt" >&2
    exit 2
  fi
  corpus=$corpora/$target
  if [ ! -d "$corpus" ]; then
    corpus=$work/seeds/$target
    "$src/fuzz/seeds.sh" "$build/tools/accelcheck" "$target" "$corpus"
  fi
  inputs=$(find "$corpus" -type f | wc -l)
  binary=$build/fuzz/$target
  rm -f "$work"/*.profraw
  # -runs=0 executes each input of the corpus once.
  LLVM_PROFILE_FILE="$work/$target.%p.profraw" "$binary" -runs=0 "$corpus" >"$work/$target.log" 2>&1 || {
    echo "fuzz_coverage.sh: $target failed on its corpus:" >&2
    tail -20 "$work/$target.log" >&2
    exit 1
  }
  "$llvm_profdata" merge -sparse "$work"/"$target".*.profraw -o "$work/$target.profdata"
  sources=("$src/validators/$format")
  [ -d "$src/reference_exec/$format" ] && sources+=("$src/reference_exec/$format")
  "$llvm_cov" report "$binary" -instr-profile="$work/$target.profdata" "${sources[@]}" \
    >"$out/$target.txt"
  "$llvm_cov" show "$binary" -instr-profile="$work/$target.profdata" -format=html \
    -show-branches=count -output-dir="$out/$target" "${sources[@]}"
  # The TOTAL row: regions (3), functions (3), lines (3), branches (3).
  awk -v t="$target" -v f="$format" -v n="$inputs" '$1 == "TOTAL" {
    printf "%s\t%s\t%s\t%d\t%d\t%d\t%d\n", t, f, n, $8 - $9, $8, $11 - $12, $11
  }' "$out/$target.txt" >>"$out/summary.tsv"
done
column -t -s $'\t' "$out/summary.tsv"
