#!/usr/bin/python3
"""Runs one benchmark command and appends its row to a CSV file under bench/results/.

Usage: scripts/bench-record.py CSV NAME -- COMMAND [ARG...]

The row: name, command, commit (git rev-parse --short HEAD, with "+dirty" when the work tree
has changes to tracked files), machine (cores, architecture, memory), date (UTC), exit code,
wall, user and system seconds and peak resident memory (KiB) of the command and its children
(os.wait4), and the command's standard output with newlines as " / ". The command's standard
output is also printed, so the script can sit inside a pipeline. The CSV file gets a header
when it is new. Standard library only.
"""
import csv
import datetime
import os
import platform
import resource
import subprocess
import sys
import time

FIELDS = ["name", "command", "commit", "machine", "date", "exit_code", "wall_s", "user_s", "sys_s", "peak_kib",
          "output"]


def commit():
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def machine():
    with open("/proc/meminfo") as f:
        kib = next(int(line.split()[1]) for line in f if line.startswith("MemTotal:"))
    return f"{os.cpu_count()}-core {platform.machine()}, {round(kib / 2**20)} GiB"


def main():
    args = sys.argv[1:]
    if "--" not in args or args.index("--") < 2:
        print(__doc__, file=sys.stderr)
        return 2
    split = args.index("--")
    path, name, command = args[0], args[1], args[split + 1:]
    start = time.monotonic()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.monotonic() - start
    code = os.waitstatus_to_exitcode(status)
    child.returncode = code
    sys.stdout.write(output)
    row = {"name": name, "command": " ".join(command), "commit": commit(), "machine": machine(),
           "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M"),
           "exit_code": code, "wall_s": f"{wall:.2f}", "user_s": f"{usage.ru_utime:.2f}",
           "sys_s": f"{usage.ru_stime:.2f}", "peak_kib": usage.ru_maxrss,
           "output": " / ".join(line.strip() for line in output.splitlines() if line.strip())}
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    new = not os.path.exists(path) or os.path.getsize(path) == 0
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            writer.writeheader()
        writer.writerow(row)
    return code


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    sys.exit(main())
