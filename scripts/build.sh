#!/usr/bin/env bash
# Configures and builds into build/ (-O2 without debug info, warnings on; SEQI_BUILD_TYPE=RelWithDebInfo
# gives the same code with debug info, to profile). CI (scripts/test.sh) sets SEQI_WERROR=ON so
# that any warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE="${SEQI_BUILD_TYPE:-Release}" -DSEQI_WERROR="${SEQI_WERROR:-OFF}" > /dev/null
cmake --build build -j"$(nproc)"
