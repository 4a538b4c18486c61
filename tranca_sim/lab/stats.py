"""Summary statistics of a run: per-side means and shares with 95% intervals,
and the paired per-deal difference A - B.

Both sides play the same deals, so the difference of their scores deal by deal
(a paired comparison) has a much narrower interval than the difference of two
independent means.  Intervals: Student t for means, Wilson score for shares
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
from scipy import stats as _st

SIDE_LABELS = ("A", "B")

#: columns :func:`summarize` reads (``master_seed`` and ``strategy`` are optional)
SUMMARY_COLUMNS = ("master_seed", "deal_index", "side", "strategy", "score", "won", "went_out", "n_turns")


def t_interval(mean: float, sd: float, n: int, level: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval ``mean +- t_{(1+level)/2, n-1} * sd / sqrt(n)``; NaNs if ``n < 2``."""
    if n < 2 or not math.isfinite(sd):
        return (math.nan, math.nan)
    half = float(_st.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return (mean - half, mean + half)


def wilson_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of the share ``k / n``; NaNs if ``n == 0``."""
    if n <= 0:
        return (math.nan, math.nan)
    ci = _st.binomtest(int(k), int(n)).proportion_ci(confidence_level=level, method="wilson")
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


def _bad_column(message: str) -> Exception:
    from ..io import RunFileError  # a ValueError; imported here so stats does not load pyarrow

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
        raise _bad_column(f"cannot summarise: column {name!r} has {k} null value(s)")
    a = np.asarray(col)
    if a.ndim != 1 or a.dtype.kind not in _KINDS[name]:
        want = "booleans or integers" if "b" in _KINDS[name] else "integers"
        raise _bad_column(f"cannot summarise: column {name!r} must hold {want}, got {a.dtype}")
    return a


def _pair_index(key: np.ndarray, side: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Row indices ``(ia, ib)`` of side A and side B rows of the same deals (same ``key``).

    Raises ``ValueError`` if a deal has several rows for one side.
    """
    ra = np.flatnonzero(side == 0)
    rb = np.flatnonzero(side == 1)
    ka, kb = key[ra], key[rb]
    if len(ka) == len(kb) and np.array_equal(ka, kb):  # the usual deal-major layout
        return ra, rb
    for k in (ka, kb):
        s = np.sort(k)
        if len(s) > 1 and np.any(s[1:] == s[:-1]):
            raise ValueError("several rows for the same deal and side; cannot pair the deals")
    _, ia, ib = np.intersect1d(ka, kb, assume_unique=True, return_indices=True)
    return ra[ia], rb[ib]


class RunningSummary:
    """Accumulates :func:`summarize` statistics over chunks of rows.

    Parameters
    ----------
    labels : sequence of 2 str, optional
        Strategy labels of side A and B (else taken from the ``strategy``
        column when present).
    level : float
        Confidence level of the intervals.
    """

    def __init__(self, labels=None, level: float = 0.95):
        self.labels = list(labels) if labels is not None else None
        self.level = level
        self._seen_labels: list[set] = [set(), set()]
        self._score = [_Moments(), _Moments()]
        self._turns = [_Moments(), _Moments()]
        self._wins = [0, 0]
        self._outs = [0, 0]
        self._diff = _Moments()
        self._ties = 0

    def update(self, cols: Mapping) -> None:
        """Add rows given as a mapping of column name to 1-d array (or a data frame).

        Needs ``deal_index``, ``side``, ``score``, ``won``, ``went_out`` and
        ``n_turns``; uses ``master_seed`` (to pair deals of several runs) and
        ``strategy`` when present.  Deals are paired within one call only.

        Raises
        ------
        tranca_sim.io.RunFileError
            (a ``ValueError``) for a null value, a column of the wrong kind
            (``score``, ``side``, ``deal_index``, ``n_turns``, ``master_seed``:
            integers; ``won``, ``went_out``: bools or integers), or a ``side``
            other than 0 and 1.
        ValueError
            For a missing column, or several rows of one deal and side.
        """
        names = set(cols.columns) if hasattr(cols, "columns") else set(cols.keys())
        need = [c for c in SUMMARY_COLUMNS if c not in ("master_seed", "strategy")]
        missing = [c for c in need if c not in names]
        if missing:
            raise ValueError(f"cannot summarise: column(s) {', '.join(missing)} missing")
        side = _column(cols, "side").astype(np.int64)
        score = _column(cols, "score").astype(np.float64)
        won = _column(cols, "won").astype(bool)
        out = _column(cols, "went_out").astype(bool)
        turns = _column(cols, "n_turns").astype(np.float64)
        key = _column(cols, "deal_index").astype(np.int64)
        if np.any((side != 0) & (side != 1)):
            raise _bad_column("cannot summarise: column 'side' must be 0 (A) or 1 (B)")
        if "master_seed" in names:
            seed = _column(cols, "master_seed").astype(np.int64)
            if len(seed) and np.any(seed != seed[0]):
                key = np.unique(np.column_stack([seed, key]), axis=0, return_inverse=True)[1].ravel()
        for s in (0, 1):
            m = side == s
            self._score[s].add(score[m])
            self._turns[s].add(turns[m])
            self._wins[s] += int(won[m].sum())
            self._outs[s] += int(out[m].sum())
            if "strategy" in names and self.labels is None:
                self._seen_labels[s].update(str(x) for x in np.unique(np.asarray(cols["strategy"])[m]))
        ia, ib = _pair_index(key, side)
        self._diff.add(score[ia] - score[ib])
        self._ties += int((~won[ia] & ~won[ib]).sum())

    def result(self) -> dict:
        """The summary; see :func:`summarize` for its keys."""
        lv = self.level
        sides = []
        for s in (0, 1):
            sc, n = self._score[s], self._score[s].n
            if self.labels is not None:
                label = self.labels[s]
            else:
                label = "/".join(sorted(self._seen_labels[s])) or "?"
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
            p = float(2 * _st.t.sf(abs(d.mean) / (d.sd / math.sqrt(d.n)), d.n - 1))
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
        }


