"""The authors' Tikhonov experiment (Alcalde, Fantuzzi, Zuazua; repository exactInterpTF,
tikhonov/), re-implemented, plus a certified upper bound on the regularised minimum.

Data: N = 10 sequences of n = 100 tokens uniform in [0, 1]^16 (float32); target of sequence j:
one random block applied to it (uniform attention: Wq = Wk = 0, Wv = I, rho = 0, then the
width-4 FF with eta = 1 and U, b, W uniform in [0, 1]), i.e. y_j = FF(mean of X_j), in float32.
Students, trained as the authors train: TF(d=16, h, tau=1, depth) with width 4, full batch,
torch.optim.Adam(lr=1e-3, weight_decay=eps) and a cosine schedule over the run's epochs, loss
L(theta) = mean_j max_i ||T(X_j)_i - y_j||^2, for eps = 1e-1, 1e-2, 1e-3 in turn; as in the
authors' script one model is trained through the three eps (each eps a new optimiser and
schedule, starting from the previous eps's weights). Two classes: the authors' depth-1,
h = 1 students, and students of depth L* and h = h* (the certified theta*'s blocks and heads),
the class the seqi line bounds. The authors' epochs are 5000, 10000, 50000; the default runs
--epoch-fraction 0.1 of them (500, 1000, 5000), --full runs all of them.

torch.optim.Adam's weight_decay adds eps*theta to the gradient, the gradient of
(eps/2)||theta||^2: the runs descend J_eps(theta) = L(theta) + (eps/2)||theta||^2 (c = 1/2).
(AdamW instead shrinks theta by lr*eps per step outside Adam's preconditioner; its fixed
points are not stationary points of J_eps, so the bound below is not about AdamW runs.)

Bounds on min J_eps, each exact (Fractions of the float32 data, no rounding):
 * seqi: `verify --softmax` builds theta* and certifies T(X_j) = y_j exactly at tau*;
   L(theta*) = 0, so min J_eps <= (eps/2)||theta*||^2 over students with depth L*,
   h >= h* and width >= 4 (a deeper student adds identity blocks rho = eta = 1, norm 2
   each: depth L gives (eps/2)(||theta*||^2 + 2(L - L*))). theta* is written at the students'
   tau = 1 by scaling each head (Wq row s q, Wk row p/(s tau*), s^2 rational), and each FF
   unit is balanced (U row and b entry times t, W column over t: relu is positively
   homogeneous), which changes no output and lowers the norm.
 * the generator block theta_gen (depth 1, h any): J_eps(theta_gen) = L(theta_gen) +
   (eps/2)||theta_gen||^2 with L(theta_gen) computed exactly (the float32 targets are rounded,
   so L(theta_gen) is tiny but not 0); padded with identity blocks it bounds depth L too.
J_eps of a run's last iterate is enclosed rigorously from its float weights (enclose.py: the
loss in outward-rounded float64 intervals, ||theta||^2 exact). A run whose lower end of J_eps
exceeds the exact line of its class is certifiably not a global minimiser of J_eps in that class.

Command (about 10 minutes on one core with the default --epoch-fraction 0.1):
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
import enclose  # noqa: E402
import seqi_torch  # noqa: E402

EPSILONS = (1e-1, 1e-2, 1e-3)
AUTHORS_EPOCHS = (5000, 10000, 50000)  # per eps, in the authors' script


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


def train(model, X, Y, eps, epochs):
    """One eps of the authors' schedule on model (in place); the training losses per epoch."""
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
    return losses


def objective(model, X, Y, eps):
    """J_eps of the model's float weights: ([lower, upper] as Fractions, loss enclosure, ||theta||^2)."""
    lo, hi = enclose.loss_interval(model, X.double().numpy(), Y.double().numpy())
    norm = enclose.norm_sq_exact(model)
    e = Fraction(eps)  # the float eps the optimiser used, exactly
    return (Fraction(lo) + e / 2 * norm, Fraction(hi) + e / 2 * norm), (lo, hi), norm


def fmt(q):
    return f"{float(q):.6g}"


