"""experiments/tikhonov/enclose.py against mpmath.iv (60 digits), an independent oracle.

Both enclose the same exact reals, so their intervals must intersect, and the mpmath ones
(60 digits) are so narrow that they must lie inside the float ones. Checked: exp on points
from -1100 to 700, and the loss of random small softmax transformers (depth 3, h 2, width 4).
"""
import os
import sys
from fractions import Fraction

import mpmath
import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "experiments", "tikhonov"))
import enclose  # noqa: E402
import seqi_torch  # noqa: E402

iv = mpmath.iv
iv.dps = 60


def inside(inner_lo, inner_hi, lo, hi, what):
    """mpmath's [inner_lo, inner_hi] inside the float enclosure [lo, hi] (compared exactly)."""
    if not (Fraction(lo) <= mp_fraction(inner_lo) and mp_fraction(inner_hi) <= Fraction(hi)):
        raise AssertionError(f"{what}: mpmath [{inner_lo}, {inner_hi}] not inside [{lo!r}, {hi!r}]")


def mp_fraction(x):
    """An mpf as an exact Fraction."""
    m, e = mpmath.mpf(x).man_exp
    return Fraction(int(m)) * Fraction(2) ** int(e)


def check_exp():
    rng = np.random.default_rng(1)
    xs = np.concatenate([rng.uniform(-1100, 700, 2000), rng.uniform(-2, 2, 2000), [0.0, -0.0, 1e-300, -745.1, 709.0 - 9.5]])
    xs = xs[xs <= 700]
    enc = enclose.exp(enclose.I(xs))
    for x, lo, hi in zip(xs, enc.lo, enc.hi):
        e = iv.exp(iv.mpf(float(x)))
        if not (Fraction(lo) <= mp_fraction(e.a) and mp_fraction(e.b) <= Fraction(hi)):
            raise AssertionError(f"exp({x!r}): mpmath [{e.a}, {e.b}] not inside [{lo!r}, {hi!r}]")
        if x > -700 and (hi - lo) > 32 * np.spacing(hi):
            raise AssertionError(f"exp({x!r}): enclosure [{lo!r}, {hi!r}] wider than 32 ulps")
    print(f"exp: {len(xs)} points inside mpmath's enclosures, at most 32 ulps wide")


def mp_loss(module, X, Y):
    """The loss in mpmath.iv, written from the layer definitions (softmax, tau = 1)."""
    f = lambda t: [[iv.mpf(float(v)) for v in row] for row in t.detach().double().tolist()]  # noqa: E731
    per = []
    for x_seq, y in zip(X.double().tolist(), Y.double().tolist()):
        x = [[iv.mpf(v) for v in tok] for tok in x_seq]
        for b in module.blocks:
            Wq, Wk, Wv, U, W = (f(b.attn.to_q.weight), f(b.attn.to_k.weight), f(b.attn.to_v.weight),
                                f(b.ff[0].weight), f(b.ff[2].weight))
            bias = [iv.mpf(float(v)) for v in b.ff[0].bias.detach().double().tolist()]
            rho, eta = iv.mpf(float(b.rho)), iv.mpf(float(b.eta))
            mat = lambda M, v: [iv.fsum(m * a for m, a in zip(row, v)) for row in M]  # noqa: E731
            q, k, v = [mat(Wq, t) for t in x], [mat(Wk, t) for t in x], [mat(Wv, t) for t in x]
            new = []
            for i in range(len(x)):
                e = [iv.exp(iv.fsum(a * c for a, c in zip(q[i], k[l]))) for l in range(len(x))]
                s = iv.fsum(e)
                att = [iv.fsum(e[l] * v[l][c] for l in range(len(x))) / s for c in range(len(x[i]))]
                t = [rho * x[i][c] + att[c] for c in range(len(x[i]))]
                pre = [iv.mpf([max(p.a, 0), max(p.b, 0)]) for p in (pu + bu for pu, bu in zip(mat(U, t), bias))]
                new.append([eta * t[c] + iv.fsum(W[c][u] * pre[u] for u in range(len(pre))) for c in range(len(t))])
            x = new
        dist = [iv.fsum((tok[c] - y[c]) ** 2 for c in range(len(y))) for tok in x]
        per.append(iv.mpf([max(z.a for z in dist), max(z.b for z in dist)]))  # max of intervals
    return iv.fsum(per) / len(per)


def check_loss():
    torch.manual_seed(3)
    for depth, h, n, scale in ((1, 1, 6, 1.0), (3, 2, 5, 1.0), (2, 1, 7, 4.0)):
        module = seqi_torch.TF(4, h, tau=1.0, depth=depth)
        with torch.no_grad():
            for p in module.parameters():
                p.uniform_(-scale, scale)
        X, Y = torch.rand(3, n, 4), torch.rand(3, 4)
        lo, hi = enclose.loss_interval(module, X.numpy(), Y.numpy())
        m = mp_loss(module, X, Y)
        inside(m.a, m.b, lo, hi, f"loss depth {depth} h {h}")
        with torch.no_grad():
            flt = ((module.double()(X.double()) - Y.double()[:, None, :]) ** 2).sum(-1).max(-1).values.mean().item()
        print(f"loss depth {depth} h {h} n {n}: [{lo!r}, {hi!r}] holds mpmath's, width {hi - lo:.2g}; "
              f"float64 forward {flt!r}")
        if scale == 1.0:
            assert hi - lo <= 1e-9 * max(1.0, abs(hi)), "enclosure too wide"


if __name__ == "__main__":
    check_exp()
    check_loss()
    print("ok")
