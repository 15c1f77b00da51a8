#!/usr/bin/python3
"""clang-tidy over src/ and tools/ (checks in .clang-tidy; warnings are errors).

Each directory is checked as one unity translation unit (a generated file that #includes its
.cpp files), because the cost of clang-tidy is dominated by walking the Boost and Eigen
instantiations every file shares: one unity unit per directory is several times faster than
one run per file. The build itself may be a unity build: its batched sources are expanded to
their member files here, and every .cpp under src/ and tools/ must be found. Diagnostics in
the included files are reported (the header filter covers src/ and tools/). If a unity unit
does not compile (two files of a directory defining the same internal name), that directory is
checked file by file instead.

Clean results are cached (as ccache caches objects) under $SEQI_TIDY_CACHE (default
~/.cache/seqi-tidy; "off" disables it). A unit's key hashes everything its result depends on:
clang-tidy's version, .clang-tidy, this script, the compile arguments, and the contents of every
file the unit reads (its sources and each header the preprocessor opens, listed by clang's -M), with the
tree's root replaced by a placeholder so that a fresh clone elsewhere hits the same entries.
Only clean units are cached: a finding is always reported from a real run.
"""
import hashlib
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.path.join(ROOT, "build")
HEADER_FILTER = f"^{ROOT}/(include/seqi|src|tools)/.*"


def compile_args(entry):
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out, skip = [], False
    for a in args[1:]:
        if skip:
            skip = False
            continue
        if a in ("-o", "-c"):
            skip = True
            continue
        if a == entry["file"] or a.endswith(".cpp"):
            continue
        if a.startswith("-fvect-cost-model"):  # GCC's alone (CMakeLists.txt: float_replay.cpp)
            continue
        out.append(a)
    return out


def sources_of(entry):
    """The .cpp files an entry compiles: the file itself, or the members of a CMake unity source."""
    path = os.path.realpath(entry["file"])
    if os.path.basename(os.path.dirname(path)) != "Unity":
        return [path]
    with open(path) as f:
        return [os.path.realpath(m) for m in re.findall(r'^#include "(.+\.cpp)"', f.read(), re.MULTILINE)]


def checked_sources():
    """Every .cpp under src/ and tools/: each must be checked."""
    found = set()
    for top in ("src", "tools"):
        for d, _, names in os.walk(os.path.join(ROOT, top)):
            found.update(os.path.realpath(os.path.join(d, n)) for n in names if n.endswith(".cpp"))
    return found


def cache_dir():
    """Where clean results are kept, or None when caching is off."""
    where = os.environ.get("SEQI_TIDY_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "seqi-tidy"))
    return None if where == "off" else where


def tool_identity():
    """clang-tidy's version, the configuration and this script (its header filter and options):
    part of every key."""
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    identity = version.encode()
    for path in (os.path.join(ROOT, ".clang-tidy"), os.path.abspath(__file__)):
        with open(path, "rb") as f:
            identity += f.read()
    return identity


def unit_key(source, extra, args, identity, unity_dir):
    """The hash of everything a unit's clang-tidy result depends on, or None if clang cannot list
    the files it reads (then the unit is simply not cached)."""
    deps = subprocess.run(["clang++", *args, "-M", "-MF", "-", source], cwd=BUILD, capture_output=True, text=True)
    if deps.returncode != 0:
        return None
    files = deps.stdout.replace("\\\n", " ").split()[1:]
    h = hashlib.sha256(identity)
    for item in [*extra, *args, *files]:
        h.update(item.replace(unity_dir, "@UNITY@").replace(ROOT, "@ROOT@").encode() + b"\0")
    for f in files:
        with open(os.path.join(BUILD, f), "rb") as fh:
            h.update(fh.read().replace(ROOT.encode(), b"@ROOT@"))
    return h.hexdigest()


def tidy(files, args, unity_dir, identity):
    """Returns (ok, output, cached) of one clang-tidy run over `files` as one unit (or one file)."""
    if len(files) == 1:
        source, extra = files[0], []
    else:
        source = os.path.join(unity_dir, os.path.basename(os.path.dirname(files[0])) + "-unity.cpp")
        with open(source, "w") as f:
            f.writelines(f'#include "{p}"\n' for p in files)
        extra = ["--checks=-bugprone-suspicious-include"]
    where = cache_dir()
    key = unit_key(source, extra, args, identity, unity_dir) if where else None
    if key and os.path.exists(os.path.join(where, key)):
        return True, "", True
    cmd = ["clang-tidy", "--quiet", f"--config-file={ROOT}/.clang-tidy", f"--header-filter={HEADER_FILTER}",
           *extra, source, "--", *args]
    r = subprocess.run(cmd, cwd=BUILD, capture_output=True, text=True)
    lines = [l for l in (r.stdout + r.stderr).splitlines() if "warnings generated" not in l]
    if key and r.returncode == 0:
        os.makedirs(where, exist_ok=True)
        open(os.path.join(where, key), "w").close()
    return r.returncode == 0, "\n".join(lines), False


def check_directory(group, unity_dir, identity):
    """(ok, output, files checked, whether the result came from the cache) of one directory."""
    files, args = group
    ok, out, cached = tidy(files, args, unity_dir, identity)
    if ok or len(files) == 1:
        return ok, out, len(files), cached
    if "clang-diagnostic-error" in out:  # the unity unit itself does not compile: file by file
        results = [tidy([f], args, unity_dir, identity) for f in files]
        return (all(r[0] for r in results), "\n".join(r[1] for r in results if not r[0]), len(files),
                all(r[2] for r in results))
    return ok, out, len(files), cached


def main():
    db_path = os.path.join(BUILD, "compile_commands.json")
    if not os.path.exists(db_path):
        subprocess.run([os.path.join(ROOT, "scripts", "build.sh")], check=True)
    db = json.load(open(db_path))
    groups = {}
    seen = set()
    for entry in db:
        for path in sources_of(entry):
            rel = os.path.relpath(path, ROOT)
            if not (rel.startswith("src/") or rel.startswith("tools/")) or path in seen:
                continue
            seen.add(path)
            groups.setdefault(os.path.dirname(rel), ([], compile_args(entry)))[0].append(path)
    missing = sorted(os.path.relpath(p, ROOT) for p in checked_sources() - seen)
    if missing:  # never pass by checking less than the tree
        print("clang-tidy: not in build/compile_commands.json (re-run scripts/build.sh): " + ", ".join(missing),
              file=sys.stderr)
        return 1
    for files, _ in groups.values():
        files.sort()
    jobs = int(os.environ.get("SEQI_TIDY_JOBS", os.cpu_count() or 1))
    identity = tool_identity()
    with tempfile.TemporaryDirectory(prefix="seqi-tidy-") as unity_dir, ThreadPoolExecutor(jobs) as pool:
        # Largest directories first, so the two cores finish together.
        order = sorted(groups, key=lambda d: -len(groups[d][0]))
        results = list(pool.map(lambda d: (d, *check_directory(groups[d], unity_dir, identity)), order))
    failed = [(d, out) for d, ok, out, _, _ in results if not ok]
    for d, out in failed:
        print(f"clang-tidy: {d}:\n{out}", file=sys.stderr)
    total = sum(n for _, _, _, n, _ in results)
    cached = sum(1 for *_, c in results if c)
    if failed:
        print(f"clang-tidy: findings in {len(failed)} of {len(results)} directories", file=sys.stderr)
        return 1
    print(f"clang-tidy: {total} files in {len(results)} directories clean ({cached} directories unchanged "
          f"since a clean run: from the cache)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
