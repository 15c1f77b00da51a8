#!/usr/bin/python3
"""Checks that the user documentation still describes the code (ctest `docs_check`, label docs).

Usage: check_docs.py --root SRC_DIR --verify PATH_TO_VERIFY [--only links|paths|options|lemmas|commands]

Files checked: README.md, CHANGES.md and docs/*.md under SRC_DIR.

(a) Links. Every Markdown link or image `[text](target)` and reference definition
    `[label]: target` whose target is not a URL (http:, https:, mailto:) must name an existing
    file or directory, relative to the page that holds it. A `#anchor` (alone, or after a
    .md target) must be the GitHub slug of a heading of that page: lower case, every
    character but letters, digits, spaces, '-' and '_' dropped, spaces turned into '-',
    repeated headings suffixed -1, -2, ...
(b) Paths. Every inline code span that is a path into the repository (it starts with one of
    the top-level directories below and holds no space, '*', '<', '>', '[', '{' or '...') must
    exist, so that a page cannot keep naming a file that moved. A trailing ':' or a
    `:NAME` suffix is ignored.
(c) Options. Every option of `verify --help`, `verify import fashion-mnist --help` and
    `verify import npy --help` must appear as a code span in docs/commands.md, and every
    `--option` code span in docs/commands.md must be an option of one of them.
(d) Lemma map. In docs/construction.md, every table row that starts with a label
    (`lem:...`, `def:...`, `thm:...`, `rem:...`) must name a label of proofs/*.tex, every
    label of proofs/*.tex must have a row, and every repository path in the row must cite
    the label in its text.
(e) Commands. In fenced code blocks, every line that starts with `build/verify ` is run (after
    joining lines ending in a backslash), with `build/verify` replaced by the --verify binary,
    in a fresh scratch directory per page (so the commands of one page share their outputs,
    in order) that holds links to SRC_DIR's datasets/, python/ and proofs/: outputs never
    land in the source tree. A command must exit 0 unless its line carries a marker comment:
        # exits N          it must exit N
        # not run          it is not run (it needs the reader's own files)
        # needs fashion-mnist   it is run only when Debian's dataset-fashion-mnist is installed
        # needs pdflatex        it is run only when pdflatex is on the PATH
    A marker on the line of the block's opening fence (```sh # needs fashion-mnist) applies
    to every line of the block. A command running longer than 10 s is reported (not failed);
    one running longer than 120 s fails. Skipped commands are listed with the reason.

Exit status 0 when every check passes, 1 otherwise (each failure printed with file and line).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TOP_DIRS = ("src/", "include/", "tests/", "scripts/", "proofs/", "datasets/", "python/", "docs/",
            "bench/", "tools/", "fuzz/", "experiments/", "cmake/", ".ci/")
FASHION_MNIST = "/usr/share/datasets/fashion-mnist"
SLOW_SECONDS = 10
TIMEOUT_SECONDS = 120

failures = []


def fail(where, message):
    failures.append(f"{where}: {message}")
    print(f"FAIL {where}: {message}")


def pages(root):
    names = ["README.md", "CHANGES.md"]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        names += sorted(os.path.join("docs", f) for f in os.listdir(docs) if f.endswith(".md"))
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def split_fences(text):
    """Yields (line_number, line, fence_info or None): fence_info is the opening fence's text
    for lines inside a fenced block, None for prose lines. Fence lines themselves are skipped."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.lstrip()
        if fence is None and (stripped.startswith("```") or stripped.startswith("~~~")):
            fence = stripped
            continue
        if fence is not None and stripped.startswith(fence[:3]) and stripped.strip() == fence[:3] * (len(stripped.strip()) // 3):
            fence = None
            continue
        yield number, line, fence


def slug(heading):
    text = re.sub(r"`|\*\*|__", "", heading.strip().lower())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # a link in a heading keeps its text
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    result = set()
    with open(path, encoding="utf-8") as f:
        for _, line, fence in split_fences(f.read()):
            m = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
            if fence is None and m:
                base = slug(m.group(2))
                n = seen.get(base, 0)
                result.add(base if n == 0 else f"{base}-{n}")
                seen[base] = n + 1
    return result


def without_code_spans(line):
    return re.sub(r"`[^`]*`", "", line)


def check_links(root, page):
    path = os.path.join(root, page)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    count = 0
    for number, line, fence in split_fences(text):
        if fence is not None:
            continue
        prose = without_code_spans(line)
        targets = re.findall(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose)
        m = re.match(r"^\s*\[[^\]]+\]:\s*(\S+)", prose)
        if m:
            targets.append(m.group(1))
        for target in targets:
            if re.match(r"^[a-z]+:", target):
                continue
            count += 1
            file_part, _, anchor = target.partition("#")
            target_path = path if not file_part else os.path.normpath(os.path.join(os.path.dirname(path), file_part))
            where = f"{page}:{number}"
            if not os.path.exists(target_path):
                fail(where, f"link target {target} does not exist")
                continue
            if anchor:
                if not target_path.endswith(".md"):
                    fail(where, f"link {target}: an anchor into a file that is not Markdown")
                elif anchor not in anchors(target_path):
                    fail(where, f"link {target}: no heading with anchor #{anchor} in {os.path.relpath(target_path, root)}")
    return count


def check_paths(root, page):
    with open(os.path.join(root, page), encoding="utf-8") as f:
        text = f.read()
    count = 0
    for number, line, fence in split_fences(text):
        if fence is not None:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            span = re.sub(r":[A-Za-z_][A-Za-z0-9_:]*$", "", span).rstrip(":,.")
            if not span.startswith(TOP_DIRS) or re.search(r"[\s*<>\[{]|\.\.\.", span):
                continue
            count += 1
            if not os.path.exists(os.path.join(root, span)):
                fail(f"{page}:{number}", f"`{span}` does not exist in the repository")
    return count


def check_lemma_map(root):
    page = os.path.join("docs", "construction.md")
    path = os.path.join(root, page)
    if not os.path.isfile(path):
        fail(page, "missing")
        return 0
    labels = set()
    proofs = os.path.join(root, "proofs")
    for name in sorted(os.listdir(proofs)):
        if name.endswith(".tex"):
            with open(os.path.join(proofs, name), encoding="utf-8") as f:
                labels |= set(re.findall(r"\\label\{((?:lem|def|thm|rem):[^}]*)\}", f.read()))
    rows = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = re.match(r"^\|\s*`((?:lem|def|thm|rem):[^`]+)`\s*\|", line)
            if not m:
                continue
            label = m.group(1)
            rows.add(label)
            if label not in labels:
                fail(f"{page}:{number}", f"{label} is not a label of proofs/*.tex")
            for span in re.findall(r"`([^`]+)`", line):
                if span.startswith(TOP_DIRS) and os.path.isfile(os.path.join(root, span)):
                    with open(os.path.join(root, span), encoding="utf-8", errors="replace") as src:
                        if not re.search(re.escape(label) + r"(?![\w-])", src.read()):
                            fail(f"{page}:{number}", f"{span} does not cite {label}")
    for label in sorted(labels - rows):
        fail(page, f"{label} (proofs/*.tex) has no row")
    return len(rows)


def help_options(verify):
    options = set()
    for args in ([], ["import", "fashion-mnist"], ["import", "npy"]):
        out = subprocess.run([verify, *args, "--help"], capture_output=True, text=True, timeout=30)
        if out.returncode != 0:
            fail("verify --help", f"`verify {' '.join(args)} --help` exited {out.returncode}")
        options |= set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", out.stdout))
    options.discard("--help")
    return options


def check_options(root, verify):
    page = os.path.join("docs", "commands.md")
    path = os.path.join(root, page)
    if not os.path.isfile(path):
        fail(page, "missing")
        return 0
    with open(path, encoding="utf-8") as f:
        text = f.read()
    documented = set()
    for number, line, fence in split_fences(text):
        if fence is not None:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            for opt in re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", span):
                documented.add(opt)
                if span.startswith(opt) and opt not in known and opt != "--help":
                    fail(f"{page}:{number}", f"{opt} is not an option of verify or verify import")
    for opt in sorted(known - documented):
        fail(page, f"{opt} (in verify's --help) is not documented")
    return len(known)


def marker_of(comment_text):
    m = re.search(r"#\s*(exits\s+(\d+)|not run|needs fashion-mnist|needs pdflatex)", comment_text)
    if not m:
        return None, None
    if m.group(2) is not None:
        return "exits", int(m.group(2))
    return m.group(1), None


def commands_of(text):
    """(line_number, command, expected_exit, skip_reason) for every build/verify line."""
    result = []
    pending = None
    for number, line, fence in split_fences(text):
        if fence is None:
            pending = None
            continue
        stripped = line.strip()
        if pending is not None:
            pending[1] += " " + stripped.rstrip("\\").strip()
            if not stripped.endswith("\\"):
                result.append(tuple(pending))
                pending = None
            continue
        if not stripped.startswith("build/verify "):
            continue
        expected, skip = 0, None
        for source in (fence, stripped):
            kind, value = marker_of(source)
            if kind == "exits":
                expected = value
            elif kind == "not run":
                skip = "not run (marked: needs the reader's own files)"
            elif kind == "needs fashion-mnist" and not os.path.isdir(FASHION_MNIST):
                skip = f"needs Fashion-MNIST ({FASHION_MNIST} is missing: scripts/install-deps.sh --all)"
            elif kind == "needs pdflatex" and shutil.which("pdflatex") is None:
                skip = "needs pdflatex (not on the PATH: scripts/install-deps.sh --all)"
        entry = [number, stripped.rstrip("\\").strip(), expected, skip]
        if stripped.endswith("\\"):
            pending = entry
        else:
            result.append(tuple(entry))
    return result


def check_commands(root, page, verify):
    with open(os.path.join(root, page), encoding="utf-8") as f:
        commands = commands_of(f.read())
    if not commands:
        return 0
    ran = 0
    with tempfile.TemporaryDirectory(prefix="seqi-docs-") as scratch:
        for name in ("datasets", "python", "proofs"):
            os.symlink(os.path.join(root, name), os.path.join(scratch, name))
        for number, command, expected, skip in commands:
            where = f"{page}:{number}"
            if skip:
                print(f"skip {where}: {command}\n     {skip}")
                continue
            shell = verify + command[len("build/verify"):]
            start = time.monotonic()
            try:
                out = subprocess.run(["bash", "-c", shell], cwd=scratch, capture_output=True, text=True,
                                     timeout=TIMEOUT_SECONDS, env=dict(os.environ, LC_ALL="C"))
            except subprocess.TimeoutExpired:
                fail(where, f"`{command}` ran longer than {TIMEOUT_SECONDS} s")
                continue
            seconds = time.monotonic() - start
            ran += 1
            if out.returncode != expected:
                fail(where, f"`{command}` exited {out.returncode}, the text says {expected}\n"
                            f"     stderr: {out.stderr.strip()[-400:]}")
            else:
                print(f"ok   {where}: exit {out.returncode} in {seconds:.1f} s: {command}")
            if seconds > SLOW_SECONDS:
                print(f"note {where}: took {seconds:.1f} s (more than {SLOW_SECONDS} s)")
    return ran


def main():
    global known
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", required=True, help="the source tree")
    parser.add_argument("--verify", required=True, help="the verify binary")
    parser.add_argument("--only", choices=["links", "paths", "options", "lemmas", "commands"])
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    verify = os.path.abspath(args.verify)
    names = pages(root)
    if "README.md" not in names:
        fail("README.md", "missing")
    totals = {}
    if args.only in (None, "links"):
        totals["links"] = sum(check_links(root, p) for p in names)
    if args.only in (None, "paths"):
        totals["repository paths"] = sum(check_paths(root, p) for p in names)
    if args.only in (None, "options"):
        known = help_options(verify)
        totals["options"] = check_options(root, verify)
    if args.only in (None, "lemmas"):
        totals["lemma rows"] = check_lemma_map(root)
    if args.only in (None, "commands"):
        totals["commands run"] = sum(check_commands(root, p, verify) for p in names)
    print("checked " + ", ".join(f"{v} {k}" for k, v in totals.items()) + f" in {len(names)} pages")
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    return 0


known = set()
if __name__ == "__main__":
    sys.exit(main())
