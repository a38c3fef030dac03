#!/usr/bin/env bash
# Fails, naming the files, when a C++ source is not laid out as .clang-format says.
# Fix with: tools/check_format.sh --fix
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t sources < <(find api validators conformance reference_exec tools fuzz tests bench \
  -type f \( -name '*.cc' -o -name '*.h' \) | sort)
if [ "${1:-}" = "--fix" ]; then
  clang-format -i "${sources[@]}"
else
  clang-format --dry-run --Werror "${sources[@]}"
fi
