#!/usr/bin/env bash
# The whole default test suite (what .ci/run calls): installs packages, builds, runs ctest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
cd build
ctest --output-on-failure -j"$(nproc)" --label-exclude long "$@"
