#!/bin/bash -eu
# projects/accelcheck/build.sh of OSS-Fuzz: the project's own build script.
"$SRC/accelcheck/fuzz/oss_fuzz_build.sh"
