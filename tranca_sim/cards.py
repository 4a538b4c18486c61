"""Card encoding and notation.

A card *kind* is an integer ``k = suit * 13 + (rank - 1)`` for the 52 suited
cards (rank 1 = ace ... 13 = king; suits ordered clubs, diamonds, hearts,
spades, so clubs and spades are black) and ``k = 52`` for every joker.
Hands, mortos and melds are count rows over ``N_KINDS = 53`` kinds.

A *physical* card is an integer ``0..107`` used in deck orders: cards
``0..103`` are two 52-card decks (``c % 52`` is the kind) and ``104..107``
are the four jokers.  Presets without jokers use a 104-card pack.

Notation (used by logs, the replay and the referee): rank ``A 2 .. 10 J Q K``
followed by suit ``C D H S`` (``KH``, ``10D``, ``2C``), and ``JK`` for a joker.
"""

from __future__ import annotations

import numpy as np

N_KINDS = 53
JOKER = 52
CLUBS, DIAMONDS, HEARTS, SPADES = 0, 1, 2, 3
SUITS = "CDHS"
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

#: kinds of the four threes
THREE_C = CLUBS * 13 + 2
THREE_D = DIAMONDS * 13 + 2
THREE_H = HEARTS * 13 + 2
THREE_S = SPADES * 13 + 2


def kind(rank: int, suit: int) -> int:
    """Kind of the card of ``rank`` (1..13) and ``suit`` (0..3)."""
    if not 1 <= rank <= 13 or not 0 <= suit <= 3:
        raise ValueError(f"no card with rank {rank} and suit {suit}")
    return suit * 13 + rank - 1


def rank_of(k: int) -> int:
    """Rank 1..13 of a suited kind; 0 for the joker."""
    return 0 if k == JOKER else k % 13 + 1


def suit_of(k: int) -> int:
    """Suit 0..3 of a suited kind; -1 for the joker."""
    return -1 if k == JOKER else k // 13


def kind_of_physical(c: int) -> int:
    """Kind of physical card ``c`` (0..107)."""
    return JOKER if c >= 104 else c % 52


def to_str(k: int) -> str:
    """Notation of kind ``k``: ``'KH'``, ``'10D'``, ``'JK'``."""
    if k == JOKER:
        return "JK"
    if not 0 <= k < 52:
        raise ValueError(f"no card kind {k}")
    return RANKS[k % 13] + SUITS[k // 13]


def parse(text: str) -> int:
    """Kind of a card written in notation (case-insensitive).

    Raises
    ------
    ValueError
        If ``text`` is not a card: ``"unknown card '1X'"``.
    """
    t = text.strip().upper()
    if t == "JK":
        return JOKER
    if len(t) >= 2 and t[-1] in SUITS and t[:-1] in RANKS:
        return SUITS.index(t[-1]) * 13 + RANKS.index(t[:-1])
    raise ValueError(f"unknown card {text!r}")


def parse_many(text: str | list[str]) -> list[int]:
    """Kinds of a space-separated string or list of notations."""
    items = text.split() if isinstance(text, str) else text
    return [parse(s) for s in items]


def is_wild_kind(k: int) -> bool:
    """Jokers and 2s are wild (VARIANTS.md decision 1)."""
    return k == JOKER or (k < 52 and k % 13 == 1)


def is_red_three(k: int) -> bool:
    return k in (THREE_D, THREE_H)


def is_black_three(k: int) -> bool:
    return k in (THREE_C, THREE_S)


def pack_counts(n_jokers: int) -> np.ndarray:
    """Count of each kind in the pack: two decks plus ``n_jokers`` jokers.

    Returns ``int64[N_KINDS]``.
    """
    c = np.full(N_KINDS, 2, dtype=np.int64)
    c[JOKER] = n_jokers
    return c


def counts_to_cards(counts) -> list[str]:
    """Notation list of a count row, in kind order."""
    out = []
    for k, n in enumerate(counts):
        out.extend([to_str(k)] * int(n))
    return out
