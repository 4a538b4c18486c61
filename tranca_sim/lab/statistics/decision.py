"""Decisions as well as estimates: a sequential test with both error rates fixed, per variant,
with Holm's step-down over the experiment's variants.

**The test (a generalised SPRT on the unit).** For each variant the hypotheses are
``H0: mu = 0`` (no effect) against ``H1: mu = +delta`` or ``mu = -delta`` (an effect of the size
the experiment file names), ``mu`` the expected value of the unit (a deck's mean score
difference, points a deal; or, for the deck outcome, the deck's score minus one half).  After
``n`` units with mean ``m`` and variance ``v`` (divisor ``n``) the log-likelihood ratio of
``mu = s1`` against ``mu = s0``, in the normal approximation fishtest uses for its pentanomial
GSPRT (M. Van den Bergh, "A simple approximation of the GSPRT", fishtest's ``LLRcalc.LLR_alt2``;
the GSPRT itself: Lai 1988, and Li, Liu & Ying 2014, "Generalized sequential probability ratio
test for separate families of hypotheses"), is ::

    LLR(s0, s1) = n (s1 - s0) (2 m - s0 - s1) / (2 v)

Two-sided: ``L = max(LLR(0, +delta), LLR(0, -delta))``, two one-sided tests at half the level
each (Sobel & Wald 1949).  Wald's boundaries for error rates ``a`` (each direction ``a / 2``)
and ``b``: ``upper = log((1 - b) / (a / 2))``, ``lower = log(b / (1 - a / 2))``.  ``L`` at or
above the upper boundary rejects ``H0`` (a gain if ``m > 0``, a loss if ``m < 0``); ``L`` at or
below the lower one accepts it: no effect as large as ``delta`` (the futility stop).

**The deck outcome** (the pentanomial of fishtest): in the duplicate design a deck is played both
ways round, each deal won, lost or drawn (nobody won) by the variant, scored 1, 0 and 1/2; the
deck's score is the mean of its two deals, one of five classes 0, 1/4, 1/2, 3/4, 1 (lost both,
lost one and drawn one, won one and lost one or drawn both, won one and drawn one, won both).
Its expected value is 1/2 under ``H0``; the test is the one above on ``score - 1/2`` with
``delta_outcome``.  Treating the deck, not the deal, as the unit keeps the two correlated deals
of a deck together (the reason fishtest counts game pairs).

**Holm over the family** (the sequential Holm procedure of Bartroff & Song 2014, "Sequential
tests of multiple hypotheses controlling type I and II familywise error rates", J. Stat. Plan.
Inference 153): with ``k`` variants, the ``j``-th rejection overall uses the upper boundary of
``alpha / (k - j + 1)`` and the ``j``-th acceptance the lower boundary of ``beta / (k - j + 1)``.
At each look the active variants' statistics are sorted; the largest is compared with the next
rejection boundary, and while it is at or above it that variant is rejected and the next largest
is compared with the following boundary; the smallest likewise with the acceptance boundaries.
Both family-wise error rates (a false gain or loss; a missed effect of ``delta``) are then
controlled whatever the dependence between the variants (they share the baseline and the
decks).  A variant undecided when its budget is spent stays undecided ("no decision"): it only
lowers both error rates' use.  The points and the deck outcome are two families, each with its
own ``alpha`` and ``beta``.

Everything here is a pure function of the units and the looks, so a report recomputes the
decisions from the run files exactly as the runner made them (:func:`replay`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

#: what a decision says, by code
GAIN, LOSS, NO_EFFECT, UNDECIDED = "gain", "loss", "no effect", "no decision"

#: the two families: the points a deal and the deck outcome
FAMILIES = ("points", "outcome")


def llr(mean: float, var: float, n: int, s0: float, s1: float) -> float:
    """Log-likelihood ratio of ``mu = s1`` against ``mu = s0`` after ``n`` units of mean ``mean``
    and variance ``var`` (divisor ``n``): ``n (s1 - s0) (2 mean - s0 - s1) / (2 var)``.

    A sample without spread (``var == 0``) is decided by where its mean lies: ``+inf`` when it is
    nearer ``s1``, ``-inf`` when nearer ``s0`` (a variant that plays exactly as the baseline gives
    ``-inf`` against any effect: it accepts ``H0`` at the first look); ``n == 0`` gives 0.
    """
    if n <= 0:
        return 0.0
    num = (s1 - s0) * (2.0 * mean - s0 - s1)
    if var <= 0.0:
        return math.inf if num > 0 else -math.inf
    return n * num / (2.0 * var)


def two_sided_llr(mean: float, var: float, n: int, delta: float) -> float:
    """``max(LLR(0, +delta), LLR(0, -delta))``: the evidence for an effect of ``delta`` either way."""
    return max(llr(mean, var, n, 0.0, delta), llr(mean, var, n, 0.0, -delta))


def wald_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """``(lower, upper)`` of the two-sided test at ``alpha`` (``alpha / 2`` each way) and ``beta``:
    ``log(beta / (1 - alpha / 2))`` and ``log((1 - beta) / (alpha / 2))`` (Wald 1945)."""
    return math.log(beta / (1.0 - alpha / 2.0)), math.log((1.0 - beta) / (alpha / 2.0))


def holm_bounds(k: int, alpha: float, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Boundaries of the sequential Holm procedure for ``k`` hypotheses: ``lower[j - 1]`` for the
    ``j``-th acceptance (``beta / (k - j + 1)``), ``upper[j - 1]`` for the ``j``-th rejection
    (``alpha / (k - j + 1)``), ``j = 1 .. k``."""
    lower = np.empty(k)
    upper = np.empty(k)
    for j in range(1, k + 1):
        lower[j - 1], upper[j - 1] = wald_bounds(alpha / (k - j + 1), beta / (k - j + 1))
    return lower, upper


