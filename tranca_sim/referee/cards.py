"""The referee's own card tables and card classes, on notation strings.

Card point values are copied from VARIANTS "Card values"; nothing here is
shared with the compiled engine (only the notation of :mod:`tranca_sim.engine.cards`).
"""

from __future__ import annotations

from collections import Counter

from ..cards import parse, to_str
from ..rules import PRESETS, Rules

SIDES = ("A", "B", "C")

# ---- card point tables (VARIANTS.md "Card values"), by rank; the referee's own copy ----
_VALUES = {
    "000": {"A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
            "7": 5, "6": 5, "5": 5, "4": 5, "3": 5, "2": 20, "JK": 50},
    "003": {**{r: 10 for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")}, "JK": None},
    "004": {"A": 15, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
            "7": 5, "6": 5, "5": 5, "4": 5, "3": 5, "2": 10, "JK": 20},
}  # fmt: skip

#: the seed file each preset is written from (VARIANTS.md "Presets"); any other rule set is 000's
_SEED_OF = {"tranca-br": "002", "tranca-sp": "003", "buraco": "004", "buraco-fechado": "004"}

#: where each seed states a meld rule the referee cites (seed file's section; VARIANTS.md decision)
_CITE = {
    "deck": {"000": "000 Card Deck", "002": "002 Descripción", "003": "003 Convenções",
             "004": "004 Setup and deal"},
    "jokers": {"000": "000 Card Deck", "002": "002 Descripción", "003": "003 Convenções",
               "004": "004 Common variations 'Buraco with jokers'"},
    "min_cards": {"000": "000 Gameplay 7", "002": "002 Descripción", "003": "003 O jogo",
                  "004": "004 How to play"},
    "one_rank": {"000": "000 Gameplay 7", "002": "002 Descripción", "003": "003 Tripas ou lavadeiras",
                 "004": "004 Common variations 'Closed buraco'"},
    "wilds": {"000": "000 Gameplay 7, VARIANTS 2", "002": "002 Descripción, VARIANTS 2",
              "003": "003 Convenções, VARIANTS 2", "004": "004 How to play, VARIANTS 2"},
}  # fmt: skip


def seed_of(rules: Rules) -> str:
    """The seed file (``"000"``, ``"002"``, ``"003"``, ``"004"``) a rule set's preset is written
    from (VARIANTS.md "Presets": ``tranca-br`` 002, ``tranca-sp`` 003, the Buraco presets 004,
    every ``tranca`` preset 000)."""
    return _SEED_OF.get(rules.name, "000")


def cite(rules: Rules, topic: str) -> str:
    """The source of a meld rule (``topic``: ``"deck"``, ``"jokers"``, ``"min_cards"``,
    ``"one_rank"``, ``"wilds"``) in the seed of ``rules``' preset: ``cite(buraco, "wilds")`` is
    ``"004 How to play, VARIANTS 2"`` ("each meld takes only one wild card")."""
    return _CITE[topic][seed_of(rules)]


_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = "CDHS"


# ---- card classes, on notation strings ------------------------------------------------
def _rank(c: str) -> str:
    return "JK" if c == "JK" else c[:-1]


def _wild(c: str) -> bool:
    return c == "JK" or c[:-1] == "2"


def _red3(c: str) -> bool:
    return c in ("3D", "3H")


def _black3(c: str) -> bool:
    return c in ("3C", "3S")


def _card(text) -> str:
    """Canonical notation of one card; ValueError naming it if it is not a card."""
    return to_str(parse(text if isinstance(text, str) else repr(text)))


def _cards(x) -> list[str]:
    """Canonical notations of a list or space-separated string of cards."""
    if isinstance(x, str):
        x = x.split()
    return [_card(c) for c in x]


def _pack(rules: Rules) -> Counter:
    p = Counter({r + s: 2 for r in _RANKS for s in _SUITS})
    if rules.n_jokers:
        p["JK"] = rules.n_jokers
    return p


def _value(c: str, rules: Rules) -> int:
    table = _VALUES.get(rules.card_values)
    if table is None:
        raise ValueError(f"unknown card value table {rules.card_values!r}")
    v = table[_rank(c)]
    if v is None:
        raise ValueError(f"card value table {rules.card_values!r} gives no value for {c}")
    return v


def _default_rules() -> Rules:
    return PRESETS["tranca"]
