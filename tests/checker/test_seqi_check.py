#!/usr/bin/env python3
"""seqi-check against verify: every shipped dataset confirmed, every tamper class refused.

--confirm SETTING: verify --SETTING --save-model --certificate on every shipped and regression
dataset (not the big corpus.json), the model saved as JSON and as safetensors, then seqi-check
must confirm every claim (exit 0).
--tamper: certificates, models (JSON and safetensors) and datasets changed in one place each are
refused (exit 1), the refuted claim named; bad input exits 2.
"""
import argparse
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from fractions import Fraction


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


class Case:
    """One verified run: the dataset, the model it saved and its certificate, in `tmp`."""

    def __init__(self, args, tmp, dataset, setting, model_ext=".json"):
        self.args, self.tmp, self.dataset = args, tmp, dataset
        stem = os.path.basename(dataset)[:-5] + "-" + setting + model_ext.replace(".", "-")
        self.model = os.path.join(tmp, stem + "-model" + model_ext)
        self.cert = os.path.join(tmp, stem + "-cert.json")
        code, out = run([args.verify, "--" + setting, "--threads", "1", "--save-model", self.model,
                         "--certificate", self.cert, dataset])
        if code != 0:
            raise SystemExit(f"verify --{setting} {dataset} exited {code}:\n{out}")

    def check(self, dataset=None, model=None, cert=None):
        return run([self.args.check, dataset or self.dataset, model or self.model, cert or self.cert])

    def altered(self, path, change, suffix):
        """A copy of the JSON file `path` with change(obj) applied."""
        with open(path) as f:
            obj = json.load(f)
        change(obj)
        out = os.path.join(self.tmp, os.path.basename(path)[:-5] + "-" + suffix + ".json")
        with open(out, "w") as f:
            json.dump(obj, f)
        return out


def expect(failures, what, result, code, needle):
    got, out = result
    if got != code or needle not in out:
        failures.append(f"{what}: expected exit {code} with '{needle}', got exit {got}:\n{out[-1500:]}")
    else:
        print(f"ok: {what}")


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def confirm(args, tmp, setting, failures):
    names = sorted(glob.glob(os.path.join(args.datasets, "*.json")) +
                   glob.glob(os.path.join(args.datasets, "regression", "*.json")))
    for dataset in names:
        if os.path.basename(dataset) == "corpus.json":
            continue
        for ext in (".json", ".safetensors"):
            case = Case(args, tmp, dataset, setting, ext)
            result = case.check()
            expect(failures, f"{setting} {os.path.basename(dataset)} with a {ext} model confirmed", result, 0, "CONFIRMED")
            if ext == ".safetensors":
                expect(failures, f"{setting} {os.path.basename(dataset)} tensors checked", result, 0,
                       "confirmed: model tensors: all ")


def tamper_model(args, tmp, failures):
    """One weight moved by 2^-60: the hash, then ||theta||^2, then the verdicts refute it."""
    case = Case(args, tmp, os.path.join(args.datasets, "mixed-d3.json"), "exact")

    def move(model):
        ff = model["blocks"][-1]["feed_forward"]
        u = next(k for k, w in enumerate(ff["W"][0]) if Fraction(w) != 0)
        ff["W"][0][u] = str(Fraction(ff["W"][0][u]) + Fraction(1, 2**60))

    moved = case.altered(case.model, move, "moved")
    expect(failures, "weight moved by 2^-60", case.check(model=moved), 1, "REFUTED: model.sha256")

    def rehash(cert):
        cert["model"]["sha256"] = sha256(moved)

    cert = case.altered(case.cert, rehash, "rehashed")
    expect(failures, "weight moved, model hash updated", case.check(model=moved, cert=cert), 1,
           "REFUTED: counts.param_norm_sq")
    _, out = case.check(model=moved, cert=cert)
    norm = next(line.split("recomputed ")[1] for line in out.splitlines() if "counts.param_norm_sq" in line)

    def renorm(c):
        rehash(c)
        c["counts"]["param_norm_sq"] = norm

    cert = case.altered(case.cert, renorm, "renormed")
    expect(failures, "weight moved, hash and norm updated", case.check(model=moved, cert=cert), 1,
           "REFUTED: sequences sequence 1 verdict")


def read_safetensors(path):
    with open(path, "rb") as f:
        b = f.read()
    n = int.from_bytes(b[:8], "little")
    return json.loads(b[8:8 + n]), bytearray(b[8 + n:])


def write_safetensors(path, header, data):
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little") + text + bytes(data))
    return path


