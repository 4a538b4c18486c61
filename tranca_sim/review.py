"""Review a played deal: each decision of one seat against the analyser's best choice.

For every decision of the seat (the draw, the meld phase, the discard) the position it saw is
analysed (:func:`tranca_sim.analyse.analyse`); the points it lost are the analyser's best
choice's mean minus the played choice's mean over the same worlds, with the paired 95% interval.
A decision with one legal choice loses nothing and is not played out.  The total adds the
decisions' losses (their intervals combined as independent).  Taking the best of noisy means
leans the losses upward a little: a loss whose interval holds 0 is no evidence of a mistake.

The melds of a turn are one decision, as a backgammon review (GNU Backgammon) takes the whole
play of a roll as one move, not each checker: the melds are laid one after another with nothing
new learnt between them, and a loss belongs to the turn's melds as a whole.  Charging each meld
on its own counted one mistake again and again (issue 23: five melds of a turn each "lost 74"):
the analyser values a meld by letting the rollout policy finish the turn, so a better way to meld
the turn that the player never took was the same shortfall at every meld it laid, and a turn the
rollout policy would have finished worse than the player did was charged at each meld before the
player's better finish.  So the meld
phase of a turn is one row: what it played is its melds in order and the stop; it is worth the
played stop (or the last meld, when the melds went out) at the last of its decisions; the best is
the best choice the analyser finds at any of its decisions (the melds as played up to there, that
choice, then the rollout's play), all on the same worlds, since a meld moves cards the seat knows
from its hand to the table and leaves the sampled hidden cards as they were.  The phase is cut
where new cards come into the hand (a morto taken by melding out): what follows is another
decision.  The analyses of the phase's decisions stop at different numbers of worlds: the best is
chosen on the worlds they all played, then it and the played melds are played on further worlds
(the ones the analyser would have played next) for the time the analyses left of theirs (about
``seconds`` a decision analysed): comparing two ends of the turn pairs less closely than two
choices at one decision, and the extra worlds make up for it.  The best being chosen before the
extra worlds, a turn's loss can come out a little below 0 (the played melds did as well).

A row's interval is the plain 95% interval over the worlds in its "worlds" column.  For a draw or
a discard those are the worlds the analyser played before it stopped; it chose when to stop by
looking at them (its own confidence sequence holds at any stop, this plain interval does not), so
the 95% is approximate there.  The extra worlds of a turn's melds are stopped by the clock.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

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
    rv = Review(seat, SIDES[side], label, policy=policy or default_policy(rules.name))
    group = None
    how = (seconds, max_worlds, rv.policy, key, progress, threads)
    try:
        for group in meld_phases([d for d in decisions_of(log, seat) if d.phase in phases]):
            if group[0].phase == "meld":
                _review_melds(rv, group, *how)
            else:
                _review_one(rv, group[0], *how)
    except BaseException as e:
        if not isinstance(e, Exception) and rv.rows:  # Ctrl-C, a termination: the finished rows are kept
            rv.interrupted = f"turn {group[0].turn} {group[0].phase}" if group else "the start"
            e.partial = rv
        raise
    return rv


def meld_phases(ds: list) -> list[list]:
    """The decisions ``ds`` (:func:`tranca_sim.position_log.decisions_of`) in review order: a
    draw or a discard alone, the meld decisions of a turn together (module docstring), cut where
    the cards the seat has not seen change (new cards in its hand: a morto taken by melding)."""
    from .position_state import hidden_cards

    out: list[list] = []
    unseen = None
    for d in ds:
        now = hidden_cards(d.position) if d.phase == "meld" else None
        prev = out[-1][-1] if out else None
        same = prev is not None and prev.phase == "meld" and prev.turn == d.turn and now == unseen
        if now is not None and same:
            out[-1].append(d)
        else:
            out.append([d])
        unseen = now
    return out


def _choices(rv: Review, d):
    """``(state, codes, words, played index)`` of decision ``d``; None (noted in ``rv.unmatched``)
    when no listed choice plays what it played."""
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
        return None
    return st, codes, words, i


def _review_melds(rv: Review, group, seconds, max_worlds, policy, key, progress, threads) -> None:
    """The one row of the meld phase ``group`` (:func:`meld_phases`), added to ``rv``: its last
    decision's played choice against the best choice of any of its decisions, on the worlds they
    all played, then on more worlds for those two in the time the analyses left (module docstring)."""
    steps = [_choices(rv, d) for d in group]
    if any(x is None for x in steps):
        return  # a meld no listed choice plays: the phase's value is not known
    played = [words[i] for _, _, words, i in steps]
    turn, widest, last = group[0].turn, max(len(x[1]) for x in steps), len(group) - 1
    if widest == 1:
        rv.rows.append(Reviewed(turn, "meld", ", ".join(played), ", ".join(played), 0.0, (0.0, 0.0), 1, 0))
        return
    t0 = time.perf_counter()
    values = {}  # step -> points [world, choice]: each decision with a choice to make, and the last
    for j, (d, (st, codes, _, _)) in enumerate(zip(group, steps)):
        if len(codes) > 1 or j == last:
            a = analyse(d.position, seconds=seconds, max_worlds=max_worlds, policy=policy, key=key,
                        progress=progress, st=st, threads=threads)
            values[j] = a.outcomes[:, [a.codes.index(c) for c in codes], 0]
    n, i = min(len(v) for v in values.values()), steps[last][3]
    mean = {(j, c): float(v[:n, c].mean()) for j, v in values.items() for c in range(v.shape[1])}
    j, c = max(mean, key=mean.get)
    if mean[last, i] >= mean[j, c]:  # a tie: the melds as played are the best
        j, c = last, i
    pair = [(group[j], steps[j][0], steps[j][1][c], values[j][:n, c]),
            (group[last], steps[last][0], steps[last][1][i], values[last][:n, i])]  # fmt: skip
    left = seconds * len(values) - (time.perf_counter() - t0)
    best, worth = more_worlds(pair, left, max_worlds, policy, key, threads)
    best_words = ", ".join(played[:j] + [steps[j][2][c]])
    lost, ci = _paired(best - worth)
    rv.rows.append(Reviewed(turn, "meld", ", ".join(played), best_words, lost, ci, widest, len(best)))


def more_worlds(pair, seconds, max_worlds, policy, key, threads) -> tuple[np.ndarray, np.ndarray]:
    """The points of the two choices of ``pair`` (``(decision, state, code, points so far)``
    each, on worlds 0..n-1) played on further worlds n, n+1, ... (the worlds the analyser would
    have played next) for about ``seconds``, up to ``max_worlds``; none when the two played
    alike in every world (the melds as played were the best found)."""
    from .analyse import play_out

    got = [[p[3]] for p in pair]
    n = len(pair[0][3])
    if np.array_equal(pair[0][3], pair[1][3]):
        return pair[0][3], pair[1][3]
    t0 = time.perf_counter()
    while n < max_worlds and time.perf_counter() - t0 < seconds:
        k = min(32, max_worlds - n)
        for g, (d, st, code, _) in zip(got, pair):
            g.append(play_out(d.position, [code], k, n, key, policy, st, threads)[:, 0, 0])
        n += k
    return np.concatenate(got[0]), np.concatenate(got[1])


def _paired(diff) -> tuple[float, tuple[float, float]]:
    """The mean of the per-world differences ``diff`` and its 95% interval."""
    m = float(diff.mean())
    se = float(diff.std(ddof=1)) / math.sqrt(len(diff)) if len(diff) > 1 else 0.0
    return m, (m - _Z * se, m + _Z * se)


def _review_one(rv: Review, d, seconds, max_worlds, policy, key, progress, threads) -> None:
    """The row of decision ``d`` (a draw or a discard), added to ``rv``."""
    got = _choices(rv, d)
    if got is None:
        return
    st, codes, words, i = got
    if len(codes) == 1:
        rv.rows.append(Reviewed(d.turn, d.phase, words[i], words[i], 0.0, (0.0, 0.0), 1, 0))
        return
    a = analyse(d.position, seconds=seconds, max_worlds=max_worlds, policy=policy, key=key, progress=progress,
                st=st, threads=threads)
    best = a.codes.index(a.choices[0].code)
    diff = a.outcomes[:, best, 0] - a.outcomes[:, a.codes.index(codes[i]), 0]
    rv.rows.append(Reviewed(d.turn, d.phase, words[i], words[best], *_paired(diff), len(codes), a.worlds))


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
    rows = [("turn", "phase", "played", "analyser's best", "points lost [95%]", "worlds")]
    for r in rv.rows:
        lost = "forced" if r.n_choices == 1 else ("best" if r.played == r.best else _lost_text(r))
        rows.append((str(r.turn), r.phase, r.played, "" if r.played == r.best else r.best, lost,
                     f"{r.worlds:,}" if r.worlds else ""))
    widths = [max(len(x[j]) for x in rows) for j in range(6)]
    for x in rows:
        lines.append("  ".join(x[j].ljust(widths[j]) for j in range(6)).rstrip())
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
    lines.append(
        "a turn's melds are one decision, charged once: the melds as played against the best the analyser "
        "finds at any of them (the melds as played up to there, its choice, then the rollout's play)"
    )
    lines.append(
        "[95%]: the plain interval over the worlds in the last column; a draw's or a discard's are those the "
        "analyser played until it saw the best clear, so its 95% is approximate"
    )
    return "\n".join(lines) + "\n"
