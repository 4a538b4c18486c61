"""Blocks of fresh decks: their seeds, and when two or more blocks confirm a figure.

**Seeds.** Block ``b`` (1, 2, ...) of an experiment with master seed ``s`` in preset ``P`` deals
from :func:`block_seed` ``(s, P, b)``: numpy's ``SeedSequence`` of ``(s, crc32(P), b)`` (a
hash that mixes every input into every output bit), 63 bits.  A deal's deck is a function of its
seed and its index (:func:`tranca_sim.engine.kernel.deck_of`), so two blocks, or the same block
number in two presets, deal other decks: the chance that two of them coincide is that of two
shuffles of 108 cards being equal.  ``tests/test_blocks.py`` checks that the seeds differ and
that no deck of the first deals is shared.  (Before issue 22 a confirmation block reused one
seed in every preset, so ``tranca`` and ``tranca-paulista`` were confirmed on the same decks.)

**Confirmed.** A figure (a variant's effect, points a deal) is confirmed when every block decided
it the same way by the sequential test (:mod:`tranca_sim.lab.statistics.decision`: all gains, all losses or
all "no effect"), and, as a second check, the blocks' estimates agree: for two blocks, their
difference's 95% interval (independent blocks, normal) holds 0; for more, Cochran's Q test of
homogeneity has p > 0.05.  A block that reached no decision (its budget spent first) leaves the
figure unconfirmed.  The published estimate of a confirmed figure is the blocks' inverse-variance
weighted mean.

**Its interval is valid at the stops.**  Each block stopped when its sequential test decided, a
stop that depends on the data; a normal interval ``mean +- 1.96 se`` at that stop is a fixed-n
interval and does not keep its 95% there (it was the published interval before).  Each block
therefore also carries its confidence sequence at level ``1 - alpha / B`` (``B`` blocks;
``lo_split``, ``hi_split``), which covers the true effect at any stop with that probability; all
``B`` cover it at once with probability at least ``1 - alpha`` (Bonferroni), so the published
interval is where they overlap, ``[max lo_split, min hi_split]``.  A weighted mean outside that
overlap (or no overlap) means the blocks disagree.  The agreement test and the "changes with
strength" table still use normal standard errors at the stops: approximate, said where shown.
"""

from __future__ import annotations

import math
import zlib

import numpy as np

from .decision import GAIN, LOSS, NO_EFFECT

CRITERION = (
    "confirmed: every block decided the effect the same way by the sequential test (all gains, all "
    "losses or all no effect) and the blocks' estimates agree (two blocks: the 95% interval of their "
    "difference holds 0; more: Cochran's Q, p > 0.05); the published figure is the blocks' inverse-variance "
    "weighted mean, its 95% interval the overlap of the blocks' confidence sequences at 95% / B each (B blocks): "
    "valid at the data-dependent stops (Bonferroni over the blocks)"
)


def block_seed(seed: int, preset: str, block: int) -> int:
    """The master seed of block ``block`` (1, 2, ...) in ``preset`` of an experiment whose seed is
    ``seed``: 0 .. 2**63 - 1, a hash of all three."""
    if block < 1:
        raise ValueError(f"blocks are numbered from 1, got {block}")
    ss = np.random.SeedSequence([int(seed), zlib.crc32(preset.encode("utf-8")), int(block)])
    return int(ss.generate_state(1, np.uint64)[0] >> np.uint64(1))


def pooled(means, ses) -> dict:
    """Inverse-variance weighted mean of independent estimates (equal weights when one has no spread),
    its standard error and 95% interval,
    and the homogeneity test (two: z of the difference; more: Cochran's Q): ``p_agree``."""
    from scipy.stats import chi2, norm

    m, s = np.asarray(means, float), np.asarray(ses, float)
    if not np.all(np.isfinite(s)):
        return {"mean": float(np.mean(m)), "se": math.nan, "lo": math.nan, "hi": math.nan, "p_agree": math.nan}
    if np.all(s == 0):  # units without spread (a tip that changed no play): exact figures
        mu = float(m[0])
        return {"mean": mu, "se": 0.0, "lo": mu, "hi": mu, "p_agree": 1.0 if np.all(m == mu) else 0.0}
    # a block without spread (few decks, none changed) is not infinitely precise: equal weights then
    w = 1.0 / s**2 if np.all(s > 0) else np.ones_like(s) / np.mean(s**2)
    mu = float(np.sum(w * m) / np.sum(w))
    se = float(math.sqrt(np.sum(w**2 * s**2)) / np.sum(w))
    if len(m) == 2:
        z = (m[1] - m[0]) / math.sqrt(s[0] ** 2 + s[1] ** 2)
        p = float(2 * norm.sf(abs(z)))
    else:
        q = float(np.sum(w * (m - mu) ** 2))
        p = float(chi2.sf(q, len(m) - 1)) if len(m) > 1 else 1.0
    return {"mean": mu, "se": se, "lo": mu - 1.96 * se, "hi": mu + 1.96 * se, "p_agree": p}


def overlap(mean: float, los, his) -> dict:
    """The published interval of a pooled ``mean``: ``[max los, min his]`` of the blocks' intervals
    at ``alpha / B`` each (module doc), ``interval`` naming it, and ``overlaps``: whether that
    interval is not empty and holds ``mean``."""
    lo, hi = float(max(los)), float(min(his))
    return {"lo": lo, "hi": hi, "interval": "overlap of the blocks' intervals at alpha / blocks",
            "overlaps": bool(lo <= mean <= hi)}  # fmt: skip


def confirmation(cells: list[dict]) -> dict:
    """Whether the blocks' cells (each ``decision``: GAIN/LOSS/NO_EFFECT/no decision, ``mean``,
    ``se``) confirm one figure: ``confirmed`` (bool), ``verdict`` (the shared decision, or
    ``"blocks disagree"`` / ``"undecided"`` / ``"one block"``), ``why`` (one phrase), and the
    pooled estimate (:func:`pooled`)."""
    decisions = [c["decision"] for c in cells]
    pool = pooled([c["mean"] for c in cells], [c["se"] for c in cells])
    if cells and all(c.get("lo_split") is not None for c in cells):  # the interval valid at the stops
        pool = {**pool, **overlap(pool["mean"], [c["lo_split"] for c in cells], [c["hi_split"] for c in cells])}
    if len(cells) < 2:
        return {"confirmed": False, "verdict": "one block", "why": "one block: not confirmed", **pool}
    if any(d not in (GAIN, LOSS, NO_EFFECT) for d in decisions):
        n = sum(d not in (GAIN, LOSS, NO_EFFECT) for d in decisions)
        return {"confirmed": False, "verdict": "undecided", "why": f"{n} of {len(cells)} blocks undecided", **pool}
    if len(set(decisions)) > 1:
        return {"confirmed": False, "verdict": "blocks disagree", "why": " / ".join(decisions), **pool}
    if not pool.get("overlaps", True):
        return {"confirmed": False, "verdict": "blocks disagree", "why": "the blocks' intervals do not overlap "
                "around the pooled estimate", **pool}  # fmt: skip
    if not (pool["p_agree"] > 0.05):
        return {
            "confirmed": False,
            "verdict": "blocks disagree",
            "why": f"both {decisions[0]}, but the estimates differ (p = {pool['p_agree']:.3g})",
            **pool,
        }
    return {"confirmed": True, "verdict": decisions[0], "why": f"{len(cells)} blocks: {decisions[0]}", **pool}