def tamper_safetensors(args, tmp, failures):
    """A tensor moved by one ulp, the exact model in the metadata moved, the metadata's dataset
    hash changed: each refused; a file that is not one, or carries no exact model, exits 2."""
    case = Case(args, tmp, os.path.join(args.datasets, "mixed-d3.json"), "softmax", ".safetensors")
    header, data = read_safetensors(case.model)
    name = "blocks.%d.ff.2.weight" % (int(header["__metadata__"]["depth"]) - 1)
    begin, end = header[name]["data_offsets"]
    k = next(k for k in range(begin, end, 8) if any(data[k:k + 8]))
    data[k] ^= 1  # the last bit of the mantissa: one ulp
    moved = write_safetensors(os.path.join(tmp, "ulp.safetensors"), header, data)
    expect(failures, "safetensors tensor moved by one ulp", case.check(model=moved), 1, "REFUTED: model tensors: " + name)
    data[k] ^= 1
    exact = json.loads(header["__metadata__"]["seqi_model_json"])
    rho = exact["blocks"][0]["attention"]["rho"]
    exact["blocks"][0]["attention"]["rho"] = str(Fraction(rho) + Fraction(1, 2**60))
    header["__metadata__"]["seqi_model_json"] = json.dumps(exact, separators=(",", ":"))
    moved = write_safetensors(os.path.join(tmp, "meta.safetensors"), header, data)
    expect(failures, "safetensors exact model moved by 2^-60", case.check(model=moved), 1, "REFUTED: model.sha256")
    exact["blocks"][0]["attention"]["rho"] = str(Fraction(rho) + 1)
    header["__metadata__"]["seqi_model_json"] = json.dumps(exact, separators=(",", ":"))
    moved = write_safetensors(os.path.join(tmp, "meta1.safetensors"), header, data)
    _, out = case.check(model=moved)
    redumped = next(line.split("hashes to ")[1] for line in out.splitlines() if "REFUTED: model.sha256" in line)
    cert = case.altered(case.cert, lambda c: c["model"].update(sha256=redumped), "rehashed")
    expect(failures, "safetensors exact model moved by 1, hash updated", case.check(model=moved, cert=cert), 1,
           "REFUTED: model tensors: blocks.0.rho entry (1, 1) holds ~")
    header, data = read_safetensors(case.model)
    header["__metadata__"]["dataset_sha256"] = "0" * 64
    other = write_safetensors(os.path.join(tmp, "hash.safetensors"), header, data)
    expect(failures, "safetensors metadata dataset hash", case.check(model=other), 1, "REFUTED: model metadata dataset_sha256")
    del header["__metadata__"]["seqi_model_json"]
    other = write_safetensors(os.path.join(tmp, "none.safetensors"), header, data)
    expect(failures, "safetensors without an exact model", case.check(model=other), 2, "no exact model in the metadata")
    with open(case.model, "rb") as f, open(os.path.join(tmp, "cut.safetensors"), "wb") as g:
        g.write(f.read()[:100])
    expect(failures, "truncated safetensors", case.check(model=os.path.join(tmp, "cut.safetensors")), 2,
           "bad input: " + os.path.join(tmp, "cut.safetensors") + ": the header length field says")
    expect(failures, "JSON model named .safetensors", case.check(model=write_safetensors_json(tmp, case)), 2,
           "the header length field says")


def write_safetensors_json(tmp, case):
    path = os.path.join(tmp, "json.safetensors")
    with open(path, "w") as f:
        json.dump({"format": "seqi-transformer"}, f)
    return path


def tamper_certificate_float(args, tmp, failures):
    """The float statements are read with their shape checked; a malformed one exits 2."""
    case = Case(args, tmp, os.path.join(args.datasets, "tiny-d2.json"), "exact")
    expect(failures, "float32 statement noted", case.check(), 0, "note: not checked: the float32 statement (")

    def bad(cert):
        cert["float32"] = {"shown": True, "delta": None, "failure": None}

    expect(failures, "malformed float32 statement", case.check(cert=case.altered(case.cert, bad, "f32")), 2,
           "bad input: certificate float32: expected")


def with_claims_of(case, model, suffix):
    """The certificate with the model hash and ||theta||^2 of `model` (read from seqi-check)."""
    cert = case.altered(case.cert, lambda c: c["model"].update(sha256=sha256(model)), suffix + "-hash")
    _, out = case.check(model=model, cert=cert)
    norm = next(line.split("recomputed ")[1] for line in out.splitlines() if "counts.param_norm_sq" in line)
    return case.altered(case.cert, lambda c: (c["model"].update(sha256=sha256(model)),
                                              c["counts"].update(param_norm_sq=norm)), suffix)


def tamper_runs(args, tmp, failures):
    """The placement hats are skipped by a binary search over a run of blocks: a hat moved
    away from the token it places is refuted; a run whose hats overlap (a block repeated) is
    walked block by block, and its verdicts agree with verify --model on the same file."""
    case = Case(args, tmp, os.path.join(args.datasets, "mixed-d3.json"), "exact")

    def away(model):
        ff = model["blocks"][2]["feed_forward"]
        ff["b"] = [str(Fraction(b) - 1000) for b in ff["b"]]

    moved = case.altered(case.model, away, "hat")
    expect(failures, "placement hat moved away", case.check(model=moved, cert=with_claims_of(case, moved, "hat")), 1,
           "REFUTED: sequences sequence ")  # the sequence whose leader that hat places

    def repeat(model):
        model["blocks"].insert(3, model["blocks"][2])

    twice = case.altered(case.model, repeat, "twice")
    code, out = run([args.verify, "--exact", "--model", twice, case.dataset])
    expect(failures, "a placement block repeated: verify --model", (code, out), 0, "result:    VERIFIED")
    expect(failures, "a placement block repeated: seqi-check walks it", case.check(model=twice), 1,
           "confirmed: sequences: all 4 verdicts recomputed (hardmax, 4 outputs equal")


