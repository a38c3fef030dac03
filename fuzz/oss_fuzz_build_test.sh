#!/usr/bin/env bash
# Runs fuzz/oss-fuzz/build.sh as OSS-Fuzz does (CC, CXX, CFLAGS, CXXFLAGS,
# LIB_FUZZING_ENGINE, SRC, OUT, WORK), over BUILD, a fuzz build already made
# with the same engine: oss_fuzz_build_test.sh SOURCE BUILD. Then $OUT must
# hold every target of fuzz/targets.txt with its .dict, .options and
# _seed_corpus.zip, and each target must run its seed corpus cleanly.
set -euo pipefail
source_dir=$1 build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/src" "$work/out" "$work/work"
ln -s "$source_dir" "$work/src/accelcheck"
ln -s "$build" "$work/work/accelcheck-oss-fuzz"
env CC=clang CXX=clang++ CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only" \
  CXXFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer SRC="$work/src" OUT="$work/out" WORK="$work/work" \
  "$source_dir/fuzz/oss-fuzz/build.sh"

out=$work/out
targets=$(grep -E '^[a-z]' "$source_dir/fuzz/targets.txt" | awk '{print $1}')
status=0
for name in $targets; do
  for file in "$name" "$name.dict" "$name.options" "${name}_seed_corpus.zip"; do
    if [ ! -s "$out/$file" ]; then
      echo "missing from \$OUT: $file" >&2
      status=1
    fi
  done
  [ -s "$out/${name}_seed_corpus.zip" ] || continue
  corpus=$work/corpus_$name
  mkdir -p "$corpus"
  unzip -q "$out/${name}_seed_corpus.zip" -d "$corpus"
  seeds=$(find "$corpus" -type f | wc -l)
  if [ "$seeds" -eq 0 ]; then
    echo "$name: an empty seed corpus" >&2
    status=1
  elif ! "$out/$name" -runs=0 "$corpus" >"$work/$name.log" 2>&1; then
    echo "$name does not run its $seeds seeds cleanly:" >&2
    tail -20 "$work/$name.log" >&2
    status=1
  else
    echo "$name: $seeds seeds run"
  fi
done
extra=$(find "$out" -maxdepth 1 -type f -perm -u+x -printf "%f\n" | sort)
listed=$(echo "$targets" | sort)
if [ "$extra" != "$listed" ]; then
  echo "the executables in \$OUT are not the listed targets:" >&2
  diff <(echo "$listed") <(echo "$extra") >&2 || true
  status=1
fi
exit $status
