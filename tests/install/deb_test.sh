#!/bin/sh
# deb_test.sh BUILD_DIR WORK VERSION: makes the Debian package with cpack in
# WORK, checks its control fields and its one file, unpacks it into a scratch
# root with dpkg -x and runs the command from there: --version, then validate
# on a valid and a broken Tensil architecture.
set -eu
build=$1 work=$2 version=$3
rm -rf "$work" && mkdir -p "$work"
cpack --config "$build/CPackConfig.cmake" -B "$work" >/dev/null
deb="$work/accelcheck_${version}_$(dpkg --print-architecture).deb"
dpkg-deb --info "$deb"
field() { dpkg-deb --field "$deb" "$1"; }
test "$(field Package)" = accelcheck
test "$(field Version)" = "$version"
test -n "$(field Maintainer)"
# The static project libraries leave the C and C++ runtimes only.
depends=$(field Depends)
for package in libc6 libstdc++6; do
  case "$depends" in *"$package "*) ;; *) echo "Depends lacks $package" >&2; exit 1 ;; esac
done

dpkg-deb --contents "$deb"
files=$(dpkg-deb --contents "$deb" | awk '$1 !~ /^d/ { print $NF }')
test "$files" = ./usr/bin/accelcheck

root="$work/root"
dpkg -x "$deb" "$root"
accelcheck="$root/usr/bin/accelcheck"
file "$accelcheck" | grep -q ', stripped'
"$accelcheck" --version | tee "$work/version"
test "$(head -1 "$work/version")" = "accelcheck $version"

arch='{"data_type": "FP16BP8", "array_size": 8, "dram0_depth": 1024, "dram1_depth": 1024,
  "local_depth": 256, "accumulator_depth": 256, "simd_registers_depth": 1, "stride0_depth": 8,
  "stride1_depth": 8, "number_of_threads": 1, "thread_queue_depth": 8}'
printf '%s\n' "$arch" >"$work/valid.tarch"
printf '%s\n' "$arch" | sed 's/"array_size": 8/"array_size": 0/' >"$work/broken.tarch"
"$accelcheck" validate "$work/valid.tarch"
status=0
"$accelcheck" validate "$work/broken.tarch" >"$work/broken.txt" || status=$?
cat "$work/broken.txt"
test "$status" = 1
grep -q 'error\[tensil.arch.positive\]' "$work/broken.txt"
