#!/bin/sh
# hash_switch_cli.sh ACCELCHECK WORK_DIR: the shipped executable checks the
# NEFF hash (validators/neff/fuzz_switch.h). A valid NEFF of the suite with
# one payload byte changed and its digest left stale validates with exit 1
# and neff.hash.mismatch (docs/formats/neff.md §1.3); and where nm exists,
# the executable holds only the library's weak definition of the switch,
# never the fuzz target's strong one.
set -eu
accelcheck=$1 work=$2
fail() {
  echo "hash_switch_cli: $*" >&2
  exit 1
}
rm -rf "$work" && mkdir -p "$work"
"$accelcheck" conformance --generate "$work/suite" >/dev/null
stale="$work/stale.neff"
cp "$work/suite/neff/valid_stream.neff" "$stale"
# File offset 1028 is byte 4 of the gzip member, its mtime (0 as written),
# which the inflater ignores: the digest is all the change breaks.
printf 'Z' | dd of="$stale" bs=1 seek=1028 conv=notrunc 2>/dev/null
status=0
"$accelcheck" validate "$stale" >"$work/report.txt" 2>&1 || status=$?
cat "$work/report.txt"
[ "$status" -eq 1 ] || fail "validate exited with $status, not 1"
grep -q 'neff\.hash\.mismatch' "$work/report.txt" || fail "no neff.hash.mismatch reported"

if ! command -v nm >/dev/null 2>&1; then
  echo "nm is absent: the symbol check is skipped"
  exit 0
fi
# The function's own symbol: a coverage build adds counters named after it.
symbols=$(nm -C "$accelcheck" | grep ' accelcheck::neff::SkipsHashForFuzzing()$' || true)
echo "$symbols"
[ -n "$symbols" ] || fail "no SkipsHashForFuzzing symbol in $accelcheck"
if echo "$symbols" | grep -qv ' [Ww] '; then
  fail "$accelcheck holds a definition of SkipsHashForFuzzing that is not the weak one"
fi
