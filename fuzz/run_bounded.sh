#!/usr/bin/env bash
# A bounded fuzz run: FUZZER SECONDS DICT SEEDS WORKDIR. New inputs go to
# WORKDIR (never to the seeds); a crash leaves its reproducer there and fails.
# The seed is fixed (ACCELCHECK_FUZZ_SEED, default 1) so that a CI run explores
# the same inputs each time; set another to explore further.
set -euo pipefail
fuzzer=$1 seconds=$2 dict=$3 seeds=$4 work=$5
mkdir -p "$work"
exec "$fuzzer" -seed="${ACCELCHECK_FUZZ_SEED:-1}" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$dict" -print_final_stats=1 -artifact_prefix="$work/" "$work" "$seeds"