def unit_stats(x) -> tuple[float, float, int]:
    """``(mean, variance with divisor n, n)`` of the units ``x``."""
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    if not n:
        return (math.nan, math.nan, 0)
    m = float(x.mean())
    return m, float(((x - m) ** 2).mean()), n


@dataclass
class Decision:
    """One variant's decision in one family: ``verdict`` (:data:`GAIN`, :data:`LOSS`,
    :data:`NO_EFFECT` or :data:`UNDECIDED`), ``units`` (when it was made, else the units seen),
    ``llr`` (the statistic then), ``lower`` and ``upper`` (the boundaries it was compared with
    then; for an undecided variant the next ones)."""

    verdict: str = UNDECIDED
    units: int = 0
    llr: float = math.nan
    lower: float = math.nan
    upper: float = math.nan

    @property
    def decided(self) -> bool:
        return self.verdict != UNDECIDED

    def as_dict(self) -> dict:
        f = lambda x: None if not math.isfinite(x) else float(x)  # JSON has no infinities
        return {"verdict": self.verdict, "units": self.units, "llr": f(self.llr), "lower": f(self.lower),
                "upper": f(self.upper)}  # fmt: skip


@dataclass
class SequentialHolm:
    """The sequential Holm procedure over ``k`` variants of one family (module doc).

    Call :meth:`look` after every batch with the active variants' statistics; it returns the
    variants decided at that look.  ``delta``: the effect of ``H1`` (in the unit's scale);
    ``centre``: the unit's value under ``H0`` (0 for points, 1/2 for the deck outcome);
    ``deltas``: a variant's own ``delta`` by key, where it differs (a slow player's table names a
    larger effect it can decide within its budget; Holm's boundaries depend on ``alpha``,
    ``beta`` and ``k`` only, so variants with other ``delta`` share one family);
    ``min_units``: no variant is decided before it has this many units (the normal approximation
    of the LLR reads the units' variance: on a few dozen heavy-tailed decks that estimate, and the
    error rates with it, are not yet to be trusted).
    """

    k: int
    delta: float
    alpha: float
    beta: float
    centre: float = 0.0
    decisions: dict = field(default_factory=dict)
    deltas: dict = field(default_factory=dict)
    min_units: int = 0

    def __post_init__(self):
        self.lower, self.upper = holm_bounds(self.k, self.alpha, self.beta)
        self.rejected = 0
        self.accepted = 0

    def statistic(self, x, key=None) -> tuple[float, float]:
        """``(two-sided LLR, mean - centre)`` of the units ``x`` (of the variant ``key``: its own
        ``delta`` when :attr:`deltas` names one)."""
        m, v, n = unit_stats(x)
        return two_sided_llr(m - self.centre, v, n, self.deltas.get(key, self.delta)), m - self.centre

    def look(self, stats: dict) -> list:
        """Decide what this look decides. ``stats``: key -> ``(llr, effect, units)`` for every
        variant still undecided in this family. Returns the keys decided now."""
        live = {key: s for key, s in stats.items() if not self.decisions.get(key, Decision()).decided}
        now = []
        for key, (val, eff, n) in live.items():  # the next boundaries, for an undecided variant
            self.decisions[key] = Decision(UNDECIDED, n, val, self._next_lower(), self._next_upper())
        order = sorted((key for key in live if live[key][2] >= self.min_units), key=lambda key: -live[key][0])
        while order and self.rejected < self.k:  # step down from the largest
            key = order[0]
            val, eff, n = live[key]
            bound = self.upper[self.rejected]
            if not val >= bound:
                break
            self.decisions[key] = Decision(GAIN if eff > 0 else LOSS, n, val, self._next_lower(), bound)
            self.rejected += 1
            now.append(key)
            order.pop(0)
        while order and self.accepted < self.k:  # and up from the smallest
            key = order[-1]
            val, eff, n = live[key]
            bound = self.lower[self.accepted]
            if not val <= bound:
                break
            self.decisions[key] = Decision(NO_EFFECT, n, val, bound, self._next_upper())
            self.accepted += 1
            now.append(key)
            order.pop()
        return now

    def _next_upper(self) -> float:
        return float(self.upper[min(self.rejected, self.k - 1)])

    def _next_lower(self) -> float:
        return float(self.lower[min(self.accepted, self.k - 1)])


