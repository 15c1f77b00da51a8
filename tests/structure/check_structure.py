#!/usr/bin/python3
"""The project's structure, checked (docs/architecture.md states it):

1. layering: a file of layer L (src/L/, include/seqi/L/) includes only headers of L and of
   the layers L may depend on (LAYERS below);
2. size: no source file (src, include, tests, tools, bench, fuzz) over 500 lines;
3. the certificate's folder holds no float statement or float replay file;
4. internal headers stay internal: a public header (include/seqi/) never includes an
   internal one (src/<layer>/*.hpp, included as "<layer>/x.hpp");
5. the rounding contract: every source that evaluates bounds under upward rounding
   (uses UpwardRounding, expect_upward_rounding or seqi/numbers/upward.hpp) is compiled with
   -frounding-math, read from the build's compile_commands.json (unity sources expanded);
6. the project speaks of itself: no source, script, proof or page cites a work item by its
   number ("issue 16"); reasons and measurements go in commit messages;
7. one definition per name: no type (struct, class, union, enum) or namespace-scope constant
   (constexpr) of a named namespace is defined in two files of src/ or include/ (two such
   definitions with different layouts are an ODR violation the linker merges silently).

Usage: check_structure.py --root SRC_DIR [--build BUILD_DIR]. Exit 0 when every rule holds;
otherwise each violation is printed and the exit code is 1.
"""
import argparse
import json
import os
import re
import shlex
import sys

BELOW = {
    "numbers": [],
    "core": ["numbers"],
    "model": ["core"],
    "forward": ["model"],
    "construction": ["model"],
    "io": ["model"],
    "float_statement": ["forward"],
    "replay": ["model"],
    "certification": ["forward", "construction", "float_statement", "replay"],
    "report": ["certification", "io"],
    "cli": ["report"],
    "distributed": ["cli"],
}


def allowed(layer):
    """The layers a file of `layer` may include: itself and everything below it."""
    out, pending = set(), [layer]
    while pending:
        l = pending.pop()
        if l not in out:
            out.add(l)
            pending.extend(BELOW[l])
    return out


MAX_LINES = 500
SOURCE_DIRS = ("src", "include", "tests", "tools", "bench", "fuzz", "checker")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
UPWARD = re.compile(r"UpwardRounding|expect_upward_rounding|seqi/numbers/upward\.hpp")


def files_under(root, top, exts):
    for d, _, names in os.walk(os.path.join(root, top)):
        for n in sorted(names):
            if n.endswith(exts):
                yield os.path.join(d, n)


def layer_of(root, path):
    rel = os.path.relpath(path, root).split(os.sep)
    if rel[0] == "src" and len(rel) > 2:
        return rel[1]
    if rel[:2] == ["include", "seqi"] and len(rel) > 3:
        return rel[2]
    return None


def check_layering(root, errors):
    for top in ("src", "include"):
        for path in files_under(root, top, (".cpp", ".hpp")):
            layer = layer_of(root, path)
            if layer is None:
                continue
            if layer not in BELOW:
                errors.append(f"{path}: layer '{layer}' is not in the layer list of {__file__}")
                continue
            ok = allowed(layer)
            for inc in INCLUDE.findall(open(path).read()):
                parts = inc.split("/")
                target = parts[1] if parts[0] == "seqi" and len(parts) > 2 else parts[0] if len(parts) > 1 else None
                if target in BELOW and target not in ok:
                    errors.append(f"{path}: layer '{layer}' includes \"{inc}\" of layer '{target}', "
                                  f"which is not below it")


def check_sizes(root, errors):
    for top in SOURCE_DIRS:
        for path in files_under(root, top, (".cpp", ".hpp")):
            with open(path) as f:
                n = sum(1 for _ in f)
            if n > MAX_LINES:
                errors.append(f"{path}: {n} lines (at most {MAX_LINES}): split it along its seams")


def check_certificate_folder(root, errors):
    for top in (os.path.join("src", "certification"), os.path.join("include", "seqi", "certification")):
        for path in files_under(root, top, (".cpp", ".hpp")):
            name = os.path.basename(path)
            if name.startswith(("float_", "replay_")) or "replay" in name:
                errors.append(f"{path}: a float statement or replay file in the certificate's folder "
                              f"(it belongs in src/float_statement or src/replay)")


CHECKER_MAX_LINES = 2000
ENGINE_INCLUDE = re.compile(r'^\s*#\s*include\s+[<"](seqi/|src/|\.\./)', re.MULTILINE)
ENGINE_LINK = re.compile(r"\bseqi(_[a-z_]+|::[a-z_]+)\b|\$\{CMAKE_SOURCE_DIR\}/(src|include)")


def check_checker(root, errors):
    """checker/ (seqi-check) shares nothing with the engine and stays readable in an afternoon."""
    total = 0
    for path in files_under(root, "checker", (".cpp", ".hpp", ".txt")):
        text = open(path).read()
        total += text.count("\n")
        for inc in ENGINE_INCLUDE.findall(text):
            errors.append(f"{path}: the checker includes engine code (\"{inc}...\"); it must share no source")
        if path.endswith(".txt") and ENGINE_LINK.search(text):
            errors.append(f"{path}: the checker names an engine library or source folder; it must link none")
    if total > CHECKER_MAX_LINES:
        errors.append(f"checker/: {total} lines (at most {CHECKER_MAX_LINES}, parsers included)")


