#!/usr/bin/env bash
# The whole test suite (what .ci/run calls): installs packages, builds with warnings as errors,
# runs clang-tidy and the default ctest suite, then the same suite under ASan/UBSan and a 60 s
# libFuzzer run of the parsers.
# --quick skips clang-tidy, the sanitizer build and the fuzzer (for local iteration only).
set -euo pipefail
cd "$(dirname "$0")/.."
stage() { local t0=$SECONDS; "$@"; echo "== stage '$*': $((SECONDS - t0)) s (total $SECONDS s)"; }
stage scripts/install-deps.sh --all
SEQI_WERROR=ON stage scripts/build.sh
(cd build && stage ctest --output-on-failure -j"$(nproc)" --label-exclude long)
if [ "${1:-}" != "--quick" ]; then
  stage scripts/tidy.sh
  stage scripts/sanitize-and-fuzz.sh 60
fi