def summarize(df, labels=None, level: float = 0.95) -> dict:
    """Per-side statistics and the paired difference A - B of a run.

    Parameters
    ----------
    df : polars.DataFrame, pandas.DataFrame or mapping of str to 1-d array
        Rows of a run file (see :data:`SUMMARY_COLUMNS`); deals are paired on
        ``(master_seed, deal_index)``.
    labels : sequence of 2 str, optional
        Strategy labels of side A and B (default: the ``strategy`` column).
    level : float
        Confidence level of every interval.

    Returns
    -------
    dict
        ``level``; ``n_deals`` (deals with both sides); ``tie_share`` (share
        of those deals no side won); ``sides``: two dicts (A, B) with ``side``,
        ``strategy``, ``n`` (rows), ``score_mean``, ``score_sd``,
        ``score_lo``/``score_hi`` (t interval), ``wins``, ``win_share``,
        ``win_lo``/``win_hi`` (Wilson), ``outs``, ``out_share``,
        ``out_lo``/``out_hi`` (Wilson), ``turns_mean``; ``diff``: the per-deal
        score difference A - B with ``n``, ``mean``, ``sd``, ``lo``/``hi``
        (paired t interval) and ``p_value`` (two-sided paired t test).
        Undefined values (too few rows) are NaN.

    Raises
    ------
    tranca_sim.io.RunFileError
        (a ``ValueError``) for a null or a value of the wrong type in a column
        (see :meth:`RunningSummary.update`); the message names the column.
    ValueError
        For a missing column, or several rows of one deal and side.
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
        name = s["strategy"].partition(":")[0]
        specs.append(f"{s['side']} = {s['strategy']}")
        rows.append(
            (
                s["side"],
                name,
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
        f"A - B per deal (paired, {d['n']} deals): {_num(d['mean'], '.1f')} "
        f"[{_num(d['lo'], '.1f')}, {_num(d['hi'], '.1f')}] ({pc}% CI), p {ptxt}"
    )
    return "\n".join(lines)
