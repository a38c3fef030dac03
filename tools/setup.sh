#!/usr/bin/env bash
# Installs the Debian 12 packages accelcheck builds and tests with (run as root).
set -euo pipefail

packages=(
  cmake ninja-build g++ clang clang-format libclang-rt-14-dev pkg-config
  flatbuffers-compiler libflatbuffers-dev nlohmann-json3-dev libarchive-dev zlib1g-dev
  libgtest-dev libgmock-dev librapidcheck-dev python3 python3-yaml python3-numpy time dpkg-dev file
  zip unzip
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The SARIF multitool, the official SARIF validator, which the SARIF tests run
# offline (they skip without it). npm comes from Debian unless a Node.js
# install already brings it.
if ! command -v sarif-multitool >/dev/null 2>&1; then
  if ! command -v npm >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends npm
  fi
  npm install -g --no-audit --no-fund @microsoft/sarif-multitool@5.7.0 ||
    echo "setup.sh: warning: the SARIF multitool did not install; the SARIF validation tests will skip" >&2
fi
