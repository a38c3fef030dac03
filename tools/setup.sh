#!/usr/bin/env bash
# Installs the Debian 12 packages accelcheck builds and tests with (run as root).
set -euo pipefail

packages=(
  cmake ninja-build g++ clang clang-format libclang-rt-14-dev pkg-config
  flatbuffers-compiler libflatbuffers-dev nlohmann-json3-dev libarchive-dev
  libgtest-dev libgmock-dev librapidcheck-dev python3 python3-yaml time dpkg-dev file
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
