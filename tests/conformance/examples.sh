#!/bin/sh
# examples.sh ACCELCHECK RECIPE_DIR OUT_DIR: what tools/examples.sh does, on
# the build under test: generate every recipe (a recipe with EXTERNAL tensors
# also writes its .ptd), check that every .ptd has its program, and validate
# the directory (each .pte with the .ptd next to it); then write a Gemini
# network, validate it against its frontend IR, simulate and run it.
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
test -s "$gemini/net.svg"
"$accelcheck" run "$gemini/net.json" --frontend "$gemini/net.frontend.json" --l2-addressed |
  grep -q '"tiled_equals_untiled": true'
