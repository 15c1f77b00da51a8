"""PyTorch bridge for seqi: the module layout of the paper authors' code, and safetensors files.

The layout is that of ``TF(d, h, tau, causal=False, depth)`` in the authors' repository
(DCN-FAU-AvH/exactInterpTF, tikhonov/src/models.py). Block ``i`` holds

    blocks.{i}.rho [1], blocks.{i}.eta [1],
    blocks.{i}.attn.to_q.weight [h, d], blocks.{i}.attn.to_k.weight [h, d],
    blocks.{i}.attn.to_v.weight [d, d],
    blocks.{i}.ff.0.weight [w, d], blocks.{i}.ff.0.bias [w], blocks.{i}.ff.2.weight [d, w]

and computes ``x = rho*x + attn(x)`` then ``x = eta*x + ff(x)``, where token i attends to
token l with score ``(Wq x_i).(Wk x_l)``: softmax of scores/tau, or hardmax (the tokens of
largest score share the weight equally; ``tie_tol`` widens "largest" for float replays of
exact models). seqi's score <A x_i, x_l> is the same with A = Wk^T Wq.

Files are safetensors (8-byte little-endian header length, JSON header, raw little-endian
data), read and written here with numpy and torch only.
"""
import json
import os
import struct
import tempfile
from fractions import Fraction

import numpy as np
import torch
from torch import nn

FORMAT = "seqi-transformer-safetensors"
PARAMS = ("rho", "eta", "attn.to_q.weight", "attn.to_k.weight", "attn.to_v.weight",
          "ff.0.weight", "ff.0.bias", "ff.2.weight")
_NUMPY_DTYPES = {"F64": "<f8", "F32": "<f4", "F16": "<f2"}
_TORCH_DTYPES = {torch.float64: "F64", torch.float32: "F32", torch.float16: "F16", torch.bfloat16: "BF16"}
MAX_HEADER_BYTES = 100 << 20
MAX_JSON_DEPTH = 32  # as every JSON reader of verify


class SelfAttention(nn.Module):
    """Single-head attention with h-dimensional queries and keys, no biases."""

    def __init__(self, d, h, tau=1.0, hardmax=False, tie_tol=0.0):
        super().__init__()
        self.to_q = nn.Linear(d, h, bias=False)
        self.to_k = nn.Linear(d, h, bias=False)
        self.to_v = nn.Linear(d, d, bias=False)
        self.tau = tau
        self.hardmax = hardmax
        self.tie_tol = tie_tol

    def weights(self, x):
        """Attention weights [batch, n, n] of the tokens x [batch, n, d]."""
        scores = self.to_q(x) @ self.to_k(x).transpose(-2, -1)
        if not self.hardmax:
            return torch.softmax(scores / float(self.tau), dim=-1)
        top = scores.max(dim=-1, keepdim=True).values
        tied = (scores >= top - self.tie_tol * (1 + top.abs())).to(x.dtype)
        return tied / tied.sum(dim=-1, keepdim=True)

    def forward(self, x):
        return self.weights(x) @ self.to_v(x)


class TFBlock(nn.Module):
    def __init__(self, d, h, width=4, **attn):
        super().__init__()
        self.rho = nn.Parameter(torch.zeros(1))
        self.eta = nn.Parameter(torch.zeros(1))
        self.attn = SelfAttention(d, h, **attn)
        self.ff = nn.Sequential(nn.Linear(d, width), nn.ReLU(), nn.Linear(width, d, bias=False))

    def forward(self, x):
        x = self.rho * x + self.attn(x)
        return self.eta * x + self.ff(x)


