#!/usr/bin/env bash
# The main job on the project's own example files: builds every .pte recipe in
# conformance/pte/recipes/ and validates the programs; writes a Gemini network
# with the reference scheduler, validates it against its frontend IR, simulates
# it and runs it (tiled against untiled, tensors at their L2 addresses); then
# generates the conformance suite of every format and checks it.
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

"$accelcheck" conformance --generate "$out/suite" >/dev/null
"$accelcheck" conformance "$out/suite" | tail -1
