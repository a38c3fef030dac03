#!/bin/bash -eu
# What the OSS-Fuzz and ClusterFuzzLite images add to base-builder to build
# accelcheck: Ubuntu's packages, and flatbuffers 2.0.8 (flatc and headers)
# from its tag, since the base image's Ubuntu ships an older one than the
# Debian 12 release the project builds with.
apt-get update
apt-get install -y --no-install-recommends \
  cmake ninja-build pkg-config zip nlohmann-json3-dev libarchive-dev zlib1g-dev
git clone --depth 1 --branch v2.0.8 https://github.com/google/flatbuffers.git /flatbuffers
cmake -S /flatbuffers -B /flatbuffers/build -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DFLATBUFFERS_BUILD_TESTS=OFF
cmake --build /flatbuffers/build
cmake --install /flatbuffers/build
