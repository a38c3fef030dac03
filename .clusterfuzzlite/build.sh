#!/bin/bash -eu
# ClusterFuzzLite's build: the project's own build script, as OSS-Fuzz runs it.
"$SRC/accelcheck/fuzz/oss_fuzz_build.sh"
