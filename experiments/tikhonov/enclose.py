"""Rigorous enclosure of the Tikhonov objective of a float transformer (numpy, float64 intervals).

J_eps(theta) = L(theta) + (eps/2)||theta||^2 with L(theta) = mean_j max_i ||T_theta(X_j)_i - y_j||^2,
for the module layout of python/seqi_torch.py (softmax attention at tau, any depth, h, width).
Every float weight, token and target is a rational; L(theta) involves exp, so it is enclosed,
not computed: each quantity is an interval [lo, hi] of float64 arrays, and every operation
rounds to nearest (IEEE 754, as numpy's elementwise +, -, *, / do) and then moves each end one
float outward (np.nextafter). A correctly rounded result is one of the two floats around the
exact value, so the widened interval holds it: each interval below contains the exact real it
stands for. exp is not taken from the C library (whose accuracy is not specified): x = k ln2 + r
with |r| <= ln2/2 + tiny, exp(r) by its Taylor polynomial of degree 20 in interval arithmetic
(coefficients 1/j! and ln2 as float intervals checked against exact rationals) plus the
Lagrange remainder, then times 2^k. ||theta||^2 is summed exactly in Fractions.

The evaluator's enclosures are checked against mpmath.iv (60 digits) in tests/python
(test_tikhonov_enclose.py).
"""
import math
from fractions import Fraction

import numpy as np

INF = np.inf


def _down(x):
    return np.nextafter(x, -INF)


def _up(x):
    return np.nextafter(x, INF)


def _float_interval(q):
    """The floats just below and above the rational q (equal when q is a float)."""
    f = float(q)  # correctly rounded (Fraction.__float__ divides integers exactly rounded)
    lo = f if Fraction(f) <= q else float(np.nextafter(f, -INF))
    hi = f if Fraction(f) >= q else float(np.nextafter(f, INF))
    assert Fraction(lo) <= q <= Fraction(hi)
    return lo, hi


class I:
    """An interval of float64 arrays (broadcasting as numpy does)."""
    __slots__ = ("lo", "hi")

    def __init__(self, lo, hi=None):
        self.lo = np.asarray(lo, dtype=np.float64)
        self.hi = self.lo if hi is None else np.asarray(hi, dtype=np.float64)

    def __add__(self, o):
        o = _as_i(o)
        return I(_down(self.lo + o.lo), _up(self.hi + o.hi))

    def __sub__(self, o):
        o = _as_i(o)
        return I(_down(self.lo - o.hi), _up(self.hi - o.lo))

    def __mul__(self, o):
        o = _as_i(o)
        p = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        lo = np.minimum(np.minimum(p[0], p[1]), np.minimum(p[2], p[3]))
        hi = np.maximum(np.maximum(p[0], p[1]), np.maximum(p[2], p[3]))
        return I(_down(lo), _up(hi))

    def div_pos(self, o):
        """self / o for o > 0 (o.lo > 0 is checked)."""
        o = _as_i(o)
        if not np.all(o.lo > 0):
            raise ArithmeticError("division by an interval that is not positive")
        lo = np.minimum(self.lo / o.lo, self.lo / o.hi)
        hi = np.maximum(self.hi / o.lo, self.hi / o.hi)
        return I(_down(lo), _up(hi))

    def square(self):
        a, b = np.abs(self.lo), np.abs(self.hi)
        lo = np.where((self.lo <= 0) & (self.hi >= 0), 0.0, np.minimum(a, b) ** 2)
        return I(_down(lo), _up(np.maximum(a, b) ** 2))

    def relu(self):
        return I(np.maximum(self.lo, 0.0), np.maximum(self.hi, 0.0))  # exact

    def sum(self, axis):
        """Sum along an axis, one rounded addition at a time."""
        lo, hi = np.moveaxis(self.lo, axis, 0), np.moveaxis(self.hi, axis, 0)
        acc = I(lo[0], hi[0])
        for k in range(1, lo.shape[0]):
            acc = acc + I(lo[k], hi[k])
        return acc

    def max(self, axis):
        return I(self.lo.max(axis=axis), self.hi.max(axis=axis))  # exact

    def __getitem__(self, key):
        return I(self.lo[key], self.hi[key])


def _as_i(o):
    return o if isinstance(o, I) else I(o)


# ------------------------------------------------------------------ exp

_TAYLOR_DEGREE = 20
_COEFF = [I(*_float_interval(Fraction(1, math.factorial(j)))) for j in range(_TAYLOR_DEGREE + 1)]
# ln 2 = sum_{k>=1} 1/(k 2^k); after K terms the tail is below 1/(K 2^K) (exact rationals).
# Split as ln2 = A + B (Cody and Waite): A has 32 significant bits, so k A is exact for |k| < 2^21,
# and B is enclosed by two floats.
_LN2_PARTIAL = sum(Fraction(1, k * 2 ** k) for k in range(1, 80))
_LN2_TAIL = Fraction(1, 79 * 2 ** 79)
_LN2_A = math.floor(_LN2_PARTIAL * 2 ** 32) / 2 ** 32  # a float: an integer over a power of 2
_LN2_B = I(_float_interval(_LN2_PARTIAL - Fraction(_LN2_A))[0],
           _float_interval(_LN2_PARTIAL + _LN2_TAIL - Fraction(_LN2_A))[1])


