#!/usr/bin/env bash
# The benchmark table (not a test): synthetic datasets and the Fashion-MNIST imports.
# Each row: construction, exact and softmax certification, peak memory, max coordinate bits,
# the dense double pass and the naive dense exact pass of the same transformer, and ratios.
# SEQI_BENCH_BUDGET (seconds, default 120) bounds each dense pass; longer ones are extrapolated (~).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh > /dev/null
cmake --build build --target seqi_bench > /dev/null
mkdir -p build/bench-data
build/verify import fashion-mnist --patch 7 --count 1000 --task classify -o build/bench-data/fm1000.json > /dev/null
build/verify import fashion-mnist --patch 7 --count 200 --task inpaint --mask 4 -o build/bench-data/fm-inpaint.json > /dev/null
build/seqi_bench
build/seqi_bench --file build/bench-data/fm1000.json
build/seqi_bench --file build/bench-data/fm-inpaint.json
# Conditioning rows (issue 10, proofs/conditioning.tex): ||theta||^2, max |weight| and the
# float64/float32 runs (off-target sequences / max relative Hausdorff distance) of both settings.
build/verify import fashion-mnist --patch 7 --count 4000 --task classify -o build/bench-data/fm4000.json > /dev/null
build/verify import fashion-mnist --patch 7 --count 1000 --task inpaint --mask 4 -o build/bench-data/fm-inpaint1000.json > /dev/null
build/seqi_bench --conditioning datasets/words-300.json build/bench-data/fm1000.json build/bench-data/fm4000.json \
  build/bench-data/fm-inpaint1000.json
build/seqi_bench --conditioning-corpus datasets/regression/corpus.json
# The float64 and float32 replays alone (CPU seconds, every sequence): the part of a run that grows
# with blocks x tokens (README: Scale, session 15).
build/seqi_bench --replay build/bench-data/fm1000.json build/bench-data/fm4000.json
# Building alone (issue 16, near-linear: 4x images <= 4.4x CPU seconds) at 1000, 4000, 16000 images.
build/verify import fashion-mnist --patch 7 --count 16000 --task classify -o build/bench-data/fm16000.json > /dev/null
build/seqi_bench --build build/bench-data/fm1000.json build/bench-data/fm4000.json build/bench-data/fm16000.json
# verify end to end on 1 and 2 threads (--threads; output identical, only the time differs).
for t in 1 2; do
  /usr/bin/time -f "verify --exact --threads $t, Fashion-MNIST 1000 images: %e s, %M KiB peak" \
    build/verify --exact --threads "$t" build/bench-data/fm1000.json > /dev/null
done
# verify-mpi on 1, 2 and 4 processes of this machine, one thread each (README: running on a
# cluster; more processes than cores oversubscribe). Its output equals verify's.
if [ -x build/verify-mpi ]; then
  for np in 1 2 4; do
    for mode in --exact --softmax; do
      /usr/bin/time -f "verify-mpi $mode --threads 1 on $np processes, Fashion-MNIST 1000 images: %e s wall, %U s user, %S s system" \
        mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np "$np" \
        build/verify-mpi "$mode" --threads 1 build/bench-data/fm1000.json > /dev/null
    done
  done
fi
