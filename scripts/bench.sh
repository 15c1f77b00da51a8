#!/usr/bin/env bash
# The benchmark tables (not a test): synthetic datasets and the Fashion-MNIST imports.
# Each seqi_bench row: construction, exact and softmax certification, peak memory, max
# coordinate bits, the dense double pass and the naive dense exact pass of the same
# transformer, and ratios. SEQI_BENCH_BUDGET (seconds, default 120) bounds each dense pass;
# longer ones are extrapolated (~).
# Every command's output is printed and recorded as one CSV row (command, commit, machine,
# date, exit code, wall/user/system seconds, peak KiB, output) by scripts/bench-record.py in
# bench/results/*.csv; the CSV files this script writes are started afresh on each run.
# docs/benchmarks.md explains the tables.
set -euo pipefail
cd "$(dirname "$0")/.."
results=bench/results
rec() {  # rec CSV NAME COMMAND...: run, print and record one row
  local csv=$results/$1.csv name=$2
  shift 2
  /usr/bin/python3 scripts/bench-record.py "$csv" "$name" -- "$@"
}
scripts/build.sh > /dev/null
cmake --build build --target seqi_bench seqi_general_bench > /dev/null
mkdir -p build/bench-data "$results"
rm -f "$results"/{synthetic,conditioning,replay,build,verify,mpi,general}.csv
build/verify import fashion-mnist --patch 7 --count 1000 --task classify -o build/bench-data/fm1000.json > /dev/null
build/verify import fashion-mnist --patch 7 --count 200 --task inpaint --mask 4 -o build/bench-data/fm-inpaint.json > /dev/null
rec synthetic "synthetic rows" build/seqi_bench
rec synthetic "Fashion-MNIST classify 1000" build/seqi_bench --file build/bench-data/fm1000.json
rec synthetic "Fashion-MNIST inpaint 200" build/seqi_bench --file build/bench-data/fm-inpaint.json
# Conditioning rows (proofs/conditioning.tex): ||theta||^2, max |weight| and the float64/float32
# replays (off-target sequences / max relative Hausdorff distance) of both settings.
build/verify import fashion-mnist --patch 7 --count 4000 --task classify -o build/bench-data/fm4000.json > /dev/null
build/verify import fashion-mnist --patch 7 --count 1000 --task inpaint --mask 4 -o build/bench-data/fm-inpaint1000.json > /dev/null
rec conditioning "words-300, FM classify 1000 and 4000, FM inpaint 1000" \
  build/seqi_bench --conditioning datasets/words-300.json build/bench-data/fm1000.json build/bench-data/fm4000.json \
  build/bench-data/fm-inpaint1000.json
rec conditioning "regression corpus" build/seqi_bench --conditioning-corpus datasets/regression/corpus.json
# The float64 and float32 replays alone (CPU seconds, every sequence): the part of a run that grows
# with blocks x tokens (docs/float-replays.md).
rec replay "FM classify 1000 and 4000" build/seqi_bench --replay build/bench-data/fm1000.json build/bench-data/fm4000.json
# Building alone at 1000, 4000 and 16000 images (near-linear growth expected).
build/verify import fashion-mnist --patch 7 --count 16000 --task classify -o build/bench-data/fm16000.json > /dev/null
rec build "FM classify 1000, 4000, 16000" \
  build/seqi_bench --build build/bench-data/fm1000.json build/bench-data/fm4000.json build/bench-data/fm16000.json
# verify end to end on 1 and 2 threads (--threads; output identical, only the time differs).
for t in 1 2; do
  for n in 1000 4000; do
    rec verify "FM classify $n --exact --threads $t" build/verify --exact --threads "$t" "build/bench-data/fm$n.json" > /dev/null
  done
done
rec verify "FM classify 1000 --softmax --threads 2" build/verify --softmax --threads 2 build/bench-data/fm1000.json > /dev/null
# Random general models (docs/models.md): 100 models, seed 1.
rec general "100 random softmax models, seed 1" build/seqi_general_bench 100 1
# verify-mpi on 1, 2 and 4 processes of this machine, one thread each (docs/cluster.md; more
# processes than cores oversubscribe). Its output equals verify's.
if [ -x build/verify-mpi ]; then
  for np in 1 2 4; do
    for mode in --exact --softmax; do
      rec mpi "verify-mpi $mode --threads 1, $np processes, FM classify 1000" \
        mpirun --allow-run-as-root --oversubscribe --bind-to none --mca btl self,vader -np "$np" \
        build/verify-mpi "$mode" --threads 1 build/bench-data/fm1000.json > /dev/null
    done
  done
fi
