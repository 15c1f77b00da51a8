"""Shared by the ONNX tests: the skip convention and an exact dataset reader written from
docs/formats.md (not the engine's)."""
import json
import sys
from fractions import Fraction

SKIP = 77  # ctest's SKIP_RETURN_CODE for these tests


def skip(why):
    print(f"SKIPPED: {why}; scripts/install-deps.sh --all installs it")
    sys.exit(SKIP)


def read_dataset(path):
    """(d, [(input tokens, output tokens)]) with every coordinate an exact Fraction."""
    with open(path) as f:
        raw = json.load(f, parse_float=str, parse_int=str)
    to_tokens = lambda seq: [[Fraction(c) for c in tok] for tok in seq]  # noqa: E731
    return int(raw["dimension"]), [(to_tokens(p["input"]), to_tokens(p["output"])) for p in raw["pairs"]]
