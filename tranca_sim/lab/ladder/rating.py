"""Rating players on one scale from a round robin on duplicate deals (the strength ladder).

Input: for every pair of players ``(i, j)`` the per-deck differences ``e`` (points a deal,
``i`` minus ``j``): deck ``k`` is deal ``k`` of one master seed played twice with the sides
swapped, ``e_k = ((s_i - s_j | i on side A) + (s_i - s_j | i on side B)) / 2``
(:func:`tranca_sim.lab.statistics.designs.duplicate_units`). Every pair plays the same decks
``0 .. n_ij - 1`` (common decks), slow pairs a prefix of the others'.

Two scales, both relative to an anchor player (rated 0):

**Bradley-Terry on deck wins** (:func:`bt_ratings`). The unit is the deck (a deal pair): ``i``
wins it when ``e_k > 0`` (more points than ``j`` over its two deals), loses it when
``e_k < 0``; a drawn deck (``e_k = 0``) counts half a win to each. Model:
``P(i wins a deck against j) = 1 / (1 + 10 ** (-(R_i - R_j) / 400))`` (Elo's scale:
``R = 400 log10(e) * theta`` for Bradley-Terry strengths ``theta``), fitted by maximum
likelihood with ``choix.ilsr_pairwise_dense`` (Maystre & Grossglauser 2015, "Fast and
accurate inference of Plackett-Luce models", NeurIPS). ``prior`` virtual drawn decks are
added to every pair (half a win each way each), so a player that never wins a deck still
gets a finite rating (maximum likelihood would put it at minus infinity).

**Points a deal** (:func:`points_ratings`). ``E[e_ij] = r_i - r_j``, fitted by weighted least
squares of the pairs' mean differences on the players' strengths, each pair weighted by the
inverse variance of its mean; ``r`` is the points a deal a player scores more than the anchor.
Whether one such scale fits the head-to-head pairs is tested (:func:`points_fit`: the sum of
z**2 of the pairs' residuals on its degrees of freedom); points a deal are not always additive
(a player that cannot go out loses about the same to every opponent), and a scale that does not
fit is not shown as a rating.

Intervals (:func:`bootstrap_ratings`): percentile bootstrap over decks, stratified by the
deck ranges the pairs share, so a resample keeps the common decks common: deck ``k`` drawn
once is drawn for every pair that played it.
"""

from __future__ import annotations

import math

import numpy as np

#: 400 / ln(10): Elo points per unit of Bradley-Terry log-strength
ELO_PER_THETA = 400.0 / math.log(10.0)


def deck_record(units) -> tuple[int, int, int]:
    """``(wins, draws, losses)`` of the first player over the decks: ``e > 0``, ``e == 0``, ``e < 0``."""
    e = np.asarray(units, dtype=np.float64)
    return int((e > 0).sum()), int((e == 0).sum()), int((e < 0).sum())


def win_matrix(pairs: dict, n_players: int, prior: float = 0.5) -> np.ndarray:
    """``float64[n, n]``: ``W[i, j]`` = decks ``i`` won against ``j``, a draw counted half to
    each, plus ``prior`` (virtual half-wins each way per pair).

    ``pairs`` maps ``(i, j)`` to the per-deck differences ``i`` minus ``j``.
    """
    w = np.zeros((n_players, n_players), dtype=np.float64)
    for (i, j), e in pairs.items():
        won, drawn, lost = deck_record(e)
        w[i, j] += won + 0.5 * drawn + prior
        w[j, i] += lost + 0.5 * drawn + prior
    return w


def bt_ratings(w: np.ndarray, anchor: int = 0) -> np.ndarray:
    """Bradley-Terry ratings on Elo's scale from a win matrix (:func:`win_matrix`), the
    ``anchor`` player at 0. ``float64[n]``.

    Raises
    ------
    ValueError
        If a player has no comparison at all.
    """
    import choix

    w = np.asarray(w, dtype=np.float64)
    games = w + w.T
    if np.any(games.sum(axis=1) <= 0):
        raise ValueError("every player needs at least one deck against another player")
    theta = choix.ilsr_pairwise_dense(w, max_iter=1000, tol=1e-10)
    r = ELO_PER_THETA * np.asarray(theta, dtype=np.float64)
    return r - r[anchor]


def _pair_weight(e) -> float:
    """Inverse variance of a pair's mean difference, ``n / var(e)`` (the deck count when the decks
    do not vary)."""
    e = np.asarray(e, dtype=np.float64)
    var = float(e.var(ddof=1)) if len(e) >= 2 else 0.0
    return len(e) / var if var > 0 else float(len(e))


