"""The authors' Tikhonov experiment (Alcalde, Fantuzzi, Zuazua; repository exactInterpTF,
tikhonov/), re-implemented, plus a certified upper bound on the regularised minimum.

Data: N = 10 sequences of n = 100 tokens uniform in [0, 1]^16 (float32); target of sequence j:
one random block applied to it (uniform attention: Wq = Wk = 0, Wv = I, rho = 0, then the
width-4 FF with eta = 1 and U, b, W uniform in [0, 1]), i.e. y_j = FF(mean of X_j), in float32.
Students: one softmax block TF(d=16, h=1, tau=1, depth=1) trained with
torch.optim.Adam(lr=1e-3, weight_decay=eps), cosine schedule, full batch, loss
L(theta) = mean_j max_i ||T(X_j)_i - y_j||^2; eps in {1e-1, 1e-2, 1e-3}.

torch.optim.Adam's weight_decay adds eps*theta to the gradient, the gradient of
(eps/2)||theta||^2: the runs descend J_eps(theta) = L(theta) + (eps/2)||theta||^2 (c = 1/2).
(AdamW instead shrinks theta by lr*eps per step outside Adam's preconditioner; its fixed
points are not stationary points of J_eps, so the bound below is not about AdamW runs.)

Bounds on min J_eps, each exact (Fractions of the float32 data, no rounding):
 * seqi: `verify --softmax` builds theta* and certifies T(X_j) = y_j exactly at tau*;
   L(theta*) = 0, so min J_eps <= (eps/2)||theta*||^2 over students with depth >= L*,
   h >= h* and width >= 4 (extra blocks: identity blocks rho = eta = 1, norm 2 each, so
   depth L gives (eps/2)(||theta*||^2 + 2(L - L*))). theta* is written at the students'
   tau = 1 by scaling each head (Wq row s q, Wk row p/(s tau*), s^2 rational), and each FF
   unit is balanced (U row and b entry times t, W column over t: relu is positively
   homogeneous), which changes no output and lowers the norm.
 * the generator block theta_gen (depth 1, h any): J_eps(theta_gen) = L(theta_gen) +
   (eps/2)||theta_gen||^2 with L(theta_gen) computed exactly (the float32 targets are rounded,
   so L(theta_gen) is tiny but not 0).
A run whose J_eps (float64 evaluation of its last iterate, relative margin 1e-6) exceeds the
bound for its depth is certifiably not at a global minimum of J_eps.

Command (about 2-5 minutes on 2 cores):
    /usr/bin/python3 experiments/tikhonov/run.py --verify build/verify
Writes experiments/tikhonov/out/{tikhonov.png,tikhonov.pdf,results.json,data.json,theta_star.safetensors}.
"""
import argparse
import json
import math
import os
import subprocess
import sys
import time
from fractions import Fraction

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import seqi_torch  # noqa: E402

EPSILONS = (1e-1, 1e-2, 1e-3)


def make_data(N, n, d, seed):
    torch.manual_seed(seed)
    X = torch.rand(N, n, d)
    gen = {"U": torch.rand(4, d), "b": torch.rand(4), "W": torch.rand(d, 4)}
    mean = torch.softmax(torch.zeros(N, n, n), dim=-1) @ X           # uniform attention (float32)
    out = mean + torch.relu(mean @ gen["U"].T + gen["b"]) @ gen["W"].T  # eta = 1
    return X, out[:, -1, :], gen


def frac_matrix(t):
    return [[Fraction(v) for v in row] for row in t.double().tolist()]


def write_dataset(path, X, Y):
    pairs = [{"input": [[str(Fraction(v)) for v in tok] for tok in x.double().tolist()],
              "output": [[str(Fraction(v)) for v in y.double().tolist()]]} for x, y in zip(X, Y)]
    with open(path, "w") as f:
        json.dump({"name": "tikhonov N=10 n=100 d=16 (float32 data, exact)", "dimension": X.shape[2],
                   "pairs": pairs}, f)


def sq(v):
    return sum(x * x for x in v)


def dense(structured, d):
    M = [[Fraction(structured["alpha"]) if i == j else Fraction(0) for j in range(d)] for i in range(d)]
    for t in structured["terms"]:
        p, q = [Fraction(x) for x in t["p"]], [Fraction(x) for x in t["q"]]
        for i in range(d):
            for j in range(d):
                M[i][j] += p[i] * q[j]
    return M


