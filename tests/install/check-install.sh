#!/usr/bin/env bash
# cmake --install into a fresh prefix, then build and run a consumer project that finds seqi
# with find_package(seqi) and certifies a shipped dataset. Args: build dir, source dir.
set -euo pipefail
build="$1" source="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
test -x "$work/prefix/bin/verify"
test -f "$work/prefix/include/seqi/core/dataset.hpp"
test ! -e "$work/prefix/include/seqi/cli"
# Internal headers (beside their sources in src/) are never installed.
while IFS= read -r internal; do
  if find "$work/prefix/include" -name "$(basename "$internal")" | grep -q .; then
    echo "internal header installed: $internal" >&2
    exit 1
  fi
done < <(find "$source/src" -name '*.hpp')
cmake -S "$source/tests/install" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" \
  -DCMAKE_BUILD_TYPE=Release > "$work/configure.log"
cmake --build "$work/consumer" -j2 > "$work/build.log"
"$work/consumer/consumer" "$source/datasets/tiny-d2.json"
"$work/prefix/bin/verify" --exact "$source/datasets/tiny-d2.json" > /dev/null
