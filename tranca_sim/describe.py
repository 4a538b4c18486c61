"""The legal choices of a position in words, and which choice a logged decision played.

A choice (an engine action code, or a card kind for the discard) is described by playing it on a
copy of the position's state and reading what changed on the table: the melds and the hand.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .engine.cards import N_KINDS, to_str
from .position import SIDES, Position, cards_text


def _copy(st):
    return type(st)(*[a.copy() for a in st])


def _melds(st, side) -> list[Counter]:
    from .engine.state import SS_N_MELDS

    out = []
    for m in range(int(st.ss[side, SS_N_MELDS])):
        row = st.mc[side, m]
        out.append(Counter({to_str(k): int(row[k]) for k in range(N_KINDS) if row[k]}))
    return out


def _hand(st, seat) -> Counter:
    return Counter({to_str(k): int(st.hand[seat, k]) for k in range(N_KINDS) if st.hand[seat, k]})


def _cards(c: Counter) -> str:
    return cards_text(list(c.elements()))


def apply_choice(pos: Position, st, code: int):
    """A copy of ``st`` after choice ``code`` of the phase (a stock draw or a discard change
    nothing here that matters to the words)."""
    from tranca_sim.strategies.pimc_search import apply_draw, apply_meld

    from .engine.obs import A_STOCK, act_type

    s2 = _copy(st)
    rp = pos.rules.to_array()
    if pos.phase == "draw" and act_type(code) != A_STOCK:
        apply_draw(s2, rp, pos.seat, np.int32(code))
    elif pos.phase == "meld" and code >= 0:
        apply_meld(s2, rp, pos.seat, np.int32(code))
    return s2


def _meld_change(before: list[Counter], after: list[Counter]) -> list[str]:
    said = []
    for m, cards in enumerate(after):
        if m >= len(before):
            said.append(f"new meld {_cards(cards)}")
        elif cards != before[m]:
            add = cards - before[m]
            said.append(f"{_cards(add)} onto meld {m + 1} ({_cards(before[m])})")
    return said


def describe_choices(pos: Position, st, codes) -> list[str]:
    """One phrase a choice, in ``codes`` order."""
    from .engine.obs import A_STOCK, act_type

    side = pos.rules.side_of(pos.seat)
    before = _melds(st, side)
    out = []
    for code in codes:
        if pos.phase == "discard":
            out.append(f"discard {to_str(int(code))}")
        elif pos.phase == "draw" and act_type(code) == A_STOCK:
            out.append("draw from the stock")
        elif pos.phase == "meld" and code < 0:
            out.append("stop melding")
        else:
            s2 = apply_choice(pos, st, code)
            change = "; ".join(_meld_change(before, _melds(s2, side))) or "no meld"
            if pos.phase == "draw":
                top = pos.pile[-1] if pos.pile else "?"
                out.append(f"take the pile ({len(pos.pile)}, top {top}): {change}")
            else:
                out.append(change)
    return out


def played_choice(pos: Position, st, codes, played: list[dict], after: Position) -> int | None:
    """The index in ``codes`` of the choice a logged decision played (``played``: its actions,
    ``after``: the seat's view right after them), or None if no listed choice plays it."""
    from .engine.cards import parse
    from .engine.obs import A_STOCK, act_type

    if pos.phase == "discard":
        k = parse(played[0]["card"])
        return next((i for i, c in enumerate(codes) if c == k), None)
    if pos.phase == "draw" and played[0]["act"] == "draw":
        return next((i for i, c in enumerate(codes) if act_type(c) == A_STOCK), None)
    if pos.phase == "meld" and not played:
        return next((i for i, c in enumerate(codes) if c < 0), None)
    side = pos.rules.side_of(pos.seat)
    want = [Counter(m) for m in after.melds[side]]
    for i, c in enumerate(codes):
        if (pos.phase == "draw" and act_type(c) == A_STOCK) or c < 0:
            continue
        s2 = apply_choice(pos, st, c)
        if _melds(s2, side) != want:
            continue
        if pos.phase == "draw" and _hand(s2, pos.seat) != Counter(after.hand):
            continue
        return i
    return None


def side_name(pos: Position) -> str:
    return SIDES[pos.rules.side_of(pos.seat)]
