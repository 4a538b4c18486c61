"""The referee: replay a deal log on the table model and give a :class:`Verdict`."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from ..rules import Rules
from .actions import _Replay
from .logfile import LogFormatError, _is_int, _normalize, _read_lines
from .questions import SCORE_PARTS
from .table import _Foul


@dataclass
class Verdict:
    """Result of refereeing one deal.

    ``ok``: every action legal, the cards accounted for after every action,
    and the log's ``result`` equal to the recomputed score.  Otherwise the
    first divergence: ``code`` (short id, e.g. ``"locked_pile"``), ``reason``
    (the rule it breaks, with its source), ``turn``, ``index`` (into
    ``log["actions"]``; ``len(actions)`` for a missing end or a wrong result,
    ``None`` for a format problem outside the actions), ``action`` (the
    offending action as logged) and ``line`` (1-based line of the file, when
    read by :func:`check_file`).  ``scores``: the recomputed ``{"A": parts,
    "B": parts}`` (as :func:`score_side`) when the replay reached the end of
    the deal; ``logged``: the log's ``result``.
    """

    ok: bool
    code: str | None = None
    reason: str | None = None
    turn: int | None = None
    index: int | None = None
    action: dict | None = None
    line: int | None = None
    deal_index: int | None = None
    scores: dict | None = None
    logged: dict | None = None

    def __str__(self) -> str:
        head = f"deal {self.deal_index}" if self.deal_index is not None else ""
        if self.line is not None:
            head = f"line {self.line}: {head}" if head else f"line {self.line}"
        head = head or "log"
        if self.ok:
            sc = ""
            if self.scores:
                sc = " (" + ", ".join(f"{k} {v['score']}" for k, v in self.scores.items()) + ")"
            return f"{head}: ok{sc}"
        where = []
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.index is not None:
            where.append(f"action {self.index}")
        act = f" {json.dumps(self.action, separators=(',', ':'))}" if self.action else ""
        return f"{head}: {', '.join(where) or 'log'}: {self.code}: {self.reason}{act}"


_PART_SOURCE = {
    "melded_points": "000 Scoring: Card values",
    "canasta_bonus": "000 Gameplay 8, Scoring: Canasta bonuses",
    "red3_points": "000 Gameplay 5, Scoring: Card values",
    "going_out_bonus": "000 Scoring: Going out bonus, VARIANTS 11",
    "morto_penalty": "000 Scoring: Morto not picked up penalty, VARIANTS 12",
    "hand_penalty": "000 Scoring: Hand penalties",
    "score": "000 Scoring: the sum of the parts",
}


def check_log(log: dict, rules: Rules | None = None, line: int | None = None) -> Verdict:
    """Replay one deal log and referee it.

    Parameters
    ----------
    log : a ``tranca-sim-log/1`` deal (a dict as :func:`load_logs` yields; see
        docs/log-format.md).  Unknown top-level keys are ignored.
    rules : judge by these rules instead of the log's own (default: the log's
        ``rules`` field, else its ``preset``).
    line : line of the file the log came from, copied into the verdict.

    Returns
    -------
    Verdict
        ``ok`` or the first divergence (turn, action index, action, rule
        broken).  Never raises: a malformed log gives a verdict with
        ``code == "format"``, a final position that cannot be scored
        ``"score"``, and an unexpected failure of the referee itself
        ``"internal"`` (a referee fault, to be reported).
    """
    deal = log.get("deal_index") if isinstance(log, dict) else None
    if not _is_int(deal):
        deal = None
    try:
        return _check_log(log, rules, line, deal)
    except Exception as e:  # noqa: BLE001 -- a verdict, never a traceback (issue 6)
        return Verdict(
            False,
            "internal",
            f"the referee could not judge this log ({type(e).__name__}: {e}); this is a referee fault, "
            "please report it with the log",
            line=line,
            deal_index=deal,
        )


def _check_log(log, rules: Rules | None, line: int | None, deal: int | None) -> Verdict:
    try:
        rules, deck, actions, result = _normalize(log, rules)
    except LogFormatError as e:
        act = log["actions"][e.index] if e.index is not None else None
        return Verdict(False, "format", e.message, index=e.index, action=act, line=line, deal_index=deal)
    raw = log["actions"]
    rp = _Replay(rules, deck, log["first_seat"])
    try:
        rp.set_match(log.get("match"))
    except _Foul as f:
        return Verdict(False, "format", f.reason, line=line, deal_index=deal)
    for i, a in enumerate(actions):
        try:
            rp.step(a)
            rp.accounting()
        except _Foul as f:
            return Verdict(
                False,
                f.code,
                f.reason,
                turn=a["turn"],
                index=i,
                action=raw[i],
                line=line,
                deal_index=deal,
                logged=result,
            )
    if rp.phase != "over":
        return Verdict(
            False,
            "sequence",
            "the log ends before the deal does (no end action)",
            turn=rp.turn,
            index=len(actions),
            line=line,
            deal_index=deal,
            logged=result,
        )
    try:
        scores = rp.scores()
    except ValueError as e:  # a final position that score_side refuses
        return Verdict(
            False,
            "score",
            f"the final position cannot be scored: {e}",
            turn=rp.turn,
            index=len(actions),
            line=line,
            deal_index=deal,
            logged=result,
        )
    for s in scores:
        for p in SCORE_PARTS + ("score",):
            if scores[s][p] != result[s][p]:
                return Verdict(
                    False,
                    "score",
                    f"side {s} {p}: the log says {result[s][p]}, the referee computes {scores[s][p]} "
                    f"({_PART_SOURCE[p]})",
                    turn=rp.turn,
                    index=len(actions),
                    line=line,
                    deal_index=deal,
                    scores=scores,
                    logged=result,
                )
    return Verdict(True, turn=rp.turn, line=line, deal_index=deal, scores=scores, logged=result)


def check_file(path: str | os.PathLike, rules: Rules | None = None) -> Iterator[Verdict]:
    """Referee every deal of a JSON Lines log file: one :class:`Verdict` per non-blank line,
    with ``line`` set.  A malformed line (invalid JSON, truncation, bad cards or fields)
    gives a ``"format"`` verdict and the file goes on; an action out of turn is a game
    verdict (``"out_of_turn"``).  Never raises on bad content (OSError if the file
    cannot be read)."""
    for no, obj in _read_lines(path):
        if isinstance(obj, LogFormatError):
            yield Verdict(False, "format", obj.message, line=no)
            continue
        yield check_log(obj, rules, line=no)


def summary(verdicts: Iterable[Verdict]) -> tuple[int, int, list[Verdict]]:
    """(agreed, total, failures) of a sequence of verdicts."""
    vs = list(verdicts)
    bad = [v for v in vs if not v.ok]
    return len(vs) - len(bad), len(vs), bad


def walk(log: dict, rules: Rules | None = None) -> Iterator[tuple[int, dict, _Replay]]:
    """Replay a log and yield ``(index, action, table)`` after each action.

    ``table`` is the referee's live model of the table (hands, mortos, stock,
    pile, melds, red-3 areas; attributes as in the class ``_Replay``), updated
    in place: read it before the next step, never modify it.  Used by
    :mod:`tranca_sim.replay` to print and draw deals.

    Raises
    ------
    LogFormatError
        For a malformed log.
    ValueError
        At the first illegal action, with the referee's reason.
    """
    rules, deck, actions, _ = _normalize(log, rules)
    table = _Replay(rules, deck, log["first_seat"])
    yield -1, {"act": "deal", "turn": -1, "seat": None}, table
    for i, a in enumerate(actions):
        try:
            table.step(a)
        except _Foul as f:
            raise ValueError(f"action {i} (turn {a['turn']}): {f.code}: {f.reason}") from None
        yield i, a, table
