#!/usr/bin/env bash
# Installs ONNX Runtime for Node.js (npm onnxruntime-node, pinned; its Linux binaries ship in
# the package, so install scripts are skipped) into .node-packages/ of this tree (gitignored),
# where the ctest `onnx_export` looks for it. Needs node and npm (scripts/install-deps.sh --all).
set -euo pipefail
cd "$(dirname "$0")/.."
version=1.31.1
target=.node-packages
if [ -f "$target/node_modules/onnxruntime-node/package.json" ] &&
   grep -q "\"version\": \"$version\"" "$target/node_modules/onnxruntime-node/package.json"; then
  exit 0
fi
mkdir -p "$target"
npm install --prefix "$target" --ignore-scripts --no-audit --no-fund --no-save "onnxruntime-node@$version"
