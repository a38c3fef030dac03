# shellcheck shell=bash
# What tools/fuzz_coverage.sh and tools/test_coverage.sh share: the clang
# source-based coverage build and the per-format reports. Sourced with $src
# set to the repository.
build=${ACCELCHECK_COVERAGE_BUILD:-$src/build-coverage}
llvm_cov=$(command -v llvm-cov-14 || command -v llvm-cov)
# shellcheck disable=SC2034  # for the scripts that source this
llvm_profdata=$(command -v llvm-profdata-14 || command -v llvm-profdata)

# Configures $build unless it is: a fuzz build (ASan and UBSan, so that the
# tests run under them too) with every object also given
# -fprofile-instr-generate -fcoverage-mapping; the tests off until a script
# turns them on.
coverage_configure() {
  [ -f "$build/CMakeCache.txt" ] && return
  CC=clang CXX=clang++ \
    CFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    CXXFLAGS="-fprofile-instr-generate -fcoverage-mapping" \
    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DACCELCHECK_BUILD_FUZZERS=ON -DACCELCHECK_BUILD_TESTS=OFF -DACCELCHECK_BUILD_BENCH=OFF
}

# Sets `sources` to the folders of SCOPE: a format (its validator and
# executor) or one folder ("validators/pte").
coverage_sources() {
  if [[ $1 == */* ]]; then
    sources=("$src/$1")
    return
  fi
  sources=("$src/validators/$1")
  if [ -d "$src/reference_exec/$1" ]; then sources+=("$src/reference_exec/$1"); fi
}

# Sets `objects` to llvm-cov's arguments for BINARY...: the first, then
# -object and each other.
coverage_objects() {
  objects=("$1")
  shift
  for binary in "$@"; do objects+=(-object "$binary"); done
}

# coverage_report PROFDATA REPORT SCOPE BINARY...: llvm-cov report of
# SCOPE's folders (coverage_sources) over the binaries, per file with the
# totals, into REPORT; prints its totals: lines covered, lines, branches
# covered, branches (tab-separated).
coverage_report() {
  local profdata=$1 report=$2 scope=$3
  shift 3
  coverage_objects "$@"
  coverage_sources "$scope"
  "$llvm_cov" report "${objects[@]}" -instr-profile="$profdata" "${sources[@]}" >"$report"
  # The TOTAL row: regions (3), functions (3), lines (3), branches (3).
  awk '$1 == "TOTAL" { printf "%d\t%d\t%d\t%d\n", $8 - $9, $8, $11 - $12, $11 }' "$report"
}

# Starts each FILE with the header of coverage_report's rows.
coverage_header() {
  for file in "$@"; do
    printf 'format\tlines_covered\tlines\tbranches_covered\tbranches\n' >"$file"
  done
}
