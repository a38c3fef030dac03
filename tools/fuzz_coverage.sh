#!/usr/bin/env bash
# The line and branch coverage that fuzz corpora reach, per format:
#   tools/fuzz_coverage.sh CORPORA OUT [TARGET...]
# builds the fuzz targets with clang's source-based coverage
# (-fprofile-instr-generate -fcoverage-mapping, under ASan and UBSan) in
# build-coverage/ (ACCELCHECK_COVERAGE_BUILD), replays CORPORA/<target> (the
# layout fuzz/campaign.py keeps; without it, the target's seeds) through each
# target once, and writes for each target OUT/<target>.txt (llvm-cov report of
# its format's validators/ and reference_exec/ folders, per file with the
# totals), OUT/<target>/index.html (the annotated sources) and one line of
# OUT/summary.tsv: target, format, inputs, lines covered/total, branches
# covered/total. OUT/formats.tsv gives the same per format, for the corpora
# of its targets together (format, lines covered/total, branches
# covered/total), and OUT/validators.tsv the same for the validators/ folder
# alone, which tools/test_coverage.sh compares with the tests. Every target of
# fuzz/targets.txt by default.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 2 ]; then
  echo "usage: tools/fuzz_coverage.sh CORPORA OUT [TARGET...]" >&2
  exit 2
fi
corpora=$1 out=$2
shift 2
# shellcheck source=tools/coverage_lib.sh
source "$src/tools/coverage_lib.sh"
coverage_configure
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(grep -E '^[a-z]' "$src/fuzz/targets.txt" | awk '{print $1}')
fi
cmake --build "$build" --target accelcheck "${targets[@]}"
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
  inputs=$(find "$corpus/" -type f | wc -l)  # the corpus may be a symbolic link
  binary=$build/fuzz/$target
  rm -f "$work"/*.profraw
  # -runs=0 executes each input of the corpus once.
  LLVM_PROFILE_FILE="$work/$target.%p.profraw" "$binary" -runs=0 "$corpus" >"$work/$target.log" 2>&1 || {
    echo "fuzz_coverage.sh: $target failed on its corpus:" >&2
    tail -20 "$work/$target.log" >&2
    exit 1
  }
  "$llvm_profdata" merge -sparse "$work"/"$target".*.profraw -o "$work/$target.profdata"
  totals=$(coverage_report "$work/$target.profdata" "$out/$target.txt" "$format" "$binary")
  "$llvm_cov" show "$binary" -instr-profile="$work/$target.profdata" -format=html \
    -show-branches=count -output-dir="$out/$target" "${sources[@]}"
  printf '%s\t%s\t%s\t%s\n' "$target" "$format" "$inputs" "$totals" >>"$out/summary.tsv"
done
column -t -s $'\t' "$out/summary.tsv"

# Each format's targets together: their profiles merged, their binaries as
# the objects.
coverage_header "$out/formats.tsv" "$out/validators.tsv"
for format in $(for t in "${targets[@]}"; do
                  awk -v t="$t" '$1 == t {print $2}' "$src/fuzz/targets.txt"; done | sort -u); do
  binaries=() profiles=()
  for target in "${targets[@]}"; do
    if [ "$(awk -v t="$target" '$1 == t {print $2}' "$src/fuzz/targets.txt")" = "$format" ]; then
      binaries+=("$build/fuzz/$target")
      profiles+=("$work/$target.profdata")
    fi
  done
  "$llvm_profdata" merge -sparse "${profiles[@]}" -o "$work/$format.profdata"
  totals=$(coverage_report "$work/$format.profdata" "$out/format_$format.txt" "$format" \
           "${binaries[@]}")
  printf '%s\t%s\n' "$format" "$totals" >>"$out/formats.tsv"
  totals=$(coverage_report "$work/$format.profdata" "$out/validators_$format.txt" \
           "validators/$format" "${binaries[@]}")
  printf '%s\t%s\n' "$format" "$totals" >>"$out/validators.tsv"
done
column -t -s $'\t' "$out/formats.tsv"
