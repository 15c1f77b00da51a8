#!/usr/bin/python3
"""Writes a deterministic classification dataset (every m_j = 1) for the verify-mpi
comparisons: N sequences of 2 to 6 tokens in Q^3 (coordinates k/3), four classes whose
targets are the four points (+-1, +-1, 0). Enough sequences that the leader construction,
built beside the mean collapse, has more than one chunk of placement hats.

Usage: classification_dataset.py OUT.json [N] [SEED]"""
import json
import random
import sys


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 20261206)
    targets = [["1", "1", "0"], ["1", "-1", "0"], ["-1", "1", "0"], ["-1", "-1", "0"]]
    pairs, seen = [], set()
    while len(pairs) < n:
        tokens = tuple(tuple(rng.randint(-12, 12) for _ in range(3)) for _ in range(rng.randint(2, 6)))
        if tokens in seen:
            continue
        seen.add(tokens)
        pairs.append({"input": [[f"{c}/3" for c in t] for t in tokens], "output": [targets[len(pairs) % 4]]})
    with open(out, "w") as f:
        json.dump({"name": f"classification-{n}", "dimension": 3, "pairs": pairs}, f)


if __name__ == "__main__":
    main()
