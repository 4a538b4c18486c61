"""Positions from a logged deal: every decision of a deal as the seat to move saw it.

A deal log (``docs/log-format.md``) is followed on the referee's table model
(:func:`tranca_sim.referee.walk`); before each decision the table is read as the seat to move
sees it (:class:`~tranca_sim.position.Position`), with what that decision played.  The decisions
of a turn: the draw (the stock, or the pile with its top card's meld when the pile is closed),
each meld and the stop (a meld phase ends by discarding), the discard.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from .position import Position

MELD_ACTS = ("meld", "extend", "replace_wild", "black3")
_MORTO = {"waiting": "waiting", "direct": "taken", "indirect": "taken by the discard", "stock": "stock"}


@dataclass
class Decision:
    """One decision of a logged deal: the position before it and the actions it played
    (draw: the ``draw`` or the ``take_pile`` with the top card's meld; meld: one meld action, or
    none for the stop; discard: the ``discard``).  ``after`` is the table's position right
    after those actions (the seat's view), to recognise the engine's choice that played them."""

    turn: int
    seat: int
    phase: str
    position: Position
    played: list[dict] = field(default_factory=list)
    after: Position | None = None


def _snapshot(table, rules, phase: str, score, took, melded_now: bool) -> Position:
    seat = table.seat
    n_sides = table.n_sides
    mortos = []
    for sd in range(n_sides):
        st = _MORTO[table.morto_state[sd]]
        cards = list(table.mortos[sd]) if st == "waiting" and rules.mortos_face_up else []
        mortos.append((st, cards))
    return Position(
        rules=rules,
        seat=seat,
        phase=phase,
        turn=table.turn,
        hand=list(table.hands[seat].elements()),
        hand_sizes=[sum(table.hands[s].values()) for s in range(table.players)],
        melds=[[list(m.cards) for m in table.melds[sd]] for sd in range(n_sides)],
        pile=list(table.pile),
        red3=[list(x) for x in table.red3],
        mortos=mortos,
        stock=len(table.stock),
        score=list(score),
        took={s: list(c) for s, c in took.items() if s != seat and c},
        melded_now=melded_now,
    )


def decisions(log: dict) -> Iterator[Decision]:
    """Every decision of the deal ``log``, in order, each with its position.

    Raises
    ------
    tranca_sim.referee.LogFormatError, ValueError
        For a malformed log or an illegal action (the referee's reason).
    """
    from .referee import walk
    from .referee.logfile import _normalize

    rules = _normalize(log)[0]
    actions = log["actions"]
    score = (log.get("match") or {}).get("scores") or [0] * rules.n_sides
    took: dict[int, list[str]] = {}
    pile_before: list[str] = []
    stage = "setup"  # per turn: predraw, capture (the top card's meld owed), meld, done
    prev = None
    melded_now = False
    pending: Decision | None = None
    for i, a, table in walk(log, rules):
        act = a["act"]
        if pending is not None and _closes(pending, act):
            pending.after = _snapshot(table, rules, pending.phase, score, took, melded_now)
            yield pending
            pending = None
        if act == "turn":
            stage, melded_now = "predraw", False
        elif act == "take_pile":
            n = a["n"]
            taken = pile_before[: n - 1] if rules.pile_closed else pile_before[:n]
            took.setdefault(a["seat"], []).extend(taken)
            stage = "capture" if rules.pile_closed else "meld"
        elif act == "draw" and stage == "predraw" and prev != "red3":
            stage = "meld"
        elif act in MELD_ACTS:
            melded_now = True
            if stage == "capture":
                stage = "meld"
        elif act == "discard":
            stage = "done"
        if act != "morto_stock":
            prev = act
        pile_before = list(table.pile)
        nxt = actions[i + 1] if i + 1 < len(actions) else None
        if nxt is None or table.phase in ("over", "setup"):
            continue
        phase = _decision_at(stage, prev, nxt)
        if phase is not None:
            pos = _snapshot(table, rules, phase, score, took, melded_now)
            pending = Decision(table.turn, table.seat, phase, pos)
        if pending is not None:
            pending.played.append(nxt)


def _decision_at(stage: str, prev: str | None, nxt: dict) -> str | None:
    """The decision the next action starts, if it starts one."""
    na = nxt["act"]
    if stage == "predraw" and (na == "take_pile" or (na == "draw" and prev != "red3")):
        return "draw"
    if stage == "meld" and na in MELD_ACTS:
        return "meld"
    if stage == "meld" and na == "discard":
        return "discard"
    return None


def _closes(d: Decision, act: str) -> bool:
    """Whether the action just played ends decision ``d``'s actions (``d.played`` holds them): a
    closed pile's capture ends with its top card's meld."""
    return not (act == "take_pile" and d.position.rules.pile_closed)


def decisions_of(log: dict, seat: int | None = None) -> list[Decision]:
    """The decisions of ``seat`` (all seats when None).  A discard is preceded by the meld phase's
    stop (a meld decision that played no meld, at the same position)."""
    out = []
    for d in decisions(log):
        if seat is not None and d.seat != seat:
            continue
        if d.phase == "discard":
            out.append(Decision(d.turn, d.seat, "meld", _as_phase(d.position, "meld"), [], d.position))
        out.append(d)
    return out


def _as_phase(p: Position, phase: str) -> Position:
    import dataclasses

    return dataclasses.replace(p, phase=phase)


def position_at(log: dict, turn: int, phase: str = "draw", seat: int | None = None) -> Position:
    """The position of the deal ``log`` at the first ``phase`` decision of turn ``turn`` (with
    ``seat``: of that seat's first turn from ``turn`` on).

    Raises
    ------
    ValueError
        If the deal has no such decision (it ended first, or the turn had none of that phase:
        a turn that went out by melding has no discard).
    """
    turns_seen = {}
    for d in decisions_of(log, seat):
        turns_seen.setdefault(d.turn, d.seat)
        if d.turn >= turn and d.phase == phase and (seat is not None or d.turn == turn):
            return d.position
    last = max(turns_seen) if turns_seen else -1
    who = f"seat {seat}" if seat is not None else "the seat to move"
    if turn > last:
        raise ValueError(f"the deal has no {phase} decision of {who} at turn {turn} or later (its last turn is {last})")
    raise ValueError(f"turn {turn} has no {phase} decision of {who} (a turn that goes out by melding has no discard)")