def head_norm_sq(q2, p2, tau):
    """s^2 q2 + p2 / (s^2 tau^2) exactly, at a rational s^2 near the minimiser sqrt(p2/q2)/tau
    (a pair of rows x s and / (s tau) whose product is what the model uses)."""
    if q2 == 0 or p2 == 0:
        return Fraction(0)  # the head is zero: Wq = Wk = 0 rows
    s2 = Fraction(math.sqrt(float(p2) / float(q2)) / float(tau))  # a float is a rational
    return s2 * q2 + p2 / (s2 * tau * tau)


def theta_star_norm_sq(model, tau):
    """||theta*||^2 in the authors' layout at tau = 1 (exact), and h* (heads per block)."""
    d = model["dimension"]
    total, h_star = Fraction(0), 1
    for b in model["blocks"]:
        att, ff = b["attention"], b["feed_forward"]
        total += Fraction(att["rho"]) ** 2 + Fraction(ff["eta"]) ** 2
        total += sum(sq(row) for row in dense(att["V"], d))
        W = [[Fraction(x) for x in row] for row in ff["W"]]
        for k, (u, bk) in enumerate(zip(ff["U"], ff["b"])):  # unit k: (U_k, b_k) * t, W_:k / t
            total += head_norm_sq(sq([Fraction(x) for x in u]) + Fraction(bk) ** 2, sq([row[k] for row in W]), 1)
        A = att["A"]
        if Fraction(A["alpha"]) == 0 and len(A["terms"]) <= d:  # one head per term
            h_star = max(h_star, len(A["terms"]))
            for t in A["terms"]:
                total += head_norm_sq(sq([Fraction(x) for x in t["q"]]), sq([Fraction(x) for x in t["p"]]), tau)
        else:  # Wq = s I, Wk = A^T / (s tau)
            h_star = max(h_star, d)
            total += head_norm_sq(Fraction(d), sum(sq(row) for row in dense(A, d)), tau)
    return total, h_star


def generator_objective(X, Y, gen):
    """(L(theta_gen) exactly, ||theta_gen||^2 exactly) for the generating block."""
    d = X.shape[2]
    U, b, W = frac_matrix(gen["U"]), [Fraction(v) for v in gen["b"].double().tolist()], frac_matrix(gen["W"])
    loss = Fraction(0)
    for x, y in zip(X, Y):
        toks = frac_matrix(x)
        m = [sum(t[c] for t in toks) / len(toks) for c in range(d)]
        pre = [max(sum(U[k][c] * m[c] for c in range(d)) + b[k], Fraction(0)) for k in range(4)]
        out = [m[c] + sum(W[c][k] * pre[k] for k in range(4)) for c in range(d)]
        loss += sq([out[c] - Fraction(v) for c, v in enumerate(y.double().tolist())])
    norm = d + 1 + sum(sq(r) for r in U) + sq(b) + sum(sq(r) for r in W)  # ||I||^2 + eta^2 + FF
    return loss / len(X), norm