class TF(nn.Module):
    """The authors' TF(d, h, tau, causal=False, depth), plus a hardmax option.

    ``tau`` may be a float, a Fraction or a string such as "1/1000" (kept exact for saving).
    """

    def __init__(self, d, h, tau=1.0, depth=1, width=4, hardmax=False, tie_tol=0.0):
        super().__init__()
        self.d, self.h, self.width = d, h, width
        self.tau = tau
        self.blocks = nn.Sequential(*[TFBlock(d, h, width, tau=_as_float(tau), hardmax=hardmax, tie_tol=tie_tol)
                                      for _ in range(depth)])
        self.metadata = {}

    def set_attention(self, hardmax=None, tau=None, tie_tol=None):
        """Switches every block between softmax (at tau) and hardmax."""
        if tau is not None:
            self.tau = tau
        for b in self.blocks:
            if hardmax is not None:
                b.attn.hardmax = hardmax
            if tau is not None:
                b.attn.tau = _as_float(tau)
            if tie_tol is not None:
                b.attn.tie_tol = tie_tol

    def forward(self, x):
        return self.blocks(x)


def _as_float(tau):
    return float(Fraction(tau)) if isinstance(tau, (str, Fraction)) else float(tau)


def _exact_text(tau):
    """The exact rational text of tau ("p/q" or "p"); a float gives the binary value it holds."""
    return str(Fraction(tau) if not isinstance(tau, str) else Fraction(tau))


# ---------------------------------------------------------------- safetensors

def _json_depth(text):
    """The deepest nesting of arrays and objects in JSON text (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (c == "\\", c != '"')
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _unique_keys(pairs):
    seen = set()
    for k, _ in pairs:
        if k in seen:
            raise ValueError(f"the key {k!r} appears twice in one object")
        seen.add(k)
    return dict(pairs)


def _limited_json(text, source):
    """json.loads under verify's limits: nesting at most MAX_JSON_DEPTH, no key twice."""
    if _json_depth(text) > MAX_JSON_DEPTH:
        raise ValueError(f"{source}: arrays and objects nested deeper than {MAX_JSON_DEPTH} levels")
    try:
        return json.loads(text, object_pairs_hook=_unique_keys)
    except ValueError as e:
        raise ValueError(f"{source}: {e}") from None


def read_safetensors(path):
    """Returns ({name: torch tensor}, metadata) of a safetensors file (numpy + torch only).
    The header is checked against the file's size before the tensors are read."""
    size = os.path.getsize(path)
    with open(path, "rb") as f:
        first = f.read(8)
        if len(first) < 8:
            raise ValueError(f"{path}: too short for a safetensors file")
        (n,) = struct.unpack("<Q", first)
        if n > MAX_HEADER_BYTES or 8 + n > size:
            raise ValueError(f"{path}: header length {n} is too large or exceeds the file")
        header = _limited_json(f.read(n).decode("utf-8"), f"{path} header")
        ends = [info["data_offsets"][1] for name, info in header.items() if name != "__metadata__"]
        if max(ends, default=0) != size - 8 - n:
            raise ValueError(f"{path}: the tensors cover {max(ends, default=0)} bytes, the file holds {size - 8 - n}")
        buffer = memoryview(f.read())
    metadata = header.pop("__metadata__", {}) or {}
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        shape = tuple(info["shape"])
        raw = bytes(buffer[begin:end])
        if info["dtype"] == "BF16":  # numpy has no bfloat16: widen the 16 bits to a float32
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            t = torch.from_numpy(bits.view(np.float32).reshape(shape).copy()).to(torch.bfloat16)
        elif info["dtype"] in _NUMPY_DTYPES:
            arr = np.frombuffer(raw, dtype=_NUMPY_DTYPES[info["dtype"]]).reshape(shape)
            t = torch.from_numpy(arr.astype(arr.dtype.newbyteorder("=")).copy())
        else:
            raise ValueError(f"{path}: tensor {name}: unsupported dtype {info['dtype']}")
        tensors[name] = t
    return tensors, metadata


