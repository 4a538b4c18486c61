"""Match equity tables (issue 25 item 4): for equal players, the chance of winning the match from
every pair of match scores on a 100-point grid up to the target, with its Monte Carlo error.

Method: the deals of the rules experiment (the baseline against itself, :mod:`.plan`) are the
pool; each deal is used both ways round (side A's and side B's points swapped), so the two sides
are equal players.  From a score pair, matches are finished by drawing deals from the pool with
replacement (independent deals) until a side reaches the target with the highest score, as the
engine ends a match (:mod:`tranca_sim.engine.match`: a dead tie for the highest score plays on).
Equal players make the table antisymmetric (from ``(x, y)`` one side wins as often as the other loses
from ``(y, x)``): each cell averages its own matches and its mirror cell's, so level scores read
exactly one half, and its error is the binomial standard error of that average.  The model assumes deals do not
depend on the match score: true for the basic player (it never reads the score) under rules
without a score-dependent minimum first meld; :func:`equity_table` refuses the others.
"""

from __future__ import annotations

import math

import numpy as np

#: the atlas's seed for the matches drawn
SEED = 20261227
STEP = 100


def deal_pool(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The deals' (own points, the other side's points), each deal both ways round."""
    return np.concatenate([np.stack([a, b], 1), np.stack([b, a], 1)]).astype(np.int64)


def equity_table(pool: np.ndarray, target: int, matches: int, seed: int = SEED, max_deals: int = 200) -> dict:
    """P(the side scoring ``row`` wins against the side scoring ``col``) for row, col in
    ``0, STEP, ..., < target``: ``p`` and ``se`` (arrays), ``scores``, ``matches`` a cell (each
    cell also reads its mirror's ``matches``: ``p[i, j] + p[j, i] == 1``)."""
    scores = np.arange(0, target, STEP)
    k = len(scores)
    rng = np.random.default_rng(seed)
    a0 = np.repeat(scores, k)[:, None].repeat(matches, 1).astype(np.int64)  # cell-major, matches wide
    b0 = np.tile(scores, k)[:, None].repeat(matches, 1).astype(np.int64)
    a, b = a0.ravel().copy(), b0.ravel().copy()
    won = np.full(a.shape, np.nan)
    live = np.ones(a.shape, bool)
    for _ in range(max_deals):
        idx = np.flatnonzero(live)
        if not len(idx):
            break
        d = pool[rng.integers(0, len(pool), len(idx))]
        a[idx] += d[:, 0]
        b[idx] += d[:, 1]
        done = (np.maximum(a[idx], b[idx]) >= target) & (a[idx] != b[idx])
        won[idx[done]] = a[idx[done]] > b[idx[done]]
        live[idx[done]] = False
    w = won.reshape(k * k, matches)
    n = np.sum(~np.isnan(w), axis=1)
    p = (np.nansum(w, axis=1) / np.maximum(n, 1)).reshape(k, k)
    var = (p * (1 - p) / np.maximum(n, 1).reshape(k, k))
    # equal players: P(row wins from (x, y)) = 1 - P(row wins from (y, x)); each cell averages its
    # own matches and its mirror's, so level scores read exactly one half and the error shrinks
    p_sym = (p + 1 - p.T) / 2
    se = np.sqrt(var + var.T) / 2
    np.fill_diagonal(se, 0.0)
    return {"scores": scores, "p": p_sym, "se": se, "matches": matches,
            "unfinished": int(np.sum(np.isnan(w)))}  # fmt: skip


def applies(rules) -> str | None:
    """Why the table cannot be drawn for ``rules`` (None: it can)."""
    if rules.first_meld_min > 0:
        return "score-dependent first meld"
    if rules.n_seats == 3:
        return "three players"
    return None


def max_se(table: dict) -> float:
    return float(np.max(table["se"])) if table["se"].size else math.nan
