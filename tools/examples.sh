#!/usr/bin/env bash
# The main job on the project's own example files: builds every recipe in
# conformance/*/recipes/ with the builder, then validates the results.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/build.sh
out=build/examples
rm -rf "$out" && mkdir -p "$out"
for recipe in conformance/pte/recipes/*.json; do
  build/tools/accelcheck generate pte --recipe "$recipe" -o "$out/$(basename "${recipe%.json}").pte"
done
build/tools/accelcheck validate "$out"