def _exp_point(x):
    """An interval holding exp(x) for each float x (finite; x < -1000 gives [0, tiny])."""
    x = np.asarray(x, dtype=np.float64)
    if not np.all(np.isfinite(x)):
        raise ArithmeticError("exp of a non-finite value")
    xc = np.clip(x, -1000.0, 700.0)
    k = np.rint(xc / 0.6931471805599453)
    r = (I(xc) - I(k * _LN2_A)) - I(k) * _LN2_B  # k A is exact (|k| <= 1443 < 2^11)
    rmax = np.maximum(np.abs(r.lo), np.abs(r.hi))
    if not np.all(rmax < 0.35):
        raise ArithmeticError("exp argument reduction out of range")
    p = _COEFF[_TAYLOR_DEGREE]
    for j in range(_TAYLOR_DEGREE - 1, -1, -1):  # Horner
        p = p * r + _COEFF[j]
    # Lagrange remainder: |R| <= e^{0.35} 0.35^21 / 21! < 1.5 * 0.35^21 / 21! < 1e-28
    tail = 1e-28
    p = I(_down(p.lo - tail), _up(p.hi + tail))
    lo = _down(np.ldexp(np.maximum(p.lo, 0.0), k.astype(np.int64)))  # ldexp may round (subnormals)
    hi = _up(np.ldexp(p.hi, k.astype(np.int64)))
    small = x < -1000.0  # exp(x) < exp(-1000) < 2^-1000
    lo = np.where(small, 0.0, np.maximum(lo, 0.0))
    hi = np.where(small, 2.0 ** -1000, hi)
    if np.any(x > 700.0):
        raise ArithmeticError("exp overflow")
    return I(lo, hi)


def exp(iv):
    """exp is increasing: [lower end of exp(lo), upper end of exp(hi)]."""
    return I(_exp_point(iv.lo).lo, _exp_point(iv.hi).hi)


# ------------------------------------------------------------------ the transformer

def _mat_apply(x, M):
    """x [..., k] interval times the float matrix M [m, k] transposed: [..., m]."""
    M = np.asarray(M, dtype=np.float64)
    acc = None
    for c in range(M.shape[1]):
        term = x[..., c:c + 1] * I(M[:, c])
        acc = term if acc is None else acc + term
    return acc


def _params(module):
    out = []
    for b in module.blocks:
        g = lambda t: t.detach().to("cpu").double().numpy()  # noqa: E731  (float32 -> float64 is exact)
        out.append({"rho": g(b.rho)[0], "eta": g(b.eta)[0], "Wq": g(b.attn.to_q.weight),
                    "Wk": g(b.attn.to_k.weight), "Wv": g(b.attn.to_v.weight), "U": g(b.ff[0].weight),
                    "b": g(b.ff[0].bias), "W": g(b.ff[2].weight), "tau": b.attn.tau, "hardmax": b.attn.hardmax})
    return out


def forward(module, X):
    """Interval enclosure of the module's output on X [N, n, d] (float tokens, exact)."""
    x = I(np.asarray(X, dtype=np.float64))
    for p in _params(module):
        if p["hardmax"]:
            raise ValueError("the enclosure is for softmax attention")
        tau = Fraction(p["tau"])
        if tau != 1:
            raise ValueError("the enclosure is written for tau = 1 (the students' tau)")
        q, k, v = _mat_apply(x, p["Wq"]), _mat_apply(x, p["Wk"]), _mat_apply(x, p["Wv"])
        scores = None  # [N, n, n]: sum over heads of q_i k_l
        for h in range(q.lo.shape[-1]):
            t = q[..., h][..., :, None] * k[..., h][..., None, :]
            scores = t if scores is None else scores + t
        shift = scores.hi.max(axis=-1, keepdims=True)  # any float: softmax is shift-invariant
        e = exp(scores - I(shift))
        total = e.sum(axis=-1)  # [N, n], >= exp(0) - rounding > 0
        if not np.all(total.lo > 0):
            raise ArithmeticError("softmax denominator not positive")
        # e_l / sum_l' e_l' with e_l in [e.lo, e.hi] and the sum in [total.lo, total.hi]
        weights = I(_down(e.lo / total.hi[..., None]), _up(e.hi / total.lo[..., None]))
        att = None
        for l in range(v.lo.shape[-2]):
            t = weights[..., :, l:l + 1] * v[..., l:l + 1, :]
            att = t if att is None else att + t
        x = x * I(p["rho"]) + att
        pre = (_mat_apply(x, p["U"]) + I(p["b"])).relu()
        x = x * I(p["eta"]) + _mat_apply(pre, p["W"])
    return x


def loss_interval(module, X, Y):
    """[lo, hi] (floats) holding mean_j max_i ||T(X_j)_i - y_j||^2 exactly."""
    out = forward(module, X)
    Yi = I(np.asarray(Y, dtype=np.float64)[:, None, :])
    per = (out - Yi).square().sum(axis=-1).max(axis=-1)  # [N]
    total = per.sum(axis=0)
    m = total.div_pos(I(float(per.lo.shape[0])))
    lo, hi = float(m.lo), float(m.hi)
    if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
        raise ArithmeticError(f"the loss enclosure failed: [{lo}, {hi}]")
    return lo, hi


def norm_sq_exact(module):
    """||theta||^2 of the module's float parameters, an exact Fraction."""
    total = Fraction(0)
    for t in module.parameters():
        for v in t.detach().to("cpu").double().reshape(-1).tolist():
            total += Fraction(v) ** 2
    return total
