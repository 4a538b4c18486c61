"""The card encoding and notation of :mod:`tranca_sim.cards`, by the name the engine's modules and
a strategy's file import (docs/strategies.md: ``from tranca_sim.engine.cards import N_KINDS``).

The encoding lives below the rules (:mod:`tranca_sim.rules` and the referee use it too); the
engine and the strategies take it from here.
"""

from ..cards import (
    CLUBS,
    DIAMONDS,
    HEARTS,
    JOKER,
    N_KINDS,
    RANKS,
    SPADES,
    SUITS,
    THREE_C,
    THREE_D,
    THREE_H,
    THREE_S,
    counts_to_cards,
    is_black_three,
    is_red_three,
    is_wild_kind,
    kind,
    kind_of_physical,
    pack_counts,
    parse,
    parse_many,
    rank_of,
    suit_of,
    to_str,
)

__all__ = [
    "CLUBS",
    "DIAMONDS",
    "HEARTS",
    "JOKER",
    "N_KINDS",
    "RANKS",
    "SPADES",
    "SUITS",
    "THREE_C",
    "THREE_D",
    "THREE_H",
    "THREE_S",
    "counts_to_cards",
    "is_black_three",
    "is_red_three",
    "is_wild_kind",
    "kind",
    "kind_of_physical",
    "pack_counts",
    "parse",
    "parse_many",
    "rank_of",
    "suit_of",
    "to_str",
]
