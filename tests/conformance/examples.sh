#!/bin/sh
# examples.sh ACCELCHECK RECIPE_DIR OUT_DIR: what tools/examples.sh does, on
# the build under test: generate every recipe (a recipe with EXTERNAL tensors
# also writes its .ptd), check that every .ptd has its program, and validate
# the directory (each .pte with the .ptd next to it); then write a Gemini
# network, validate it against its frontend IR (also gzipped), simulate and
# run it; then the Edge TPU part: the suite's valid models validated
# together, linked, replayed and one output re-laid out; then the suite's
# valid NEFFs validated and the stream example's DMA blocks run.
set -eu
accelcheck=$1 recipes=$2 out=$3
rm -rf "$out" && mkdir -p "$out"
for recipe in "$recipes"/*.json; do
  name=$(basename "${recipe%.json}")
  "$accelcheck" generate pte --recipe "$recipe" -o "$out/$name.pte"
done
ls "$out"/*.ptd >/dev/null
for data in "$out"/*.ptd; do
  test -f "${data%.ptd}.pte"
done
"$accelcheck" validate "$out"

gemini="$out/gemini"
mkdir -p "$gemini"
"$accelcheck" generate gemini --mesh 2x2 --layers conv,pool,conv,add,fc -o "$gemini/net.json"
"$accelcheck" validate "$gemini/net.json" --frontend "$gemini/net.frontend.json"
"$accelcheck" simulate "$gemini/net.json" --svg "$gemini/net.svg" -o "$gemini/net.simulation.json"
gzip -c "$gemini/net.json" > "$gemini/net.json.gz"
"$accelcheck" validate "$gemini/net.json.gz" --frontend "$gemini/net.frontend.json"
test -s "$gemini/net.svg"
"$accelcheck" generate gemini --dialect set --mesh 2x2 --layers 4 --channels 16 -o "$gemini/set.json"
"$accelcheck" validate --output json "$gemini/set.json" | grep -q '"dialect": "set"'
"$accelcheck" simulate "$gemini/set.json" -o "$gemini/set.simulation.json"
grep -q '"deadlock": null' "$gemini/set.simulation.json"
"$accelcheck" run "$gemini/set.json" --frontend "$gemini/set.frontend.json" --l2-addressed |
  grep -q '"tiled_equals_untiled": true'
"$accelcheck" run "$gemini/net.json" --frontend "$gemini/net.frontend.json" --l2-addressed |
  grep -q '"tiled_equals_untiled": true'

edgetpu="$out/edgetpu"
"$accelcheck" conformance --generate "$out/suite" >/dev/null
mkdir -p "$edgetpu"
"$accelcheck" validate "$out"/suite/edgetpu/valid_* >"$edgetpu/validate.txt"
if grep -q shared_value "$edgetpu/validate.txt"; then exit 1; fi
tiled="$out/suite/edgetpu/valid_tiled_layout.tflite"
"$accelcheck" run "$tiled" --output-dir "$edgetpu/linked" -q | grep -q '"patches"'
ls "$edgetpu"/linked/package0.execution_only.chunk0.bin >/dev/null
"$accelcheck" run "$tiled" --mode dma -q | grep -q '"findings": \[\]'
head -c 1280 /dev/zero >"$edgetpu/features.device.bin"
"$accelcheck" run "$tiled" --mode relayout --input features="$edgetpu/features.device.bin" \
  --output-dir "$edgetpu" -q >/dev/null
test -s "$edgetpu/features.npy"

neff="$out/neff"
mkdir -p "$neff"
"$accelcheck" validate "$out"/suite/neff/valid_* >/dev/null
head -c 4096 /dev/zero | tr '\0' '\1' >"$neff/a_vec.bin"
head -c 4096 /dev/zero | tr '\0' '\2' >"$neff/b_vec.bin"
"$accelcheck" run "$out/suite/neff/valid_stream.neff" --input a_vec="$neff/a_vec.bin" \
  --input b_vec="$neff/b_vec.bin" --output-dir "$neff" -q | grep -q '"blocks": 6'
test -s "$neff/out.npy"
