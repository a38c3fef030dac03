#!/usr/bin/env bash
# Runs every measurement and prints the figures (see bench/README.md).
# Needs the builds from tools/build.sh (and build-fuzz from tools/test.sh for
# the fuzzing rate).
set -euo pipefail
cd "$(dirname "$0")/.."
work=${BENCH_DIR:-build/bench-data}
mkdir -p "$work"
values=${BENCH_VALUES:-1000000}

echo "== table-dense program, $values values: accelcheck vs bare flatbuffers Verifier"
build/bench/pte_bench generate --values "$values" -o "$work/dense.pte"
build/bench/pte_bench compare "$work/dense.pte" --repeat 5

echo "== peak memory of 'accelcheck validate' on it"
/usr/bin/time -f "peak RSS %M KiB, %e s" build/tools/accelcheck validate "$work/dense.pte" >/dev/null

if [ -d ../shared/corpus/pte ]; then
  echo "== real files (best of 20)"
  build/bench/pte_bench corpus ../shared/corpus/pte --repeat 20
fi

echo "== .pte reference executor, one core (best of 3)"
build/bench/pte_exec_bench 3

echo "== the golden library: accelcheck golden golden/, wall time and peak memory"
if [ -d ../shared/corpus ] && /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  /usr/bin/python3 tests/reference_exec/pte/golden_reference.py build/tools/accelcheck golden \
    ../shared/corpus "$work/golden-reference" >/dev/null
fi
/usr/bin/time -f "%e s, peak RSS %M KiB" \
  build/tools/accelcheck golden golden/ --reference-dir "$work/golden-reference" -q

if /usr/bin/python3 -c 'import numpy' 2>/dev/null; then
  echo "== accelcheck compare: two float32 arrays of 16M elements (64 MB each), 1 element in 1000 differing"
  /usr/bin/python3 - "$work" <<'PY'
import sys, numpy as np
rng = np.random.default_rng(1)
a = rng.standard_normal(1 << 24, dtype=np.float32).reshape(4096, 4096)
b = a.copy()
b.reshape(-1)[::1000] += 1
np.save(sys.argv[1] + "/compare_a.npy", a)
np.save(sys.argv[1] + "/compare_b.npy", b)
PY
  for run in 1 2 3; do
    /usr/bin/time -f "%e s, peak RSS %M KiB" build/tools/accelcheck compare \
      "$work/compare_a.npy" "$work/compare_b.npy" --rtol 1e-6 >/dev/null || true
  done
fi

if [ -x build-fuzz/fuzz/pte_fuzzer ] && [ -d build-fuzz/fuzz/seeds ]; then
  echo "== pte_fuzzer (ASan+UBSan), 30 s"
  tmp=$(mktemp -d)
  build-fuzz/fuzz/pte_fuzzer -max_total_time=30 -print_final_stats=1 \
    -dict=build-fuzz/fuzz/pte_fuzzer.dict "$tmp" build-fuzz/fuzz/seeds 2>&1 |
    grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" || true
  rm -rf "$tmp"
fi

echo "== Gemini IR: JSON layers on a generated 16-core schedule (one process each, peak RSS per layer)"
gemini_ir="$work/gemini_16core.json"
if [ ! -f "$gemini_ir" ]; then
  build/tools/accelcheck generate gemini --mesh 4x4 --layers ${BENCH_GEMINI_LAYERS:-1100} --height 512 --width 8 \
    --channels 8 --tiles 32 -o "$gemini_ir" >/dev/null
fi
for mode in tokenize decode validate nlohmann-sax simdjson; do build/bench/gemini_bench "$mode" "$gemini_ir" || true; done
echo "== Gemini IR: python json.load and accelcheck validate side by side, three runs each, alternating"
for run in 1 2 3; do
  /usr/bin/time -f "python json.load     %e s  user %U s  sys %S s  peak %M KiB" \
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$gemini_ir"
  /usr/bin/time -f "accelcheck validate  %e s  user %U s  sys %S s  peak %M KiB" \
    build/tools/accelcheck validate "$gemini_ir" >/dev/null
done

