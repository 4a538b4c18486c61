"""The referee's own reading of same-suit runs, on notation strings.

Sources: seed ``000_95ec226e9cdd732e.txt`` Common Variations ("Tranca Carioca: ... sequence
melds (three or more consecutive cards in one suit)"), ``004_083ae37bb3863d19.txt`` How to play
(the ace at both ends, a 2 standing for the missing card, the suit's own 2 in its place
natural), VARIANTS.md decisions 1, 2, 6, and the engine's documented choices E16-E19
(docs/rules.md section 5).  Nothing here is shared with the compiled engine.

A run's *positions* are 1 (ace low), 2..13 (the rank) and 14 (ace high).  A run given *in
order* lists its cards from the lowest position up, a wild at the place it stands for; that is
how the deal log writes runs.  A run given in any order is read as the arrangement with the
fewest wilds (the suit's 2 natural in its own place when that is possible).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..rules import Rules
from .cards import _RANKS, _SUITS, _wild, cite

SOURCE = "000 Common Variations 'Tranca Carioca', 004 How to play, VARIANTS 6"


@dataclass(frozen=True)
class RunLayout:
    """One legal arrangement of a run: ``suit`` letter, ``low``/``high`` positions (1..14) and
    the positions where a wild stands (``wild_at``)."""

    suit: str
    low: int
    high: int
    wild_at: tuple[int, ...]


def pos_card(suit: str, p: int) -> str:
    """The natural card of ``suit`` at position ``p`` (1 and 14 are the ace)."""
    return ("A" if p in (1, 14) else _RANKS[p - 1]) + suit


def pos_name(p: int) -> str:
    return {1: "A (low)", 14: "A (high)"}.get(p) or _RANKS[p - 1]


def lowest_position(rules: Rules) -> int:
    """E16: with special 3s no run reaches position 3 (a 3 cannot be melded, 000 Gameplay 6,
    VARIANTS 8; a wild standing for it would meld it), so runs lie within 4..14."""
    return 4 if rules.threes_special else 1


def _natural_suit(c: str) -> str | None:
    return None if c == "JK" else c[-1]


def layout_at(cards: list[str], suit: str, low: int) -> RunLayout | None:
    """The arrangement of ``cards`` in order at positions ``low``.. of ``suit``, or None when a
    card is neither the natural of its position nor a wild."""
    high = low + len(cards) - 1
    if low < 1 or high > 14:
        return None
    wild_at = []
    for i, c in enumerate(cards):
        p = low + i
        if c == pos_card(suit, p):
            continue
        if _wild(c):
            wild_at.append(p)
            continue
        return None
    return RunLayout(suit, low, high, tuple(wild_at))


def _limits_reason(lay: RunLayout, rules: Rules) -> str | None:
    n = lay.high - lay.low + 1
    w = len(lay.wild_at)
    if w > rules.max_wilds:
        return f"{w} wild cards: at most {rules.max_wilds} in a meld ({cite(rules, 'wilds')}, E17)"
    if n - w < rules.min_naturals:
        return (
            f"{n - w} natural card{'s' if n - w != 1 else ''}: a run needs at least {rules.min_naturals} "
            f"naturals of its suit ({cite(rules, 'wilds')}, E17)"
        )
    if lay.low < lowest_position(rules):
        return (
            f"the run reaches {pos_name(lay.low)}: with special 3s a run cannot hold the 3 or a wild "
            "standing for it, so runs go from 4 to the high ace (000 Gameplay 6, VARIANTS 8, E16)"
        )
    return None


def _best(cands: list[RunLayout], rules: Rules) -> tuple[RunLayout | None, str | None]:
    first_reason = None
    ok = []
    for lay in cands:
        why = _limits_reason(lay, rules)
        if why is None:
            ok.append(lay)
        elif first_reason is None:
            first_reason = why
    if ok:
        return min(ok, key=lambda x: (len(x.wild_at), x.low)), None
    return None, first_reason


def ordered_run(cards: list[str], rules: Rules) -> tuple[RunLayout | None, str | None]:
    """Read ``cards`` as a run in position order (low first); (layout, None) or (None, reason)."""
    n = len(cards)
    cands = [
        lay
        for s in _SUITS
        for low in range(1, 16 - n)
        if (lay := layout_at(cards, s, low)) is not None and len(lay.wild_at) < n
    ]
    if cands:
        return _best(cands, rules)
    return None, _shape_reason(cards, rules) or (
        f"{' '.join(cards)}: in this order the cards are not a run of one suit in sequence, "
        f"each wild at the place it stands for ({SOURCE})"
    )


def any_order_run(cards: list[str], rules: Rules) -> tuple[RunLayout | None, str | None]:
    """Read ``cards`` (any order) as a run: the legal arrangement with the fewest wilds, or
    (None, reason)."""
    n = len(cards)
    why = _shape_reason(cards, rules)
    if why:
        return None, why
    nats = [c for c in cards if not _wild(c)]
    twos = [c for c in cards if _wild(c) and c != "JK"]
    suits = {_natural_suit(c) for c in nats} or {_natural_suit(c) for c in twos}
    cands = []
    for s in sorted(suits):
        for low in range(1, 16 - n):
            high = low + n - 1
            taken: set[int] = set()
            fits = True
            for c in nats:
                r = _RANKS.index(c[:-1]) + 1
                opts = [p for p in ((1, 14) if r == 1 else (r,)) if low <= p <= high and p not in taken]
                if c[-1] != s or not opts:
                    fits = False
                    break
                taken.add(opts[0])
            if not fits:
                continue
            if 2 not in taken and low <= 2 <= high and ("2" + s) in twos:
                taken.add(2)  # the suit's own 2 in its place is natural (004)
            wild_at = tuple(p for p in range(low, high + 1) if p not in taken)
            if len(wild_at) < n:
                cands.append(RunLayout(s, low, high, wild_at))
    lay, why = _best(cands, rules)
    if lay is None and why is None:
        why = _span_reason(nats, n)
    return lay, why


def _shape_reason(cards: list[str], rules: Rules) -> str | None:
    nats = [c for c in cards if not _wild(c)]
    suits = sorted({c[-1] for c in nats}, key=_SUITS.index)
    if len(suits) > 1:
        return f"naturals of suits {', '.join(suits)}: a run is cards of one suit ({SOURCE})"
    seen = set()
    for c in nats:
        if c in seen and not c.startswith("A"):
            return f"{c} twice: a run holds each card once ({SOURCE})"
        seen.add(c)
    if len(nats) > 2 and sum(1 for c in nats if c.startswith("A")) > 2:
        return f"more than two aces: a run has one ace at each end at most ({SOURCE})"
    return None


def _span_reason(nats: list[str], n: int) -> str:
    ranks = sorted({_RANKS.index(c[:-1]) + 1 for c in nats})
    wrap = ""
    if 1 in ranks and 13 in ranks and any(2 <= r <= 4 for r in ranks):
        wrap = "; the ace is low before the 2 or high after the K, never both: no wrap-around K-A-2"
    return (
        f"{n} cards cannot fill the sequence from {' '.join(_RANKS[r - 1] for r in ranks)} "
        f"(one card for each place, a wild for each missing one){wrap} (VARIANTS 6, 004 How to play)"
    )
