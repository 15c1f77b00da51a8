#!/usr/bin/env bash
# Fresh machine to a verified result: installs what `verify` needs, builds `verify` alone and
# certifies a shipped dataset (default datasets/tiny-d2.json, or the dataset given as $1).
# scripts/test.sh installs and builds everything else (tests, verify-mpi, tools).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh verify  # the configuration of the whole build, the verify target alone
build/verify --exact "${1:-datasets/tiny-d2.json}"
