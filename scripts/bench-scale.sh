#!/usr/bin/env bash
# Scale rows (a benchmark, not a test): Fashion-MNIST classify, patch 7, at growing image
# counts. Each row: `verify --exact` (or --softmax) on T threads, wall and CPU seconds, peak
# memory, bytes of peak per input coordinate, and the seconds of every phase (from the
# --progress lines, shown from the start by --progress-delay 0). Printed as a Markdown row
# and appended to bench/results/scale.csv with the commit and the machine.
# Usage: scripts/bench-scale.sh [COUNTS [THREADS [MODES]]]
#   default: "1000 4000 16000" "1 2" "--exact --softmax"; "all" as a count takes every image
#   of the package (--split all --count all)
set -euo pipefail
cd "$(dirname "$0")/.."
commit=$(git rev-parse --short HEAD)$([ -z "$(git status --porcelain --untracked-files=no)" ] || echo +dirty)
machine="$(nproc)-core $(uname -m), $(awk '/MemTotal/ {printf "%d", $2 / 1048576 + 0.5}' /proc/meminfo) GiB"
counts=${1:-"1000 4000 16000"}
threads=${2:-"1 2"}
modes=${3:-"--exact --softmax"}
scripts/build.sh > /dev/null
mkdir -p build/bench-data
for n in $counts; do
  data=build/bench-data/fm-classify-$n.json
  split=train
  [ "$n" = all ] && split=all
  [ -f "$data" ] || build/verify import fashion-mnist --patch 7 --split "$split" --count "$n" --task classify -o "$data" > /dev/null
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
      /usr/bin/python3 - "$n" "$mode" "$t" "$wall" "$user" "$sys" "$kib" "$coords" "$log" "$commit" "$machine" "$data" <<'PY'
import csv, datetime, os, re, sys
n, mode, t, wall, user, sys_, kib, coords, log, commit, machine, data = sys.argv[1:]
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
path = "bench/results/scale.csv"
os.makedirs(os.path.dirname(path), exist_ok=True)
new = not os.path.exists(path)
with open(path, "a", newline="") as f:
    w = csv.writer(f)
    if new:
        w.writerow(["images", "mode", "threads", "command", "commit", "machine", "date", "wall_s", "cpu_s", "peak_kib",
                    "bytes_per_coordinate", "phases_s"])
    w.writerow([n, mode, t, f"build/verify {mode} --progress --progress-delay 0 --threads {t} {data}", commit, machine,
                datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"), wall,
                f"{float(user) + float(sys_):.2f}", kib, f"{peak / int(coords):.0f}", phases])
PY
      rm -f "$log" "$log.time"
    done
  done
done
