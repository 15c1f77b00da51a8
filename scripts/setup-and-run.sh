#!/usr/bin/env bash
# Fresh machine to verified result: installs packages, builds, certifies a shipped dataset.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
build/verify --exact "${1:-datasets/tiny-d2.json}"
