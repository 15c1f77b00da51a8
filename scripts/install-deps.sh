#!/usr/bin/env bash
# Installs the Debian packages the project needs (idempotent; run as root on Debian 12).
#   scripts/install-deps.sh         what building and running `verify` needs (scripts/setup-and-run.sh)
#   scripts/install-deps.sh --all   also what the whole test suite, verify-mpi, the Fashion-MNIST
#                                   importer, the PyTorch bridge, the PDF certificates and the ONNX
#                                   checks need (npm onnxruntime-node: scripts/install-onnxruntime.sh)
#                                   (scripts/test.sh)
set -euo pipefail
minimal=(
  cmake g++ make ninja-build pkg-config          # build
  libgmp-dev libmpfr-dev libmpfi-dev             # exact rationals, outward-rounded intervals
  libboost-dev libboost-test-dev                 # Boost.Multiprecision; Boost.Test (CMake configure requires it)
  libeigen3-dev nlohmann-json3-dev libcli11-dev  # vectors, JSON, command line
  nettle-dev zlib1g-dev                          # SHA-256 in certificates, gzip for IDX files
  libjemalloc-dev                                # the programs' malloc (small GMP limbs: half the memory)
)
rest=(
  libopenmpi-dev openmpi-bin                     # verify-mpi (docs/cluster.md)
  dataset-fashion-mnist                          # real data for the importer
  clang libclang-rt-14-dev clang-tidy            # sanitizers, libFuzzer and clang-tidy in CI
  ccache                                         # compiler cache for repeated builds
  python3-torch python3-numpy python3-matplotlib  # PyTorch bridge test and the Tikhonov experiment
  python3-mpmath                                 # oracle of the Tikhonov experiment's enclosures
  texlive-latex-base texlive-latex-recommended texlive-latex-extra texlive-pictures poppler-utils  # certificates
  python3-onnx                                   # the ONNX checker (ctest -L onnx)
)
# Node.js for ONNX Runtime (ctest -L onnx); a node that brings its own npm is kept as it is.
command -v node >/dev/null && command -v npm >/dev/null || rest+=(nodejs npm)
case "${1:-}" in
  "") packages=("${minimal[@]}") ;;
  --all) packages=("${minimal[@]}" "${rest[@]}") ;;
  *) echo "usage: $0 [--all]" >&2; exit 2 ;;
esac
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ "${1:-}" = --all ]; then
  "$(dirname "$0")/install-onnxruntime.sh"  # npm onnxruntime-node into .node-packages/
fi
