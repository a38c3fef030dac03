#!/usr/bin/env bash
# The line and branch coverage that the tests (unit, property, conformance,
# golden, command line, and the corpus tests when ../shared is there) reach,
# per format, beside what the fuzz corpora reach:
#   tools/test_coverage.sh OUT [FUZZ_OUT]
# builds the project and its tests with clang's source-based coverage in
# build-coverage/ (ACCELCHECK_COVERAGE_BUILD; the build tools/fuzz_coverage.sh
# uses, with the tests switched on), runs ctest there (under ASan and UBSan)
# without the fuzz runs and the install tests (an instrumented library does
# not link into a plain consumer), and writes for each format
# OUT/<format>.txt (llvm-cov report of its validators/ and reference_exec/
# folders, per file with the totals),
# OUT/html/index.html (the annotated sources), and OUT/summary.tsv: format,
# lines covered/total, branches covered/total, and OUT/validators.tsv the
# same for the validators/ folder alone. With FUZZ_OUT (what
# tools/fuzz_coverage.sh wrote), OUT/side_by_side.tsv puts each format's
# validator coverage by the tests beside its fuzz targets' together
# (FUZZ_OUT/validators.tsv).
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: tools/test_coverage.sh OUT [FUZZ_OUT]" >&2
  exit 2
fi
out=$1 fuzz_out=${2:-}
# shellcheck source=tools/coverage_lib.sh
source "$src/tools/coverage_lib.sh"
coverage_configure
cmake "$build" -DACCELCHECK_BUILD_TESTS=ON >/dev/null
cmake --build "$build"

mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Every process a test starts (the test binaries, the accelcheck command)
# writes its own profile.
LLVM_PROFILE_FILE="$work/%p-%m.profraw" \
  ctest --test-dir "$build" -j"$(nproc)" -E '_fuzzer_|^fuzz_|^oss_fuzz|^install\.' \
  --output-on-failure \
  >"$out/ctest.log" 2>&1 || {
  echo "test_coverage.sh: tests failed in $build:" >&2
  tail -30 "$out/ctest.log" >&2
  exit 1
}
"$llvm_profdata" merge -sparse "$work"/*.profraw -o "$work/tests.profdata"
# The instrumented executables the tests ran.
binaries=()
while IFS= read -r file; do
  if readelf -S "$file" 2>/dev/null | grep -q __llvm_covmap; then binaries+=("$file"); fi
done < <(find "$build/tests" "$build/tools" -type f -perm -u+x)

coverage_header "$out/summary.tsv" "$out/validators.tsv"
for dir in "$src"/validators/*/; do
  format=$(basename "$dir")
  totals=$(coverage_report "$work/tests.profdata" "$out/$format.txt" "$format" "${binaries[@]}")
  printf '%s\t%s\n' "$format" "$totals" >>"$out/summary.tsv"
  totals=$(coverage_report "$work/tests.profdata" "$out/validators_$format.txt" \
           "validators/$format" "${binaries[@]}")
  printf '%s\t%s\n' "$format" "$totals" >>"$out/validators.tsv"
done
coverage_objects "${binaries[@]}"
"$llvm_cov" show "${objects[@]}" -instr-profile="$work/tests.profdata" -format=html \
  -show-branches=count -output-dir="$out/html" "$src/validators" "$src/reference_exec"
column -t -s $'\t' "$out/summary.tsv"

if [ -n "$fuzz_out" ]; then
  # Each format's validator: the tests' lines %, the fuzz corpora's lines %,
  # the same for branches; both over the lines and branches the tests'
  # binaries hold, all of the folder, where a fuzz target may not link a file.
  awk -F'\t' 'function pct(a, b) { return b ? sprintf("%.1f", 100 * a / b) : "-" }
    NR == FNR { if (FNR > 1) fuzz[$1] = $0; next }
    FNR == 1 { print "format\ttests_lines_%\tfuzz_lines_%\ttests_branches_%\tfuzz_branches_%"; next }
    { fuzzed = $1 in fuzz  # before fuzz[$1] below adds the key
      split(fuzz[$1], z, "\t")
      print $1 "\t" pct($2, $3) "\t" (fuzzed ? pct(z[2], $3) : "-") "\t" \
            pct($4, $5) "\t" (fuzzed ? pct(z[4], $5) : "-") }' \
    "$fuzz_out/validators.tsv" "$out/validators.tsv" >"$out/side_by_side.tsv"
  column -t -s $'\t' "$out/side_by_side.tsv"
fi
