#!/usr/bin/env bash
# Configures and builds into build/ (-O2 without debug info, warnings on; SEQI_BUILD_TYPE=RelWithDebInfo
# gives the same code with debug info, to profile). CI (scripts/test.sh) sets SEQI_WERROR=ON so
# that any warning fails the build. A unity build (16 sources per unit, as in the sanitizer build):
# the libraries and tools compiled in 171 s instead of 400 s here, since every file instantiates
# the same Boost and Eigen templates. The sources with their own flags (-frounding-math) are never
# batched. scripts/tidy.py expands the batches and checks every source.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE="${SEQI_BUILD_TYPE:-Release}" -DSEQI_WERROR="${SEQI_WERROR:-OFF}" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 > /dev/null
cmake --build build -j"$(nproc)"
