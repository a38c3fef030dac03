#!/usr/bin/env bash
# Seeds for the Gemini fuzzers, written by the reference scheduler:
# gemini_seeds.sh ACCELCHECK DIR. Small schedules keep executions fast.
set -euo pipefail
accelcheck=$1 dir=$2
mkdir -p "$dir"
i=0
for args in "--layers 1 --height 4 --width 4 --channels 3" \
            "--layers 2 --mesh 2x1 --height 6 --width 3 --channels 8" \
            "--layers 3 --mesh 2x2 --batch 2 --height 8 --width 2 --channels 4 --tiles 3" \
            "--layers 2 --tiles 4 --height 8 --width 5 --channels 9"; do
  # shellcheck disable=SC2086
  "$accelcheck" generate gemini $args -o "$dir/seed_$i.json" > /dev/null
  rm -f "$dir/seed_$i.frontend.json"
  i=$((i + 1))
done
# Two schedules in the SET generator's dialect.
"$accelcheck" generate gemini --dialect set --layers 2 --mesh 2x1 --height 4 --width 4 \
  --channels 4 -o "$dir/seed_set_0.json" > /dev/null
"$accelcheck" generate gemini --dialect set --layers 3 --mesh 2x2 --height 2 --width 3 \
  --channels 8 --batch 2 -o "$dir/seed_set_1.json" > /dev/null
rm -f "$dir"/seed_set_*.frontend.json
# A schedule of each dialect gzipped, as large schedules travel.
gzip -c "$dir/seed_1.json" >"$dir/seed_1.json.gz"
gzip -c "$dir/seed_set_0.json" >"$dir/seed_set_0.json.gz"
