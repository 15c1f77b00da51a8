#!/usr/bin/env bash
# clang-tidy (checks in .clang-tidy: bugprone, performance, a modernize subset; warnings are
# errors) over the library, the command line and the tools, one unity unit per directory
# (scripts/tidy.py says why), using build/compile_commands.json.
set -euo pipefail
cd "$(dirname "$0")/.."
exec /usr/bin/python3 scripts/tidy.py