echo "== Gemini IR gzipped: accelcheck validate on the .gz, on the plain file, and gzip -dc alone, three runs each, alternating"
gzip -c "$gemini_ir" > "$gemini_ir.gz"
for run in 1 2 3; do
  /usr/bin/time -f "accelcheck validate .gz  %e s  user %U s  sys %S s  peak %M KiB" \
    build/tools/accelcheck validate "$gemini_ir.gz" >/dev/null
  /usr/bin/time -f "accelcheck validate      %e s  user %U s  sys %S s  peak %M KiB" \
    build/tools/accelcheck validate "$gemini_ir" >/dev/null
  /usr/bin/time -f "gzip -dc                 %e s  user %U s  sys %S s  peak %M KiB" \
    sh -c 'gzip -dc "$1" >/dev/null' sh "$gemini_ir.gz"
done

if [ -d ../shared/corpus/gemini/scheduler_ir ]; then
  echo "== Gemini real files: validation (best of 20), simulator and functional executor"
  for f in ../shared/corpus/gemini/scheduler_ir/*.json; do build/bench/gemini_bench validate "$f" 20; done
  for f in ../shared/corpus/gemini/scheduler_ir/*.json; do
    name=$(basename "$f"); build/bench/gemini_bench executors "$f" "../shared/corpus/gemini/frontend_ir/${name%_c1_bw16_stschedule.json}.json"
  done
fi

tensil=../shared/corpus/tensil
if [ -d "$tensil" ]; then
  echo "== Tensil emulator: ResNet-20 (zcu104, baseline), one CIFAR-10 image, best of 3"
  build/bench/tensil_bench emulate "$tensil"/zcu104_resnet20v2/baseline/*.tmodel "$tensil/vectors/cifar_1x32.tdata" --repeat 3
  echo "== Tensil validation of every real model (best of 20)"
  build/bench/tensil_bench validate --repeat 20 $(find "$tensil" -name '*.tmodel' | sort)
fi

edgetpu_mb=${BENCH_EDGETPU_MB:-100}
echo "== Edge TPU: $edgetpu_mb MB of parameters, 100 000 field offsets and DMA hints: accelcheck vs bare flatbuffers Verifier, and peak memory"
# The package 8-aligned in the file (read in place) and 4-aligned (copied to
# aligned memory first, as by the runtime; two of the real packages are).
for offset in 8 4; do
  file="$work/edgetpu_large_$offset.tflite"
  build/bench/edgetpu_bench generate --parameters-mb "$edgetpu_mb" --field-offsets 100000 \
    --package-offset "$offset" -o "$file"
  build/bench/edgetpu_bench compare "$file" --repeat 5
  /usr/bin/time -f "peak RSS %M KiB, %e s" build/tools/accelcheck validate "$file" >/dev/null
done

if [ -d ../shared/corpus/edgetpu ]; then
  echo "== Edge TPU real files (best of 20)"
  build/bench/edgetpu_bench corpus ../shared/corpus/edgetpu --repeat 20
fi

for target in edgetpu_fuzzer edgetpu_package_fuzzer; do
  if [ -x build-fuzz/fuzz/$target ] && [ -d build-fuzz/fuzz/seeds ]; then
    echo "== $target (ASan+UBSan), 30 s"
    tmp=$(mktemp -d)
    build-fuzz/fuzz/$target -max_total_time=30 -print_final_stats=1 \
      -dict=build-fuzz/fuzz/$target.dict "$tmp" build-fuzz/fuzz/seeds 2>&1 |
      grep -E "stat::number_of_executed_units|stat::average_exec_per_sec|stat::peak_rss_mb" || true
    rm -rf "$tmp"
  fi
done

neff_descriptors=${BENCH_NEFF_DESCRIPTORS:-400000}
echo "== NEFF: $neff_descriptors descriptors and a 16 MB constant: accelcheck vs inflating and hashing the payload, and peak memory"
build/bench/neff_bench generate --descriptors "$neff_descriptors" --constant-mb 16 -o "$work/neff_large.neff"
build/bench/neff_bench compare "$work/neff_large.neff" --repeat 5
/usr/bin/time -f "peak RSS %M KiB, %e s" build/tools/accelcheck validate "$work/neff_large.neff" >/dev/null

if [ -d ../shared/corpus/neff ]; then
  echo "== NEFF real files (best of 20), then the comparison on the largest"
  build/bench/neff_bench corpus ../shared/corpus/neff --repeat 20
fi