def deck_outcome_classes(scores, deals: int = 2) -> np.ndarray:
    """Counts of the deck outcome's classes, worst first: ``int64[2 deals + 1]``, the values a unit's
    score can take when each of its ``deals`` deals scores 0, 1/2 or 1 (duplicate, two deals: 0,
    1/4, 1/2, 3/4, 1, the pentanomial)."""
    steps = np.rint(np.asarray(scores, dtype=np.float64) * 2 * deals).astype(np.int64)
    return np.bincount(steps, minlength=2 * deals + 1)


def replay(
    units_by_key: dict,
    looks_by_key: dict,
    k: int,
    delta: float,
    alpha: float,
    beta: float,
    centre: float = 0.0,
    deltas: dict | None = None,
    min_units: int = 0,
) -> SequentialHolm:
    """The decisions the runner made, from each variant's units (in play order) and looks (its unit
    counts at each look it took part in, in order): look ``t`` (1-based) holds every variant with at
    least ``t`` looks; a variant decided in this family takes no further part in it (as in the runner).
    """
    proc = SequentialHolm(k, delta, alpha, beta, centre, deltas=dict(deltas or {}), min_units=min_units)
    n_looks = max((len(v) for v in looks_by_key.values()), default=0)
    for t in range(n_looks):
        stats = {}
        for key, looks in looks_by_key.items():
            if t < len(looks) and not proc.decisions.get(key, Decision()).decided:
                x = np.asarray(units_by_key[key])[: looks[t]]
                val, eff = proc.statistic(x, key)
                stats[key] = (val, eff, looks[t])
        if stats:
            proc.look(stats)
    return proc


def effect_size(x, centre: float = 0.0) -> float:
    """The standardised effect: ``(mean - centre) / sd`` of the units (Cohen's ``d_z`` of paired
    units; sd with divisor ``n - 1``). 0 when the units have no spread and sit on the centre, NaN
    under 2 units or with no spread off the centre."""
    x = np.asarray(x, dtype=np.float64)
    if len(x) < 2:
        return math.nan
    sd = float(x.std(ddof=1))
    m = float(x.mean()) - centre
    if sd == 0:
        return 0.0 if m == 0 else math.nan
    return m / sd


__all__ = [
    "FAMILIES",
    "GAIN",
    "LOSS",
    "NO_EFFECT",
    "UNDECIDED",
    "Decision",
    "SequentialHolm",
    "deck_outcome_classes",
    "effect_size",
    "holm_bounds",
    "llr",
    "replay",
    "two_sided_llr",
    "wald_bounds",
]
