"""Inference for strategy comparisons: the fixed-n t test, a confidence sequence valid under
repeated looks (for stopping in batches), Holm and Benjamini-Hochberg adjustment of many
tips, the paired sign test of deal wins, and match-win probabilities by resampling deals.

The confidence sequence is written out in :mod:`tranca_sim.stats_sequences` (a few lines,
formulas and sources in :func:`cs_half_width`; the position analyser uses it too) because the
authors' ``confseq`` package does not build on this project's machines (its C++ extension
needs Boost).

Per-run summaries (means, shares, the paired A - B difference of one run) are in
:mod:`tranca_sim.lab.statistics.stats`; the designs that turn run files into per-unit differences are in
:mod:`tranca_sim.lab.statistics.designs`.
"""

from __future__ import annotations

import math

import numpy as np

from tranca_sim.stats_sequences import cs_half_width, cs_rho2  # noqa: F401 (re-exported)

from .stats import _scipy_stats, t_interval


# ---------------------------------------------------------------------------
# comparisons: fixed-n t test, repeated looks (confidence sequence), many tips, matches
# ---------------------------------------------------------------------------
def t_test(x, level: float = 0.95) -> dict:
    """One-sample Student t interval and two-sided test of mean 0 for paired differences.

    Parameters
    ----------
    x : 1-d array of float
        Per-unit differences (points per deal), e.g. one value per deck.
    level : float
        Confidence level.

    Returns
    -------
    dict
        ``n``, ``mean``, ``sd`` (n - 1 denominator), ``lo``, ``hi`` (t interval,
        as :func:`scipy.stats.ttest_1samp(...).confidence_interval`) and
        ``p_value``; NaNs when ``n < 2``. An all-equal sample gives a zero-width
        interval and ``p_value`` 1 (mean 0) or 0.
    """
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    mean = float(x.mean()) if n else math.nan
    sd = float(x.std(ddof=1)) if n >= 2 else math.nan
    lo, hi = t_interval(mean, sd, n, level)
    if n < 2:
        p = math.nan
    elif sd == 0:
        p = 1.0 if mean == 0 else 0.0
    else:
        p = float(2 * _scipy_stats().t.sf(abs(mean) / (sd / math.sqrt(n)), n - 1))
    return {"n": n, "mean": mean, "sd": sd, "lo": lo, "hi": hi, "p_value": p}


#: name of the stopping method, as written in experiment.json and the reports
CS_METHOD = (
    "asymptotic confidence sequence, Gaussian mixture (Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas 2021, "
    "'Time-uniform central limit theory and asymptotic confidence sequences'; two-sided normal-mixture "
    "boundary of Howard, Ramdas, McAuliffe & Sekhon 2021)"
)


def cs_p_value(mean, sd, n, rho2: float):
    """Anytime-valid p-value of mean 0 at one look: ``min(1, 1 / M)`` with the mixture martingale
    ``M = exp(n**2 rho2 mean**2 / (2 sd**2 (n rho2 + 1))) / sqrt(n rho2 + 1)``.

    ``p <= alpha`` exactly when 0 lies outside :func:`cs_half_width`'s interval. The
    running minimum over looks is still valid (Ville's inequality), which is what
    :func:`sequential_interval` returns.
    """
    v = n * rho2 + 1
    if n < 2 or not math.isfinite(sd):
        return math.nan
    if sd == 0:
        return 1.0 if mean == 0 else 0.0
    log_m = n * n * rho2 * mean * mean / (2 * sd * sd * v) - 0.5 * math.log(v)
    return float(min(1.0, math.exp(-log_m))) if log_m > -700 else 1.0


def sequential_interval(x, looks, rho2: float, alpha: float = 0.05) -> dict:
    """The confidence-sequence interval and p-value valid under the looks taken.

    Parameters
    ----------
    x : 1-d array of float
        Per-unit differences in the order they were played.
    looks : sequence of int
        Unit counts at which the data were looked at (increasing; the last is
        ``len(x)``).
    rho2 : float
        Mixture variance fixed before the experiment (:func:`cs_rho2`).
    alpha : float
        1 - confidence level.

    Returns
    -------
    dict
        ``n``, ``mean``, ``sd`` (of all ``x``), ``lo``, ``hi``: the running
        intersection of the confidence sequence over the looks (still a
        confidence sequence; the final look's interval if the intersection were
        empty), ``half_width`` (the final look's), ``p_value``: the running
        minimum of :func:`cs_p_value` over the looks, and ``looks``.
    """
    x = np.asarray(x, dtype=np.float64)
    looks = [int(k) for k in looks if 0 < int(k) <= len(x)] or [len(x)]
    lo, hi, p = -math.inf, math.inf, 1.0
    half = math.inf
    cs = np.cumsum(x)
    cs2 = np.cumsum(x * x)
    m = s = math.nan
    for k in looks:
        m = cs[k - 1] / k
        s = math.sqrt(max(0.0, (cs2[k - 1] - k * m * m) / (k - 1))) if k >= 2 else math.nan
        half = cs_half_width(s, k, rho2, alpha)
        lo, hi = max(lo, m - half), min(hi, m + half)
        pk = cs_p_value(m, s, k, rho2)
        if math.isfinite(pk):
            p = min(p, pk)
    if lo > hi:
        lo, hi = m - half, m + half
    n = len(x)
    return {
        "n": n,
        "mean": float(x.mean()) if n else math.nan,
        "sd": float(x.std(ddof=1)) if n >= 2 else math.nan,
        "lo": float(lo),
        "hi": float(hi),
        "half_width": float(half),
        "p_value": float(p) if n >= 2 else math.nan,
        "looks": looks,
    }


