"""Experimental designs: which runs compare a variant with the baseline, and how their deals
become paired per-unit differences.

Two designs (issue 7, section 2):

``duplicate`` (the default)
    Every deck is played twice with the sides swapped: run ``ab`` has the variant
    V on side A (seats 0 and 2) and the baseline B on side B (seats 1 and 3); run
    ``ba`` has B on side A and V on side B, with the *same* master seed and deal
    indices. Deal ``i`` of both runs deals the same deck, and the seat that
    plays first (``i % 4``) and the seats' random streams are the same, so in
    ``ba`` each strategy holds exactly the cards (and the position) the other
    held in ``ab``: each strategy holds each hand once. The **unit is the
    deck**; its estimate is the mean of the two differences,
    ``e = ((sV - sB in ab) + (sV - sB in ba)) / 2``, points per deal.

``fixed-opponent``
    The variant and the baseline each play the same opponent O on the same
    seeds and deal indices (common random numbers): run ``V vs O`` and run
    ``B vs O``, V and B on side A. The **unit is the deal**; its estimate is
    ``f = (sV - sO | V's run) - (sB - sO | B's run)``: how many more points a deal
    the variant gets ahead of the opponent than the baseline does (the side's
    margin, so defence counts as well as its own score).

Variance reduction, measured from the data (``var_ratio_design``): the
variance of the design's estimate of the mean difference divided by the
variance of the same estimate from *unpaired* deals of the same count, where
the two strategies' means come from different, independent decks:

* duplicate, ``n`` decks = ``2n`` deals for each strategy:
  ``(Var(e) / n) / ((Var(sV) + Var(sB)) / 2n) = 2 Var(e) / (Var(sV) + Var(sB))``,
  with ``sV``, ``sB`` the strategies' per-deal scores over all ``2n`` deals.
  The same ratio for plain pairing (one run, the sides never swap, the
  per-deal difference ``d = sV - sB``) is ``Var(d) / (Var(sV) + Var(sB))``
  (``var_ratio_plain``, ``d`` pooled over both runs), and
  ``var_ratio_design / var_ratio_plain`` (duplicate against plain pairing at
  equal deals) is about ``1 + corr(d_ab, d_ba)`` (``corr_swap``), the
  correlation of a deck's two differences. In Tranca the two sides' scores
  in one deal are negatively correlated (the side that goes out gains what
  the other loses), so plain pairing is *not* better than unpaired deals for
  a head-to-head difference (``var_ratio_plain`` > 1); the duplicate swap is
  what removes the luck of the cards.
* fixed-opponent, ``n`` deals each: ``Var(f) / (Var(mV) + Var(mB))``, with
  ``mV``, ``mB`` the per-deal margins over the opponent.

The three-player design (``rotation``, for ``tranca-3p``) is in
:mod:`tranca_sim.lab.statistics.rotation`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .inference import sign_test

DESIGNS = ("duplicate", "fixed-opponent", "rotation")

#: the designs of a table of two sides (partnerships, or tranca-2p's two solo players) and of three
#: solo players (tranca-3p)
DESIGNS_BY_SIDES = {2: ("duplicate", "fixed-opponent"), 3: ("rotation",)}

#: deals the variant plays per unit: a duplicate deck twice, a rotation deck three times (once in
#: each seat), a fixed-opponent deal once
DEALS_PER_UNIT = {"duplicate": 2, "fixed-opponent": 1, "rotation": 3}

#: the unit of each design
UNIT = {"duplicate": "deck", "fixed-opponent": "deal", "rotation": "deck"}

#: run-file columns the designs read
DESIGN_COLUMNS = ("deal_index", "side", "score", "won", "went_out")


@dataclass(frozen=True)
class RunPlan:
    """One run of an experiment.

    ``key``: file stem under ``runs/``; ``label``: the variant's label, or
    ``"baseline"`` for the fixed-opponent baseline run and the rotation's
    all-baseline control run; ``side_a``, ``side_b`` (and ``side_c`` at three
    players, else None): strategy texts; ``role``: ``"ab"`` (variant on side A
    vs the baseline), ``"ba"`` (baseline on side A vs the variant),
    ``"variant"`` (variant vs the opponent), ``"baseline"`` (baseline vs the
    opponent), ``"s0"``, ``"s1"``, ``"s2"`` (rotation: the variant in seat 0,
    1 or 2, the baseline in the other two) or ``"control"`` (rotation: the
    baseline in all three seats).
    """

    key: str
    label: str
    side_a: str
    side_b: str
    role: str
    side_c: str | None = None
    seed_shift: int = 0

    def seed(self, master_seed: int) -> int:
        """The master seed this run deals from: the experiment's, or for the runs of a null variant
        that would repeat a deck, another one (:func:`null_seed`)."""
        return null_seed(master_seed, self.seed_shift) if self.seed_shift else master_seed

    @property
    def sides(self) -> tuple[str, ...]:
        """The strategy texts by side: 2, or 3 at a three-player table."""
        return (self.side_a, self.side_b) if self.side_c is None else (self.side_a, self.side_b, self.side_c)


#: the odd constant of the seeds of a null variant's other decks (2**64 / golden ratio)
_NULL_STEP = 0x9E3779B97F4A7C15


def null_seed(master_seed: int, k: int) -> int:
    """The ``k``-th other master seed of a null variant (``k >= 1``): ``(seed + k * 0x9E37...) mod
    2**63``, a seed no other run of the experiment uses (decks of another seed share no card order
    with the experiment's but by chance)."""
    return (int(master_seed) + int(k) * _NULL_STEP) % 2**63


def slug(text: str) -> str:
    """A file-name-safe form of a label: lower case, ``[a-z0-9.=-]`` only, at most 40 characters."""
    s = re.sub(r"[^a-z0-9.=]+", "-", text.lower()).strip("-")
    return s[:40] or "variant"


def plan_runs(
    design: str, variants, baseline: str, opponent: str | None = None, nulls=()
) -> list[RunPlan]:
    """The runs of an experiment, in a fixed order.

    Parameters
    ----------
    design : {"duplicate", "fixed-opponent", "rotation"}
    variants : sequence of (label, strategy text)
    baseline, opponent : str
        Strategy texts (``opponent`` only for fixed-opponent).
    nulls : collection of str
        Labels of null variants (the baseline against itself): their runs that would repeat a deck
        deal other cards, seeds of their own (``seed_shift`` ``2 (i - 1) + k`` for the ``i``-th
        variant's ``k``-th other deck): the duplicate's ``ba``, the fixed opponent's variant run,
        the rotation's ``s1`` and ``s2``.  The true difference stays exactly 0 (each
        unit is then a difference of two independent plays of the baseline on decks of the same
        deal index, so the same seat deals first) while the units vary.

    Returns
    -------
    list of RunPlan
        Duplicate: ``v01-<slug>.ab`` and ``v01-<slug>.ba`` for each variant.
        Fixed-opponent: ``baseline`` first, then ``v01-<slug>`` for each variant.
        Rotation: ``baseline`` (the all-baseline control table) first, then
        ``v01-<slug>.s0``, ``.s1``, ``.s2`` (the variant in seat 0, 1, 2) for each variant.
    """
    if design not in DESIGNS:
        raise ValueError(f"design must be one of {', '.join(DESIGNS)}, got {design!r}")
    out = []
    if design == "fixed-opponent":
        if not opponent:
            raise ValueError("the fixed-opponent design needs an opponent")
        out.append(RunPlan("baseline", "baseline", baseline, opponent, "baseline"))
    if design == "rotation":
        out.append(RunPlan("baseline", "baseline", baseline, baseline, "control", baseline))
    for i, (label, text) in enumerate(variants, 1):
        stem = f"v{i:02d}-{slug(label)}"
        # a null variant's other decks: seeds of its own, so two null variants are independent
        shift = 2 * (i - 1) if label in nulls else None
        if design == "duplicate":
            out.append(RunPlan(stem + ".ab", label, text, baseline, "ab"))
            out.append(RunPlan(stem + ".ba", label, baseline, text, "ba", seed_shift=_shift(shift, 1)))
        elif design == "rotation":
            for seat in range(3):
                sides = [baseline] * 3
                sides[seat] = text
                out.append(
                    RunPlan(f"{stem}.s{seat}", label, *sides[:2], f"s{seat}", sides[2], _shift(shift, seat))
                )
        else:
            out.append(RunPlan(stem, label, text, opponent, "variant", seed_shift=_shift(shift, 1)))
    return out


def _shift(base: int | None, k: int) -> int:
    """A null variant's ``seed_shift`` for its ``k``-th other deck (0: the experiment's seed)."""
    return 0 if base is None or k == 0 else base + k


def _cols(run, n_sides: int = 2) -> dict[str, np.ndarray]:
    """Deal-major numpy columns (side A row then side B row, then side C's at three players, of each
    deal) of a run or chunk."""
    if isinstance(run, Mapping):
        cols = {c: np.asarray(run[c]) for c in DESIGN_COLUMNS}
    else:  # polars / pandas data frame
        df = run
        if hasattr(df, "sort") and not hasattr(df, "sort_values"):
            df = df.sort(["deal_index", "side"])
        else:
            df = df.sort_values(["deal_index", "side"])
        cols = {c: np.asarray(df[c]) for c in DESIGN_COLUMNS}
    side = cols["side"]
    k = n_sides
    n = len(side) // k
    if len(side) != k * n or any(np.any(side[s::k] != s) for s in range(k)):
        rows = "one side A and one side B row" if k == 2 else "one row of each of the sides A, B and C"
        raise ValueError(f"a run must hold {rows} for every deal")
    if any(np.any(cols["deal_index"][0::k] != cols["deal_index"][s::k]) for s in range(1, k)):
        raise ValueError("the sides' rows of a run do not pair up by deal")
    return cols


def _same_deals(x: dict, y: dict, what: str) -> None:
    if len(x["side"]) != len(y["side"]) or np.any(x["deal_index"] != y["deal_index"]):
        raise ValueError(f"{what}: the two runs do not hold the same deals (same indices in the same order)")


@dataclass
class Paired:
    """Paired per-unit differences of one variant against the baseline, with what the
    comparison table needs. Scores are points per deal; arrays are float64 unless said.

    ``units``: per-unit estimate (variant minus baseline), shape (n_units,).
    ``unit``: ``"deck"`` or ``"deal"``. ``n_deals``: deals the variant played.
    ``v_out``, ``b_out``: going-out shares of the variant's and the baseline's side.
    ``v_wins``, ``b_wins``, ``v_decided``, ``b_decided``: deals won and non-tie deals
    of each (deal level). ``win_p``: paired sign test (see the functions).
    ``match_a``, ``match_b``: deal scores, shape (units, deals per unit), of the
    variant and of its opponent in the deals a match is built from
    (duplicate: the baseline; fixed-opponent: the opponent).
    ``match_base_a``, ``match_base_b`` (fixed-opponent only, else None): the baseline's and
    the opponent's scores in the same deals (the baseline run's first ``n_deals``), for the
    baseline's own match-win probability on the deals the variant's is built from.
    ``var_ratio_design``, ``var_ratio_plain``, ``corr_swap``: see the module doc
    (rotation: :mod:`tranca_sim.lab.statistics.rotation`; ``corr_swap`` is then the mean
    correlation of a deck's differences over the pairs of seats).

    Three players only (rotation design; None or NaN otherwise): ``match_c``, the
    second opponent's deal scores; ``own_units``, per-deck gain of the variant's own
    score over the baseline's in the same seat at the all-baseline table;
    ``var_ratio_own``, its variance ratio; ``b_seats``, baseline seats at the
    variant's table (2: ``b_wins`` counts both, the share is per seat).

    ``outcomes``: the unit's outcome, a score in [0, 1] with 1/2 for no difference
    (:mod:`tranca_sim.lab.statistics.decision`): the mean over its deals of 1 (the variant did better), 1/2
    (alike) or 0 (worse); duplicate: the variant won, nobody won or the baseline won each deal;
    fixed-opponent: the mean of the variant's result against the opponent and one minus the
    baseline's; rotation: the variant's margin in each seat above, equal to or below the
    baseline's margin in that seat at the all-baseline table (None without it).
    """

    units: np.ndarray
    unit: str
    n_deals: int
    v_out: float
    b_out: float
    v_wins: int
    b_wins: int
    v_decided: int
    b_decided: int
    win_p: float
    match_a: np.ndarray
    match_b: np.ndarray
    var_ratio_design: float
    var_ratio_plain: float
    corr_swap: float
    match_c: np.ndarray | None = None
    own_units: np.ndarray | None = None
    var_ratio_own: float = math.nan
    b_seats: int = 1
    match_base_a: np.ndarray | None = None
    match_base_b: np.ndarray | None = None
    outcomes: np.ndarray | None = None

    @property
    def win_share_diff(self) -> float:
        """Variant's share of its non-tie deals won minus the baseline's (per baseline seat)."""
        if not self.v_decided or not self.b_decided:
            return math.nan
        return self.v_wins / self.v_decided - self.b_wins / (self.b_seats * self.b_decided)


def _var(x) -> float:
    return float(np.var(x, ddof=1)) if len(x) >= 2 else math.nan


def _ratio(num: float, den: float) -> float:
    return num / den if den > 0 and math.isfinite(num) else math.nan


def duplicate_units(ab, ba) -> Paired:
    """Per-deck differences of the duplicate design.

    Parameters
    ----------
    ab : run (data frame or mapping of columns, see :data:`DESIGN_COLUMNS`)
        Variant on side A, baseline on side B.
    ba : run
        Baseline on side A, variant on side B, same seed and deal indices.

    Returns
    -------
    Paired
        ``units`` = ``(d_ab + d_ba) / 2`` per deck, with ``d = sV - sB``.
        Deal wins: ``v_wins``/``b_wins`` count deals each side won over both runs;
        ``win_p`` is an exact sign test on decks (a deck's net wins
        ``V wins - B wins`` over its two deals, decks with net 0 left out), so
        the two correlated deals of a deck are not counted as independent.

    Raises
    ------
    ValueError
        If the runs are not deal-major pairs of rows, or do not hold the same deals.
    """
    x, y = _cols(ab), _cols(ba)
    _same_deals(x, y, "duplicate design")
    sv = np.concatenate([x["score"][0::2], y["score"][1::2]]).astype(np.float64)
    sb = np.concatenate([x["score"][1::2], y["score"][0::2]]).astype(np.float64)
    n = len(x["side"]) // 2
    d_ab, d_ba = sv[:n] - sb[:n], sv[n:] - sb[n:]
    units = (d_ab + d_ba) / 2
    vw = np.concatenate([x["won"][0::2], y["won"][1::2]]).astype(bool)
    bw = np.concatenate([x["won"][1::2], y["won"][0::2]]).astype(bool)
    vo = np.concatenate([x["went_out"][0::2], y["went_out"][1::2]]).astype(bool)
    bo = np.concatenate([x["went_out"][1::2], y["went_out"][0::2]]).astype(bool)
    net = (vw[:n].astype(int) + vw[n:]) - (bw[:n].astype(int) + bw[n:])
    decided = int((vw | bw).sum())
    unpaired = _var(sv) + _var(sb)
    corr = float(np.corrcoef(d_ab, d_ba)[0, 1]) if n >= 3 and _var(d_ab) > 0 and _var(d_ba) > 0 else math.nan
    return Paired(
        units=units,
        unit="deck",
        n_deals=2 * n,
        v_out=float(vo.mean()) if n else math.nan,
        b_out=float(bo.mean()) if n else math.nan,
        v_wins=int(vw.sum()),
        b_wins=int(bw.sum()),
        v_decided=decided,
        b_decided=decided,
        win_p=sign_test(int((net > 0).sum()), int((net < 0).sum())),
        match_a=np.column_stack([sv[:n], sv[n:]]),
        match_b=np.column_stack([sb[:n], sb[n:]]),
        var_ratio_design=_ratio(2 * _var(units), unpaired),
        var_ratio_plain=_ratio(_var(np.concatenate([d_ab, d_ba])), unpaired),
        corr_swap=corr,
        outcomes=(_result(vw, bw)[:n] + _result(vw, bw)[n:]) / 2,
    )


def _result(won, lost) -> np.ndarray:
    """A deal's result for a side: 1 won, 0 lost (the other side won), 1/2 nobody won."""
    return np.where(won, 1.0, np.where(lost, 0.0, 0.5))


def fixed_opponent_units(variant_run, baseline_run) -> Paired:
    """Per-deal differences of the fixed-opponent design.

    Parameters
    ----------
    variant_run : run
        Variant on side A against the opponent on side B.
    baseline_run : run
        Baseline on side A against the same opponent, same seed; it may hold
        more deals than ``variant_run`` (the baseline run serves every variant):
        its first deals are paired with the variant's.

    Returns
    -------
    Paired
        ``units`` = ``(sV - sO) - (sB - sO')`` per deal. ``win_p``: McNemar-type
        exact test of the deals where exactly one of V and B beat the opponent
        (sign test of V-only against B-only wins). ``v_decided``/``b_decided``:
        each one's non-tie deals. ``match_a``/``match_b``: the variant's and the
        opponent's scores (a match of the variant against the opponent).

    Raises
    ------
    ValueError
        If the runs are malformed or the baseline run lacks some of the variant's deals.
    """
    x, y = _cols(variant_run), _cols(baseline_run)
    n = len(x["side"]) // 2
    y = {k: v[: 2 * n] for k, v in y.items()}
    _same_deals(x, y, "fixed-opponent design")
    mv = (x["score"][0::2] - x["score"][1::2]).astype(np.float64)
    mb = (y["score"][0::2] - y["score"][1::2]).astype(np.float64)
    units = mv - mb
    vw, bw = x["won"][0::2].astype(bool), y["won"][0::2].astype(bool)
    v_dec = int((vw | x["won"][1::2].astype(bool)).sum())
    b_dec = int((bw | y["won"][1::2].astype(bool)).sum())
    return Paired(
        units=units,
        unit="deal",
        n_deals=n,
        v_out=float(x["went_out"][0::2].astype(bool).mean()) if n else math.nan,
        b_out=float(y["went_out"][0::2].astype(bool).mean()) if n else math.nan,
        v_wins=int(vw.sum()),
        b_wins=int(bw.sum()),
        v_decided=v_dec,
        b_decided=b_dec,
        win_p=sign_test(int((vw & ~bw).sum()), int((~vw & bw).sum())),
        match_a=x["score"][0::2].astype(np.float64)[:, None],
        match_b=x["score"][1::2].astype(np.float64)[:, None],
        var_ratio_design=_ratio(_var(units), _var(mv) + _var(mb)),
        var_ratio_plain=math.nan,
        corr_swap=math.nan,
        match_base_a=y["score"][0::2].astype(np.float64)[:, None],
        match_base_b=y["score"][1::2].astype(np.float64)[:, None],
        outcomes=(_result(vw, x["won"][1::2].astype(bool)) + 1.0 - _result(bw, y["won"][1::2].astype(bool))) / 2,
    )