def tamper_claims(args, tmp, failures):
    case = Case(args, tmp, os.path.join(args.datasets, "tiny-d2.json"), "exact")

    def flip(cert):
        cert["sequences"][1]["verdict"] = "mismatch"

    expect(failures, "verdict flipped", case.check(cert=case.altered(case.cert, flip, "flipped")), 1,
           "REFUTED: sequences sequence 2 verdict")

    def count(cert):
        cert["counts"]["params"] += 1

    expect(failures, "count changed", case.check(cert=case.altered(case.cert, count, "count")), 1,
           "REFUTED: counts.params")

    def bound(cert):
        cert["bounds"]["blocks_hardmax"] += 1

    expect(failures, "bound changed", case.check(cert=case.altered(case.cert, bound, "bound")), 1,
           "REFUTED: bounds.blocks_hardmax")
    other = os.path.join(tmp, "tiny-d2-edited.json")
    with open(case.dataset) as f, open(other, "w") as g:
        g.write(f.read() + " ")
    expect(failures, "dataset hash mismatch", case.check(dataset=other), 1, "REFUTED: dataset.sha256")
    with open(case.dataset) as f:
        data = json.load(f)
    data["pairs"][0]["output"][0][0] = 2
    with open(other, "w") as g:
        json.dump(data, g)
    expect(failures, "dataset target changed", case.check(dataset=other), 1, "REFUTED: sequences sequence 1 verdict")
    data["pairs"][0]["output"][0][0] = 0
    data["pairs"].append({"input": list(reversed(data["pairs"][1]["input"])), "output": data["pairs"][1]["output"]})
    with open(other, "w") as g:
        json.dump(data, g)
    expect(failures, "a pair repeated (tokens reordered) is merged", case.check(dataset=other), 1,
           "confirmed: dataset hypotheses H1-H5 (1 duplicate pairs merged)")
    data["pairs"][-1]["output"] = data["pairs"][0]["output"]
    with open(other, "w") as g:
        json.dump(data, g)
    expect(failures, "the same input set with another output set", case.check(dataset=other), 2,
           "same input set as pair 2 with another output set (H3")
    expect(failures, "missing file", case.check(model=os.path.join(tmp, "none.json")), 2, "bad input")
    expect(failures, "verify --certificate with --model", run([args.verify, "--model", case.model, "--certificate",
                                                               os.path.join(tmp, "c.json"), case.dataset]),
           2, "--certificate states the claims of a transformer this run builds")
    expect(failures, "verify --certificate /dev/full", run([args.verify, "--certificate", "/dev/full", case.dataset]),
           2, "certificate")
    expect(failures, "model given as certificate", case.check(cert=case.model), 2, "bad input")


def tamper_tau(args, tmp, failures):
    case = Case(args, tmp, os.path.join(args.datasets, "tiny-d2.json"), "softmax")

    def above(cert):
        cert["softmax"]["tau"] = str(Fraction(cert["softmax"]["tau_star_lower"]) * 3)

    expect(failures, "tau above tau*", case.check(cert=case.altered(case.cert, above, "tau")), 1,
           "REFUTED: softmax.tau_within_tau_star")

    def star(cert):
        cert["softmax"]["tau_star_lower"] = str(Fraction(cert["softmax"]["tau_star_lower"]) * 10)

    expect(failures, "tau* raised", case.check(cert=case.altered(case.cert, star, "star")), 1,
           "REFUTED: softmax.tau_star_lower")

    def margin(cert):
        g = cert["softmax"]["per_sequence"][0]["G"]
        cert["softmax"]["per_sequence"][0]["G"] = str(Fraction(g) * 2)

    expect(failures, "G_j raised", case.check(cert=case.altered(case.cert, margin, "margin")), 1,
           "REFUTED: softmax.per_sequence sequence 1 G")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--verify", required=True)
    ap.add_argument("--check", required=True)
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--confirm", choices=["exact", "softmax"])
    ap.add_argument("--tamper", action="store_true")
    args = ap.parse_args()
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        if args.confirm:
            confirm(args, tmp, args.confirm, failures)
        if args.tamper:
            tamper_model(args, tmp, failures)
            tamper_claims(args, tmp, failures)
            tamper_tau(args, tmp, failures)
            tamper_safetensors(args, tmp, failures)
            tamper_runs(args, tmp, failures)
            tamper_certificate_float(args, tmp, failures)
    for f in failures:
        print("FAILED:", f)
    print(f"seqi-check tests: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
