"""ctest (label python): the PyTorch bridge end to end.

1. Every shipped dataset (except the large words-300) is built and exported by
   `verify --save-model X.safetensors` (hardmax and softmax), loaded by seqi_torch into a
   module of the authors' layout, and replayed in float64: every output token is within 1e-6
   of the targets and every target within 1e-6 of an output token (Hausdorff distance).
   The score convention (Wq x).(Wk y) = <A x, y> is checked against the exact model in the
   metadata (Fractions, independent of the C++ code).
2. A module trained a few Adam steps in torch (float32, float64, float16, bfloat16) is saved by
   save_transformer and certified by `verify --exact --model`: against targets computed here
   in exact rationals from its stored floats (independent oracle) it is verified (exit 0);
   with one target moved by 2^-40 it is refused (exit 1). Saved for softmax, its exact output
   is irrational, so certification against its rational float replay must be refused (exit 1).
3. read_safetensors refuses a header nested deeper than 32 levels, a key twice, and a header
   that does not cover the file (checked before the tensors are read), as verify does.

Usage: test_seqi_torch.py --verify build/verify --datasets datasets [--seed S]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import seqi_torch  # noqa: E402

LARGE_BYTES = 20000  # words-300 (30 KB): minutes, in the long suite


def read_dataset(path):
    with open(path) as f:
        raw = json.load(f, parse_float=str, parse_int=str)
    to_tokens = lambda seq: [[Fraction(c) for c in tok] for tok in seq]  # noqa: E731
    return [(to_tokens(p["input"]), to_tokens(p["output"])) for p in raw["pairs"]]


def write_dataset(path, pairs, d):
    text = lambda seq: [[str(c) for c in tok] for tok in seq]  # noqa: E731
    with open(path, "w") as f:
        json.dump({"name": os.path.basename(path), "dimension": d,
                   "pairs": [{"input": text(x), "output": text(y)} for x, y in pairs]}, f)


def run_verify(verify, *args):
    r = subprocess.run([verify, *args], capture_output=True, text=True)
    return r.returncode, r.stdout + r.stderr


def hausdorff(outputs, targets):
    dist = torch.cdist(outputs, targets)
    return max(dist.min(dim=1).values.max().item(), dist.min(dim=0).values.max().item())


def check_score_convention(module, exact_model, rng):
    """(Wq x).(Wk y) against <A x, y> with A from the exact JSON model (Fractions -> float)."""
    d = exact_model["dimension"]
    for block, exact in zip(module.blocks, exact_model["blocks"]):
        A = exact["attention"]["A"]
        dense = [[Fraction(A["alpha"]) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
        for t in A["terms"]:
            for i in range(d):
                for j in range(d):
                    dense[i][j] += Fraction(t["p"][i]) * Fraction(t["q"][j])
        A64 = torch.tensor([[float(v) for v in row] for row in dense], dtype=torch.float64)
        x, y = torch.randn(d, generator=rng, dtype=torch.float64), torch.randn(d, generator=rng, dtype=torch.float64)
        theirs = (block.attn.to_q.weight @ x) @ (block.attn.to_k.weight @ y)
        ours = (A64 @ x) @ y
        scale = 1 + A64.abs().sum().item() * x.abs().max().item() * y.abs().max().item()
        assert abs(theirs - ours).item() <= 1e-12 * scale, f"score convention: {theirs} vs {ours}"


def test_exports_replay(args, tmp):
    rng = torch.Generator().manual_seed(args.seed)
    if args.dataset:
        paths = args.dataset
    else:
        paths = [os.path.join(args.datasets, n) for n in sorted(os.listdir(args.datasets)) if n.endswith(".json")]
    checked = 0
    for path in paths:
        name = os.path.basename(path)
        if os.path.getsize(path) > LARGE_BYTES and not (args.large or args.dataset):
            print(f"  skip {name} (large: ctest -L long runs it, or --large)")
            continue
        pairs = read_dataset(path)
        for setting in ("--exact", "--softmax"):
            model_path = os.path.join(tmp, f"{name}{setting}.safetensors")
            code, out = run_verify(args.verify, setting, "--save-model", model_path, path)
            assert code == 0, f"{name} {setting}: verify exit {code}\n{out}"
            module = seqi_torch.load_transformer(model_path)
            meta = module.metadata
            assert meta["format"] == seqi_torch.FORMAT and meta["format_version"] == "1"
            assert meta["attention"] == ("hardmax" if setting == "--exact" else "softmax")
            assert len(meta["dataset_sha256"]) == 64
            exact = json.loads(meta["seqi_model_json"])
            assert len(exact["blocks"]) == len(module.blocks)
            check_score_convention(module, exact, rng)
            worst = 0.0
            with torch.no_grad():
                for x, y in pairs:
                    X = torch.tensor([[float(c) for c in t] for t in x], dtype=torch.float64)
                    Y = torch.tensor([[float(c) for c in t] for t in y], dtype=torch.float64)
                    worst = max(worst, hausdorff(module(X.unsqueeze(0))[0], Y))
            print(f"  {name} {setting}: {len(module.blocks)} blocks, tau {meta.get('tau', '-')}, "
                  f"float64 replay Hausdorff distance {worst:.3g}")
            assert worst <= 1e-6, f"{name} {setting}: replay distance {worst} > 1e-6"
            # The export certifies back from its float64 weights (each the exact rational it
            # denotes, not the metadata's model) within a Hausdorff distance of 1e-6.
            code, out = run_verify(args.verify, setting, "--json", "--model", model_path, "--tolerance", "1e-6", path)
            assert code == 0, f"{name} {setting}: the float64 export must certify within 1e-6, exit {code}\n{out}"
            verdicts = {s["verdict"] for s in json.loads(out)["general"]["sequences"]}
            assert verdicts <= {"exact", "within delta"}, f"{name} {setting}: {verdicts}"
            checked += 1
    assert checked >= (2 * len(args.dataset) if args.dataset else 16), f"only {checked} exports checked"


def tiny_training_data(gen, N=3, n=4, d=2):
    """Inputs k/8 with small integers k (exact in every float format), distinct per sequence."""
    pairs = []
    for _ in range(N):
        X = torch.randperm(64, generator=gen)[:n]
        pts = [[Fraction(int(v) % 8 - 4, 8), Fraction(int(v) // 8 - 4, 8)] for v in X]
        pairs.append(pts)
    return pairs


def train_few_steps(seed, d=2, depth=2, steps=20):
    gen = torch.Generator().manual_seed(seed)
    torch.manual_seed(seed)
    inputs = tiny_training_data(gen, d=d)
    module = seqi_torch.TF(d, h=2, tau=1.0, depth=depth)
    with torch.no_grad():
        for b in module.blocks:
            b.rho.fill_(1.0)
            b.eta.fill_(1.0)
    X = torch.tensor([[[float(c) for c in t] for t in x] for x in inputs])
    Y = X.mean(dim=1, keepdim=True) + 0.5
    opt = torch.optim.Adam(module.parameters(), lr=1e-2)
    for _ in range(steps):
        opt.zero_grad()
        loss = ((module(X) - Y) ** 2).sum(-1).max(-1).values.mean()
        loss.backward()
        opt.step()
    return module, inputs


def distinct(tokens):
    out = []
    for t in tokens:
        if t not in out:
            out.append(t)
    return out


def test_trained_module_certifies(args, tmp):
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        module, inputs = train_few_steps(args.seed)
        module = module.to(dtype)
        model_path = os.path.join(tmp, f"trained-{str(dtype)[6:]}.safetensors")
        seqi_torch.save_transformer(module, model_path, tau=None)
        # Exact hardmax replay from the stored floats (Fractions), the dataset's targets.
        pairs = [(x, distinct(seqi_torch.exact_forward_hardmax(module, x))) for x in inputs]
        data_path = os.path.join(tmp, f"trained-{str(dtype)[6:]}.json")
        write_dataset(data_path, pairs, 2)
        code, out = run_verify(args.verify, "--exact", "--json", "--model", model_path, data_path)
        assert code == 0, f"{dtype}: the exact replay should certify\n{out}"
        assert json.loads(out)["verified"] is True
        # One target moved by 2^-40: refused, naming the sequence.
        x0, y0 = pairs[0]
        moved = [[y0[0][0] + Fraction(1, 2 ** 40), y0[0][1]]] + y0[1:]
        write_dataset(data_path, [(x0, moved)] + pairs[1:], 2)
        code, out = run_verify(args.verify, "--exact", "--model", model_path, data_path)
        assert code == 1, f"{dtype}: a moved target must be refused (exit 1), got {code}\n{out}"
        bits = sum(len(str(c)) for _, y in pairs for t in y for c in t)
        print(f"  trained {dtype}: hardmax certified against its exact replay ({bits} digits of targets), "
              f"moved target refused")
    # Softmax at tau = 1: its output involves exponentials (irrational); the float replay is
    # not an exact target, so the exact certificate must refuse it. What the float replay
    # does establish (a Hausdorff distance <= DELTA) waits for --tolerance.
    module, inputs = train_few_steps(args.seed)
    module = module.double()
    model_path = os.path.join(tmp, "trained-softmax.safetensors")
    seqi_torch.save_transformer(module, model_path, tau="1")
    with torch.no_grad():
        outs = [module(torch.tensor([[float(c) for c in t] for t in x], dtype=torch.float64).unsqueeze(0))[0]
                for x in inputs]
    pairs = [(x, distinct([[Fraction(v) for v in row] for row in o.tolist()])) for x, o in zip(inputs, outs)]
    data_path = os.path.join(tmp, "trained-softmax.json")
    write_dataset(data_path, pairs, 2)
    code, out = run_verify(args.verify, "--softmax", "--model", model_path, data_path)
    assert code == 1, f"softmax replay targets must be refused (exit 1), got {code}\n{out}"
    # Within a tolerance the float replay is what the certificate establishes; a target moved
    # by 1e-3 is refused as not interpolating.
    code, out = run_verify(args.verify, "--softmax", "--json", "--model", model_path, "--tolerance", "1e-6", data_path)
    assert code == 0, f"softmax replay targets must certify within 1e-6, got {code}\n{out}"
    x0, y0 = pairs[0]
    moved = [[y0[0][0] + Fraction(1, 1000), y0[0][1]]] + y0[1:]
    write_dataset(data_path, [(x0, moved)] + pairs[1:], 2)
    code, out = run_verify(args.verify, "--softmax", "--json", "--model", model_path, "--tolerance", "1e-6", data_path)
    assert code == 1, f"a target moved by 1e-3 must be refused, got {code}\n{out}"
    assert json.loads(out)["general"]["sequences"][0]["verdict"] == "not interpolating"
    print("  trained softmax (tau = 1 from the file): float replay targets refused exactly, certified within "
          "1e-6, a target moved by 1e-3 refused")


def test_hostile_headers(tmp):
    """The reader's limits, as verify's: nesting, a key twice, sizes before reading."""
    def write(name, header, data=b""):
        path = os.path.join(tmp, name)
        text = header.encode()
        with open(path, "wb") as f:
            f.write(len(text).to_bytes(8, "little") + text + data)
        return path
    t = '{"dtype":"F64","shape":[1],"data_offsets":[0,8]}'
    cases = [(write("deep.safetensors", '{"a":' + "[" * 100000 + "]" * 100000 + "}"), "nested deeper than 32"),
             (write("twice.safetensors", '{"a":' + t + ',"a":' + t + "}", bytes(8)), "appears twice"),
             (write("long.safetensors", '{"a":' + t + "}", bytes(4096)), "the file holds 4096")]
    for path, fragment in cases:
        try:
            seqi_torch.read_safetensors(path)
        except ValueError as e:
            assert fragment in str(e), f"{path}: {e}"
        else:
            raise AssertionError(f"{path}: accepted")
    print("hostile headers: refused with their reason")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--verify", required=True)
    p.add_argument("--datasets", required=True)
    p.add_argument("--dataset", action="append", default=[],
                   help="replay and certify back the exports of only this dataset file (repeatable; any size)")
    p.add_argument("--seed", type=int, default=int(os.environ.get("SEQI_SEED", "7")))
    p.add_argument("--large", action="store_true", help="also the large shipped datasets (words-300)")
    args = p.parse_args()
    print(f"test_seqi_torch: seed {args.seed} (replay with SEQI_SEED={args.seed})")
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="seqi-torch-") as tmp:
        test_hostile_headers(tmp)
        test_exports_replay(args, tmp)
        if not args.dataset:
            test_trained_module_certifies(args, tmp)
    print("test_seqi_torch: all passed")


if __name__ == "__main__":
    main()
