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
mkdir "$work/seeds"
# Each source of a "+" list in turn; a later source's file of the same name
# replaces an earlier one's.
IFS=+ read -r -a sources <<<"$seeds"
for source in "${sources[@]}"; do
  rm -rf "$work/out"
  case $source in
    suite | suite/*)
      "$accelcheck" conformance --generate "$work/out" >/dev/null
      from=$work/out${source#suite}
      ;;
    *.sh | *.sh:*)
      script=${source%%:*}
      "$here/$format/$script" "$accelcheck" "$work/out"
      from=$work/out
      [[ $source == *:* ]] && from=$work/out/${source#*:}
      ;;
    *)
      echo "seeds.sh: $target: seeds '$source' are neither suite[/F] nor S.sh[:D]" >&2
      exit 2
      ;;
  esac
  cp -R "$from"/. "$work/seeds"
done
rm -rf "$dir"
mkdir -p "$dir"
cp -R "$work/seeds"/. "$dir"
