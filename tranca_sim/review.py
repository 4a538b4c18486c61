"""Review a played deal: each decision of one seat against the analyser's best choice.

For every decision of the seat (the draw, each meld and the stop, the discard) the position it
saw is analysed (:func:`tranca_sim.analyse.analyse`); the points it lost are the analyser's best
choice's mean minus the played choice's mean over the same worlds, with the paired 95% interval.
A decision with one legal choice loses nothing and is not played out.  The total adds the
decisions' losses (their intervals combined as independent).  Taking the best of noisy means
leans the losses upward a little: a loss whose interval holds 0 is no evidence of a mistake.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ._plural import plural
from .analyse import _Z, analyse, points_text
from .position import SIDES
from .position_log import decisions_of


@dataclass
class Reviewed:
    turn: int
    phase: str
    played: str
    best: str
    lost: float
    ci: tuple[float, float]
    n_choices: int
    worlds: int


@dataclass
class Review:
    seat: int
    side: str
    strategy: str
    rows: list[Reviewed] = field(default_factory=list)
    unmatched: list[str] = field(default_factory=list)
    policy: str = ""
    interrupted: str = ""  # the decision at which the review was stopped ("turn 12 discard"), "" if none

    @property
    def total(self) -> tuple[float, float, float]:
        m = sum(r.lost for r in self.rows)
        var = sum(((r.ci[1] - r.ci[0]) / (2 * _Z)) ** 2 for r in self.rows if r.worlds)
        h = _Z * math.sqrt(var)
        return m, m - h, m + h

    def worst(self, k: int = 3) -> list[Reviewed]:
        return sorted((r for r in self.rows if r.lost > 0), key=lambda r: -r.lost)[:k]


def review(log: dict, seat: int, seconds: float = 1.0, max_worlds: int = 100_000, policy=None, key: int = 0,
           phases=("draw", "meld", "discard"), progress=None, threads: int = 2) -> Review:
    """Each decision of ``seat`` in the deal ``log`` against the analyser's best (module docstring).

    Raises
    ------
    tranca_sim.analyse.AnalyseError
        For a rule set the analyser cannot model.
    KeyboardInterrupt
        Or another stop that is not an ``Exception`` (a termination): re-raised, with the review
        of the decisions finished so far (``interrupted`` naming the one cut short) as its
        ``partial`` attribute when at least one was finished.
    """
    from .analyse import default_policy
    from .referee.logfile import _normalize

    rules = _normalize(log)[0]
    side = rules.side_of(seat)
    strategies = log.get("strategies") or []
    from .replay import strategy_label

    label = strategy_label(strategies[side]) if side < len(strategies) else "?"
    rv = Review(seat, SIDES[side], label, policy=policy or default_policy())
    d = None
    try:
        for d in decisions_of(log, seat):
            if d.phase in phases:
                _review_one(rv, d, seconds, max_worlds, policy, key, progress, threads)
    except BaseException as e:
        if not isinstance(e, Exception) and rv.rows:  # Ctrl-C, a termination: the finished rows are kept
            rv.interrupted = f"turn {d.turn} {d.phase}" if d is not None else "the start"
            e.partial = rv
        raise
    return rv


def _review_one(rv: Review, d, seconds, max_worlds, policy, key, progress, threads) -> None:
    """The row of decision ``d`` (:func:`tranca_sim.position_log.decisions_of`), added to ``rv``."""
    from .analyse import check_position
    from .describe import describe_choices, played_choice
    from .position_state import legal_choices, to_state

    pos = d.position
    check_position(pos)
    st = to_state(pos)
    codes = [int(c) for c in legal_choices(pos, st)]
    words = describe_choices(pos, st, codes)
    i = played_choice(pos, st, codes, d.played, d.after)
    if i is None:
        rv.unmatched.append(f"turn {d.turn} {d.phase}: {d.played}")
        return
    if len(codes) == 1:
        rv.rows.append(Reviewed(d.turn, d.phase, words[i], words[i], 0.0, (0.0, 0.0), 1, 0))
        return
    a = analyse(pos, seconds=seconds, max_worlds=max_worlds, policy=policy, key=key, progress=progress, st=st,
                threads=threads)
    best = a.codes.index(a.choices[0].code)
    diff = a.outcomes[:, best, 0] - a.outcomes[:, i, 0]
    m = float(diff.mean())
    se = float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
    rv.rows.append(Reviewed(d.turn, d.phase, words[i], words[best], m, (m - _Z * se, m + _Z * se), len(codes), a.worlds))


def _lost_text(r: Reviewed) -> str:
    return f"{points_text(r.lost)} [{points_text(r.ci[0])}, {points_text(r.ci[1])}]"


def format_review(rv: Review, where: str) -> str:
    lines = [
        f"review of seat {rv.seat} (side {rv.side}, {rv.strategy}) in {where}: {plural(len(rv.rows), 'decision')}, "
        f"rollouts by {rv.policy}",
        "",
    ]
    if rv.interrupted:
        lines[1:1] = [f"INTERRUPTED at {rv.interrupted}: the decisions reviewed before it; the later ones were not"]
    rows = [("turn", "phase", "played", "analyser's best", "points lost [95%]")]
    for r in rv.rows:
        lost = "forced" if r.n_choices == 1 else ("best" if r.played == r.best else _lost_text(r))
        rows.append((str(r.turn), r.phase, r.played, "" if r.played == r.best else r.best, lost))
    widths = [max(len(x[j]) for x in rows) for j in range(5)]
    for x in rows:
        lines.append("  ".join(x[j].ljust(widths[j]) for j in range(5)).rstrip())
    m, lo, hi = rv.total
    lines += ["", f"total lost: {points_text(m)} points [{points_text(lo)}, {points_text(hi)}] over {plural(len(rv.rows), 'decision')}"]
    worst = rv.worst()
    if worst:
        lines.append("worst decisions:")
        for r in worst:
            lines.append(f"  turn {r.turn} {r.phase}: {r.played}; best {r.best}: {_lost_text(r)} points")
    for u in rv.unmatched:
        lines.append(f"not reviewed (no listed choice plays it): {u}")
    lines.append(
        "points lost: the best choice's mean minus the played one's over the same sampled worlds, to the end "
        "of the deal; an interval holding 0 is no evidence of a mistake"
    )
    return "\n".join(lines) + "\n"
