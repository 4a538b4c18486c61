"""The outcome schema: one row per (deal, side).

A side is a partnership of two (``tranca`` and most presets: 2 sides) or a
solo player (``tranca-2p``: 2 sides, ``tranca-3p``: 3 sides).  The kernel
fills ``int32[n_deals, n_sides, OS_LEN]`` (per side) and
``int32[n_deals, OD_LEN]`` (per deal); :func:`tranca_sim.engine.simulate_chunk`
turns them into the named columns below, and :mod:`tranca_sim.io` adds the
run-level columns and writes Parquet.  ``docs/schema.md`` is generated from
these tables (``python -m tranca_sim.schema``).
"""

from __future__ import annotations

# ---- per-side slots in the kernel output ----------------------------------
OS_SCORE = 0
OS_MELDED_POINTS = 1
OS_CANASTAS_CLEAN = 2
OS_CANASTAS_DIRTY = 3
OS_CANASTA_BONUS = 4
OS_RED3_COUNT = 5
OS_RED3_POINTS = 6
OS_GOING_OUT_BONUS = 7
OS_MORTO_PENALTY = 8
OS_HAND_PENALTY = 9
OS_WENT_OUT = 10
OS_MORTO_TAKEN = 11
OS_MORTO_TURN = 12
OS_MORTO_DIRECT = 13
OS_MORTO_SEAT = 14
OS_PILE_CAPTURES = 15
OS_PILE_CARDS = 16
OS_BLACK3_LOCKS = 17
OS_WILD_LOCKS = 18
OS_N_MELDS = 19
OS_HAND0_WILDS = 20  # hand0 = seat `side`, hand1 = seat `side + 2` (the partner; -1 at a solo table)
OS_HAND0_JOKERS = 21
OS_HAND0_RED3 = 22
OS_HAND0_BLACK3 = 23
OS_HAND1_WILDS = 24
OS_HAND1_JOKERS = 25
OS_HAND1_RED3 = 26
OS_HAND1_BLACK3 = 27
OS_ILLEGAL = 28  # diagnostic, not a file column: the side's strategy answers outside the legal choices
OS_MORTO_STOCK = 29
OS_MELD_CARDS = 30  # what the tips' manipulation checks read (issue 22; tranca_sim/lab/statistics/checks.py)
OS_THREE_CARD_MELDS = 31
OS_CLEAN_MELDS = 32
OS_FIRST_CANASTA_TURN = 33
OS_WILD_TURNS = 34
OS_FEEDING_DISCARDS = 35
OS_BLACK3_GUARD_LOCKS = 36
OS_SECOND_MELDS = 37
OS_LEN = 38

# ---- per-deal slots ---------------------------------------------------------
OD_FIRST_SEAT = 0
OD_END_REASON = 1
OD_OUT_SEAT = 2
OD_N_TURNS = 3
OD_EM_CIMA = 4
OD_ERRORS = 5
OD_MELD_FULL = 6
OD_LEN = 8

