#!/bin/sh
# examples.sh ACCELCHECK RECIPE_DIR OUT_DIR: what tools/examples.sh does, on
# the build under test: generate every recipe (a recipe with EXTERNAL tensors
# also writes its .ptd), check that every .ptd has its program, and validate
# the directory (each .pte with the .ptd next to it).
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