def points_ratings(pairs: dict, n_players: int, anchor: int = 0) -> np.ndarray:
    """Weighted least-squares ratings in points a deal: ``mean(e_ij) ~ r_i - r_j``, each pair
    weighted by the inverse variance of its mean (:func:`_pair_weight`), ``r[anchor] = 0``.
    ``float64[n]``."""
    rows, rhs, wts = [], [], []
    for (i, j), e in pairs.items():
        x = np.zeros(n_players)
        x[i], x[j] = 1.0, -1.0
        rows.append(x)
        rhs.append(float(np.mean(e)))
        wts.append(_pair_weight(e))
    a = np.array(rows)
    b = np.array(rhs)
    sw = np.sqrt(np.array(wts))
    keep = [k for k in range(n_players) if k != anchor]
    sol, *_ = np.linalg.lstsq(a[:, keep] * sw[:, None], b * sw, rcond=None)
    r = np.zeros(n_players)
    r[keep] = sol
    return r


def points_fit(pairs: dict, n_players: int, anchor: int = 0, level: float = 0.01) -> dict:
    """How well one points scale fits the head-to-head pairs: the ratings of :func:`points_ratings`,
    each pair's observed and fitted difference with its z (``(observed - fitted) / se``), the sum of
    z**2 on ``pairs - (players - 1)`` degrees of freedom and its chi-square p (approximate: pairs
    that share decks are correlated). ``fits``: p at least ``level``."""
    from scipy import stats

    r = points_ratings(pairs, n_players, anchor)
    rows = []
    for (i, j), e in pairs.items():
        obs = float(np.mean(e))
        se = 1.0 / math.sqrt(_pair_weight(e))
        rows.append({"i": i, "j": j, "observed": obs, "fitted": float(r[i] - r[j]), "se": se,
                     "z": (obs - float(r[i] - r[j])) / se})  # fmt: skip
    chi2 = float(sum(x["z"] ** 2 for x in rows))
    df = len(rows) - (n_players - 1)
    p = float(stats.chi2.sf(chi2, df)) if df > 0 else math.nan
    return {"chi2": chi2, "df": df, "p": p, "fits": bool(df > 0 and p >= level), "level": level, "pairs": rows}


def _strata(pairs: dict) -> list[tuple[int, int]]:
    """Deck ranges ``[lo, hi)`` between the distinct deck counts of the pairs."""
    ends = sorted({len(e) for e in pairs.values()})
    out, lo = [], 0
    for hi in ends:
        if hi > lo:
            out.append((lo, hi))
        lo = hi
    return out


def bootstrap_ratings(
    pairs: dict, n_players: int, anchor: int = 0, prior: float = 0.5, n_boot: int = 2000, seed: int = 0
) -> dict:
    """Percentile bootstrap over decks of both scales.

    Each resample draws, within every deck range the pairs share (:func:`_strata`), as many
    decks as the range holds, with replacement, and gives every pair the drawn decks of the
    ranges it played (a deck drawn twice counts twice for every pair that played it).

    Returns
    -------
    dict
        ``elo``, ``points``: ``float64[n_boot, n]`` resampled ratings (anchor column 0);
        ``elo_lo``, ``elo_hi``, ``points_lo``, ``points_hi``: ``float64[n]`` 2.5% and 97.5%
        percentiles.
    """
    rng = np.random.default_rng(seed)
    strata = _strata(pairs)
    elo = np.empty((n_boot, n_players))
    pts = np.empty((n_boot, n_players))
    for b in range(n_boot):
        idx = np.concatenate([rng.integers(lo, hi, size=hi - lo) for lo, hi in strata])
        sub = {}
        for key, e in pairs.items():
            e = np.asarray(e)
            sub[key] = e[idx[: len(e)]]  # strata in order: the first len(e) draws are its ranges
        elo[b] = bt_ratings(win_matrix(sub, n_players, prior), anchor)
        pts[b] = points_ratings(sub, n_players, anchor)
    return {
        "elo": elo,
        "points": pts,
        "elo_lo": np.percentile(elo, 2.5, axis=0),
        "elo_hi": np.percentile(elo, 97.5, axis=0),
        "points_lo": np.percentile(pts, 2.5, axis=0),
        "points_hi": np.percentile(pts, 97.5, axis=0),
    }


def expected_share(r_i: float, r_j: float) -> float:
    """Share of decks ``i`` is expected to win against ``j`` at Elo ratings ``r_i``, ``r_j``."""
    return 1.0 / (1.0 + 10.0 ** (-(r_i - r_j) / 400.0))
