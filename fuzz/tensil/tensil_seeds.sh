#!/usr/bin/env bash
# Seeds for the Tensil fuzzers, from the conformance suite's Tensil cases:
# tensil_seeds.sh ACCELCHECK DIR. DIR/model gets the .tmodel and .tarch
# files; DIR/prog the .tprog files, each after the four zero bytes that
# choose tensil_fuzzer's tiny architecture (the suite's).
set -euo pipefail
accelcheck=$1 dir=$2
suite=$(mktemp -d)
trap 'rm -rf "$suite"' EXIT
"$accelcheck" conformance --generate "$suite" > /dev/null
rm -rf "$dir"
mkdir -p "$dir/model" "$dir/prog"
cp "$suite"/tensil/*.tmodel "$dir/model/"
cp "$suite"/tensil/*.tarch "$dir/model/" 2>/dev/null || true
for prog in "$suite"/tensil/*.tprog; do
  { printf '\0\0\0\0'; cat "$prog"; } > "$dir/prog/$(basename "$prog")"
done
