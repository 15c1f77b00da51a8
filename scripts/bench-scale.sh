#!/usr/bin/env bash
# Scale rows (issue 16; a benchmark, not a test): Fashion-MNIST classify, patch 7, at growing
# image counts. Each row: `verify --exact` (or --softmax) on T threads, wall and CPU seconds,
# peak memory, bytes of peak per input coordinate, and the seconds of every phase (from the
# --progress lines, shown from the start by --progress-delay 0).
# Usage: scripts/bench-scale.sh [COUNTS [THREADS [MODES]]]
#   default: "1000 4000 16000" "1 2" "--exact --softmax"
set -euo pipefail
cd "$(dirname "$0")/.."
counts=${1:-"1000 4000 16000"}
threads=${2:-"1 2"}
modes=${3:-"--exact --softmax"}
scripts/build.sh > /dev/null
mkdir -p build/bench-data
for n in $counts; do
  data=build/bench-data/fm-classify-$n.json
  [ -f "$data" ] || build/verify import fashion-mnist --patch 7 --count "$n" --task classify -o "$data" > /dev/null
  coords=$(/usr/bin/python3 -c "
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(len(p['input']) for p in d['pairs']) * d['dimension'])" "$data")
  for mode in $modes; do
    for t in $threads; do
      log=$(mktemp)
      /usr/bin/time -f "%e %U %S %M" -o "$log.time" build/verify "$mode" --progress --progress-delay 0 --threads "$t" "$data" \
        > /dev/null 2> "$log" || true
      read -r wall user sys kib < "$log.time"
      /usr/bin/python3 - "$n" "$mode" "$t" "$wall" "$user" "$sys" "$kib" "$coords" "$log" <<'PY'
import re, sys
n, mode, t, wall, user, sys_, kib, coords, log = sys.argv[1:]
last = {}
for line in open(log):
    m = re.match(r"verify: (.*?)(?: \d+/\d+.*)?, ([0-9.]+) s elapsed", line.strip())
    if m:
        last.setdefault(m.group(1).rstrip(":").split(" (")[0], 0.0)
        last[m.group(1).rstrip(":").split(" (")[0]] = float(m.group(2))
phases = "; ".join(f"{k} {v:.1f}" for k, v in last.items())
peak = int(kib) * 1024
print(f"| {n} | {mode} | {t} | {float(wall):.1f} | {float(user) + float(sys_):.1f} | {peak / 2**20:.0f} | "
      f"{peak / int(coords):.0f} | {phases} |")
PY
      rm -f "$log" "$log.time"
    done
  done
done
