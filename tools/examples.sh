#!/usr/bin/env bash
# The main job on the project's own example files: builds every .pte recipe in
# conformance/pte/recipes/ and validates the programs; writes a Gemini network
# with the reference scheduler, validates it against its frontend IR (also
# gzipped), simulates it and runs it (tiled against untiled, tensors at their
# L2 addresses); then
# generates the conformance suite of every format and checks it, runs the
# Edge TPU driver's host work on its valid Edge TPU models, and the NEFF DMA
# executor on its valid NEFFs.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
accelcheck=build/tools/accelcheck
out=build/examples
rm -rf "$out" && mkdir -p "$out/pte" "$out/gemini"

for recipe in conformance/pte/recipes/*.json; do
  "$accelcheck" generate pte --recipe "$recipe" -o "$out/pte/$(basename "${recipe%.json}").pte"
done
"$accelcheck" validate "$out/pte"

"$accelcheck" generate gemini --mesh 2x2 --layers conv,pool,conv,add,fc -o "$out/gemini/net.json"
"$accelcheck" validate "$out/gemini/net.json" --frontend "$out/gemini/net.frontend.json"
"$accelcheck" simulate "$out/gemini/net.json" --svg "$out/gemini/net.svg" -o "$out/gemini/net.simulation.json"
echo "wrote $out/gemini/net.svg and net.simulation.json"
"$accelcheck" run "$out/gemini/net.json" --frontend "$out/gemini/net.frontend.json" --l2-addressed
# The same schedule gzipped, as large schedules travel: validated from its inflated bytes.
gzip -c "$out/gemini/net.json" > "$out/gemini/net.json.gz"
"$accelcheck" validate "$out/gemini/net.json.gz" --frontend "$out/gemini/net.frontend.json"
# A schedule in the SET generator's dialect, with the same frontend IR: validated, simulated
# and computed.
"$accelcheck" generate gemini --dialect set --mesh 2x2 --layers 4 --channels 16 -o "$out/gemini/set.json"
"$accelcheck" validate "$out/gemini/set.json"
"$accelcheck" simulate "$out/gemini/set.json" --svg "$out/gemini/set.svg" -o "$out/gemini/set.simulation.json"
"$accelcheck" run "$out/gemini/set.json" --frontend "$out/gemini/set.frontend.json" --l2-addressed

"$accelcheck" conformance --generate "$out/suite" >/dev/null
"$accelcheck" conformance "$out/suite" | tail -1

# The valid Edge TPU models of the suite, validated together (distinct cache
# tokens: no note), linked, their hints replayed, one output re-laid out.
mkdir -p "$out/edgetpu"
"$accelcheck" validate "$out"/suite/edgetpu/valid_*
tiled="$out/suite/edgetpu/valid_tiled_layout.tflite"
"$accelcheck" run "$tiled" --output-dir "$out/edgetpu/linked" -q >"$out/edgetpu/link.json"
"$accelcheck" run "$tiled" --mode dma -q >"$out/edgetpu/dma.json"
head -c 1280 /dev/zero >"$out/edgetpu/features.device.bin"
"$accelcheck" run "$tiled" --mode relayout --input features="$out/edgetpu/features.device.bin" \
  --output-dir "$out/edgetpu" -q >/dev/null
echo "wrote $out/edgetpu: linked bitstreams, link.json, dma.json, features.npy"

# The valid NEFFs of the suite, validated, and the DMA blocks of the stream
# example run on two inputs of constant bytes.
mkdir -p "$out/neff"
"$accelcheck" validate "$out"/suite/neff/valid_*
head -c 4096 /dev/zero | tr '\0' '\1' >"$out/neff/a_vec.bin"
head -c 4096 /dev/zero | tr '\0' '\2' >"$out/neff/b_vec.bin"
"$accelcheck" run "$out/suite/neff/valid_stream.neff" --input a_vec="$out/neff/a_vec.bin" \
  --input b_vec="$out/neff/b_vec.bin" --output-dir "$out/neff" -q >"$out/neff/run.json"
echo "wrote $out/neff: run.json, out.npy"
