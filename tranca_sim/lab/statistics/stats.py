"""Summary statistics of a run: per-side means and shares with 95% intervals,
and the paired per-deal difference A - B.

Both sides play the same deals, so the difference of their scores deal by deal
is a paired comparison, and its paired t interval is the right interval for
A - B.  It is *not* narrower than the interval of two independent means: in
a deal, A's and B's scores are nearly uncorrelated or negatively correlated
(one side's points are often the other's missed chances), so
``var(A - B) = var(A) + var(B) - 2 cov(A, B)`` is about the same or larger.
Measured over 100,000 deals of ``tranca`` per run with seed 2024
(``experiments/paired_variance.py`` at commit 80c4243, docs/explanation/statistics.md "Pairing
within a run and across runs"): correlation -0.22 and variance ratio
``var(A - B) / (var(A) + var(B))`` 1.22 for ``basic`` vs ``basic``, -0.21 and
1.21 for ``random`` vs ``random``, -0.19 and 1.19 for ``basic:go_out=0`` vs
``basic``, +0.07 and 0.93 for ``basic`` vs ``random``.

What does narrow a comparison is common random numbers *across runs*: runs
with the same master seed deal the same decks, so two strategies each played
in its own run against the same opponent can be compared deal by deal.  In
the same measurement, the variance of the per-deal difference of side A's
scores between two such runs, against two runs with different seeds, was
0.42 (``basic`` and ``basic:black3_lock=1``, both against ``basic``), 0.56
(the same two against ``random``), 0.010 (``basic`` and ``basic:go_out=0``,
which seldom play differently) and 0.95 (``basic`` and ``random``): the more
alike the two strategies, the larger the gain.

A summary pairs only rows it can prove belong together: one row per side for
each ``(master_seed, deal_index)``, one strategy (with its parameters) per
side and one preset; anything else (a run file concatenated with itself, a
run and the same run with its sides swapped) is refused, never averaged.
Deals that ended at the engine's turn limit are counted and named.

Intervals: Student t for means, Wilson score for shares
(:func:`scipy.stats.binomtest`).

:class:`RunningSummary` accumulates the statistics chunk by chunk (exact
pooled means and variances, Chan et al. 1979), so a run of any length is
summarised without keeping it in memory; :func:`summarize` feeds it a whole
data frame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np


def _scipy_stats():
    """``scipy.stats``, imported on first use: it takes about half a second, and a run that only
    simulates (the CLI's ``simulate``, a worker) needs none of it."""
    from scipy import stats

    return stats


SIDE_LABELS = ("A", "B", "C")  # C: the third player of tranca-3p

#: columns :func:`summarize` reads; those of :data:`OPTIONAL_COLUMNS` may be absent
SUMMARY_COLUMNS = (
    "preset",
    "master_seed",
    "deal_index",
    "side",
    "strategy",
    "strategy_params",
    "score",
    "won",
    "went_out",
    "n_turns",
    "end_reason",
)

#: columns of :data:`SUMMARY_COLUMNS` a summary can do without
OPTIONAL_COLUMNS = ("preset", "master_seed", "strategy", "strategy_params", "end_reason")

#: how many turn-limit deal indices a summary lists
TURN_LIMIT_SHOWN = 10


def t_interval(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval ``mean +- t_{(1+level)/2, n-1} * sd / sqrt(n)``; NaNs if ``n < 2``."""
    if n < 2 or not math.isfinite(sd):
        return (math.nan, math.nan)
    half = float(_scipy_stats().t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the share ``k / n``; NaNs if ``n == 0``."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = _scipy_stats().binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
    return (float(ci.low), float(ci.high))


class _Moments:
    """Count, mean and sum of squared deviations, merged batch by batch."""

    __slots__ = ("m2", "mean", "n")

    def __init__(self):
        self.n, self.mean, self.m2 = 0, 0.0, 0.0

    def add(self, x: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float64)
        k = len(x)
        if k == 0:
            return
        mb = float(x.mean())
        m2b = float(((x - mb) ** 2).sum())
        n = self.n + k
        d = mb - self.mean
        self.mean += d * k / n
        self.m2 += m2b + d * d * self.n * k / n
        self.n = n

    @property
    def sd(self) -> float:
        return math.sqrt(self.m2 / (self.n - 1)) if self.n >= 2 else math.nan


#: kinds (numpy ``dtype.kind``) each summary column may have: integers; bools also as 0/1 integers
_KINDS = {
    "master_seed": "iu",
    "deal_index": "iu",
    "side": "iu",
    "score": "iu",
    "won": "biu",
    "went_out": "biu",
    "n_turns": "iu",
}


def _refuse(message: str) -> Exception:
    from ...io import RunFileError  # a ValueError; imported here so stats does not load pyarrow

    return RunFileError(message)


def _null_count(col) -> int:
    """Missing values in a polars/pandas series or an Arrow array (0 for numpy arrays)."""
    n = getattr(col, "null_count", None)
    if n is not None:  # polars (method) or pyarrow (attribute)
        return int(n() if callable(n) else n)
    isna = getattr(col, "isna", None)
    if callable(isna):  # pandas
        return int(isna().sum())
    return 0


def _column(cols, name: str) -> np.ndarray:
    """Column ``name`` as a numpy array, refusing nulls and values of the wrong kind."""
    col = cols[name]
    k = _null_count(col)
    if k:
        raise _refuse(f"cannot summarise: column {name!r} has {k} null value(s)")
    a = np.asarray(col)
    if a.ndim != 1 or a.dtype.kind not in _KINDS[name]:
        want = "booleans or integers" if "b" in _KINDS[name] else "integers"
        raise _refuse(f"cannot summarise: column {name!r} must hold {want}, got {a.dtype}")
    return a


def _pair_index(key: np.ndarray, side: np.ndarray, deal: np.ndarray, seed: np.ndarray | None):
    """Row indices ``(ia, ib)`` of side A and side B rows of the same deals (same ``key``).

    Raises :class:`~tranca_sim.io.RunFileError` (a ``ValueError``) if a deal has
    several rows for one side, naming the first such deal: rows that cannot be
    told apart are never paired.
    """
    ra = np.flatnonzero(side == 0)
    rb = np.flatnonzero(side == 1)
    ka, kb = key[ra], key[rb]
    for s, rows in ((0, ra), (1, rb)):
        k = key[rows]
        if len(k) > 1 and not np.all(k[1:] > k[:-1]):  # not strictly increasing: look for repeats
            order = np.argsort(k, kind="stable")
            same = np.flatnonzero(k[order][1:] == k[order][:-1])
            if len(same):
                r = rows[order[same[0]]]
                where = f"deal {int(deal[r])}" + (f" of seed {int(seed[r])}" if seed is not None else "")
                raise _refuse(
                    f"cannot summarise: {where} has several rows for side {SIDE_LABELS[s]}; the same "
                    "run's rows were given more than once (a run file concatenated with itself?), and "
                    "rows that cannot be told apart are never paired"
                )
    if len(ka) == len(kb) and np.array_equal(ka, kb):  # the usual deal-major layout
        return ra, rb
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    return ra[ia], rb[ib]


def _side_labels(cols, names: set, side: np.ndarray) -> list[set]:
    """Per side, the set of strategy labels (name and non-default parameters) of its rows."""
    if "strategy" not in names:
        return [set(), set(), set()]
    with_params = "strategy_params" in names
    pairs: set = set()
    if hasattr(cols, "lazy") and hasattr(cols, "unique"):  # polars: unique in the frame, not in Python
        import polars as pl

        sel = cols.select(
            pl.Series("side", side), pl.col("strategy"), *([pl.col("strategy_params")] if with_params else [])
        ).unique()
        for row in sel.iter_rows():
            pairs.add((int(row[0]), str(row[1]), tuple(row[2]) if with_params else None))
    else:
        strat = np.asarray(cols["strategy"]).astype(str)
        params = list(cols["strategy_params"]) if with_params else None
        for i in range(len(side)):
            pairs.add((int(side[i]), strat[i], tuple(float(x) for x in params[i]) if with_params else None))
    out: list[set] = [set(), set(), set()]
    if not pairs:
        return out
    if with_params:
        from tranca_sim.strategies import describe  # needs the registry's defaults

        presets = _distinct(cols, "preset") if "preset" in names else set()
        preset = next(iter(presets)) if len(presets) == 1 else None  # tuned's defaults depend on it
        for s, name, prm in pairs:
            out[s].add(describe(name, prm, preset=preset))
    else:
        for s, name, _ in pairs:
            out[s].add(name)
    return out


def _distinct(cols, name: str) -> set:
    col = cols[name]
    if hasattr(col, "unique") and hasattr(col, "to_list"):  # polars
        return {str(x) for x in col.unique().to_list()}
    return {str(x) for x in np.unique(np.asarray(col).astype(str))}


def _is_integer_dtype(col) -> bool:
    dt = getattr(col, "dtype", None)
    if dt is None:
        return False
    if callable(getattr(dt, "is_integer", None)):  # polars
        return bool(dt.is_integer())
    return getattr(dt, "kind", "") in ("i", "u")  # numpy, pandas


def _turn_limit_rows(cols) -> np.ndarray:
    """Bool mask of rows whose deal ended at the engine's turn limit: ``end_reason`` as strings
    (a run file) or integer codes indexing :data:`tranca_sim.io.END_REASONS` (engine chunks)."""
    col = cols["end_reason"]
    if _is_integer_dtype(col):
        from ...io import END_REASONS

        return np.asarray(col) == END_REASONS.index("turn_limit")
    if hasattr(col, "str"):  # a polars or pandas string series: compare in the frame
        return np.asarray(col == "turn_limit", dtype=bool)
    return np.asarray(col).astype(str) == "turn_limit"


class RunningSummary:
    """Accumulates :func:`summarize` statistics over chunks of rows.

    Parameters
    ----------
    labels : sequence of 2 (or 3) str, optional
        Strategy labels of side A and B (and C at a three-player table, ``tranca-3p``;
        else taken from the ``strategy`` column when present).
    level : float
        Confidence level of the intervals.
    """

    def __init__(self, labels=None, level: float = 0.95):
        self.labels = list(labels) if labels is not None else None
        self.level = level
        self._n_sides = 3 if self.labels is not None and len(self.labels) == 3 else 2
        self._seen_labels: list[set] = [set(), set(), set()]
        self._score = [_Moments(), _Moments(), _Moments()]
        self._turns = [_Moments(), _Moments(), _Moments()]
        self._wins = [0, 0, 0]
        self._outs = [0, 0, 0]
        self._diff = _Moments()
        self._ties = 0
        self._presets: set = set()
        self._ranges: dict = {}  # master seed -> [(first, last) deal index of each earlier call]
        self._turn_limit: int | None = None
        self._turn_limit_deals: list = []

    def update(self, cols: Mapping) -> None:
        """Add rows given as a mapping of column name to 1-d array (or a data frame).

        Needs ``deal_index``, ``side``, ``score``, ``won``, ``went_out`` and
        ``n_turns``; uses ``master_seed`` (to pair deals of several runs),
        ``preset``, ``strategy`` and ``strategy_params`` (to name the sides and
        refuse rows of several pairings) and ``end_reason`` (to count
        turn-limit deals) when present.  Deals are paired within one call only,
        so a call must hold whole deals; the deals of one seed in one call must
        not fall in the range of deal indices of that seed in an earlier call
        (a chunk given twice is refused, as a repeated row is within a call).

        Raises
        ------
        tranca_sim.io.RunFileError
            (a ``ValueError``) for a null value, a column of the wrong kind
            (``score``, ``side``, ``deal_index``, ``n_turns``, ``master_seed``:
            integers; ``won``, ``went_out``: bools or integers), a ``side``
            other than 0, 1 (and 2 at a three-player table); for rows that cannot be paired or pooled: several
            rows of one deal (``master_seed``, ``deal_index``) and side (the same
            run given twice), several strategies on one side (runs of different
            pairings, or the same run with its sides swapped), or several presets.
        ValueError
            For a missing column.
        """
        names = set(cols.columns) if hasattr(cols, "columns") else set(cols.keys())
        need = [c for c in SUMMARY_COLUMNS if c not in OPTIONAL_COLUMNS]
        missing = [c for c in need if c not in names]
        if missing:
            raise ValueError(f"cannot summarise: column(s) {', '.join(missing)} missing")
        side = _column(cols, "side").astype(np.int64)
        score = _column(cols, "score").astype(np.float64)
        won = _column(cols, "won").astype(bool)
        out = _column(cols, "went_out").astype(bool)
        turns = _column(cols, "n_turns").astype(np.float64)
        deal = _column(cols, "deal_index").astype(np.int64)
        if np.any((side < 0) | (side > 2)):
            raise _refuse("cannot summarise: column 'side' must be 0 (A), 1 (B) or 2 (C, tranca-3p)")
        if np.any(side == 2):
            self._n_sides = 3
        if "preset" in names:
            presets = self._presets | _distinct(cols, "preset")
            if len(presets) > 1:
                raise _refuse(
                    f"cannot summarise: rows of several presets ({', '.join(sorted(presets))}); "
                    "summarise each preset on its own"
                )
            self._presets = presets
        labels = _side_labels(cols, names, side)
        for s in range(3):
            seen = self._seen_labels[s] | labels[s]
            if len(seen) > 1:
                raise _refuse(
                    f"cannot summarise: side {SIDE_LABELS[s]} holds rows of several strategies "
                    f"({', '.join(sorted(seen))}): runs of different pairings, or a run and its sides "
                    "swapped; summarise one pairing at a time"
                )
            self._seen_labels[s] = seen
        key, seed = deal, None
        if "master_seed" in names:
            seed = _column(cols, "master_seed").astype(np.int64)
            if len(seed) and np.any(seed != seed[0]):
                key = np.unique(np.column_stack([seed, deal]), axis=0, return_inverse=True)[1].ravel()
        ia, ib = _pair_index(key, side, deal, seed)
        self._check_new_deals(deal, seed)
        if "end_reason" in names:
            rows = np.flatnonzero(_turn_limit_rows(cols))
            keys, first = np.unique(key[rows], return_index=True)  # a deal's rows share its end
            self._turn_limit = (self._turn_limit or 0) + len(keys)
            shown = rows[first[:TURN_LIMIT_SHOWN]]
            found = {(int(seed[r]) if seed is not None else None, int(deal[r])) for r in shown}
            both = set(self._turn_limit_deals) | found
            self._turn_limit_deals = sorted(both, key=lambda k: (k[0] or 0, k[1]))[:TURN_LIMIT_SHOWN]
        for s in range(3):
            m = side == s
            self._score[s].add(score[m])
            self._turns[s].add(turns[m])
            self._wins[s] += int(won[m].sum())
            self._outs[s] += int(out[m].sum())
        self._diff.add(score[ia] - score[ib])
        tie = ~won[ia] & ~won[ib]
        c_won = (side == 2) & won
        if c_won.any():  # three players: a deal side C won is no tie
            tie &= ~np.isin(key[ia], key[c_won])
        self._ties += int(tie.sum())

    def _check_new_deals(self, deal: np.ndarray, seed: np.ndarray | None) -> None:
        """Refuse deals whose index range overlaps that of an earlier call for the same seed."""
        if not len(deal):
            return
        seeds = np.zeros(len(deal), np.int64) if seed is None else seed
        found = []
        for s in np.unique(seeds):
            d = deal[seeds == s]
            lo, hi = int(d.min()), int(d.max())
            for a, b in self._ranges.get(int(s), []):
                if lo <= b and a <= hi:
                    where = f"deals {lo}..{hi}" + (f" of seed {int(s)}" if seed is not None else "")
                    raise _refuse(
                        f"cannot summarise: {where} overlap deals {a}..{b} of an earlier chunk; each "
                        "deal must come in one chunk, once"
                    )
            found.append((int(s), lo, hi))
        for s, lo, hi in found:
            self._ranges.setdefault(s, []).append((lo, hi))

    def result(self) -> dict:
        """The summary; see :func:`summarize` for its keys."""
        lv = self.level
        sides = []
        for s in range(self._n_sides):
            sc, n = self._score[s], self._score[s].n
            if self.labels is not None:
                label = self.labels[s]
            else:
                label = next(iter(self._seen_labels[s]), "?")
            lo, hi = t_interval(sc.mean, sc.sd, n, lv)
            wlo, whi = wilson_interval(self._wins[s], n, lv)
            olo, ohi = wilson_interval(self._outs[s], n, lv)
            sides.append(
                {
                    "side": SIDE_LABELS[s],
                    "strategy": label,
                    "n": n,
                    "score_mean": sc.mean if n else math.nan,
                    "score_sd": sc.sd,
                    "score_lo": lo,
                    "score_hi": hi,
                    "wins": self._wins[s],
                    "win_share": self._wins[s] / n if n else math.nan,
                    "win_lo": wlo,
                    "win_hi": whi,
                    "outs": self._outs[s],
                    "out_share": self._outs[s] / n if n else math.nan,
                    "out_lo": olo,
                    "out_hi": ohi,
                    "turns_mean": self._turns[s].mean if n else math.nan,
                }
            )
        d = self._diff
        lo, hi = t_interval(d.mean, d.sd, d.n, lv)
        if d.n < 2:
            p = math.nan
        elif d.sd == 0:
            p = 1.0 if d.mean == 0 else 0.0
        else:
            p = float(2 * _scipy_stats().t.sf(abs(d.mean) / (d.sd / math.sqrt(d.n)), d.n - 1))
        diff = {
            "n": d.n,
            "mean": d.mean if d.n else math.nan,
            "sd": d.sd,
            "lo": lo,
            "hi": hi,
            "p_value": p,
        }
        return {
            "level": lv,
            "n_deals": d.n,
            "sides": sides,
            "diff": diff,
            "tie_share": self._ties / d.n if d.n else math.nan,
            "turn_limit": self._turn_limit,
            "turn_limit_deals": [k[1] for k in self._turn_limit_deals],
            "turn_limit_seeds": [k[0] for k in self._turn_limit_deals],
        }


def summarize(df, labels=None, level: float = 0.95) -> dict:
    """Per-side statistics and the paired difference A - B of a run.

    Parameters
    ----------
    df : polars.DataFrame, pandas.DataFrame or mapping of str to 1-d array
        Rows of a run file (see :data:`SUMMARY_COLUMNS`); deals are paired on
        ``(master_seed, deal_index)``.
    labels : sequence of 2 (or 3) str, optional
        Strategy labels of side A and B (and C) (default: the ``strategy`` column).
    level : float
        Confidence level of every interval.

    Returns
    -------
    dict
        ``level``; ``n_deals`` (deals with both sides); ``tie_share`` (share
        of those deals no side won); ``sides``: one dict per side (A, B; and C
        at a three-player table, ``tranca-3p``) with ``side``,
        ``strategy``, ``n`` (rows), ``score_mean``, ``score_sd``,
        ``score_lo``/``score_hi`` (t interval), ``wins``, ``win_share``,
        ``win_lo``/``win_hi`` (Wilson), ``outs``, ``out_share``,
        ``out_lo``/``out_hi`` (Wilson), ``turns_mean``; ``diff``: the per-deal
        score difference A - B (also at a three-player table: C is not in it) with ``n``, ``mean``, ``sd``, ``lo``/``hi``
        (paired t interval) and ``p_value`` (two-sided paired t test);
        ``turn_limit``: how many deals ended at the engine's turn limit
        (``end_reason == "turn_limit"``: not an end the rules know; their rows
        are in every statistic above), ``None`` without an ``end_reason``
        column; ``turn_limit_deals`` and ``turn_limit_seeds``: deal index and
        master seed (``None`` without ``master_seed``) of the first
        :data:`TURN_LIMIT_SHOWN` of them.  A side's ``strategy`` is the label
        given, else its name with the parameters that differ from their
        defaults (``"basic:black3_lock=0"``, from ``strategy`` and
        ``strategy_params``).  Undefined values (too few rows) are NaN.

    Raises
    ------
    tranca_sim.io.RunFileError
        (a ``ValueError``) for a null or a value of the wrong type in a column
        (the message names the column), or rows that cannot be paired or
        pooled: several rows of one deal and side, several strategies on one
        side, several presets (see :meth:`RunningSummary.update`).
    ValueError
        For a missing column.
    """
    acc = RunningSummary(labels=labels, level=level)
    acc.update(df)
    return acc.result()


def summary_frame(summary: dict):
    """The per-side part of a :func:`summarize` result as a polars DataFrame (one row per side)."""
    import polars as pl

    return pl.DataFrame(summary["sides"])


def _num(x: float, fmt: str) -> str:
    return "n/a" if x is None or not math.isfinite(x) else format(x, fmt)


def _pct(x: float) -> str:
    return "n/a" if not math.isfinite(x) else f"{100 * x:.1f}%"


def format_summary(summary, title: str | None = None) -> str:
    """A printable table of a summary.

    Parameters
    ----------
    summary : dict or data frame
        A :func:`summarize` result, or rows to summarise.
    title : str, optional
        First line of the text.

    Returns
    -------
    str
        Lines without a trailing newline.
    """
    if not isinstance(summary, dict):
        summary = summarize(summary)
    pc = round(100 * summary["level"])
    rows = [
        (
            "side",
            "strategy",
            "deals",
            f"mean score [{pc}% CI]",
            f"win share [{pc}% CI]",
            f"going out [{pc}% CI]",
            "mean turns",
        )
    ]
    specs = []
    for s in summary["sides"]:
        specs.append(f"{s['side']} = {s['strategy']}")
        rows.append(
            (
                s["side"],
                s["strategy"],
                str(s["n"]),
                f"{_num(s['score_mean'], '.1f')} [{_num(s['score_lo'], '.1f')}, {_num(s['score_hi'], '.1f')}]",
                f"{_pct(s['win_share'])} [{_pct(s['win_lo'])}, {_pct(s['win_hi'])}]",
                f"{_pct(s['out_share'])} [{_pct(s['out_lo'])}, {_pct(s['out_hi'])}]",
                _num(s["turns_mean"], ".1f"),
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = [title] if title else []
    for r in rows:
        lines.append(
            "  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
        )
    lines.append("strategies: " + "; ".join(specs))
    d = summary["diff"]
    p = d["p_value"]
    ptxt = "n/a" if not math.isfinite(p) else ("< 1e-16" if p < 1e-16 else f"= {p:.3g}")
    lines.append(f"ties (no side won): {_pct(summary['tie_share'])} of deals")
    lines.append(
        f"A - B per deal (paired, {d['n']} deal{'s' * (d['n'] != 1)}): {_num(d['mean'], '.1f')} "
        f"[{_num(d['lo'], '.1f')}, {_num(d['hi'], '.1f')}] ({pc}% CI), p {ptxt}"
    )
    warning = turn_limit_warning(summary)
    if warning:
        lines.append("WARNING: " + warning)
    return "\n".join(lines)


def turn_limit_warning(summary: dict) -> str | None:
    """One sentence on the deals of a :func:`summarize` result that ended at the turn limit
    (how many, and the first deal indices), or None if there are none."""
    n = summary.get("turn_limit")
    if not n:
        return None
    deals, seeds = summary.get("turn_limit_deals", []), summary.get("turn_limit_seeds", [])
    several = len({x for x in seeds if x is not None}) > 1
    shown = ", ".join(f"{d} (seed {s})" if several else str(d) for d, s in zip(deals, seeds))
    more = ", ..." if n > len(deals) else ""
    return (
        f"{n} deal{'s' * (n != 1)} ended at the turn limit, not by a rule (deal{'s' * (n != 1)} "
        f"{shown}{more}); their scores are counted in the summary's figures but are not outcomes of play: "
        "replay one with 'tranca-sim replay RUN --deal I'"
    )