def decimal(q, up, digits=8):
    """The rational q rounded down (up=False) or up to `digits` significant decimal digits."""
    if q == 0:
        return "0"
    k = digits - 1 - math.floor(math.log10(abs(float(q))))
    scaled = q * Fraction(10) ** k
    v = math.ceil(scaled) if up else math.floor(scaled)
    return str(Fraction(v) / Fraction(10) ** k if k > 0 else v * 10 ** -k) if k <= 0 else \
        f"{'-' if v < 0 else ''}{str(abs(v))[:-k] or '0'}.{str(abs(v)).rjust(k, '0')[-k:]}"


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--verify", default=os.path.join(HERE, "..", "..", "build", "verify"))
    p.add_argument("--epoch-fraction", type=float, default=0.1,
                   help="fraction of the authors' epochs (5000, 10000, 50000) run per eps (default 0.1)")
    p.add_argument("--full", action="store_true", help="the authors' epochs (--epoch-fraction 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=os.path.join(HERE, "out"))
    p.add_argument("--docs", default=os.path.join(HERE, "..", "..", "docs", "tikhonov.md"),
                   help="page whose generated table is rewritten (between its markers); '' for none")
    args = p.parse_args()
    fraction = 1.0 if args.full else args.epoch_fraction
    epochs = [max(1, round(fraction * e)) for e in AUTHORS_EPOCHS]
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)  # these small tensors run fastest on one thread (measured: 4-10x)
    t_start = time.time()
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
    width_star = {len(b["feed_forward"]["U"]) for b in exact["blocks"]}
    norm_star, h_star = theta_star_norm_sq(exact, tau)
    print(f"seqi: verified, {L_star} blocks, h* = {h_star}, FF width {sorted(width_star)}, tau* certified at "
          f"{module.metadata['tau']}, ||theta*||^2 = {float(norm_star):.6g} (exact rational), {time.time() - t0:.1f} s")
    if max(width_star) > 4:
        sys.exit("theta* has a feed-forward layer wider than 4: width-4 students are not in its class")
    gen_loss, gen_norm = generator_objective(X, Y, gen)
    print(f"generator block: L = {float(gen_loss):.3g} (exact), ||theta_gen||^2 = {float(gen_norm):.6g}")

    def lines(eps, depth):
        """The exact certified lines on min J_eps for students of this depth (None: not in the class)."""
        e = Fraction(eps)
        seqi = e / 2 * (norm_star + 2 * (depth - L_star)) if depth >= L_star else None
        generator = gen_loss + e / 2 * (gen_norm + 2 * (depth - 1))
        return seqi, generator

    classes = [{"name": "depth 1 (the authors')", "depth": 1, "h": 1},
               {"name": f"depth L* = {L_star}, h* = {h_star}", "depth": L_star, "h": h_star}]
    rows = []
    for c in classes:
        torch.manual_seed(args.seed)
        model = seqi_torch.TF(d, c["h"], tau=1.0, depth=c["depth"], width=4)
        for eps, ep in zip(EPSILONS, epochs):
            t0 = time.time()
            losses = train(model, X, Y, eps, ep)
            t_train = time.time() - t0
            (J_lo, J_hi), (l_lo, l_hi), norm = objective(model, X, Y, eps)
            seqi, generator = lines(eps, c["depth"])
            row = {"class": c["name"], "depth": c["depth"], "h": c["h"], "width": 4, "eps": eps, "epochs": ep,
                   "min_loss": min(losses), "last_loss_float32": losses[-1],
                   "last_loss_lower": l_lo, "last_loss_upper": l_hi, "last_norm_sq": str(norm),
                   "J_lower": decimal(J_lo, up=False), "J_upper": decimal(J_hi, up=True),  # outward
                   "J_lower_exact": str(J_lo), "J_upper_exact": str(J_hi),
                   "line_seqi": None if seqi is None else str(seqi),
                   "line_seqi_float": None if seqi is None else float(seqi),
                   "line_generator": str(generator), "line_generator_float": float(generator),
                   "not_global_min_by_seqi": None if seqi is None else J_lo > seqi,
                   "not_global_min_by_generator": J_lo > generator,
                   "seconds_train": t_train, "seconds_enclosure": time.time() - t0 - t_train}
            rows.append(row)
            verdict = lambda v: "certifiably NOT a global minimiser" if v else "not excluded"  # noqa: E731
            print(f"{c['name']}, eps {eps:g}, {ep} epochs: min loss {min(losses):.5g}, "
                  f"J_eps in [{decimal(J_lo, False)}, {decimal(J_hi, True)}]; "
                  + ("" if seqi is None else f"seqi line {fmt(seqi)}: {verdict(row['not_global_min_by_seqi'])}; ")
                  + f"generator line {fmt(generator)}: {verdict(row['not_global_min_by_generator'])} "
                  f"[{t_train:.0f} s + {row['seconds_enclosure']:.1f} s]")

    results = {"N": N, "n": n, "d": d, "seed": args.seed, "epoch_fraction": fraction, "epochs": epochs,
               "authors_epochs": list(AUTHORS_EPOCHS), "warm_start_across_eps": True,
               "L_star": L_star, "h_star": h_star, "ff_width_star": max(width_star),
               "tau_star_checked": module.metadata["tau"], "theta_star_norm_sq": str(norm_star),
               "theta_star_norm_sq_float": float(norm_star),
               "generator_loss": str(gen_loss), "generator_norm_sq": str(gen_norm),
               "weight_decay_constant_c": "1/2", "runs": rows, "seconds_total": time.time() - t_start,
               "verify_summary": summary}
    with open(os.path.join(args.out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    plot(rows, L_star, h_star, args.out)
    if args.docs:
        write_docs(args.docs, results)
    print(f"total {time.time() - t_start:.0f} s")


BEGIN, END = "<!-- generated by experiments/tikhonov/run.py: begin -->", "<!-- generated: end -->"


def write_docs(path, results):
    """Rewrites the part of the page between BEGIN and END: the table and the verdicts."""
    with open(path) as f:
        page = f.read()
    if BEGIN not in page or END not in page:
        sys.exit(f"{path}: the markers of the generated part are missing")
    L, rows = results["L_star"], results["runs"]
    lines = [BEGIN, "",
             f"Seed {results['seed']}, epochs {', '.join(map(str, results['epochs']))} for eps "
             f"{', '.join(f'{r:g}' for r in EPSILONS)} (fraction {results['epoch_fraction']:g} of the authors' "
             f"{', '.join(map(str, results['authors_epochs']))}), {results['seconds_total'] / 60:.1f} minutes. "
             f"`theta*`: {L} blocks, `h* = {results['h_star']}`, feed-forward width at most "
             f"{results['ff_width_star']}, `||theta*||^2 = {decimal(Fraction(results['theta_star_norm_sq']), False, 6)}`"
             f"...{decimal(Fraction(results['theta_star_norm_sq']), True, 6)} (exact rational in `results.json`). "
             f"Generator block: `L(theta_gen) = {float(Fraction(results['generator_loss'])):.3g}`, "
             f"`||theta_gen||^2 = {float(Fraction(results['generator_norm_sq'])):.6g}`.", "",
             "| students | eps | epochs | minimal loss | `J_eps` of the last iterate (rigorous) | seqi line "
             "| verdict (seqi line) | generator line | verdict (generator line) |",
             "|---|---|---|---|---|---|---|---|---|"]
    word = {True: "**not a global minimiser**", False: "not excluded", None: "(not in the class)"}
    for r in rows:
        seqi = "n/a (depth < L*)" if r["line_seqi"] is None else decimal(Fraction(r["line_seqi"]), True, 6)
        lines.append(f"| depth {r['depth']}, h {r['h']} | {r['eps']:g} | {r['epochs']} | {r['min_loss']:.5g} "
                     f"| [{r['J_lower']}, {r['J_upper']}] | {seqi} | {word[r['not_global_min_by_seqi']]} "
                     f"| {decimal(Fraction(r['line_generator']), True, 6)} | {word[r['not_global_min_by_generator']]} |")
    lines.append("")
    for r in rows:
        if r["line_seqi"] is None:
            continue
        J, line = r["J_lower"], decimal(Fraction(r["line_seqi"]), True, 6)
        if r["not_global_min_by_seqi"]:
            lines.append(f"* eps = {r['eps']:g}: the depth-{L} students' `J_eps` is at least {J}, above the seqi "
                         f"line {line}: certifiably not a global minimiser.")
        else:
            lines.append(f"* eps = {r['eps']:g}: the depth-{L} students' `J_eps` is at most {r['J_upper']}, below "
                         f"the seqi line {line}: not excluded by it.")
    lines += ["", END]
    start, end = page.index(BEGIN), page.index(END) + len(END)
    with open(path, "w") as f:
        f.write(page[:start] + "\n".join(lines) + page[end:])
    print(f"rewrote the generated part of {path}")


def plot(rows, L_star, h_star, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6.0, 4.2))
    for depth, color in ((1, "tab:blue"), (L_star, "tab:purple")):
        rs = [r for r in rows if r["depth"] == depth]
        eps = [r["eps"] for r in rs]
        ax.loglog(eps, [r["min_loss"] for r in rs], "o-", color=color, label=f"minimal training loss, depth {depth}")
        ax.loglog(eps, [float(Fraction(r["J_lower_exact"])) for r in rs], "s:", color=color,
                  label=rf"$J_\varepsilon$ of the last iterate (rigorous), depth {depth}")
    d1 = [r for r in rows if r["depth"] == 1]
    dL = [r for r in rows if r["depth"] == L_star]
    ax.loglog([r["eps"] for r in d1], [r["line_generator_float"] for r in d1], "--", color="tab:green",
              label=r"$J_\varepsilon(\theta_{gen})$: bounds depth 1 (any $h$)")
    ax.loglog([r["eps"] for r in dL], [r["line_seqi_float"] for r in dL], "-", color="tab:red",
              label=rf"seqi: $\frac{{\varepsilon}}{{2}}\Vert\theta^*\Vert^2$, bounds depth {L_star}, $h \geq {h_star}$, width 4")
    ax.loglog([r["eps"] for r in dL], [r["line_generator_float"] for r in dL], "-.", color="tab:olive",
              label=rf"$\theta_{{gen}}$ + identity blocks: bounds depth {L_star}")
    ax.set_xlabel(r"weight decay $\varepsilon$ (torch.optim.Adam)")
    ax.set_ylabel("loss / objective")
    ax.legend(fontsize=6.5, frameon=False, loc="best")
    fig.tight_layout()
    for ext in ("png", "pdf"):
        fig.savefig(os.path.join(out, f"tikhonov.{ext}"), dpi=150)
    print(f"wrote {os.path.join(out, 'tikhonov.png')} and .pdf")


if __name__ == "__main__":
    main()