#: (column, arrow type, description); order is the Parquet column order
COLUMNS: list[tuple[str, str, str]] = [
    (
        "preset",
        "string",
        (
            "rule preset the run's rules start from; options changed with --rule are in the run metadata "
            "(load_meta(path)['rules']), not in this column"
        ),
    ),
    ("master_seed", "int64", "master seed of the run"),
    ("deal_index", "int64", "index of the deal in the run; (master_seed, deal_index) fixes the deck"),
    (
        "side",
        "int8",
        (
            "0 = side A (seats 0 and 2), 1 = side B (seats 1 and 3); at a solo table (tranca-2p, tranca-3p) "
            "the side is the player's seat, and tranca-3p has side 2 = C (three rows a deal)"
        ),
    ),
    ("strategy", "string", "strategy name playing this side"),
    ("strategy_params", "list<float64>", "the strategy's parameter row (names in docs/strategies.md)"),
    (
        "first_seat",
        "int8",
        "seat that played the first turn (deal_index % n_seats, 4 in partnerships: the deal rotates clockwise)",
    ),
    ("score", "int32", "points of the side in the deal = sum of the parts below"),
    ("melded_points", "int32", "card values of every card the side melded"),
    ("canastas_clean", "int16", "clean canastas (canasta limpa)"),
    ("canastas_dirty", "int16", "dirty canastas (canasta suja)"),
    ("canasta_bonus", "int32", "clean x clean_bonus + dirty x dirty_bonus"),
    (
        "red3_count",
        "int16",
        (
            "red 3s in the side's area at the end: dealt, drawn and morto red 3s, those still held when the "
            "deal ends included (laid then, E4); a void morto's are not (E5)"
        ),
    ),
    ("red3_points", "int32", "red3_count x red3_value (100), + if the side has a canasta, - if not"),
    (
        "going_out_bonus",
        "int32",
        "going_out_bonus (100) to the side that went out, em_cima_bonus (200) em cima, else 0",
    ),
    (
        "morto_penalty",
        "int32",
        (
            "-morto_penalty (-100) if the side never took its morto, or if its morto is void (with "
            "indirect_morto_void: taken by the discard, and the other side went out before the taker's "
            "next turn, 002 Detalle), else 0"
        ),
    ),
    (
        "hand_penalty",
        "int32",
        (
            "minus the card values left in both partners' hands (the player's own at a solo table; <= 0), "
            "an unplayed indirect morto "
            "included; never a red 3 (E4), never a void morto's cards (E5)"
        ),
    ),
    ("went_out", "bool", "a player of this side went out (bater)"),
    ("won", "bool", "the side scored strictly more than every other side (one other, two in tranca-3p)"),
    (
        "morto_taken",
        "bool",
        "the side took its morto (also when it then became void: the cost is in morto_penalty)",
    ),
    ("morto_turn", "int16", "turn (0-based, counting every seat's turn) the morto was taken; -1 never"),
    ("morto_direct", "bool", "morto taken directly (by melding the last card) rather than by a discard"),
    ("morto_seat", "int8", "seat that took the side's morto; -1 never"),
    (
        "morto_stock",
        "bool",
        (
            "the side's morto was never taken and became the stock when the stock ran out (stock_out = 1, "
            "004 How to play; decisions E22, E23)"
        ),
    ),
    ("pile_captures", "int16", "times the side took the discard pile"),
    ("pile_cards", "int16", "cards in the piles the side took, the melded top cards included"),
    (
        "black3_locks",
        "int16",
        (
            "discards by the side that left the pile locked by a black 3 for the next player "
            "(lock_by_black3 on; the going-out discard is not counted: no one plays after it)"
        ),
    ),
    (
        "wild_locks",
        "int16",
        (
            "discards by the side that left the pile locked by a wild (2 or joker) for the next player "
            "(lock_by_wild on; the going-out discard is not counted)"
        ),
    ),
    ("n_melds", "int16", "melds (jogos) the side has on the table at the end, a black-3 set included"),
    (
        "meld_cards",
        "int16",
        "cards in the side's melds at the end, a black-3 set left out (meld_cards / n_melds: the mean meld length)",
    ),
    ("three_card_melds", "int16", "the side's melds of exactly three cards at the end (a black-3 set left out)"),
    ("clean_melds", "int16", "the side's melds without a wild at the end, canastas or not (a black-3 set left out)"),
    (
        "first_canasta_turn",
        "int16",
        "turn (0-based, every seat's turn counting one) at whose end the side first had a canasta; -1 never",
    ),
    ("wild_turns", "int16", "the side's turns that ended with a wild (2 or joker) still in the player's hand"),
    (
        "feeding_discards",
        "int16",
        (
            "discards by the side of a natural that fits a meld of the next player's side (a same-rank meld of "
            "its rank, or an end of one of its runs); the going-out discard is not counted"
        ),
    ),
    (
        "black3_guard_locks",
        "int16",
        (
            "black-3 locks (as in black3_locks) made while the player's hand still held a natural that fits a "
            "meld of the next player's side: the lock kept such a card off the pile"
        ),
    ),
    (
        "second_melds",
        "int16",
        "new same-rank melds the side opened of a rank it already had a same-rank meld of (several_per_rank)",
    ),
    ("hand0_wilds", "int8", "hand dealt to seat `side`: 2s and jokers"),
    ("hand0_jokers", "int8", "hand dealt to seat `side`: jokers"),
    ("hand0_red3", "int8", "hand dealt to seat `side`: red 3s"),
    ("hand0_black3", "int8", "hand dealt to seat `side`: black 3s"),
    ("hand1_wilds", "int8", "hand dealt to the partner, seat `side + 2`: 2s and jokers; -1 at a solo table"),
    ("hand1_jokers", "int8", "hand dealt to the partner: jokers; -1 at a solo table"),
    ("hand1_red3", "int8", "hand dealt to the partner: red 3s; -1 at a solo table"),
    ("hand1_black3", "int8", "hand dealt to the partner: black 3s; -1 at a solo table"),
    ("end_reason", "string", "went_out (bater), stock_out (decision 14) or turn_limit (safety net)"),
    ("out_seat", "int8", "seat that went out; -1 if nobody did"),
    ("em_cima", "bool", "the deal ended by an em-cima going out (000 Scoring)"),
    (
        "n_turns",
        "int16",
        (
            "turns in the deal, every seat's turn counting one, the last one included even when its player "
            "could not play (stock_out at the draw)"
        ),
    ),
    ("version", "string", "tranca-sim package version that played the deal"),
]

