#!/usr/bin/python3
"""check_structure.py's one-definition rule, on small trees: it reports a type and a constant
defined in two files of a named namespace, and nothing for anonymous namespaces, nested
types, declarations or one definition."""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_structure  # noqa: E402

FORMAT_A = """namespace seqi {
struct FloatFormat { int bits; };
inline constexpr FloatFormat kBinary64{64};
struct Declared;
namespace { struct Local { int a; }; }
}  // namespace seqi
"""
FORMAT_B = """// other layout
namespace seqi {
struct FloatFormat
    : Base {
  double unit;
  struct Nested { int n; };
};
inline constexpr FloatFormat kBinary64 = {0.5};
namespace { struct Local { double b; }; }
struct Declared;
struct Outer::Member { int m; };
void f() { struct InFunction { int i; }; }
}  // namespace seqi
"""


def violations(files):
    with tempfile.TemporaryDirectory() as root:
        for rel, text in files.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)
        errors = []
        check_structure.check_one_definition(root, errors)
        return errors


def main():
    failures = []
    both = violations({"include/seqi/io/a.hpp": FORMAT_A, "src/float_statement/b.cpp": FORMAT_B})
    for want in ("type seqi::FloatFormat is defined in 2 files", "constant seqi::kBinary64 is defined in 2 files"):
        if not any(e.startswith(want) for e in both):
            failures.append(f"not reported: {want}; got {both}")
    if len(both) != 2:
        failures.append(f"expected exactly 2 violations, got {both}")
    one = violations({"include/seqi/io/a.hpp": FORMAT_A})
    if one:
        failures.append(f"one definition reported: {one}")
    for f in failures:
        print(f)
    print(f"one-definition self-test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
