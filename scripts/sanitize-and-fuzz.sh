#!/usr/bin/env bash
# One clang build with AddressSanitizer + UndefinedBehaviorSanitizer (and libFuzzer hooks):
# runs the default test suite under the sanitizers, then fuzzes the dataset and model parsers
# for a bounded time (default 60 s). A crashing input is written to tests/fuzz-regressions/;
# commit it: test_fuzz_regressions replays every file there.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
# A unity build (16 sources per unit) like the plain one (scripts/build.sh says why), at -O1 with
# line tables only (-g1: enough for the sanitizers' stack traces, a fraction of the compile time
# of -O2 -g). The sanitizer build also checks the rounding contract (SEQI_CHECK_ROUNDING).
source scripts/build-env.sh
cmake -S . -B build-san "${launcher[@]}" -DCMAKE_CXX_COMPILER=clang++ -DSEQI_FUZZ=ON -DSEQI_WERROR=ON -DSEQI_MPI=OFF \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 > /dev/null
cmake --build build-san -j"$(nproc)"
echo "== sanitizer build: $SECONDS s"
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The random sweep runs 150 datasets here (600 in the plain build): every code path, a quarter of the time.
# verify-mpi is not built here (SEQI_MPI=OFF): Open MPI under ASan is not set up; test_sharding
# covers the splitting of the work with threads. The docs check (label docs) runs in the plain
# build only: it checks the pages, and its commands take the code paths test_cli takes here.
(cd build-san && SEQI_SWEEP_COUNT=150 ctest --output-on-failure -j"$(nproc)" --label-exclude "long|install|mpi|docs")
echo "== sanitizer build and suite: $SECONDS s"
corpus=build-san/fuzz-corpus
mkdir -p "$corpus"
cp datasets/*.json datasets/regression/*.json tests/bad-input/*.json tests/fuzz-regressions/* "$corpus"/ 2>/dev/null || true
build-san/fuzz/fuzz_parsers -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=4096 \
  -artifact_prefix=tests/fuzz-regressions/ "$corpus"