def train(X, Y, eps, epochs, seed, depth=1, h=1):
    torch.manual_seed(seed)
    model = seqi_torch.TF(X.shape[2], h, tau=1.0, depth=depth)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=eps)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=epochs)
    losses = []
    for _ in range(epochs):
        opt.zero_grad()
        loss = ((model(X) - Y.unsqueeze(1)) ** 2).sum(-1).max(-1).values.mean()
        loss.backward()
        opt.step()
        sched.step()
        losses.append(loss.item())
    model = model.double()
    with torch.no_grad():
        last = ((model(X.double()) - Y.double().unsqueeze(1)) ** 2).sum(-1).max(-1).values.mean().item()
        norm = sum((p ** 2).sum().item() for p in model.parameters())
    return min(losses), last, norm


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--verify", default=os.path.join(HERE, "..", "..", "build", "verify"))
    p.add_argument("--epochs", type=int, default=1500, help="epochs per eps (the authors: 5000, 10000, 50000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=os.path.join(HERE, "out"))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(2)
    N, n, d = 10, 100, 16
    X, Y, gen = make_data(N, n, d, args.seed)

    data_path = os.path.join(args.out, "data.json")
    write_dataset(data_path, X, Y)
    theta_path = os.path.join(args.out, "theta_star.safetensors")
    t0 = time.time()
    r = subprocess.run([args.verify, "--softmax", "--json", "--save-model", theta_path, data_path],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"verify did not certify the construction (exit {r.returncode}):\n{r.stdout}{r.stderr}")
    summary = json.loads(r.stdout)
    module = seqi_torch.load_transformer(theta_path)
    exact = json.loads(module.metadata["seqi_model_json"])
    tau = Fraction(module.metadata["tau"])
    L_star = len(exact["blocks"])
    norm_star, h_star = theta_star_norm_sq(exact, tau)
    print(f"seqi: verified, {L_star} blocks, h* = {h_star}, tau* certified at {module.metadata['tau']}, "
          f"||theta*||^2 = {float(norm_star):.6g} (exact rational, {len(str(norm_star))} digits), "
          f"{time.time() - t0:.1f} s")
    gen_loss, gen_norm = generator_objective(X, Y, gen)
    print(f"generator block: L = {float(gen_loss):.3g} (exact), ||theta_gen||^2 = {float(gen_norm):.6g}")

    rows = []
    for eps in EPSILONS:
        t0 = time.time()
        best, last, norm = train(X, Y, eps, args.epochs, args.seed)
        e = Fraction(eps)  # the float eps the optimiser used, exactly
        bound_seqi = e / 2 * norm_star
        bound_gen = gen_loss + e / 2 * gen_norm
        J = last + eps / 2 * norm
        rows.append({"eps": eps, "min_loss": best, "last_loss": last, "last_norm_sq": norm, "J_last": J,
                     "bound_seqi_depth_ge_L_star": float(bound_seqi), "bound_generator_depth_ge_1": float(bound_gen),
                     "not_global_min_depth_1": J > float(bound_gen) * (1 + 1e-6), "seconds": time.time() - t0})
        print(f"eps {eps:g}: min loss {best:.4g}, last J_eps {J:.4g} vs generator bound {float(bound_gen):.4g} "
              f"(depth >= 1), seqi bound {float(bound_seqi):.4g} (depth >= {L_star}); "
              f"{'certifiably NOT a global minimum' if rows[-1]['not_global_min_depth_1'] else 'not excluded'}"
              f" [{time.time() - t0:.0f} s]")

    results = {"N": N, "n": n, "d": d, "seed": args.seed, "epochs": args.epochs, "L_star": L_star, "h_star": h_star,
               "tau_star_checked": module.metadata["tau"], "theta_star_norm_sq": str(norm_star),
               "generator_loss": str(gen_loss), "generator_norm_sq": str(gen_norm),
               "weight_decay_constant_c": "1/2", "runs": rows, "verify_summary": summary}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    plot(rows, L_star, h_star, args.out)


def plot(rows, L_star, h_star, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    eps = [r["eps"] for r in rows]
    fig, ax = plt.subplots(figsize=(5.2, 3.6))
    ax.loglog(eps, [r["min_loss"] for r in rows], "o-", color="tab:blue", label="minimal training loss (depth 1)")
    ax.loglog(eps, [r["J_last"] for r in rows], "s:", color="tab:blue", alpha=0.6,
              label=r"$J_\varepsilon$ of the last iterate (depth 1)")
    ax.loglog(eps, [r["bound_generator_depth_ge_1"] for r in rows], "--", color="tab:green",
              label=r"$J_\varepsilon(\theta_{gen})$: bound, depth $\geq 1$")
    ax.loglog(eps, [r["bound_seqi_depth_ge_L_star"] for r in rows], "-", color="tab:red",
              label=rf"seqi: $\frac{{\varepsilon}}{{2}}\|\theta^*\|^2$, depth $\geq {L_star}$, $h \geq {h_star}$")
    ax.set_xlabel(r"weight decay $\varepsilon$ (torch.optim.Adam)")
    ax.set_ylabel("loss / objective")
    ax.legend(fontsize=7, frameon=False)
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(out, f"tikhonov.{ext}"), dpi=150)
    print(f"wrote {os.path.join(out, 'tikhonov.png')} and .pdf")


if __name__ == "__main__":
    main()
