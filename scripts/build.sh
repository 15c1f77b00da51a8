#!/usr/bin/env bash
# Configures and builds into build/ (Release with debug info, warnings on). CI (scripts/test.sh)
# sets SEQI_WERROR=ON so that any warning fails the build.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSEQI_WERROR="${SEQI_WERROR:-OFF}" > /dev/null
cmake --build build -j"$(nproc)"
