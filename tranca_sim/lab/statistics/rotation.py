"""The three-player design (``design = "rotation"``, preset ``tranca-3p``): the variant in one
seat against the baseline in the other two, rotated over the three seats on the same decks.

Runs (:func:`tranca_sim.lab.statistics.designs.plan_runs`), all with the same master seed and deal indices:

========  ======  ======  ======
run       seat 0  seat 1  seat 2
========  ======  ======  ======
``s0``    V       B       B
``s1``    B       V       B
``s2``    B       B       V
control   B       B       B
========  ======  ======  ======

Deal ``i`` of every run deals the same deck, the same seat (``i % 3``) plays first, and each
seat draws its strategy's random numbers from its own stream (``tranca_sim.engine.rng``), so
over ``s0``, ``s1``, ``s2`` the variant holds each of the deck's three hands once, in its seat:
common random numbers, the duplicate deals of the two-sided design rotated over three seats.
The control table is one run shared by every variant (as the fixed-opponent baseline run).

**Unit: the deck.** Write ``x[k, j]`` for the score of seat ``j`` in run ``s<k>`` and ``c[j]``
for seat ``j``'s score at the control table, points per deal.

* The **margin** of the variant in run ``s<k>``: its score minus the mean of the two baseline
  players' scores at the same table, ``m[k] = x[k, k] - (x[k, k+1] + x[k, k+2]) / 2`` (seats
  mod 3). The deck's estimate is the mean over the three rotations,
  ``e = (m[0] + m[1] + m[2]) / 3``.  This is the reported effect (``mean``, its interval,
  Holm, the stopping rule): it is what decides who finishes first in a deal and who wins a
  match, and the same quantity as the two-sided duplicate design's ``sV - sB`` (there the
  one opponent is the baseline).  A variant equal to the baseline gives ``e = 0`` on every
  deck exactly: the three runs are then the same table and the seats' margins sum to zero.
  The same algebra makes the control table add nothing to the margin: its margins
  ``c[k] - (c[k+1] + c[k+2]) / 2`` sum to 0 over the three seats, so "margin minus the
  baseline's margin in the same seat" is ``e`` itself, to the last bit of rounding.
* The **own-score gain**: the variant's score minus the baseline's in the same seat at the
  all-baseline table, ``g = sum_k (x[k, k] - c[k]) / 3`` (``own_units``): how many points a
  player gains by playing the variant while the others keep playing the baseline.  It leaves
  out what the variant costs (or gives) the other two, so it is reported beside the margin,
  with its own interval of the same kind, not as the effect.  The margin decomposes as
  ``e = g - (the mean change of the two opponents' scores)``.
* **First place**: the variant's seat finished first (``won``: strictly more than both
  others) in ``v_wins`` of the ``3 n`` deals; the baseline's share is per baseline seat,
  ``b_wins / 2`` over the same deals, and ``win_share_diff`` is the difference of the shares
  of the deals someone finished first alone (``v_decided``).  ``win_p``: exact sign test over
  decks of ``(variant's first places) - (baseline's first places) / 2`` (decks with 0 left out).
* **Going out**: the variant's share of its deals, the baseline's per baseline seat-deal.
* **Matches**: ``match_a``, ``match_b``, ``match_c`` are the variant's and its two opponents'
  scores, shape (decks, 3); a match to the preset's target (1500) is chained from resampled
  deals of the three (:func:`tranca_sim.lab.statistics.inference.match_win_prob`), fair share 1/3.

**Variance, measured** (each against unpaired deals of the same count, the ``3 n`` deals the
variant played dealt from ``3 n`` independent decks):

* ``var_ratio_design = 3 Var(e) / Var(m)``, ``m`` the ``3 n`` margins pooled: the unpaired
  estimate is the mean margin of ``3 n`` tables of independent decks (the baseline's own mean
  margin is 0 by the seats' symmetry, nothing to estimate).  It equals ``1 + 2 rho``, ``rho``
  the mean correlation of a deck's three margins (``corr_swap``): a deck that favours seat 0
  gives the variant a large margin in ``s0`` and a small one in ``s1`` and ``s2``, so ``rho``
  is negative and rotating removes that luck.
* ``var_ratio_own = 3 Var(g) / (Var(sV) + Var(sB))``, ``sV`` the variant's ``3 n`` scores and
  ``sB`` the control table's ``3 n`` seat scores: the own-score gain against the variant's mean
  score on ``3 n`` decks minus the baseline's on ``3 n`` other decks.
"""

from __future__ import annotations

import math

import numpy as np

from .designs import Paired, _cols, _ratio, _same_deals, _var
from .inference import sign_test


