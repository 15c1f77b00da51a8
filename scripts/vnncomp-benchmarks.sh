#!/usr/bin/env bash
# The VNN-LIB benchmark set of the shipped data: for every datasets/*.json and both settings,
# `verify --save-property OUTDIR/<dataset>-<exact|softmax>` (docs/vnnlib.md). Each directory is
# one benchmark in the VNN-COMP layout (instances.csv, onnx/, vnnlib/, manifest.json); a
# dataset whose float64 statement is not shown gets a directory without properties and a note.
# OUTDIR must not exist yet or be empty. Builds verify first unless VERIFY names a binary.
# Usage: scripts/vnncomp-benchmarks.sh OUTDIR [extra verify options, e.g. --property-timeout 300]
set -euo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 OUTDIR [verify options]" >&2
  exit 2
fi
out=$1
shift
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -e "$out" ] && { [ ! -d "$out" ] || [ -n "$(ls -A "$out")" ]; }; then
  echo "$0: $out exists and is not an empty directory; give a new or empty one" >&2
  exit 2
fi
verify=${VERIFY:-}
if [ -z "$verify" ]; then
  "$root/scripts/build.sh" verify > /dev/null
  verify="$root/build/verify"
fi
mkdir -p "$out"
total=0
for data in "$root"/datasets/*.json; do
  name=$(basename "$data" .json)
  for setting in exact softmax; do
    dir="$out/$name-$setting"
    "$verify" "--$setting" --save-property "$dir" "$@" "$data" > /dev/null
    count=$(wc -l < "$dir/instances.csv")
    total=$((total + count))
    echo "$dir: $count instances"
  done
done
echo "$total instances in $out (expected answers in each manifest.json)"
