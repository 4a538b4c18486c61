"""How much pairing and common random numbers narrow a comparison: measured, not assumed.

Two questions, over runs of the ``tranca`` preset (default 100,000 deals each):

1. Within a run: sides A and B play the same deal, so A - B per deal is a
   paired difference.  Its variance against the variance of two independent
   means, ``var(A - B) / (var(A) + var(B)) = 1 - 2 cov(A, B) / (var(A) + var(B))``,
   is below 1 only when A's and B's scores in a deal are positively correlated.
2. Across runs: two runs with the same master seed deal the same decks
   (common random numbers).  For runs ``X`` (A = ``s1``) and ``Y`` (A = ``s2``),
   both against the same side B, the per-deal difference of A's scores
   ``X.A - Y.A`` has variance ``var(X.A - Y.A)``; two runs with different seeds
   would give ``var(X.A) + var(Y.A)``.  The ratio is the share of the variance
   left with common random numbers.

Run: ``python experiments/paired_variance.py [deals] [seed]``; prints one line
per pairing and per pair of runs.  Numbers are quoted in README.md ("How the
comparison is paired") and :mod:`tranca_sim.lab.statistics.stats`.
"""

from __future__ import annotations

import sys

import numpy as np

from tranca_sim.engine import simulate_chunk
from tranca_sim.rules import get_preset

PAIRINGS = (
    ("basic", "random"),
    ("basic", "basic"),
    ("basic", "basic:black3_lock=1"),
    ("basic:go_out=0", "basic"),
    ("random", "random"),
)

#: pairs of runs sharing a seed and side B, differing in side A
CRN = (
    (("basic", "basic"), ("basic:black3_lock=1", "basic")),
    (("basic", "basic"), ("basic:go_out=0", "basic")),
    (("basic", "random"), ("basic:black3_lock=1", "random")),
    (("basic", "random"), ("random", "random")),
)


def scores(a: str, b: str, deals: int, seed: int, cache: dict) -> tuple[np.ndarray, np.ndarray]:
    """Per-deal scores of side A and side B (float64[deals] each)."""
    if (a, b) not in cache:
        rules = get_preset("tranca")
        xa, xb = [], []
        for start in range(0, deals, 50_000):
            n = min(50_000, deals - start)
            c = simulate_chunk(rules, (a, b), master_seed=seed, start=start, count=n)
            sc, side = np.asarray(c["score"], np.float64), np.asarray(c["side"])
            xa.append(sc[side == 0])
            xb.append(sc[side == 1])
        cache[(a, b)] = (np.concatenate(xa), np.concatenate(xb))
    return cache[(a, b)]


def main(deals: int = 100_000, seed: int = 2024) -> None:
    cache: dict = {}
    print(f"tranca, {deals} deals per run, seed {seed}")
    print("within a run: corr(A, B) per deal; var(A - B) / (var(A) + var(B))")
    for a, b in PAIRINGS:
        xa, xb = scores(a, b, deals, seed, cache)
        r = np.corrcoef(xa, xb)[0, 1]
        ratio = np.var(xa - xb, ddof=1) / (np.var(xa, ddof=1) + np.var(xb, ddof=1))
        print(f"  {a} vs {b}: corr {r:+.3f}, paired / independent variance {ratio:.3f}")
    print("across runs with the same seed: var(X.A - Y.A) / (var(X.A) + var(Y.A))")
    for x, y in CRN:
        xa = scores(*x, deals, seed, cache)[0]
        ya = scores(*y, deals, seed, cache)[0]
        ratio = np.var(xa - ya, ddof=1) / (np.var(xa, ddof=1) + np.var(ya, ddof=1))
        print(
            f"  A = {x[0]} vs A = {y[0]} (B = {x[1]}): corr {np.corrcoef(xa, ya)[0, 1]:+.3f}, ratio {ratio:.3f}"
        )


if __name__ == "__main__":
    main(*(int(x) for x in sys.argv[1:3]))