def _table(run) -> dict[str, np.ndarray]:
    """Columns of a three-player run as arrays of shape (deals, 3): column ``j`` is seat ``j``."""
    c = _cols(run, 3)
    n = len(c["side"]) // 3
    out = {k: np.asarray(c[k]).reshape(n, 3) for k in ("score", "won", "went_out")}
    out["deal_index"] = np.asarray(c["deal_index"])[0::3]
    out["side"] = c["side"]
    out["score"] = out["score"].astype(np.float64)
    out["won"] = out["won"].astype(bool)
    out["went_out"] = out["went_out"].astype(bool)
    return out


def _mean_corr(m: np.ndarray) -> float:
    """Mean correlation of the pairs of columns of ``m`` (decks, 3); NaN with too few decks or a
    constant column."""
    if len(m) < 3 or any(_var(m[:, k]) <= 0 for k in range(3)):
        return math.nan
    r = np.corrcoef(m, rowvar=False)
    return float((r[0, 1] + r[0, 2] + r[1, 2]) / 3)


def rotation_units(s0, s1, s2, control=None) -> Paired:
    """Per-deck estimates of the rotation design (module doc).

    Parameters
    ----------
    s0, s1, s2 : run (data frame or mapping of the columns ``deal_index``, ``side``, ``score``,
        ``won``, ``went_out``; three rows a deal, sides 0, 1, 2)
        The variant in seat 0, 1, 2 and the baseline in the other two, same seed and deals.
    control : run, optional
        The baseline in all three seats, same seed; it may hold more deals than the
        variant's runs (it serves every variant): its first deals are paired.

    Returns
    -------
    Paired
        ``units``: the margin ``e`` per deck (points per deal), ``unit`` ``"deck"``,
        ``n_deals`` ``3 n``; ``own_units``: the own-score gain ``g`` per deck (None without
        ``control``); first places, going out, match arrays and variance ratios as in the
        module doc; ``var_ratio_plain`` NaN (a three-player table has no plain pairing: the
        variant faces two baseline seats whatever the seat), ``b_seats`` 2.

    Raises
    ------
    ValueError
        If a run is not three rows a deal, or the runs do not hold the same deals (the
        control: at least the variant's deals, the same indices first).
    """
    x = [_table(r) for r in (s0, s1, s2)]
    for k in (1, 2):
        _same_deals(x[0], x[k], "rotation design")
    n = len(x[0]["deal_index"])
    seats = np.arange(3)
    v = np.column_stack([x[k]["score"][:, k] for k in seats])  # (n, 3): the variant, rotation k
    o1 = np.column_stack([x[k]["score"][:, (k + 1) % 3] for k in seats])
    o2 = np.column_stack([x[k]["score"][:, (k + 2) % 3] for k in seats])
    m = v - (o1 + o2) / 2
    units = m.mean(axis=1)
    vw = np.column_stack([x[k]["won"][:, k] for k in seats])
    bw = sum(np.column_stack([x[k]["won"][:, (k + j) % 3] for k in seats]).astype(int) for j in (1, 2))
    decided = int(sum(x[k]["won"].any(axis=1).sum() for k in seats))
    vo = np.column_stack([x[k]["went_out"][:, k] for k in seats])
    bo = np.column_stack([x[k]["went_out"][:, (k + j) % 3] for k in seats for j in (1, 2)])
    net2 = 2 * vw.sum(axis=1) - bw.sum(axis=1)  # twice (variant's first places - baseline's / 2)
    own = None
    var_own = math.nan
    outcomes = None
    if control is not None:
        c = _table(control)
        if len(c["deal_index"]) < n or np.any(c["deal_index"][:n] != x[0]["deal_index"]):
            raise ValueError("rotation design: the control run does not hold the variant's deals")
        cs = c["score"][:n]
        own = (v - cs).mean(axis=1)
        var_own = _ratio(3 * _var(own), _var(v.ravel()) + _var(cs.ravel()))
        cm = np.column_stack([cs[:, k] - (cs[:, (k + 1) % 3] + cs[:, (k + 2) % 3]) / 2 for k in seats])
        outcomes = (np.sign(m - cm) + 1).mean(axis=1) / 2  # per seat 1, 1/2, 0: above, equal, below
    return Paired(
        units=units,
        unit="deck",
        n_deals=3 * n,
        v_out=float(vo.mean()) if n else math.nan,
        b_out=float(bo.mean()) if n else math.nan,
        v_wins=int(vw.sum()),
        b_wins=int(bw.sum()),
        v_decided=decided,
        b_decided=decided,
        win_p=sign_test(int((net2 > 0).sum()), int((net2 < 0).sum())),
        match_a=v,
        match_b=o1,
        var_ratio_design=_ratio(3 * _var(units), _var(m.ravel())),
        var_ratio_plain=math.nan,
        corr_swap=_mean_corr(m),
        match_c=o2,
        own_units=own,
        var_ratio_own=var_own,
        b_seats=2,
        outcomes=outcomes,
    )


__all__ = ["rotation_units"]