#: the columns a match run (``simulate --matches N``) adds after :data:`COLUMNS`; its rows are one
#: per (match, deal, side), and ``deal_index`` is the deal key ``match_index * 1024 + deal_in_match``
MATCH_COLUMNS: list[tuple[str, str, str]] = [
    ("match_index", "int64", "match of the run (0-based); (master_seed, match_index) fixes the match"),
    (
        "deal_in_match",
        "int16",
        (
            "deal number in the match, 0-based; the deal's first seat is (match_index + deal_in_match) "
            "% n_seats (4, or 2 / 3 at a solo table)"
        ),
    ),
    (
        "match_score",
        "int32",
        "the side's match score after this deal (its deal scores of the match so far added up)",
    ),
    ("match_deals", "int16", "deals the match took (the same on every row of the match)"),
    (
        "match_winner",
        "int8",
        (
            "side that won the match (first to the match_target; both over: the higher; a dead tie plays "
            "another deal, VARIANTS 15; with three sides: the one side strictly highest once the highest "
            "is at the target, 0, 1 or 2); -1 if max_match_deals ended it undecided"
        ),
    ),
    ("won_match", "bool", "this side won the match"),
]

SIDE_SLOTS = {
    "score": OS_SCORE,
    "melded_points": OS_MELDED_POINTS,
    "canastas_clean": OS_CANASTAS_CLEAN,
    "canastas_dirty": OS_CANASTAS_DIRTY,
    "canasta_bonus": OS_CANASTA_BONUS,
    "red3_count": OS_RED3_COUNT,
    "red3_points": OS_RED3_POINTS,
    "going_out_bonus": OS_GOING_OUT_BONUS,
    "morto_penalty": OS_MORTO_PENALTY,
    "hand_penalty": OS_HAND_PENALTY,
    "went_out": OS_WENT_OUT,
    "morto_taken": OS_MORTO_TAKEN,
    "morto_turn": OS_MORTO_TURN,
    "morto_direct": OS_MORTO_DIRECT,
    "morto_seat": OS_MORTO_SEAT,
    "morto_stock": OS_MORTO_STOCK,
    "pile_captures": OS_PILE_CAPTURES,
    "pile_cards": OS_PILE_CARDS,
    "black3_locks": OS_BLACK3_LOCKS,
    "wild_locks": OS_WILD_LOCKS,
    "n_melds": OS_N_MELDS,
    "meld_cards": OS_MELD_CARDS,
    "three_card_melds": OS_THREE_CARD_MELDS,
    "clean_melds": OS_CLEAN_MELDS,
    "first_canasta_turn": OS_FIRST_CANASTA_TURN,
    "wild_turns": OS_WILD_TURNS,
    "feeding_discards": OS_FEEDING_DISCARDS,
    "black3_guard_locks": OS_BLACK3_GUARD_LOCKS,
    "second_melds": OS_SECOND_MELDS,
    "hand0_wilds": OS_HAND0_WILDS,
    "hand0_jokers": OS_HAND0_JOKERS,
    "hand0_red3": OS_HAND0_RED3,
    "hand0_black3": OS_HAND0_BLACK3,
    "hand1_wilds": OS_HAND1_WILDS,
    "hand1_jokers": OS_HAND1_JOKERS,
    "hand1_red3": OS_HAND1_RED3,
    "hand1_black3": OS_HAND1_BLACK3,
}

DEAL_SLOTS = {
    "first_seat": OD_FIRST_SEAT,
    "out_seat": OD_OUT_SEAT,
    "n_turns": OD_N_TURNS,
    "em_cima": OD_EM_CIMA,
}

#: the parts that add up to `score`
SCORE_PARTS = (
    "melded_points",
    "canasta_bonus",
    "red3_points",
    "going_out_bonus",
    "morto_penalty",
    "hand_penalty",
)


def markdown() -> str:
    """The schema as a Markdown table (for docs/schema.md)."""
    lines = ["| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{n}` | {t} | {d} |" for n, t, d in COLUMNS]
    return "\n".join(lines)


def match_markdown() -> str:
    """The columns a match run adds, as a Markdown table (for docs/schema.md)."""
    lines = ["| column | type | meaning |", "|---|---|---|"]
    lines += [f"| `{n}` | {t} | {d} |" for n, t, d in MATCH_COLUMNS]
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown())
    print()
    print(match_markdown())
