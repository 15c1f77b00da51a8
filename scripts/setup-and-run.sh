#!/usr/bin/env bash
# Fresh machine to a verified result: installs what `verify` needs, builds `verify` alone and
# certifies a shipped dataset (default datasets/tiny-d2.json, or the dataset given as $1).
# scripts/test.sh installs and builds everything else (tests, verify-mpi, tools).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
# The configuration of scripts/build.sh (Release -O2, unity build), but only the verify target.
cmake -S . -B build -DCMAKE_BUILD_TYPE="${SEQI_BUILD_TYPE:-Release}" -DSEQI_WERROR="${SEQI_WERROR:-OFF}" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 > /dev/null
cmake --build build --target verify -j"$(nproc)"
build/verify --exact "${1:-datasets/tiny-d2.json}"
