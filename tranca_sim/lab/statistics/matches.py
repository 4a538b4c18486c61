"""Match statistics of a match run (``simulate --matches N``): the unit is the match.

:class:`MatchSummary` reads one row per match (the first deal's side-A row) from chunks of a
match run's rows and gives each side's match-win share with a Wilson confidence interval (the
matches are independent: each has its own decks, VARIANTS decision 15 decides it), the matches
the safety net ended undecided, and the deals per match (mean with a t interval, the longest).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..._plural import plural
from .stats import t_interval, wilson_interval

#: columns :meth:`MatchSummary.update` reads
MATCH_SUMMARY_COLUMNS = ("match_index", "deal_in_match", "side", "match_winner", "match_deals")


def _column(cols, name: str) -> np.ndarray:
    a = np.asarray(cols[name])
    if a.ndim != 1 or a.dtype.kind not in "iu":
        raise ValueError(f"cannot summarise matches: column {name!r} must hold integers, got {a.dtype}")
    return a


class MatchSummary:
    """Accumulates match-level statistics over chunks of a match run's rows.

    Parameters
    ----------
    level : float
        Confidence level of the intervals.
    n_sides : int
        Sides of the table: 2, or 3 at three solo players (tranca-3p).
    """

    def __init__(self, level: float = 0.95, n_sides: int = 2):
        self.level = level
        self._wins = [0] * int(n_sides)
        self._undecided = 0
        self._n = 0
        self._deals_sum = 0.0
        self._deals_sq = 0.0
        self._longest = 0
        self._longest_match = -1

    def update(self, cols: Mapping) -> None:
        """Add rows (a mapping of column name to 1-d array, or a data frame) holding
        :data:`MATCH_SUMMARY_COLUMNS`; each match is counted once, by its row of deal 0, side 0.

        Raises
        ------
        ValueError
            For a missing column.
        """
        names = set(cols.columns) if hasattr(cols, "columns") else set(cols.keys())
        missing = [c for c in MATCH_SUMMARY_COLUMNS if c not in names]
        if missing:
            raise ValueError(f"cannot summarise matches: column(s) {', '.join(missing)} missing")
        first = (_column(cols, "deal_in_match") == 0) & (_column(cols, "side") == 0)
        winner = _column(cols, "match_winner")[first].astype(np.int64)
        deals = _column(cols, "match_deals")[first].astype(np.int64)
        idx = _column(cols, "match_index")[first].astype(np.int64)
        self._n += len(winner)
        if len(winner) and int(winner.max()) >= len(self._wins):
            raise ValueError(
                f"cannot summarise matches: match_winner {int(winner.max())} for {len(self._wins)} sides"
            )
        for s in range(len(self._wins)):
            self._wins[s] += int((winner == s).sum())
        self._undecided += int((winner < 0).sum())
        self._deals_sum += float(deals.sum())
        self._deals_sq += float((deals.astype(np.float64) ** 2).sum())
        if len(deals) and int(deals.max()) > self._longest:
            j = int(np.argmax(deals))
            self._longest = int(deals[j])
            self._longest_match = int(idx[j])

    def result(self) -> dict:
        """``matches``, ``wins`` (side A, side B, side C at three players), ``undecided``, per side ``win_share`` with
        ``win_ci`` (Wilson, unit: match), ``deals_mean`` with ``deals_ci`` (t interval),
        ``deals_sd``, ``longest`` (deals) and ``longest_match`` (its match index)."""
        n = self._n
        mean = self._deals_sum / n if n else float("nan")
        var = (self._deals_sq - n * mean * mean) / (n - 1) if n > 1 else float("nan")
        sd = float(np.sqrt(max(var, 0.0))) if n > 1 else float("nan")
        sides = []
        for s in range(len(self._wins)):
            k = self._wins[s]
            lo, hi = wilson_interval(k, n, self.level) if n else (float("nan"), float("nan"))
            sides.append({"wins": k, "win_share": k / n if n else float("nan"), "win_ci": (lo, hi)})
        return {
            "matches": n,
            "level": self.level,
            "sides": sides,
            "undecided": self._undecided,
            "deals_mean": mean,
            "deals_sd": sd,
            "deals_ci": t_interval(mean, sd, n, self.level) if n > 1 else (float("nan"), float("nan")),
            "longest": self._longest,
            "longest_match": self._longest_match,
        }


def format_match_summary(res: Mapping, labels=("A", "B")) -> str:
    """The match lines under the summary table: each side's match-win share with its interval,
    undecided matches, deals per match."""
    n = res["matches"]
    pct = round(100 * res["level"])
    lines = [f"matches: {n} (unit of the intervals below: the match)"]
    for s, lab in enumerate(labels):
        d = res["sides"][s]
        lo, hi = d["win_ci"]
        lines.append(
            f"  side {'ABC'[s]} {lab}: won {plural(d['wins'], 'match', 'matches')}, {100 * d['win_share']:.1f}% "
            f"({pct}% CI {100 * lo:.1f}% .. {100 * hi:.1f}%)"
        )
    if res["undecided"]:
        lines.append(f"  undecided at max_match_deals: {plural(res['undecided'], 'match', 'matches')}")
    lo, hi = res["deals_ci"]
    lines.append(
        f"  deals per match: mean {res['deals_mean']:.2f} ({pct}% CI {lo:.2f} .. {hi:.2f}), sd "
        f"{res['deals_sd']:.2f}, longest {res['longest']} (match {res['longest_match']})"
    )
    return "\n".join(lines)
