"""ctest (label onnx): `verify --save-property DIR` checked from the outside.

For a few shipped datasets and both settings, the benchmark directory is read with a VNN-LIB
parser of this file's own (no code shared with the writer) and checked against the dataset:
1. instances.csv: three columns (model, property, timeout), relative paths that exist, one
   true and one false property per sequence, as manifest.json says (unsat / sat);
2. every property declares X_0.. and Y_0.. for [n, d], fixes each X_k to one double (lower =
   upper = the double nearest to the dataset's coordinate), and its unsafe region is a
   disjunction of single bounds Y_k >= hi, Y_k <= lo;
3. true property: each output token's interval [t - delta, t + delta] around the target t its
   comment names lies strictly inside (lo, hi), and hi, lo are the nearest doubles outside it
   (the region is not vacuous); the targets named make up Y_j as a set;
4. the model (onnx/model_n{n}.onnx, fixed shape [n, d]) passes onnx.checker, and ONNX Runtime
   run on the property's X gives an output outside the true property's unsafe region and inside
   the false one's;
5. the counterexample: its X is the property's point, its Y the targets named (nearest doubles),
   inside the false property's unsafe region; the moved coordinate is the only change.

Exit 77 (ctest: skipped) when python3-onnx, node or onnxruntime-node is missing.

Usage: test_vnnlib.py --verify build/verify --datasets datasets --node-modules DIR
"""
import argparse
import csv
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from onnx_support import read_dataset, skip  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = [("tiny-d2.json", "--exact"), ("tiny-d2.json", "--softmax"), ("mixed-d3.json", "--exact"),
         ("shared-tokens.json", "--softmax")]
DECIMAL = re.compile(r"^-?[0-9]+(\.[0-9]+)?$")  # the exact decimals the writer promises


def number(text):
    assert DECIMAL.match(text), f"not a plain decimal: {text!r}"
    v = Fraction(text)
    assert Fraction(float(v)) == v, f"{text} is not exactly a double"
    return v


def sexprs(text):
    """The top-level s-expressions of an SMT-LIB text (comments dropped), as nested lists."""
    tokens = re.findall(r"\(|\)|[^\s()]+", re.sub(r";[^\n]*", "", text))
    stack, top = [[]], None
    for t in tokens:
        if t == "(":
            stack.append([])
        elif t == ")":
            top = stack.pop()
            stack[-1].append(top)
        else:
            stack[-1].append(t)
    assert len(stack) == 1, "unbalanced parentheses"
    return stack[0]


def parse_vnnlib(path):
    """(declared names, {X_k: (lo, hi)}, unsafe disjuncts [(op, Y_k, v)], comment lines)."""
    with open(path) as f:
        text = f.read()
    comments = [line[2:] for line in text.splitlines() if line.startswith("; ")]
    declared, box, unsafe = [], {}, None
    for e in sexprs(text):
        if e[0] == "declare-const":
            assert e[2] == "Real", e
            declared.append(e[1])
            continue
        assert e[0] == "assert", e
        body = e[1]
        if body[0] in ("<=", ">="):
            assert body[1].startswith("X_"), body
            lo, hi = box.get(body[1], (None, None))
            v = number(body[2])
            box[body[1]] = (v, hi) if body[0] == ">=" else (lo, v)
        else:
            assert body[0] == "or" and unsafe is None, body
            unsafe = []
            for conj in body[1:]:
                assert conj[0] == "and" and len(conj) == 2, conj
                op, name, v = conj[1]
                assert op in ("<=", ">=") and name.startswith("Y_"), conj
                unsafe.append((op, name, number(v)))
    return declared, box, unsafe, comments


def hits(unsafe, y):
    """True when the flat output y meets some disjunct of the unsafe region."""
    return any((y[int(name[2:])] >= v) if op == ">=" else (y[int(name[2:])] <= v) for op, name, v in unsafe)


def comment(comments, prefix):
    found = [c for c in comments if c.startswith(prefix)]
    assert len(found) == 1, (prefix, comments)
    return found[0][len(prefix):]


def check_property(path, d, x, targets, delta, moved):
    """Checks one property file (2, 3) and returns (X point, unsafe region, named targets)."""
    declared, box, unsafe, comments = parse_vnnlib(path)
    n = len(x)
    assert declared == [f"X_{k}" for k in range(n * d)] + [f"Y_{k}" for k in range(n * d)], path
    point = []
    for i, tok in enumerate(x):
        for c, v in enumerate(tok):
            lo, hi = box[f"X_{i * d + c}"]
            assert lo == hi == Fraction(float(v)), (path, i, c, lo, hi, v)
            point.append(float(lo))
    named = [int(k) - 1 for k in comment(comments, "targets of the output tokens (from 1): ").split()]
    assert len(named) == n and {tuple(targets[k]) for k in named} == {tuple(t) for t in targets}, (path, named)
    bounds = {}
    for op, name, v in unsafe:
        bounds.setdefault(name, {})[op] = v
    assert sorted(bounds) == sorted(f"Y_{k}" for k in range(n * d)), path
    for i, k in enumerate(named):
        for c in range(d):
            t = targets[k][c]
            if moved and moved == (k, c):
                t = moved_to(comments)
            hi, lo = bounds[f"Y_{i * d + c}"][">="], bounds[f"Y_{i * d + c}"]["<="]
            assert lo < t - delta and t + delta < hi, (path, i, c)
            # nearest doubles outside [t - delta, t + delta]: the region is not vacuous
            assert Fraction(below(float(hi))) <= t + delta and Fraction(above(float(lo))) >= t - delta, (path, i, c)
    return point, unsafe, named