def check_public_headers(root, errors):
    for path in files_under(root, os.path.join("include", "seqi"), (".hpp",)):
        for inc in INCLUDE.findall(open(path).read()):
            if not inc.startswith("seqi/"):
                errors.append(f"{path}: a public header includes the internal header \"{inc}\"")
            elif not os.path.exists(os.path.join(root, "include", inc)):
                errors.append(f"{path}: includes \"{inc}\", which is not under include/")


NARRATION = re.compile(r"\bissue \d+", re.IGNORECASE)
NARRATION_DIRS = ("src", "include", "tests", "tools", "bench", "fuzz", "scripts", "proofs", "docs", "python", "checker")


def check_narration(root, errors):
    paths = [os.path.join(root, n) for n in ("README.md", "CHANGES.md", "CMakeLists.txt")]
    for top in NARRATION_DIRS:
        paths.extend(files_under(root, top, (".cpp", ".hpp", ".py", ".sh", ".tex", ".md", ".txt", ".cmake")))
    for path in paths:
        if not os.path.exists(path) or os.path.abspath(path) == os.path.abspath(__file__):
            continue
        for number, line in enumerate(open(path, errors="replace"), 1):
            if NARRATION.search(line):
                errors.append(f"{path}:{number}: cites a work item: {line.strip()[:80]}")


COMMENT_OR_LITERAL = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.DOTALL)
NAMESPACE_HEAD = re.compile(r"(?:^|\s)namespace\s*([\w:]*)\s*$")
TYPE_HEAD = re.compile(r"(?:^|[\s>])(?:struct|class|union|enum(?:\s+class|\s+struct)?)\s+(?:\[\[[^\]]*\]\]\s*)?(\w+)"
                       r"\s*(?:final\s*)?(?::(?!:)[^{]*)?$")
CONSTANT_HEAD = re.compile(r"(?:^|\s)constexpr\s+[^=;(){}]*?[\s*&>](\w+)\s*(?:=|\{)")


def namespace_scope_names(text):
    """(kind, qualified name) of every type and constant defined where every enclosing scope
    is a named namespace (anonymous namespaces, classes and functions excluded)."""
    text = COMMENT_OR_LITERAL.sub(" ", text)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.MULTILINE)
    scopes, names, head = [], [], ""
    for ch in text:
        if ch == "{":
            open_scopes = all(kind == "ns" for kind, _ in scopes)
            ns = NAMESPACE_HEAD.search(head)
            typ = TYPE_HEAD.search(head) if open_scopes else None
            const = CONSTANT_HEAD.search(head + "{") if open_scopes and not typ and not ns else None
            path = "::".join(n for _, n in scopes)
            if ns and ns.group(1):
                scopes.append(("ns", ns.group(1)))
            else:
                scopes.append(("other", ""))
                if typ:
                    names.append(("type", f"{path}::{typ.group(1)}"))
                elif const:
                    names.append(("constant", f"{path}::{const.group(1)}"))
            head = ""
        elif ch == "}":
            if scopes:
                scopes.pop()
            head = ""
        elif ch == ";":
            if all(kind == "ns" for kind, _ in scopes):
                const = CONSTANT_HEAD.search(head)
                if const:
                    names.append(("constant", "::".join(n for _, n in scopes) + "::" + const.group(1)))
            head = ""
        else:
            head += ch
    return names


def check_one_definition(root, errors):
    seen = {}
    for top in ("src", "include"):
        for path in files_under(root, top, (".cpp", ".hpp")):
            for kind, name in set(namespace_scope_names(open(path).read())):
                seen.setdefault((kind, name), []).append(os.path.relpath(path, root))
    for (kind, name), paths in sorted(seen.items()):
        if len(paths) > 1:
            errors.append(f"{kind} {name} is defined in {len(paths)} files: {', '.join(sorted(paths))} "
                          "(one definition per name: rename one, or define it once and include it)")
    if not seen:
        errors.append("one definition per name: no definition found to check")


def compile_flags(build):
    """Map from each compiled source (unity members expanded) to its compiler arguments."""
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    flags = {}
    for e in entries:
        args = e["arguments"] if "arguments" in e else shlex.split(e["command"])
        path = os.path.realpath(os.path.join(e.get("directory", ""), e["file"]))
        members = [path]
        if os.path.basename(os.path.dirname(path)) == "Unity":
            with open(path) as u:
                members = [os.path.realpath(m) for m in re.findall(r'^#include "(.+\.cpp)"', u.read(), re.MULTILINE)]
        for m in members:
            flags[m] = args
    return flags


def check_rounding_flags(root, build, errors):
    flags = compile_flags(build)
    users = 0
    for path in files_under(root, "src", (".cpp",)):
        if not UPWARD.search(open(path).read()):
            continue
        users += 1
        real = os.path.realpath(path)
        if real not in flags:
            errors.append(f"{path}: uses upward rounding and is not in {build}/compile_commands.json")
        elif "-frounding-math" not in flags[real]:
            errors.append(f"{path}: uses upward rounding and is compiled without -frounding-math "
                          f"(set it on its whole library in CMakeLists.txt)")
    if users == 0:
        errors.append("no source uses upward rounding: the rounding check found nothing to check")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--build")
    a = ap.parse_args()
    errors = []
    check_layering(a.root, errors)
    check_sizes(a.root, errors)
    check_certificate_folder(a.root, errors)
    check_public_headers(a.root, errors)
    check_checker(a.root, errors)
    check_narration(a.root, errors)
    check_one_definition(a.root, errors)
    if a.build:
        check_rounding_flags(a.root, a.build, errors)
    for e in errors:
        print(e)
    print(f"structure: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
