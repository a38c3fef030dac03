#!/usr/bin/env bash
# The seed corpus of one fuzz target, as fuzz/targets.txt names it, written by
# the project's own generators: seeds.sh ACCELCHECK TARGET DIR replaces DIR
# with it.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
accelcheck=$1 target=$2 dir=$3
if ! line=$(grep -E "^${target}[[:space:]]" "$here/targets.txt"); then
  echo "seeds.sh: $target is not a target of fuzz/targets.txt" >&2
  exit 2
fi
read -r _ format seeds _ <<<"$line"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
case $seeds in
  suite | suite/*)
    "$accelcheck" conformance --generate "$work/out" >/dev/null
    from=$work/out${seeds#suite}
    ;;
  *.sh | *.sh:*)
    script=${seeds%%:*}
    "$here/$format/$script" "$accelcheck" "$work/out"
    from=$work/out
    [[ $seeds == *:* ]] && from=$work/out/${seeds#*:}
    ;;
  *)
    echo "seeds.sh: $target: seeds '$seeds' are neither suite[/F] nor S.sh[:D]" >&2
    exit 2
    ;;
esac
rm -rf "$dir"
mkdir -p "$dir"
cp -R "$from"/. "$dir"