def holm(p_values) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979).

    With the ``m`` p-values sorted ascending, ``p_(i)`` becomes
    ``max_{j <= i} min(1, (m - j + 1) p_(j))``. The same numbers as
    ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]`` (checked by a
    test); written out because that function calls ``gc.collect()`` on every call,
    about 0.2 s in a process that has loaded the engine.
    """
    p = np.asarray(p_values, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    adj = np.minimum(1.0, np.maximum.accumulate(p[order] * np.arange(m, 0, -1)))
    out = np.empty(m)
    out[order] = adj
    return out


def adjust_p(p_values, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Holm (:func:`holm`) and Benjamini-Hochberg
    (:func:`statsmodels.stats.multitest.multipletests`, ``fdr_bh``) adjusted p-values.

    Returns ``(p_holm, p_bh, holm_significant)`` (``p_holm <= alpha``); NaN p-values stay
    NaN and are left out of the family.
    """
    from statsmodels.stats.multitest import multipletests

    p = np.asarray(p_values, dtype=np.float64)
    p_holm = np.full(p.shape, np.nan)
    p_bh = np.full(p.shape, np.nan)
    ok = np.isfinite(p)
    if ok.any():
        p_holm[ok] = holm(p[ok])
        p_bh[ok] = multipletests(p[ok], alpha=alpha, method="fdr_bh")[1]
    return p_holm, p_bh, np.where(ok, p_holm <= alpha, False)


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test (binomial, p = 1/2) of ``wins`` against ``losses``; NaN if both are 0."""
    n = int(wins) + int(losses)
    return float(_scipy_stats().binomtest(int(wins), n, 0.5).pvalue) if n else math.nan


def _play_matches(
    a, b, target: int, n_matches: int, rng, max_deals: int = 2000, twins: bool = False
) -> tuple[int, int]:
    """Matches drawn from deal score pairs ``(a[i], b[i])``: (wins of a, decided matches).

    Deals are drawn with replacement; scores add up; the first side to reach
    ``target`` wins; both in the same deal: the higher total wins; equal totals
    play another deal (docs/rules.md 3.25). Undecided after ``max_deals`` deals: not counted.

    The draws do not depend on the scores (each round draws the next 16 deal indices of every
    match, ended or not), so two calls with the same ``rng`` seed and the same number of deals
    play their matches on the same draws (common random numbers). ``twins`` (duplicate design:
    deals ``2k`` and ``2k + 1`` are one deck with the sides swapped): half the matches are
    drawn, and each is played again with every deal replaced by its deck twin (``i ^ 1``), as
    in duplicate bridge; if the two sides are the same strategy, the twin match is the first
    one mirrored and the share is exactly 1/2.
    """
    n = len(a)
    if twins and n % 2:
        raise ValueError(f"twin matches need deals in pairs (a deck's two deals), got {n} deals")
    drawn = n_matches // 2 if twins else n_matches
    total = 2 * drawn if twins else drawn
    ta = np.zeros(total)
    tb = np.zeros(total)
    live = np.arange(total)
    wins = 0
    step = 16
    for _ in range(0, max_deals, step):
        if not len(live):
            break
        idx = rng.integers(0, n, size=(drawn, step))
        idx = (np.concatenate([idx, idx ^ 1]) if twins else idx)[live]
        ca = ta[live, None] + np.cumsum(a[idx], axis=1)
        cb = tb[live, None] + np.cumsum(b[idx], axis=1)
        done = ((ca >= target) | (cb >= target)) & (ca != cb)
        first = np.where(done.any(axis=1), done.argmax(axis=1), -1)
        ended = first >= 0
        r = np.flatnonzero(ended)
        wins += int((ca[r, first[r]] > cb[r, first[r]]).sum())
        keep = ~ended
        ta[live[keep]] = ca[keep, -1]
        tb[live[keep]] = cb[keep, -1]
        live = live[keep]
    return wins, total - len(live)


def _play_matches3(a, b, c, target: int, n_matches: int, rng, max_deals: int = 2000) -> tuple[int, int]:
    """Three-player matches drawn from deal score triples ``(a[i], b[i], c[i])``: (wins of a,
    decided matches).

    Deals are drawn with replacement; scores add up; once the highest total is at ``target``,
    the side strictly highest wins; a tie at the top plays another deal (docs/schema.md
    ``match_winner``, VARIANTS 15). Undecided after ``max_deals`` deals: not counted. As in
    :func:`_play_matches`, the draws do not depend on the scores (common random numbers).
    """
    n = len(a)
    tot = np.zeros((3, n_matches))
    live = np.arange(n_matches)
    wins = 0
    step = 16
    for _ in range(0, max_deals, step):
        if not len(live):
            break
        idx = rng.integers(0, n, size=(n_matches, step))[live]  # draws independent of the scores
        cum = np.stack([tot[j, live, None] + np.cumsum(s[idx], axis=1) for j, s in enumerate((a, b, c))])
        top = cum.max(axis=0)
        alone = (cum == top).sum(axis=0) == 1
        done = (top >= target) & alone
        first = np.where(done.any(axis=1), done.argmax(axis=1), -1)
        ended = first >= 0
        r = np.flatnonzero(ended)
        wins += int((cum[0, r, first[r]] == top[r, first[r]]).sum())
        keep = ~ended
        tot[:, live[keep]] = cum[:, keep, -1]
        live = live[keep]
    return wins, n_matches - len(live)


def match_win_prob(
    a_units,
    b_units,
    target: int,
    level: float = 0.95,
    n_matches: int = 100_000,
    n_boot: int = 100,
    boot_matches: int = 4000,
    seed: int = 0,
    c_units=None,
    twins: bool = False,
) -> tuple[float, float, float]:
    """Probability that side ``a`` wins a match to ``target`` points, by resampling deals.

    Parameters
    ----------
    a_units, b_units : 2-d arrays of float, shape (units, deals per unit)
        Deal scores of the two sides, grouped by independent unit (a deck of the
        duplicate design has 2 deals, a plain deal 1).
    target : int
        Match target (``Rules.match_target``).
    c_units : 2-d array of float, optional
        A third player's deal scores, the same shape (three-player table, tranca-3p: a
        deck of the rotation design has 3 deals): the matches are then among three
        (:func:`_play_matches3`) and the fair share of each is 1/3.
    seed : int
        Seed of the draws. Two sides' probabilities computed with the same seed on the same
        number of units use the same draws of deals and of bootstrap units (common random
        numbers; :func:`_play_matches`), so identical deal scores give identical figures.
    twins : bool
        Duplicate design (two-player only): ``a_units``/``b_units`` have 2 columns, a deck's
        two deals with the sides swapped; every drawn match is also played on the deck twins
        of its deals (:func:`_play_matches`), so a side equal to its opponent gets exactly 1/2.

    Returns
    -------
    (p, lo, hi)
        ``p`` from ``n_matches`` matches drawing deals from all units. The
        interval is ``p +- z sqrt(v_boot + p(1-p)/n_matches)``, clipped to
        [0, 1]: ``v_boot`` is the variance of ``n_boot`` estimates, each from
        ``boot_matches`` matches on a bootstrap resample of the units, so it holds
        the sampling error of the deals *and* the Monte Carlo error of
        ``boot_matches`` matches (conservative: at least ``p(1-p)/boot_matches``;
        subtracting that part is unstable when the sampling error is much smaller),
        and the second term is ``p``'s own Monte Carlo error. Matches are not
        played by the engine: they chain independent deals drawn from the data
        ("resampled deals").
    """
    a_u = np.asarray(a_units, dtype=np.float64)
    b_u = np.asarray(b_units, dtype=np.float64)
    c_u = None if c_units is None else np.asarray(c_units, dtype=np.float64)
    if a_u.ndim == 1:
        a_u, b_u = a_u[:, None], b_u[:, None]
        c_u = None if c_u is None else c_u[:, None]
    if len(a_u) < 2:
        return (math.nan, math.nan, math.nan)
    if twins and (c_u is not None or a_u.shape[1] != 2):
        raise ValueError("twin matches need two sides and units of a deck's two deals (2 columns)")
    rng = np.random.default_rng(seed)

    def play(pick, count):
        if c_u is None:
            return _play_matches(a_u[pick].ravel(), b_u[pick].ravel(), target, count, rng, twins=twins)
        return _play_matches3(a_u[pick].ravel(), b_u[pick].ravel(), c_u[pick].ravel(), target, count, rng)

    w, d = play(slice(None), n_matches)
    if d == 0:
        return (math.nan, math.nan, math.nan)
    p = w / d
    ests = []
    for _ in range(n_boot):
        pick = rng.integers(0, len(a_u), size=len(a_u))
        wb, db = play(pick, boot_matches)
        if db:
            ests.append((wb / db, db))
    v_boot = float(np.var([x for x, _ in ests], ddof=1)) if len(ests) >= 2 else math.nan
    half = float(_scipy_stats().norm.ppf(0.5 + level / 2)) * math.sqrt(v_boot + p * (1 - p) / d)
    return (p, max(0.0, p - half), min(1.0, p + half))
