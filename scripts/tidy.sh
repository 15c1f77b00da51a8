#!/usr/bin/env bash
# clang-tidy (checks in .clang-tidy: bugprone, performance, a modernize subset; warnings are
# errors) over the library, the command line and the tools, using build/compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -f build/compile_commands.json ] || scripts/build.sh
mapfile -t files < <(find src tools -name '*.cpp' | sort)
printf '%s\n' "${files[@]}" | xargs -P "$(nproc)" -n 1 clang-tidy -p build --quiet 2> >(grep -v "warnings generated" >&2)
echo "clang-tidy: ${#files[@]} files clean"