def above(v):
    return math.nextafter(v, math.inf)


def below(v):
    return math.nextafter(v, -math.inf)


def moved_to(comments):
    m = re.search(r"moved from (\S+) to (\S+) \(", comment(comments, "claim (false): "))
    return Fraction(m.group(2))


def read_counterexample(path):
    with open(path) as f:
        first, rest = f.read().split("\n", 1)
    assert first == "sat", path
    values = {}
    for name, v in re.findall(r"\((\w+) ([^\s()]+)\)", rest):
        values[name] = number(v)
    return values


def run_runtime(node_modules, jobs):
    payload = [{"model": m, "dtype": "float64", "d": d, "sequences": [xs]} for m, d, xs in jobs]
    env = dict(os.environ, NODE_PATH=node_modules)
    r = subprocess.run(["node", os.path.join(HERE, "run_onnx.js")], input=json.dumps(payload),
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0, f"ONNX Runtime: exit {r.returncode}\n{r.stderr}"
    return [out[0] for out in json.loads(r.stdout)["outputs"]]


def check_benchmark(onnx, bench, d, pairs):
    """Checks 1-3 and 5 of one benchmark directory; returns the runtime jobs of check 4."""
    with open(os.path.join(bench, "manifest.json")) as f:
        manifest = json.load(f)
    delta = Fraction(manifest["float64_delta_exact"])
    assert 0 < delta < Fraction(1, 10**6), delta
    with open(os.path.join(bench, "instances.csv")) as f:
        rows = list(csv.reader(f))
    assert len(rows) == 2 * len(pairs) == len(manifest["instances"]), (len(rows), len(pairs))
    jobs = []
    for row, entry in zip(rows, manifest["instances"]):
        model, prop, timeout = row
        assert [model, prop, int(timeout)] == [entry["onnx"], entry["vnnlib"], manifest["timeout_seconds"]], row
        j = entry["sequence"] - 1
        x, targets = pairs[j]
        graph = onnx.load(os.path.join(bench, model))
        onnx.checker.check_model(graph, full_check=True)
        dims = [[dim.dim_value for dim in v.type.tensor_type.shape.dim] for v in (graph.graph.input[0], graph.graph.output[0])]
        assert dims == [[len(x), d], [len(x), d]], (model, dims)
        truth = entry["expected"] == "unsat"
        assert prop.endswith("_true.vnnlib" if truth else "_false.vnnlib"), prop
        moved = None
        if not truth:
            m = re.search(r"target (\d+), coordinate (\d+)", entry["moved"])
            moved = (int(m.group(1)) - 1, int(m.group(2)) - 1)
        point, unsafe, named = check_property(os.path.join(bench, prop), d, x, targets, delta, moved)
        if not truth:
            cex = read_counterexample(os.path.join(bench, entry["counterexample"]))
            assert [cex[f"X_{k}"] for k in range(len(point))] == [Fraction(v) for v in point], prop
            y = [cex[f"Y_{k}"] for k in range(len(point))]
            assert y == [Fraction(float(targets[k][c])) for k in named for c in range(d)], prop
            assert hits(unsafe, y), f"{prop}: the counterexample misses the unsafe region"
        jobs.append((os.path.join(bench, model), d, [point[i * d:(i + 1) * d] for i in range(len(x))], unsafe, truth, prop))
    return jobs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--verify", required=True)
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--node-modules", required=True)
    args = ap.parse_args()
    try:
        import onnx
        import onnx.checker
    except ImportError:
        skip("python3-onnx is not installed")
    if shutil.which("node") is None:
        skip("node (nodejs) is not installed")
    if not os.path.isfile(os.path.join(args.node_modules, "onnxruntime-node", "package.json")):
        skip(f"onnxruntime-node is not installed in {args.node_modules} (scripts/install-onnxruntime.sh)")
    jobs = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, setting in CASES:
            path = os.path.join(args.datasets, name)
            bench = os.path.join(tmp, name[:-5] + setting)
            r = subprocess.run([args.verify, setting, "--save-property", bench, path], capture_output=True, text=True)
            assert r.returncode == 0 and r.stderr == "", f"verify {setting} {name}: exit {r.returncode}\n{r.stderr}"
            d, pairs = read_dataset(path)
            jobs += check_benchmark(onnx, bench, d, pairs)
        outputs = run_runtime(args.node_modules, [(m, d, xs) for m, d, xs, _, _, _ in jobs])
        for (_, _, _, unsafe, truth, prop), y in zip(jobs, outputs):
            flat = [Fraction(v) for tok in y for v in tok]
            assert hits(unsafe, flat) != truth, f"{prop}: ONNX Runtime's output {'meets' if truth else 'misses'} the unsafe region"
    print(f"{len(jobs)} properties checked ({len(jobs) // 2} true, {len(jobs) // 2} false) in {len(CASES)} benchmarks")


if __name__ == "__main__":
    main()