def write_safetensors(path, tensors, metadata):
    """Writes {name: tensor} (F64/F32/F16/BF16) and string metadata atomically."""
    header, chunks, offset = {}, [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        if t.dtype == torch.bfloat16:
            raw = (t.view(torch.int16).numpy().astype("<i2")).tobytes()
        else:
            raw = t.numpy().astype(t.numpy().dtype.newbyteorder("<")).tobytes()
        header[name] = {"dtype": _TORCH_DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    header["__metadata__"] = {str(k): str(v) for k, v in metadata.items()}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=os.path.basename(path) + ".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(struct.pack("<Q", len(text)) + text)
            for c in chunks:
                f.write(c)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def load_transformer(path, dtype=torch.float64, tie_tol=0.0):
    """A TF module with the file's weights (converted to dtype), attention from its metadata
    ("hardmax", or softmax at "tau"). The metadata is kept in module.metadata."""
    tensors, metadata = read_safetensors(path)
    depth = 1 + max(int(name.split(".")[1]) for name in tensors)
    h, d = tensors["blocks.0.attn.to_q.weight"].shape
    width = tensors["blocks.0.ff.0.weight"].shape[0]
    hardmax = metadata.get("attention", "softmax") == "hardmax"
    tau = metadata.get("tau", "1")
    module = TF(d, h, tau=tau, depth=depth, width=width, hardmax=hardmax, tie_tol=tie_tol).to(dtype)
    state = {name: t.to(dtype) for name, t in tensors.items()}
    module.load_state_dict(state, strict=True)
    module.metadata = dict(metadata)
    return module


def save_transformer(module, path, tau=None):
    """Saves the module's parameters in their dtype; tau=None records hardmax attention,
    otherwise softmax at tau (a float, Fraction or "p/q" string, recorded exactly)."""
    metadata = {"format": FORMAT, "format_version": "1",
                "layout": "exactInterpTF TF(d, h, tau, causal=False, depth): x = rho*x + attn(x); x = eta*x + ff(x)",
                "score_convention": "score(x_i, x_l) = (Wq x_i).(Wk x_l) = <A x_i, x_l> with A = Wk^T Wq",
                "attention": "hardmax" if tau is None else "softmax"}
    if tau is not None:
        metadata["tau"] = _exact_text(tau)
    write_safetensors(path, dict(module.state_dict()), metadata)


# ---------------------------------------------------------------- exact replay (oracle)

def exact_matrix(t):
    """The exact rationals a float tensor holds (Fraction of each float is exact)."""
    return [[Fraction(float(v)) for v in row] for row in t.detach().to(torch.float64).tolist()] if t.dim() == 2 \
        else [Fraction(float(v)) for v in t.detach().to(torch.float64).reshape(-1).tolist()]


def exact_forward_hardmax(module, tokens):
    """Hardmax forward pass of one sequence in exact rationals (Fractions), from the module's
    floats: an independent oracle, written from the layer definitions."""
    x = [list(map(Fraction, t)) for t in tokens]
    for b in module.blocks:
        Wq, Wk, Wv = exact_matrix(b.attn.to_q.weight), exact_matrix(b.attn.to_k.weight), exact_matrix(b.attn.to_v.weight)
        U, bias, W = exact_matrix(b.ff[0].weight), exact_matrix(b.ff[0].bias), exact_matrix(b.ff[2].weight)
        rho, eta = exact_matrix(b.rho)[0], exact_matrix(b.eta)[0]
        mat = lambda M, v: [sum(m * a for m, a in zip(row, v)) for row in M]  # noqa: E731
        q = [mat(Wq, t) for t in x]
        k = [mat(Wk, t) for t in x]
        v = [mat(Wv, t) for t in x]
        out = []
        for i in range(len(x)):
            s = [sum(a * c for a, c in zip(q[i], k[l])) for l in range(len(x))]
            top = max(s)
            tied = [l for l in range(len(x)) if s[l] == top]
            att = [sum(v[l][c] for l in tied) / len(tied) for c in range(len(x[i]))]
            out.append([rho * x[i][c] + att[c] for c in range(len(x[i]))])
        x = []
        for t in out:
            pre = [max(p + bb, Fraction(0)) for p, bb in zip(mat(U, t), bias)]
            x.append([eta * t[c] + sum(W[c][u] * pre[u] for u in range(len(pre))) for c in range(len(t))])
    return x
