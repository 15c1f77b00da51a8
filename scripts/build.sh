#!/usr/bin/env bash
# Configures and builds into build/ (-O2 without debug info, warnings on; SEQI_BUILD_TYPE=RelWithDebInfo
# gives the same code with debug info, to profile). CI (scripts/test.sh) sets SEQI_WERROR=ON so
# that any warning fails the build. A unity build (16 sources per unit, as in the sanitizer build):
# every file instantiates the same Boost and Eigen templates, so batching them costs a fraction of
# the time. Compile flags are set per library, never per file (CMakeLists.txt), so every source
# can be batched. scripts/tidy.py expands the batches and checks every source.
# Arguments: the targets to build (default: all of them; scripts/setup-and-run.sh builds verify).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/build-env.sh
cmake -S . -B build "${launcher[@]}" -DCMAKE_BUILD_TYPE="${SEQI_BUILD_TYPE:-Release}" -DSEQI_WERROR="${SEQI_WERROR:-OFF}" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 > /dev/null
targets=()
for t in "$@"; do targets+=(--target "$t"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
