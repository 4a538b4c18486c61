"""Rule sets as data.

A :class:`Rules` is a frozen dataclass; a *preset* is a named ``Rules``.
:meth:`Rules.to_array` packs it into an ``int64`` vector that the numba
kernels read through the ``R_*`` index constants below, so a variant is a
switch in that vector, never a fork of the engine.

Every field cites its source (a seed file in ``../shared/seeds`` and the item
of ``../shared/VARIANTS.md`` that settles it); the full table is in
``docs/rules.md``.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ._plural import spelled
from .cards import JOKER, N_KINDS

# ---- layout of the int64 rule vector read by the kernels ---------------
R_N_SEATS = 0
R_HAND_SIZE = 1
R_MORTO_SIZE = 2
R_N_JOKERS = 3
R_MELD_SETS = 4
R_MELD_RUNS = 5
R_MAX_WILDS = 6
R_MIN_NATURALS = 7
R_PILE_CLOSED = 8
R_LOCK_WILD = 9
R_LOCK_BLACK3 = 10
R_THREES_SPECIAL = 11
R_BLACK3_GOING_OUT = 12
R_GO_OUT_CLEAN = 13
R_STOCK_OUT = 14
R_CANASTA_SIZE = 15
R_CLEAN_BONUS = 16
R_DIRTY_BONUS = 17
R_GO_OUT_BONUS = 18
R_EM_CIMA = 19
R_EM_CIMA_BONUS = 20
R_MORTO_PENALTY = 21
R_RED3_VALUE = 22
R_TURN_UP = 23
R_FIRST_REDRAW = 24
R_INDIRECT_VOID = 25
R_SEVERAL_PER_RANK = 26
R_MORTOS_FACE_UP = 27
R_MAX_TURNS = 28
R_N_PARTNERS = 29
R_REDISCARD = 30  # 1: the card taken from a one-card open pile may be discarded again that turn
# slots 31..47 are reserved for the options of issue 8 (runs-only, special canastas, solo players,
# matches); unused slots stay 0
R_SEVERAL_RUNS = 34  # 1: a side may hold several runs of one suit (E19); 0: one run a suit
R_RUN_WILD_MOVES = 35  # 1: the natural of a wild's place in a run replaces it, the wild moves to an end (E21)
R_MORTO_STOCK_SIDE = (
    31  # stock_out=1, both mortos untaken: 0 the drawing side's morto becomes the stock, 1 the other's
)
R_MORTO_STOCK_TAKEN = 32  # 1: a side whose morto became the stock counts as having taken it (E23)
R_SPECIAL_CANASTAS = 33  # 1: clean A-K run 500, clean A..A run 1000 instead of clean_bonus (004)
R_FIRST_MELD_MIN = (
    41  # card points a side's first meld(s) of a deal must total once it is at R_FIRST_MELD_FROM
)
R_FIRST_MELD_FROM = (
    42  # match score from which the minimum applies (resolved: never 0 when the minimum is on)
)
R_MATCH_TARGET = 43  # points that end a match (VARIANTS decision 15)
R_MAX_MATCH_DEALS = 44  # engine safety net: a match still undecided after this many deals ends undecided
R_N_SIDES = 47  # sides: 2 (four seats in two partnerships, or two solo players) or 3 (three solo players)
R_VALUES = 48  # R_VALUES + kind -> card value in points
R_LEN = R_VALUES + N_KINDS + 1

STOCK_OUT_PLAY_ON = 0  # 000 / decision 14: no drawing, play on while the pile can be taken
STOCK_OUT_MORTO = 1  # 002/003/004: untaken morto becomes the stock, else the deal ends

#: 004 Common variations "Special canastras": "500 and 1,000 points are common"
SPECIAL_AK_BONUS = 500  # a clean run from the low ace to the king (13 cards)
SPECIAL_AA_BONUS = 1000  # a clean run from ace to ace (14 cards)

# ---- card value tables (VARIANTS.md "Card values") ---------------------
#: rank -> value, index 0 = joker, 1 = ace ... 13 = king
VALUES_000 = (50, 20, 20, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
VALUES_003 = (0, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10)
VALUES_004 = (20, 15, 10, 5, 5, 5, 5, 5, 10, 10, 10, 10, 10, 10)
VALUE_TABLES = {"000": VALUES_000, "003": VALUES_003, "004": VALUES_004}


#: (option, lowest, highest) for the integer options: the kernels and the scores are int32/int64,
#: and outside these bounds a rule set stops being a game (a new meld is three cards, so
#: min_naturals 4+ could never meld; a morto of one or two cards can strand a player)
_INT_RANGES = (
    ("hand_size", 3, 15),
    ("morto_size", 3, 15),
    ("max_wilds", 0, 3),
    ("min_naturals", 2, 3),
    ("canasta_size", 3, 14),
    ("clean_bonus", 0, 100_000),
    ("dirty_bonus", 0, 100_000),
    ("going_out_bonus", 0, 100_000),
    ("em_cima_bonus", 0, 100_000),
    ("morto_penalty", 0, 100_000),
    ("red3_value", 0, 100_000),
    ("match_target", 1, 10_000_000),
    ("first_meld_min", 0, 10_000),
    ("first_meld_from", 0, 10_000_000),
    ("max_match_deals", 1, 1000),
    ("max_turns", 10, 100_000),
)


class RulesError(ValueError):
    """An unknown preset or option, or a combination of options that cannot be played."""


@dataclass(frozen=True)
class Rules:
    """One playable rule set.

    Attributes are documented with their source in ``docs/rules.md``; the
    defaults are the ``tranca`` preset (seed ``000_95ec226e9cdd732e.txt``).
    """

    name: str = "tranca"
    n_seats: int = 4  # 000 "Players": 4 in two partnerships opposite; 2 or 3 solo players (000 variations)
    partnerships: bool = True  # 000; False for tranca-2p/3p (solo players, each with an own morto)
    hand_size: int = 11  # 000 Setup 3
    morto_size: int = 11  # 000 Setup 4
    n_jokers: int = 4  # 000 "Card Deck": 108 cards
    meld_sets: bool = True  # 000 Gameplay 7: same-rank melds
    meld_runs: bool = False  # 002/003/004 and tranca-carioca: same-suit runs
    max_wilds: int = 2  # 000 Gameplay 7; VARIANTS decision 2
    min_naturals: int = 2  # 000 Gameplay 7; VARIANTS decision 2
    pile_closed: bool = True  # 000 Gameplay 3; VARIANTS decision 4
    rediscard_one_card_pile: bool = False  # E13: the card taken from a one-card open pile stays that turn
    lock_by_wild: bool = True  # 000 Gameplay 4; VARIANTS decision 3
    lock_by_black3: bool = True  # 000 Gameplay 4/6; VARIANTS decision 3
    threes_special: bool = True  # 000 Gameplay 5/6; VARIANTS decisions 7, 8
    black3_on_going_out: bool = True  # 000 Gameplay 6; VARIANTS decision 8
    go_out_needs_clean: bool = False  # 000 Gameplay 11 (any canasta); VARIANTS decision 10
    stock_out: int = STOCK_OUT_PLAY_ON  # 000 Gameplay 12; VARIANTS decision 14
    morto_stock_side: int = 0  # stock_out=1, both mortos untaken: 0 the drawing side's, 1 the other's (E22)
    morto_stock_taken: bool = False  # a morto turned stock counts as taken: may go out, no penalty (E23)
    special_canastas: bool = False  # 004 Common variations "Special canastras": clean A-K 500, A..A 1000
    canasta_size: int = 7  # 000 Gameplay 8
    clean_bonus: int = 200  # 000 Scoring
    dirty_bonus: int = 100  # 000 Scoring
    going_out_bonus: int = 100  # 000 Scoring
    em_cima: bool = True  # 000 Scoring; VARIANTS decision 11
    em_cima_bonus: int = 200  # 000 Scoring
    morto_penalty: int = 100  # 000 Scoring; VARIANTS decision 12 (0 switches it off)
    red3_value: int = 100  # 000 Gameplay 5 / Scoring
    turn_up_first_discard: bool = True  # 000 Setup 6-7; VARIANTS decision 13
    first_player_redraw: bool = False  # 003; VARIANTS decision 13
    indirect_morto_void: bool = False  # 002 "Detalle"; VARIANTS decision 9
    several_melds_per_rank: bool = True  # VARIANTS decision 5
    several_runs_per_suit: bool = True  # E19: several runs of one suit for a side (with meld_runs)
    run_wild_moves: bool = False  # E18 (off): a wild keeps its place in a run; on: E21
    mortos_face_up: bool = False  # 000 variation "Tranca Aberta"
    card_values: str = "000"  # VARIANTS "Card values"
    match_target: int = 3000  # 000 Objective; VARIANTS decision 15
    first_meld_min: int = 0  # 004 Variations "Minimum points to lay down" (75); 0 = off (E25)
    first_meld_from: int = (
        0  # 004: "1,500 points or more" in a game to 3,000; 0 = half the match target (E25)
    )
    max_match_deals: int = 200  # engine safety net, not a rule: a match undecided after it ends undecided
    max_turns: int = 1000  # engine safety net, not a rule: a deal past it ends as "turn_limit"
    description: str = field(default="", compare=False)

    # ------------------------------------------------------------------
    def validate(self) -> Rules:
        """Check the combination of options; return ``self``.

        Raises
        ------
        RulesError
            With one readable sentence naming the offending option.
        """
        if (self.n_seats, self.partnerships) not in ((4, True), (2, False), (3, False)):
            raise RulesError(
                f"{self.name}: the table is 4 players in two partnerships (n_seats=4, partnerships=true) "
                f"or 2 or 3 solo players (n_seats=2 or 3, partnerships=false), "
                f"got n_seats={self.n_seats}, partnerships={spelled(self.partnerships)}"
            )
        if not self.meld_sets and not self.meld_runs:
            raise RulesError(
                f"{self.name}: a rule set needs same-rank melds or runs (meld_sets or meld_runs)"
            )
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.type in ("int", "bool") and (type(v) is not (int if f.type == "int" else bool)):
                want = "true or false" if f.type == "bool" else "a whole number"
                raise RulesError(f"{self.name}: rule option {f.name} must be {want}, got {spelled(v)}")
        for key, lo, hi in _INT_RANGES:
            v = getattr(self, key)
            if not lo <= v <= hi:
                raise RulesError(f"{self.name}: rule option {key} must be {lo}..{hi}, got {v}")
        if self.n_jokers not in (0, 4):
            raise RulesError(f"{self.name}: n_jokers must be 0 or 4, got {self.n_jokers}")
        pack = 104 + self.n_jokers
        if self.n_seats * self.hand_size + self.n_sides * self.morto_size + 2 > pack:
            raise RulesError(f"{self.name}: hands and mortos need more than the {pack} cards of the pack")
        if not 0 <= self.max_wilds <= 3:
            raise RulesError(f"{self.name}: max_wilds must be 0..3, got {self.max_wilds}")
        if self.card_values not in VALUE_TABLES:
            raise RulesError(f"{self.name}: card_values must be one of {sorted(VALUE_TABLES)}")
        if self.stock_out not in (STOCK_OUT_PLAY_ON, STOCK_OUT_MORTO):
            raise RulesError(f"{self.name}: stock_out must be 0 (play on) or 1 (morto becomes stock)")
        if self.morto_stock_side not in (0, 1):
            raise RulesError(
                f"{self.name}: morto_stock_side must be 0 (the drawing side's morto) or 1 (the other side's), "
                f"got {self.morto_stock_side}"
            )
        if self.special_canastas and not self.meld_runs:
            raise RulesError(f"{self.name}: special_canastas are runs (A-K, A..A): they need meld_runs=true")
        if self.special_canastas and self.threes_special:
            raise RulesError(
                f"{self.name}: special_canastas need plain 3s (threes_special=false): with special 3s runs "
                "start at the 4 (E16), so no run goes from the ace to the king"
            )
        if self.n_jokers and self.card_values == "003":
            raise RulesError(f"{self.name}: the 003 card values have no joker value; use n_jokers=0")
        return self

    def replace(self, **changes) -> Rules:
        """A copy with some options changed, validated.

        Raises
        ------
        RulesError
            For an unknown option name or a bad combination.
        """
        names = {f.name for f in dataclasses.fields(self)}
        bad = sorted(set(changes) - names)
        if bad:
            raise RulesError(f"unknown rule option(s) {', '.join(bad)}; known: {', '.join(sorted(names))}")
        return dataclasses.replace(self, **changes).validate()

    @property
    def meld_minimum_from(self) -> int:
        """The match score from which a side's first meld of a deal must reach ``first_meld_min``
        card points: ``first_meld_from``, or half the match target when it is 0 (004 Variations:
        1500 in a game to 3000; E25)."""
        return self.first_meld_from if self.first_meld_from > 0 else (self.match_target + 1) // 2

    def first_meld_minimum(self, match_score: int) -> int:
        """Card points a side at ``match_score`` must lay in its first meld(s) of a deal: ``first_meld_min``
        from :attr:`meld_minimum_from` on, else 0 (004 Variations "Minimum points to lay down"; E25)."""
        if self.first_meld_min > 0 and match_score >= self.meld_minimum_from:
            return self.first_meld_min
        return 0

    @property
    def n_sides(self) -> int:
        """Sides scoring apart: 2 partnerships of 2, or one per solo player (2 or 3)."""
        return self.n_seats // 2 if self.partnerships else self.n_seats

    def side_of(self, seat: int) -> int:
        """The side of ``seat``: seats 0 and 2 are side A in partnerships, a solo player is its own side."""
        return seat % self.n_sides

    @property
    def pack_size(self) -> int:
        return 104 + self.n_jokers

    def card_value(self, kind: int) -> int:
        """Points of one card of ``kind`` under this rule set."""
        table = VALUE_TABLES[self.card_values]
        return table[0] if kind == JOKER else table[kind % 13 + 1]

    def to_array(self) -> np.ndarray:
        """The rule vector for the kernels: ``int64[R_LEN]`` (layout: the ``R_*`` constants)."""
        self.validate()
        a = np.zeros(R_LEN, dtype=np.int64)
        a[R_N_SEATS] = self.n_seats
        a[R_N_PARTNERS] = 2 if self.partnerships else 1
        a[R_N_SIDES] = self.n_sides
        a[R_HAND_SIZE] = self.hand_size
        a[R_MORTO_SIZE] = self.morto_size
        a[R_N_JOKERS] = self.n_jokers
        a[R_MELD_SETS] = self.meld_sets
        a[R_MELD_RUNS] = self.meld_runs
        a[R_MAX_WILDS] = self.max_wilds
        a[R_MIN_NATURALS] = self.min_naturals
        a[R_PILE_CLOSED] = self.pile_closed
        a[R_REDISCARD] = self.rediscard_one_card_pile
        a[R_LOCK_WILD] = self.lock_by_wild
        a[R_LOCK_BLACK3] = self.lock_by_black3
        a[R_THREES_SPECIAL] = self.threes_special
        a[R_BLACK3_GOING_OUT] = self.black3_on_going_out
        a[R_GO_OUT_CLEAN] = self.go_out_needs_clean
        a[R_STOCK_OUT] = self.stock_out
        a[R_CANASTA_SIZE] = self.canasta_size
        a[R_CLEAN_BONUS] = self.clean_bonus
        a[R_DIRTY_BONUS] = self.dirty_bonus
        a[R_GO_OUT_BONUS] = self.going_out_bonus
        a[R_EM_CIMA] = self.em_cima
        a[R_EM_CIMA_BONUS] = self.em_cima_bonus
        a[R_MORTO_PENALTY] = self.morto_penalty
        a[R_RED3_VALUE] = self.red3_value
        a[R_TURN_UP] = self.turn_up_first_discard
        a[R_FIRST_REDRAW] = self.first_player_redraw
        a[R_INDIRECT_VOID] = self.indirect_morto_void
        a[R_SEVERAL_PER_RANK] = self.several_melds_per_rank
        a[R_SEVERAL_RUNS] = self.several_runs_per_suit
        a[R_RUN_WILD_MOVES] = self.run_wild_moves
        a[R_MORTOS_FACE_UP] = self.mortos_face_up
        a[R_MAX_TURNS] = self.max_turns
        a[R_MORTO_STOCK_SIDE] = self.morto_stock_side
        a[R_MORTO_STOCK_TAKEN] = self.morto_stock_taken
        a[R_SPECIAL_CANASTAS] = self.special_canastas
        a[R_FIRST_MELD_MIN] = self.first_meld_min
        a[R_FIRST_MELD_FROM] = self.meld_minimum_from
        a[R_MATCH_TARGET] = self.match_target
        a[R_MAX_MATCH_DEALS] = self.max_match_deals
        for k in range(N_KINDS):
            a[R_VALUES + k] = self.card_value(k)
        return a


TRANCA = Rules(
    name="tranca",
    description="Tranca as the English 'How to Play Tranca' rules give it: same-rank melds, 4 jokers, two wilds a meld, closed pile locked by a wild or black 3.",
)

PRESETS: dict[str, Rules] = {
    "tranca": TRANCA,
    "tranca-aberta": dataclasses.replace(
        TRANCA,
        name="tranca-aberta",
        mortos_face_up=True,
        description="Tranca with the mortos dealt face up (the 'Tranca Aberta' variation).",
    ),
    "tranca-paulista": dataclasses.replace(
        TRANCA,
        name="tranca-paulista",
        max_wilds=1,
        match_target=5000,
        description="Tranca to 5000 with at most one wild a meld (the 'Tranca Paulista' variation; its 'stricter wild-card rules' read as one wild).",
    ),
    "tranca-carioca": dataclasses.replace(
        TRANCA,
        name="tranca-carioca",
        meld_runs=True,
        description=(
            "Tranca with same-suit runs as well as same-rank melds (the 'Tranca Carioca' variation); "
            "runs from the 4 to the high ace, since 3s stay special."
        ),
    ),
    "tranca-sp": dataclasses.replace(
        TRANCA,
        name="tranca-sp",
        n_jokers=0,  # 003 Convenções: "Não tem curingão (Joker)"
        meld_runs=True,  # 003: runs "do mesmo naipe" and "Pode trinca (lavadeira)"
        max_wilds=1,  # VARIANTS Presets (002/003/004: one wild a meld)
        lock_by_wild=False,  # 003 "3 preto": only a black 3 "tranca" the pile
        black3_on_going_out=False,  # 003 "3 preto": black 3s "não podem ser utilizados em jogos"
        go_out_needs_clean=True,  # VARIANTS 10: 003's later, specific rule
        em_cima=False,  # VARIANTS 11: em cima is 000's
        turn_up_first_discard=False,  # 003 O jogo; VARIANTS 13: the first discard starts the pile
        first_player_redraw=True,  # 003 O jogo; VARIANTS 13; E20
        stock_out=STOCK_OUT_MORTO,  # 003 silent; VARIANTS 14: as tranca-br (004's rule); E22, E23
        card_values="003",  # 003 Valor em pontos: 10 a card
        description=(
            "Tranca of the Portuguese Sao Paulo conventions: runs and same-rank melds, no jokers, one wild a "
            "meld, pile locked by a black 3 only, clean canasta to go out, 10 points a card, the first "
            "player may throw back the first card drawn and draw again."
        ),
    ),
    "tranca-2p": dataclasses.replace(
        TRANCA,
        name="tranca-2p",
        n_seats=2,
        partnerships=False,
        description=(
            "Two-handed Tranca: two solo players, each with an own 11-card morto; hand of 11 "
            "(hand_size=9 or 10 for the shrunk hands some tables play)."
        ),
    ),
    "tranca-3p": dataclasses.replace(
        TRANCA,
        name="tranca-3p",
        n_seats=3,
        partnerships=False,
        clean_bonus=100,
        dirty_bonus=50,
        match_target=1500,
        description=(
            "Three-player Tranca: three solo players, each with an own morto; "
            "canasta bonuses (clean 100, dirty 50) and match target (1500) halved."
        ),
    ),
}

#: each preset's source: the seed file and the VARIANTS.md items that settle it (docs/rules.md section 4);
#: every preset in PRESETS needs an entry (tests/test_rules_sp.py)
PRESET_SOURCES: dict[str, str] = {
    "tranca": "000_95ec226e9cdd732e.txt; VARIANTS Presets",
    "tranca-aberta": "000_95ec226e9cdd732e.txt Common Variations 'Tranca Aberta'; VARIANTS Presets",
    "tranca-paulista": "000_95ec226e9cdd732e.txt Common Variations 'Tranca Paulista'; VARIANTS Presets",
    "tranca-carioca": "000_95ec226e9cdd732e.txt Common Variations 'Tranca Carioca'; VARIANTS Presets, 1, 6",
    "tranca-sp": "003_16d360cb3b2c0dc5.txt; VARIANTS Presets, 10, 11, 13, 14",
    # the other presets of VARIANTS.md, for when they are played
    "tranca-br": "002_8e477453f063f1ab.txt; VARIANTS Presets, 8, 9, 10, 13, 14",
    "buraco": "004_083ae37bb3863d19.txt; VARIANTS Presets, 4, 13, 14",
    "buraco-fechado": "004_083ae37bb3863d19.txt Common variations 'Closed buraco'; VARIANTS Presets, 4",
    "tranca-2p": "000_95ec226e9cdd732e.txt Players, Common Variations 'Two-handed Tranca'; VARIANTS Presets",
    "tranca-3p": "000_95ec226e9cdd732e.txt Players, Common Variations 'Three-player Tranca'; VARIANTS Presets",
}


def differences(rules: Rules, base: Rules = TRANCA) -> list[tuple[str, object]]:
    """``[(option, value), ...]``: the rule options of ``rules`` that differ from ``base`` (the
    ``tranca`` preset by default), in field order; ``name`` and ``description`` left out."""
    return [
        (f.name, getattr(rules, f.name))
        for f in dataclasses.fields(rules)
        if f.name not in ("name", "description") and getattr(rules, f.name) != getattr(base, f.name)
    ]


#: ``buraco`` (open): every field that differs from ``tranca`` cites 004 (docs/rules.md section 4)
BURACO = dataclasses.replace(
    TRANCA,
    name="buraco",
    n_jokers=0,  # 004 Setup and deal: "two decks together without the jokers ... 104 cards"
    meld_sets=False,  # 004 How to play: "A meld is a run of three or more cards in a row of the same suit"
    meld_runs=True,  # 004 How to play; VARIANTS 6
    max_wilds=1,  # 004 How to play: "Each meld takes only one wild card"; VARIANTS 2
    pile_closed=False,  # 004 How to play: "you may take the discard pile whenever it has cards"; VARIANTS 4
    lock_by_wild=False,  # 004: no lock (VARIANTS Presets "lock by: none")
    lock_by_black3=False,  # 004: no lock; 3s are plain cards
    threes_special=False,  # 004 Card values: "Cards from 3 to 7: 5 points each"; VARIANTS Presets
    black3_on_going_out=False,  # 004: no black 3s (plain cards)
    go_out_needs_clean=True,  # 004 How to play: "at least one clean canastra"; VARIANTS 10
    stock_out=STOCK_OUT_MORTO,  # 004 How to play "that morto becomes the new stock"; VARIANTS 14; E22, E23
    em_cima=False,  # VARIANTS 11: em cima is 000's; 004 has only "Going out: 100 points"
    turn_up_first_discard=False,  # 004 Setup and deal: "The discard pile starts empty"; VARIANTS 13
    card_values="004",  # 004 Card values and scoring; VARIANTS Card values
    match_target=3000,  # 004 Object of the game: "usually 3,000 points"
    description=(
        "Open Buraco: same-suit runs only, no jokers, one wild a run, open pile, no lock, "
        "plain 3s, a clean canasta to go out, an untaken morto becomes the stock."
    ),
)

PRESETS["buraco"] = BURACO
PRESETS["buraco-fechado"] = dataclasses.replace(
    BURACO,
    name="buraco-fechado",
    meld_sets=True,  # 004 Common variations "Closed buraco": "also allows melds of three or more cards of the same rank"
    pile_closed=True,  # 004 "Closed buraco": "take the discard pile only by using its top card in a meld right away"
    go_out_needs_clean=False,  # 004 "Closed buraco": "any canastra, clean or dirty, is enough to go out"
    description=(
        "Closed Buraco: as buraco with same-rank melds too, a closed pile (its top "
        "card melded at once, no lock) and any canasta to go out."
    ),
)
PRESETS["tranca-br"] = dataclasses.replace(
    TRANCA,
    name="tranca-br",
    n_jokers=0,  # 002 Descripción: "Dos de 52 cartas"; VARIANTS Presets
    meld_runs=True,  # 002 Dinámica: "ordenadas, del mismo palo u ordenadas con el mismo valor"
    max_wilds=1,  # VARIANTS Presets (002 examples hold one 2 a meld: "Dama-dos-As", "cinco, cinco y dos")
    lock_by_wild=False,  # 002 Tres Negro: only the black 3 "bloquea"; VARIANTS Presets "black 3 on top"
    black3_on_going_out=False,  # 002 Tres Negro: "No se puede utilizar para hacer un juego"; VARIANTS 8
    go_out_needs_clean=True,  # 002 Juego Tranca: "necesita al menos una canasta limpia"; VARIANTS 10
    stock_out=STOCK_OUT_MORTO,  # 002 silent; VARIANTS 14 applies 004's rule
    em_cima=False,  # VARIANTS 11: em cima is off in tranca-br (002 has only the 100 of "cierre")
    turn_up_first_discard=False,  # 002 Juego Tranca: the first discard "empieza la papelera"; VARIANTS 13
    indirect_morto_void=True,  # 002 Detalle: "el muerto deberá ser pagado"; VARIANTS 9
    card_values="004",  # 002 has no card table; VARIANTS Presets: 004 table
    description=(
        "Tranca as the Spanish 'Reglas del Juego Tranca' give it: runs and same-rank melds, 2s wild and no jokers, one wild a meld, closed "
        "pile locked by a black 3 only, a clean canasta to go out, the indirect morto paid if the "
        "opponents go out first, an untaken morto becomes the stock (as in Buraco)."
    ),
)

#: presets of VARIANTS.md that later engine versions will play
PLANNED_PRESETS: tuple[str, ...] = ()


def get_preset(name: str) -> Rules:
    """The named preset.

    Raises
    ------
    RulesError
        For an unknown name, listing the known ones (and saying when the
        preset exists in VARIANTS.md but is not played yet).
    """
    if name in PRESETS:
        return PRESETS[name]
    if name in PLANNED_PRESETS:
        raise RulesError(
            f"preset {name!r} is in VARIANTS.md but not played by this engine version yet; "
            f"available: {', '.join(PRESETS)}"
        )
    raise RulesError(f"unknown preset {name!r}; available: {', '.join(PRESETS)}")
