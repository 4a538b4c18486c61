"""Rule tests of the ``tranca`` preset, one (or a few) per rule.

Every test is built from a stacked deck or a hand-made position and states its
expected outcome as literal numbers worked out by hand from the rules, with the
arithmetic in a comment; nothing is read back from the engine and compared with
itself.  Sources: seed ``000_95ec226e9cdd732e.txt`` ("000", sections "Setup n",
"Gameplay n", "Scoring: ..."), ``VARIANTS.md`` decisions ("V n") and the engine
choices E1..E12 of ``docs/engine-decisions.md`` / ``docs/rules.md``.

Conventions used when predicting a deal by hand:

- ``strategies=(A, B)``: side A (seats 0, 2) plays A, side B (seats 1, 3) plays B.
- ``passive`` always draws from the stock when it has cards (with the stock empty
  it takes the first legal way to take the pile, E8), never melds, and discards
  its lowest card *kind* (clubs A..K = 0..12, diamonds 13..25, hearts 26..38,
  spades 39..51, joker 52).
- ``basic`` (strategies/basic.py): takes the pile when legal (onto a meld > new meld
  with two naturals > new meld with a wild); melds by score (extend with a natural
  50, or 60 if it completes a canasta; new meld of 3 naturals 40; wild onto a meld
  30 if it completes a canasta, 20 if it empties the hand when allowed, 0 on a clean
  meld of 4+ naturals; new meld with a wild 10; black-3 set 100); discards the card
  with the lowest "keep" = 20 x (naturals of its rank in hand) - value // 5
  (+40 own meld of the rank, +60 opponents' meld of the rank, +30 next seat took
  that rank from the pile; black 3 -100; wild 1000), ties to the lower kind.
- Card values (000 Scoring: Card values; V Card values): A 20, K..8 10, 7..4 5,
  black 3 5, 2 20, joker 50.
- A position with an empty stock and an empty pile ends at once: the player to
  move cannot draw and cannot take the pile (V 14, E8), so it is a pure scoring test.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim.engine import deck_of, play_deck, play_position, simulate_chunk
from tranca_sim.engine.cards import JOKER, counts_to_cards, parse, to_str
from tranca_sim.engine.deal import setup_deal
from tranca_sim.engine.melds import list_draw_actions, list_meld_actions, locked
from tranca_sim.engine.obs import (
    A_BLACK3,
    A_CAP_EXT,
    A_CAP_NEW,
    A_EXT,
    A_NEW,
    A_STOCK,
    C_NAT,
    C_TWO,
    CAPNEW_2NAT,
    CAPNEW_JOKER,
    CAPNEW_TWO,
    NEW_3NAT,
    NEW_JOKER,
    NEW_TWO,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position, stack_deck
from tranca_sim.engine.state import (
    MH_N,
    MH_WILD,
    SC_DECK_N,
    SC_PILE_N,
    SC_STOCK_PTR,
    new_state,
)
from tranca_sim.rules import get_preset

STOCK = (A_STOCK, 0, 0)
KING, QUEEN, FIVE = 13, 12, 5


# ---- fixtures and helpers ------------------------------------------------------------------


@pytest.fixture(scope="module")
def tranca():
    return get_preset("tranca")


@pytest.fixture(scope="module")
def rp(tranca):
    return tranca.to_array()


PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")


def play(rules, st, strategies=("basic", "passive")):
    """Play the position to its end; check invariants and that score = sum of its parts."""
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS), f"side {side}"
    return cols


def side_cols(cols, *names):
    """{name: [side A, side B]} for a compact comparison."""
    return {n: [int(cols[n][0]), int(cols[n][1])] for n in names}


def cards(st_row):
    """Sorted notation of a count row (hand, meld) -- for readable comparisons."""
    return sorted(counts_to_cards(st_row))


def hand(text):
    return sorted(text.split())


def draw_acts(rules, st, seat):
    acts = np.zeros(256, np.int32)
    n = list_draw_actions(st, rules.to_array(), seat, acts)
    return sorted((int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n])


def meld_acts(rules, st, seat):
    acts = np.zeros(256, np.int32)
    n = list_meld_actions(st, rules.to_array(), seat, acts)
    return sorted((int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n])


def pile_cards(st):
    return [to_str(int(k)) for k in st.pile[: st.sc[SC_PILE_N]]]


def stock_cards(st):
    return [to_str(int(k)) for k in st.deck[st.sc[SC_STOCK_PTR] : st.sc[SC_DECK_N]]]


KINGS7 = "KC KD KH KS KC KD KH"  # a clean canasta: 7 naturals, 7 x 10 = 70 card points


# ---- pack and deal (000 Card Deck, Setup 2-8; E2, E3) -----------------------------------------


def test_pack_is_two_decks_and_four_jokers(tranca):
    """000 Card Deck, Setup 2: two 52-card decks + 4 jokers = 108 cards."""
    # 2 x 52 + 4 = 108
    assert tranca.pack_size == 108
    for d in range(3):
        deck = deck_of(tranca, 12345, d)
        assert len(deck) == 108
        counts = np.bincount(deck, minlength=53)
        assert (counts[:52] == 2).all()  # every suited card twice
        assert counts[JOKER] == 4
    # a deck that is not exactly the pack is refused
    good = stack_deck(tranca)
    with pytest.raises(ValueError):
        play_deck(tranca, good[:-1])
    bad = list(good)
    bad[bad.index(JOKER)] = parse("KH")  # 3 kings of hearts, 3 jokers
    with pytest.raises(ValueError):
        play_deck(tranca, bad)


def _natural_order_deck():
    # kinds 0..51, kinds 0..51 again, then the 4 jokers (position 0 = top)
    return np.array(list(range(52)) + list(range(52)) + [JOKER] * 4, np.int16)


def test_deal_one_at_a_time_clockwise_mortos_stock(tranca, rp):
    """000 Setup 3-5 (11 cards each, one at a time clockwise from the first seat; two 11-card
    mortos; the rest is the stock), E2 (position j of the pack goes to seat (first+j) % 4,
    then side A's morto, side B's morto), E1 (first seat)."""
    st = new_state()
    setup_deal(st, rp, _natural_order_deck(), 108, 1)
    # first seat 1: position j (= kind j for j < 44) goes to seat (1 + j) % 4
    # seat 1 <- j = 0, 4, ..., 40; seat 2 <- 1, 5, ..., 41; seat 3 <- 2, ..., 42; seat 0 <- 3, ..., 43
    for seat, first in ((1, 0), (2, 1), (3, 2), (0, 3)):
        want = np.zeros(53, np.int64)
        want[list(range(first, 44, 4))] = 1
        assert (st.hand[seat] == want).all(), seat
        assert st.hand[seat].sum() == 11
    # morto A = positions 44..54 = kinds 44..51 (6S..KS) then 0, 1, 2 (AC 2C 3C)
    assert cards(st.morto[0]) == hand("6S 7S 8S 9S 10S JS QS KS AC 2C 3C")
    # morto B = positions 55..65 = kinds 3..13 = 4C..KC, AD
    assert cards(st.morto[1]) == hand("4C 5C 6C 7C 8C 9C 10C JC QC KC AD")
    # 108 - 44 - 22 = 42 cards left: 1 turned up + 41 in the stock
    assert st.sc[SC_PILE_N] == 1
    assert st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR] == 41


def test_first_seat_rotates_clockwise(tranca):
    """000 Setup 1 + 8, V 15, E1: the deal rotates clockwise; the first seat of deal i is i % 4."""
    cols = simulate_chunk(tranca, "passive", 1, 0, 5)
    # deals 0..4 -> first seats 0, 1, 2, 3, 0 (two rows a deal)
    assert [int(x) for x in cols["first_seat"][::2]] == [0, 1, 2, 3, 0]


def test_first_discard_buries_wild_and_red3_mid_stock(tranca, rp):
    """000 Setup 6-7, V 13, E3: the turned-up card, if a wild or red 3, is buried with
    floor(n/2) of the n remaining stock cards above it; repeat until a card stays."""
    st = new_state()
    deck = _natural_order_deck()
    setup_deal(st, rp, deck, 108, 1)
    # Stock before the turn-up = positions 66..107 (42 cards): kinds 14..51, then 4 jokers.
    # 66 = 2D (wild): removed, n = 41 left, floor(41/2) = 20 above it:
    #   stock = [3D 4D .. 9H (kinds 15..34, 20 cards)], 2D, [10H.. (kinds 35..51)], JK x4
    # next top 3D (red 3): removed, n = 41, 20 above it:
    #   stock = [4D .. 9H (kinds 16..34, 19 cards), 2D], 3D, [kinds 35..51], JK x4
    # next top 4D is natural: turned up.  Stock = 5D..9H (18), 2D, 3D, 10H..KS (17), JK x4 = 41
    assert pile_cards(st) == ["4D"]
    want = [int(k) for k in range(17, 35)] + [14, 15] + list(range(35, 52)) + [JOKER] * 4
    got = [int(k) for k in st.deck[st.sc[SC_STOCK_PTR] : st.sc[SC_DECK_N]]]
    assert got == want


def test_first_discard_natural_and_black3_stay(tranca, rp):
    """000 Setup 6-7 (only wilds and red 3s are buried): a natural or a black 3 stays as the
    first discard; a black 3 then locks the pile (000 Gameplay 4, V 3)."""
    st = new_state()
    setup_deal(st, rp, np.array(stack_deck(tranca, stock="9C 4H"), np.int16), 108, 0)
    assert pile_cards(st) == ["9C"]
    assert stock_cards(st)[0] == "4H" and len(stock_cards(st)) == 41
    assert not locked(st, rp)
    st = new_state()
    setup_deal(st, rp, np.array(stack_deck(tranca, stock="3S 4H"), np.int16), 108, 0)
    assert pile_cards(st) == ["3S"]
    assert locked(st, rp)


def test_first_discard_joker_buried(tranca, rp):
    """000 Setup 7, E3: a joker turned up goes under floor(41/2) = 20 stock cards."""
    given = "JK 9C AD AD 4D 4D 5D 5D 6D 6D 7D 7D 8D 8D 9D 9D 10D 10D JD JD QD QD"
    st = new_state()
    setup_deal(st, rp, np.array(stack_deck(tranca, stock=given), np.int16), 108, 0)
    # JK removed (41 left), 20 above it: 9C AD AD ... QD (20 cards) JK QD ...; 9C turned up
    assert pile_cards(st) == ["9C"]
    s = stock_cards(st)
    assert len(s) == 41
    # after turning 9C up, the 19 cards AD .. QD(first) are above the joker
    assert s[:19] == given.split()[2:21]
    assert s[19] == "JK"
    assert s[20] == "QD"


# ---- drawing from the stock; stock exhaustion (000 Gameplay 1-2, 12; V 14; E8) ---------------


def test_draw_from_stock_then_stock_out(tranca):
    """000 Gameplay 1-2 (draw the top stock card, discard), Gameplay 12 / V 14 / E8 (stock
    empty and the pile cannot be taken: the deal ends, no going-out bonus, hand cards count)."""
    st = make_position(
        tranca,
        hands={0: "5C 9H", 1: "6C 10H", 2: "7C JH", 3: "8C QH"},
        mortos={0: "KS", 1: "KC"},
        stock="AS KD",
    )
    cols = play(tranca, st, ("passive", "passive"))
    # turn 0 seat 0 draws AS (top), discards 5C (lowest kind) -> 9H AS
    # turn 1 seat 1 draws KD, discards 6C -> 10H KD
    # turn 2 seat 2: stock empty, pile top 6C, no 6s: cannot take it -> deal ends (3 turns)
    assert cards(st.hand[0]) == hand("9H AS")
    assert cards(st.hand[1]) == hand("10H KD")
    assert pile_cards(st) == ["5C", "6C"]
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 3
    # A: morto -100; hands 9H 10 + AS 20 + 7C 5 + JH 10 = 45 -> -145
    # B: morto -100; hands 10H 10 + KD 10 + 8C 10 + QH 10 = 40 -> -140
    assert side_cols(cols, "score", "hand_penalty", "morto_penalty", "going_out_bonus") == {
        "score": [-145, -140],
        "hand_penalty": [-45, -40],
        "morto_penalty": [-100, -100],
        "going_out_bonus": [0, 0],
    }


def test_stock_out_play_goes_on_while_pile_can_be_taken(tranca):
    """V 14 / 000 Gameplay 12 / E8: with the stock empty, play goes on while the player to move
    can take the pile (passive must take it too); the first who cannot ends the deal; no
    going-out bonus."""
    st = make_position(
        tranca,
        hands={0: "KC KD 7S 8S", 1: "9C 9H 5H 6H", 2: "JC QC", 3: "AC"},
        pile="4C 9D KH",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(tranca, st)
    # turn 0 seat 0 (basic): takes the pile, KH + KC KD melded; hand 7S 8S 4C 9D;
    #   keeps: 7S 20-1=19, 8S 20-2=18, 4C 19, 9D 18 -> discards 9D (lower kind of the 18s)
    # turn 1 seat 1 (passive): stock empty, must take the pile: 9D + 9C 9H; hand 5H 6H,
    #   discards 5H
    # turn 2 seat 2: pile top 5H, hand JC QC: cannot take -> deal ends after 3 turns
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 3
    assert cards(st.hand[0]) == hand("7S 8S 4C")
    assert cards(st.hand[1]) == hand("6H")
    # A: melded KKK 30; hands 7S 5 + 8S 10 + 4C 5 + JC 10 + QC 10 = 40; morto -100 -> -110
    # B: melded 999 30; hands 6H 5 + AC 20 = 25; morto -100 -> -95
    assert side_cols(cols, "score", "melded_points", "hand_penalty", "pile_captures", "pile_cards") == {
        "score": [-110, -95],
        "melded_points": [30, 30],
        "hand_penalty": [-40, -25],
        "pile_captures": [1, 1],
        "pile_cards": [3, 1],
    }
    assert list(cols["going_out_bonus"]) == [0, 0]


def test_stock_out_one_card_player_who_may_not_empty(tranca):
    """E8: a player left with one card who may not empty the hand (the stock ran out during
    the turn: the drawn red 3 has no replacement) cannot play: the deal ends as stock_out."""
    st = make_position(
        tranca,
        hands={0: "9C", 1: "6D", 2: "4C", 3: "7D"},
        stock="3D",
        mortos={1: "5S"},
        taken_mortos={0: 2},
    )
    cols = play(tranca, st, ("passive", "passive"))
    # seat 0 draws 3D: laid aside, no replacement (stock empty); one card, morto taken, no
    # canasta: may not discard it -> deal over after 1 turn
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 1
    assert cards(st.hand[0]) == ["9C"]
    # A: red 3 without canasta -100; hands 9C 10 + 4C 5 = 15 -> -115
    # B: morto -100; hands 6D 5 + 7D 5 = 10 -> -110
    assert side_cols(cols, "score", "red3_points") == {"score": [-115, -110], "red3_points": [-100, 0]}


# ---- taking the pile (000 Gameplay 2-3; V 4; E10) ----------------------------------------------


def test_take_pile_top_melded_rest_to_hand(tranca):
    """000 Gameplay 2-3, V 4, E10: the whole pile is taken; its top card is melded at once with
    two naturals from the hand, the rest goes to the hand; no stock draw that turn."""
    st = make_position(
        tranca,
        hands={0: "KC KD 7S", 1: "6C", 2: "QC", 3: "8C"},
        pile="4C 9D KH",
        stock="5H",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(tranca, st)
    # turn 0 seat 0: takes the pile: meld KH KC KD; hand 7S 4C 9D; keeps 19, 19, 18 -> discards 9D
    # turn 1 seat 1: draws 5H (the stock was not touched by seat 0), discards 6C -> 5H
    # turn 2 seat 2: stock empty, pile 9D 6C, hand QC -> deal ends
    assert cards(st.mc[0, 0]) == hand("KH KC KD")
    assert cards(st.hand[0]) == hand("7S 4C")
    assert cards(st.hand[1]) == ["5H"]
    assert pile_cards(st) == ["9D", "6C"]
    # A: melded 30; hands 7S 5 + 4C 5 + QC 10 = 20; morto -100 -> -90
    # B: hands 5H 5 + 8C 10 = 15; morto -100 -> -115
    assert side_cols(cols, "score", "melded_points", "pile_captures", "pile_cards") == {
        "score": [-90, -115],
        "melded_points": [30, 0],
        "pile_captures": [1, 0],
        "pile_cards": [3, 0],
    }


@pytest.mark.parametrize(
    "held, melds, want",
    [
        ("KC KD 5S", None, [(A_CAP_NEW, 0, CAPNEW_2NAT)]),  # top + 2 naturals
        ("KC JK 5S", None, [(A_CAP_NEW, 0, CAPNEW_JOKER)]),  # top + natural + joker
        ("KC 2S 5S", None, [(A_CAP_NEW, 0, CAPNEW_TWO)]),  # top + natural + 2
        ("5S 6S", {0: ["KC KD KS"]}, [(A_CAP_EXT, 0, 0)]),  # top onto the side's meld
        ("KC 5S 6S", None, []),  # refused: one natural, no wild
        ("JK 2S 5S", None, []),  # refused: top + 2 wilds has one natural (V 2)
        ("5S 6S", {1: ["KC KD KS"]}, []),  # refused: the meld is the opponents'
    ],
)
def test_take_pile_needs_matching_cards(tranca, held, melds, want):
    """000 Gameplay 3, V 4, E10: the pile may be taken only if its top card can be melded at
    once (two naturals, natural + wild, or onto the side's meld); otherwise only the stock."""
    st = make_position(
        tranca, hands={0: held, 1: "4D"}, melds=melds, pile="4C 9D KH", stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert draw_acts(tranca, st, 0) == sorted([STOCK] + want)


# ---- lock (000 Gameplay 4, 6; V 3; E10) ----------------------------------------------------------


@pytest.mark.parametrize(
    "top, is_locked", [("2D", True), ("JK", True), ("3C", True), ("3S", True), ("QH", False)]
)
def test_lock_by_wild_or_black3(tranca, rp, top, is_locked):
    """000 Gameplay 4, 6, V 3: a wild or black 3 on top locks the pile; it cannot be taken even
    with a natural meld of the side and naturals in hand.  A natural on top (QH, with QC QD in
    hand) can be taken."""
    st = make_position(
        tranca,
        hands={0: "KH KH QC QD", 1: "4D"},
        melds={0: ["KC KD KS"]},
        pile=f"KS {top}",
        stock="5H",
        mortos={0: "4S", 1: "5D"},
    )
    assert bool(locked(st, rp)) is is_locked
    acts = draw_acts(tranca, st, 0)
    if is_locked:
        assert acts == [STOCK]
    else:
        assert acts == sorted([STOCK, (A_CAP_NEW, 0, CAPNEW_2NAT)])


def test_lock_lasts_only_while_on_top(tranca, rp):
    """V 3: the lock lasts while the wild is on top; a natural discarded on it unlocks the pile
    (the wild then goes to the taker's hand with the rest)."""
    st = make_position(
        tranca, hands={0: "KC KD 5S", 1: "4D"}, pile="JK KH", stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert not locked(st, rp)
    assert draw_acts(tranca, st, 0) == sorted([STOCK, (A_CAP_NEW, 0, CAPNEW_2NAT)])


def test_locked_pile_with_empty_stock_ends_deal(tranca):
    """000 Gameplay 4 + 12, V 3 + 14: a locked pile cannot be taken even with the stock empty and
    a natural meld of the rank below the lock; the deal ends at once."""
    st = make_position(
        tranca,
        hands={0: "KH KH", 1: "4D", 2: "5D", 3: "6D"},
        melds={0: ["KC KD KS"]},
        pile="KS 2C",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(tranca, st)
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 1
    assert pile_cards(st) == ["KS", "2C"]
    # A: melded 30; hands KH KH 20 + 5D 5 = 25; morto -100 -> -95
    # B: hands 4D 5 + 6D 5 = 10; morto -100 -> -110
    assert list(cols["score"]) == [-95, -110]


# ---- red 3s (000 Gameplay 5, Scoring; V 7; E4) ---------------------------------------------------


def test_red3_dealt_laid_at_first_turn_and_replaced(tranca):
    """000 Gameplay 5, V 7, E4: a dealt red 3 goes to the side's area at the holder's first turn,
    replaced by the top stock card; without a canasta it scores -100 (000 Scoring)."""
    lows = (
        "AC AC 2C 3C 3C 4C 5C 5C 6C 6C 7C 7C 8C 8C 9C 9C 10C 10C JC JC QC QC KC KC "
        "6D 6D 7D 7D 8D 8D 9D 9D 10D 10D JD JD QD QD KD"
    )
    assert len(lows.split()) == 39
    deck = stack_deck(
        tranca,
        hands={
            0: "3H 4S 4S 4H 4H 5S 5S 5H 5H 6S 6S",
            1: "KS KS QS QS JS JS 10S 10S 9S 9S 8S",
            2: "KH KH QH QH JH JH 10H 10H 9H 9H 8H",
            3: "JK JK JK JK AS AS AH AH 8S 8H 7S",
        },
        stock="4C KD " + lows + " 2C",  # turned-up 4C, then s1 = KD, s2..s40 = lows, s41 = 2C
    )
    st, cols = play_deck(tranca, deck, strategies=("passive", "passive"), first_seat=0)
    # All passive.  Every stock card (clubs/diamonds, kinds < 26) is lower than every hand card
    # (kinds >= 26), so each seat discards what it drew, except seat 0, who holds KD:
    # turn 0 seat 0: 3H laid aside, replaced by KD (s1); draws AC (s2), discards AC.  Afterwards
    # seat 0 always holds KD (the highest low kind) and discards its draw.  Stock: 41 cards;
    # turn 0 uses 2, turns 1..39 one each; turn 39 (seat 3) draws and discards 2C: locked pile.
    # Turn 40 (seat 0): stock empty, pile locked -> deal ends; 41 turns.
    assert int(cols["n_turns"][0]) == 41 and int(cols["end_reason"][0]) == 2
    assert st.red3[0, parse("3H")] == 1 and st.hand[0, parse("3H")] == 0
    assert cards(st.hand[0]) == hand("4S 4S 4H 4H 5S 5S 5H 5H 6S 6S KD")
    assert pile_cards(st)[-1] == "2C"
    # A: red 3, no canasta -100; morto -100; hands: seat 0 ten 4-6s 10 x 5 = 50 + KD 10 = 60,
    #    seat 2 KH KH QH QH JH JH 10H 10H 9H 9H 8H 11 x 10 = 110 -> -170; score -370
    # B: morto -100; hands seat 1 11 x 10 = 110, seat 3 JK x4 200 + AS AS AH AH 80 + 8S 8H 20
    #    + 7S 5 = 305 -> -415; score -515
    assert side_cols(cols, "score", "red3_count", "red3_points", "hand_penalty", "morto_penalty") == {
        "score": [-370, -515],
        "red3_count": [1, 0],
        "red3_points": [-100, 0],
        "hand_penalty": [-170, -415],
        "morto_penalty": [-100, -100],
    }


def test_red3_drawn_laid_and_replaced_twice(tranca):
    """000 Gameplay 5, V 7, E4: a drawn red 3 is laid aside at once and replaced; a red 3 drawn
    as a replacement is laid and replaced again."""
    st = make_position(
        tranca,
        hands={0: "6C", 1: "7C", 2: "8C", 3: "4C"},
        stock="3D 3H 9C 5S",
        mortos={0: "KS", 1: "KC"},
    )
    cols = play(tranca, st, ("passive", "passive"))
    # turn 0 seat 0: draws 3D -> laid, replaced by 3H -> laid, replaced by 9C; discards 6C -> 9C
    # turn 1 seat 1: draws 5S, discards 7C -> 5S
    # turn 2 seat 2: stock empty, pile 6C 7C, hand 8C: cannot take -> end
    assert cards(st.red3[0]) == hand("3D 3H")
    assert cards(st.hand[0]) == ["9C"]
    assert int(cols["n_turns"][0]) == 3
    # A: 2 red 3s, no canasta: -200; morto -100; hands 9C 10 + 8C 10 = 20 -> -320
    # B: morto -100; hands 5S 5 + 4C 5 = 10 -> -110
    assert side_cols(cols, "score", "red3_count", "red3_points") == {
        "score": [-320, -110],
        "red3_count": [2, 0],
        "red3_points": [-200, 0],
    }


def test_red3_plus_100_with_canasta_minus_100_without(tranca):
    """000 Gameplay 5 / Scoring: Card values, V Card values: +100 per red 3 with at least one
    canasta, -100 per red 3 without."""
    st = make_position(
        tranca,
        hands={0: "5C", 1: "7C", 2: "6C", 3: "8C"},
        melds={0: [KINGS7]},
        red3={0: "3D 3H", 1: "3D"},
        taken_mortos={0: 0},
        mortos={1: "KS"},
    )
    cols = play(tranca, st)
    assert int(cols["n_turns"][0]) == 1 and int(cols["end_reason"][0]) == 2
    # A: melded 70 + clean canasta 200 + 2 red 3s x +100 = 200; hands 5C 5 + 6C 5 = 10 -> 460
    # B: 1 red 3 x -100; morto -100; hands 7C 5 + 8C 10 = 15 -> -215
    assert side_cols(cols, "score", "red3_points") == {"score": [460, -215], "red3_points": [200, -100]}


def test_red3_plus_100_with_a_dirty_canasta(tranca):
    """000 Gameplay 5 ("at least one canasta"), docs/rules.md 3.20: a dirty canasta is enough."""
    st = make_position(
        tranca,
        hands={0: "5C", 1: "7C", 2: "6C", 3: "8C"},
        melds={1: ["QC QD QH QS QC JK 2D"]},
        red3={0: "3D", 1: "3H"},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(tranca, st)
    # A: red 3 without canasta -100; hands 5C 5 + 6C 5 = 10 -> -110
    # B: melded 5 x 10 + 50 + 20 = 120; dirty 100; red 3 +100; hands 7C 5 + 8C 10 = 15 -> 305
    assert side_cols(cols, "score", "red3_points") == {"score": [-110, 305], "red3_points": [-100, 100]}


# ---- black 3s (000 Gameplay 6; V 8; E9) --------------------------------------------------------


def test_black3_never_melded_before_going_out(tranca):
    """000 Gameplay 6, V 8: black 3s cannot be melded normally (no meld of 3s, not even with
    wilds); the pure set is refused while the side may not go out."""
    # morto waiting (cannot go out), canasta on the table
    st = make_position(
        tranca, hands={0: "3C 3C 3S", 1: "4D"}, melds={0: [KINGS7]}, stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert meld_acts(tranca, st, 0) == []
    # morto taken, no canasta
    st = make_position(
        tranca, hands={0: "3C 3C 3S JK", 1: "4D"}, taken_mortos={0: 0}, mortos={1: "5D"}, stock="5H"
    )
    assert meld_acts(tranca, st, 0) == []


@pytest.mark.parametrize(
    "held, allowed",
    [
        ("3C 3C 3S", True),  # three black 3s, nothing else
        ("3C 3C 3S 3S", True),  # four
        ("3C 3C 3S 5H", True),  # plus the one card to discard when going out
        ("3C 3C 3S 5H 6H", False),  # two other cards: laying the set would not be going out
        ("3C 3S 5H", False),  # only two black 3s
    ],
)
def test_black3_set_only_on_going_out_turn(tranca, held, allowed):
    """000 Gameplay 6, V 8, E9: a pure set of 3 or 4 black 3s may be laid when the side may go
    out (morto taken + canasta) and the hand holds at most one other card."""
    st = make_position(
        tranca,
        hands={0: held, 1: "4D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 0},
        mortos={1: "5D"},
        stock="5H",
    )
    assert ((A_BLACK3, 0, 0) in meld_acts(tranca, st, 0)) is allowed


def test_black3_set_laid_when_going_out(tranca):
    """000 Gameplay 6, V 8, E9: going out with the black-3 set; 5 points a black 3; the set is not
    a canasta."""
    st = make_position(
        tranca,
        hands={0: "3C 3S 3C", 1: "6D", 2: "4D", 3: "7D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 2},
        mortos={1: "5D"},
        stock="9S",
        melded_before={0},
    )
    cols = play(tranca, st)
    # seat 0 draws 9S (4 cards: 3 black 3s + 1), lays 3C 3C 3S, discards 9S: out (not em cima)
    assert int(cols["end_reason"][0]) == 1 and int(cols["out_seat"][0]) == 0
    # A: melded 70 + 3 x 5 = 85; one clean canasta 200 (the 3s are none); going out 100;
    #    hand 4D -5 -> 380
    # B: morto -100; hands 6D 5 + 7D 5 -> -110
    assert side_cols(
        cols, "score", "melded_points", "canastas_clean", "canastas_dirty", "going_out_bonus"
    ) == {
        "score": [380, -110],
        "melded_points": [85, 0],
        "canastas_clean": [1, 0],
        "canastas_dirty": [0, 0],
        "going_out_bonus": [100, 0],
    }


# ---- meld composition (000 Gameplay 7; V 1, 2) --------------------------------------------------


@pytest.mark.parametrize(
    "held, want",
    [
        ("KC KD KH 5S", [(A_NEW, KING, NEW_3NAT)]),
        ("KC KD JK 2C 5S", [(A_NEW, KING, NEW_TWO), (A_NEW, KING, NEW_JOKER)]),  # 2 naturals + 1 wild
        ("KC JK 2C 5S 6S", []),  # one natural: refused
        ("JK JK 2C 5S 6S", []),  # wilds alone never start a meld
        ("2C 2D 2H 5S 6S", []),  # 2s are always wild: no meld of 2s (V 1)
    ],
)
def test_new_meld_needs_two_naturals(tranca, held, want):
    """000 Gameplay 7, V 1-2: a meld has 3+ cards of one rank with at least 2 naturals; wilds
    (2s, jokers) cannot form a meld alone."""
    st = make_position(tranca, hands={0: held, 1: "4D"}, stock="5H", mortos={0: "4S", 1: "5D"})
    assert meld_acts(tranca, st, 0) == sorted(want)


def test_at_most_two_wilds_per_meld(tranca):
    """000 Gameplay 7, V 2: at most two wilds in a meld: a third is refused; a second is fine."""
    st = make_position(
        tranca,
        hands={0: "JK 2D 5S 6S KH", 1: "4D"},
        melds={0: ["KC KD 2C JK"]},
        stock="5H",
        mortos={0: "4S", 1: "5D"},
    )
    assert meld_acts(tranca, st, 0) == [(A_EXT, 0, C_NAT)]  # no (A_EXT, 0, C_TWO / C_JOKER)
    st = make_position(
        tranca, hands={0: "2D 5S 6S", 1: "4D"}, melds={0: ["KC KD JK"]}, stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert meld_acts(tranca, st, 0) == [(A_EXT, 0, C_TWO)]
    with pytest.raises(ValueError):
        make_position(tranca, hands={0: "5S"}, melds={0: ["KC KD 2C JK 2D"]}, mortos={0: "4S", 1: "5D"})


def test_max_wilds_one_refuses_second_wild(tranca):
    """V Presets (tranca-paulista reading) / V 2 switch ``max_wilds=1``: one wild allowed, a
    second refused."""
    r1 = tranca.replace(max_wilds=1)
    st = make_position(
        r1, hands={0: "2D 5S 6S", 1: "4D"}, melds={0: ["KC KD JK"]}, stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert meld_acts(r1, st, 0) == []
    st = make_position(r1, hands={0: "KC KD 2D 5S", 1: "4D"}, stock="5H", mortos={0: "4S", 1: "5D"})
    assert meld_acts(r1, st, 0) == [(A_NEW, KING, NEW_TWO)]
    with pytest.raises(ValueError):
        make_position(r1, hands={0: "5S"}, melds={0: ["KC KD 2C JK"]}, mortos={0: "4S", 1: "5D"})


def test_wild_meld_played_and_scored(tranca):
    """000 Gameplay 7 (two naturals + a wild is a meld) and Scoring: Card values (melded cards
    add their values: K 10, joker 50)."""
    st = make_position(
        tranca,
        hands={0: "KC KD JK 9S 8S", 1: "6D", 2: "4D", 3: "7D"},
        stock="5H",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(tranca, st)
    # seat 0 draws 5H; only meld: K K + JK (new meld with a wild, score 10); hand 9S 8S 5H;
    #   keeps 9S 20-2=18, 8S 18, 5H 20-1=19 -> discards 8S (the 18 of lower kind: 8S 46 < 9S 47)
    # seat 1: stock empty, pile 8S, hand 6D -> end
    assert cards(st.mc[0, 0]) == hand("KC KD JK")
    assert cards(st.hand[0]) == hand("9S 5H")
    # A: melded 10 + 10 + 50 = 70; hands 9S 10 + 5H 5 + 4D 5 = 20; morto -100 -> -50
    assert int(cols["score"][0]) == -50 and int(cols["melded_points"][0]) == 70


# ---- several melds per rank (V 5) ----------------------------------------------------------------


def test_several_melds_per_rank_switch(tranca):
    """V 5: a side may hold several melds of one rank; ``several_melds_per_rank=False`` refuses
    a second meld of the rank (new meld and pile capture), extending stays allowed."""
    one = tranca.replace(several_melds_per_rank=False)
    kw = {
        "hands": {0: "KC KS KS 5D", 1: "4D"},
        "melds": {0: ["KC KD KH"]},
        "stock": "5H",
        "mortos": {0: "4S", 1: "5S"},
    }
    assert meld_acts(tranca, make_position(tranca, **kw), 0) == sorted(
        [(A_NEW, KING, NEW_3NAT), (A_EXT, 0, C_NAT)]
    )
    assert meld_acts(one, make_position(one, **kw), 0) == [(A_EXT, 0, C_NAT)]
    kw = {
        "hands": {0: "KS KS 5D", 1: "4D"},
        "melds": {0: ["KC KD KH"]},
        "pile": "KH",
        "stock": "5H",
        "mortos": {0: "4S", 1: "5S"},
    }
    assert draw_acts(tranca, make_position(tranca, **kw), 0) == sorted(
        [STOCK, (A_CAP_EXT, 0, 0), (A_CAP_NEW, 0, CAPNEW_2NAT)]
    )
    assert draw_acts(one, make_position(one, **kw), 0) == sorted([STOCK, (A_CAP_EXT, 0, 0)])


# ---- canastas (000 Gameplay 8, Scoring: Canasta bonuses) ---------------------------------------


def test_canasta_clean_200_dirty_100(tranca):
    """000 Gameplay 8, Scoring: Canasta bonuses: 7+ cards; clean (no wild) +200, dirty (one or
    two wilds) +100; 6 cards are no canasta."""
    st = make_position(
        tranca,
        hands={0: "4C", 1: "4D", 2: "5C", 3: "5D"},
        melds={0: [KINGS7, "JC JD JH JS JC JD"], 1: ["QC QD QH QS QC JK 2D"]},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(tranca, st)
    assert int(cols["n_turns"][0]) == 1
    # A: melded 7 x 10 + 6 x 10 = 130; clean 200; hands 4C 5 + 5C 5 = 10 -> 320
    # B: melded 5 x 10 + JK 50 + 2D 20 = 120; dirty 100; hands 4D 5 + 5D 5 = 10 -> 210
    assert side_cols(cols, "score", "melded_points", "canastas_clean", "canastas_dirty", "canasta_bonus") == {
        "score": [320, 210],
        "melded_points": [130, 120],
        "canastas_clean": [1, 0],
        "canastas_dirty": [0, 1],
        "canasta_bonus": [200, 100],
    }


def test_wild_on_a_canasta_makes_it_dirty(tranca):
    """000 Gameplay 8 (clean = no wilds), E11: a wild may be added to a canasta (listed as legal);
    7 naturals + a wild score as a dirty canasta (+100)."""
    st = make_position(
        tranca, hands={0: "2C 5S 6S", 1: "4D"}, melds={0: [KINGS7]}, stock="5H", mortos={0: "4S", 1: "5D"}
    )
    assert meld_acts(tranca, st, 0) == [(A_EXT, 0, C_TWO)]
    st = make_position(
        tranca,
        hands={0: "4C", 1: "4D", 2: "5C", 3: "5D"},
        melds={0: [KINGS7 + " 2C"]},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(tranca, st)
    # A: melded 70 + 2C 20 = 90; dirty 100; hands 10 -> 180
    assert side_cols(cols, "score", "canastas_clean", "canastas_dirty") == {
        "score": [180, -10],
        "canastas_clean": [0, 0],
        "canastas_dirty": [1, 0],
    }


def test_completing_a_canasta_in_play(tranca):
    """000 Gameplay 8: a seventh natural makes a clean canasta (+200), counted at scoring."""
    st = make_position(
        tranca,
        hands={0: "KS 9C 9D", 1: "6D", 2: "4D", 3: "7D"},
        melds={0: ["KC KD KH KS KC KD"]},
        stock="5H",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(tranca, st)
    # seat 0 draws 5H; extends the kings with KS (60, completes the canasta); hand 9C 9D 5H:
    #   keeps 9C 40-2=38, 9D 38, 5H 20-1=19 -> discards 5H; seat 1: stock empty, top 5H -> end
    assert st.mh[0, 0, MH_N] == 7 and st.mh[0, 0, MH_WILD] == 0
    # A: melded 70; clean 200; hands 9C 9D 20 + 4D 5 = 25; morto -100 -> 145
    assert side_cols(cols, "score", "canasta_bonus") == {"score": [145, -110], "canasta_bonus": [200, 0]}


# ---- shared side melds (000 Gameplay 9) -------------------------------------------------------------


def test_partner_extends_and_captures_onto_side_meld(tranca):
    """000 Gameplay 9: partners share melds: seat 2 may take the pile onto the kings its side
    (seat 0) laid; an opponent may not add to them."""
    st = make_position(
        tranca,
        hands={0: "4C", 1: "4D KS", 2: "5C 9D", 3: "7C"},
        melds={0: ["KC KD KH"]},
        pile="7D KS",
        stock="6H",
        mortos={0: "4S", 1: "5S"},
        seat=2,
        melded_before={0},
    )
    assert draw_acts(tranca, st, 2) == sorted([STOCK, (A_CAP_EXT, 0, 0)])
    assert (A_EXT, 0, C_NAT) not in meld_acts(tranca, st, 1)  # seat 1 holds a KS: not its meld
    cols = play(tranca, st, ("basic:take_pile_min=1", "passive"))  # a 2-card pile: below basic's default 3
    # turn 0 seat 2: takes the pile, KS onto the kings; hand 5C 9D 7D; keeps 19, 18, 19 -> 9D
    # turn 1 seat 3: draws 6H, discards 7C -> 6H;  turn 2 seat 0: stock empty, top 7C, hand 4C -> end
    assert cards(st.mc[0, 0]) == hand("KC KD KH KS")
    assert int(cols["n_turns"][0]) == 3
    # A: melded 40; hands 4C 5 + 5C 5 + 7D 5 = 15; morto -100 -> -75
    # B: hands 4D 5 + KS 10 + 6H 5 = 20; morto -100 -> -120
    assert list(cols["score"]) == [-75, -120]


def test_partner_extends_from_hand(tranca):
    """000 Gameplay 9: either partner may add cards to the side's meld."""
    st = make_position(
        tranca,
        hands={0: "4C", 1: "4D", 2: "KS 5C 9D", 3: "7C"},
        melds={0: ["KC KD KH"]},
        stock="6H",
        mortos={0: "4S", 1: "5S"},
        seat=2,
    )
    cols = play(tranca, st)
    # seat 2 draws 6H, adds KS (50); hand 5C 9D 6H -> discards 9D (18); seat 3: stock empty,
    # top 9D, hand 7C -> end
    assert cards(st.mc[0, 0]) == hand("KC KD KH KS")
    # A: melded 40; hands 4C 5 + 5C 5 + 6H 5 = 15; morto -100 -> -75
    assert list(cols["score"]) == [-75, -110]


# ---- morto pickup (000 Gameplay 10; V 9; E4, E5) ------------------------------------------------


def test_morto_direct_continues_turn_without_drawing(tranca):
    """000 Gameplay 10, V 9: emptying the hand by melding takes the morto at once; the player goes
    on with it in the same turn without drawing, and ends with a discard."""
    st = make_position(
        tranca,
        hands={0: "KC KD KH", 1: "7H", 2: "JC", 3: "8H"},
        stock="KS 9C 9D",
        mortos={0: "QC QD QH 4S 5S", 1: "6D"},
    )
    cols = play(tranca, st)
    # turn 0 seat 0: draws KS; KC KD KH (40), + KS (50): hand empty -> morto; QC QD QH (40),
    #   hand 4S 5S (19 each) -> discards 4S.  No draw after the morto: 9C stays on the stock.
    # turn 1 seat 1 draws 9C, discards 9C (kind 8 < 7H 32);  turn 2 seat 2 draws 9D, hand JC 9D
    #   (18 each) -> discards JC;  turn 3 seat 3: stock empty, top JC, hand 8H -> end
    assert int(cols["n_turns"][0]) == 4
    assert cards(st.hand[0]) == ["5S"] and cards(st.hand[1]) == ["7H"] and cards(st.hand[2]) == ["9D"]
    assert pile_cards(st) == ["4S", "9C", "JC"]
    # A: melded 4 x 10 + 3 x 10 = 70; hands 5S 5 + 9D 10 = 15; morto taken: 0 -> 55
    # B: morto -100; hands 7H 5 + 8H 10 = 15 -> -115
    assert side_cols(cols, "score", "morto_taken", "morto_direct", "morto_turn", "morto_seat") == {
        "score": [55, -115],
        "morto_taken": [1, 0],
        "morto_direct": [1, 0],
        "morto_turn": [0, -1],
        "morto_seat": [0, -1],
    }


def test_morto_red3_laid_and_replaced_at_pickup(tranca):
    """V 7, E4: red 3s of a morto are laid aside when it is picked up, each replaced from the
    stock."""
    st = make_position(
        tranca,
        hands={0: "KC KD KH", 1: "7H", 2: "JC", 3: "8H"},
        stock="KS 6S 9C 9D",
        mortos={0: "QC QD QH 4S 5S 3H", 1: "6D"},
    )
    cols = play(tranca, st)
    # turn 0 seat 0: draws KS; melds K K K, + KS -> morto: 3H laid, replaced by 6S; QC QD QH;
    #   hand 4S 5S 6S (19 each) -> discards 4S; then as in the direct test (9C to seat 1, 9D to 2)
    assert cards(st.red3[0]) == ["3H"]
    assert cards(st.hand[0]) == hand("5S 6S")
    # A: melded 70; red 3 without canasta -100; hands 5S 6S 10 + 9D 10 = 20 -> -50
    assert side_cols(cols, "score", "red3_count", "red3_points") == {
        "score": [-50, -115],
        "red3_count": [1, 0],
        "red3_points": [-100, 0],
    }


def test_morto_indirect_played_from_next_turn(tranca):
    """000 Gameplay 10, V 9, E5: emptying the hand by the discard takes the morto; it is played
    from the player's next turn, which starts with a normal draw."""
    st = make_position(
        tranca,
        hands={0: "KC KD KH", 1: "7H", 2: "JC", 3: "8H"},
        stock="5C 9C 9D 9H 6S",
        mortos={0: "QC QD QH 4S 5S", 1: "6D"},
    )
    cols = play(tranca, st)
    # turn 0 seat 0: draws 5C, melds K K K, discards 5C: hand empty -> morto (indirect)
    # turn 1 seat 1 draws 9C, discards it;  turn 2 seat 2 draws 9D, discards JC;
    # turn 3 seat 3 draws 9H, discards 8H (kind 33 < 9H 34)
    # turn 4 seat 0 draws 6S (normal draw), melds QC QD QH (keeps 3 >= 2 cards: morto taken,
    #   no canasta), hand 4S 5S 6S -> discards 4S
    # turn 5 seat 1: stock empty, top 4S, hand 7H -> end (6 turns)
    assert int(cols["n_turns"][0]) == 6
    assert cards(st.hand[0]) == hand("5S 6S")
    assert pile_cards(st) == ["5C", "9C", "JC", "8H", "4S"]
    # A: melded KKK 30 + QQQ 30 = 60; hands 5S 6S 10 + 9D 10 = 20 -> 40
    # B: morto -100; hands 7H 5 + 9H 10 = 15 -> -115
    assert side_cols(cols, "score", "morto_taken", "morto_direct", "morto_turn", "melded_points") == {
        "score": [40, -115],
        "morto_taken": [1, 0],
        "morto_direct": [0, 0],
        "morto_turn": [0, -1],
        "melded_points": [60, 0],
    }


def test_morto_indirect_unplayed_counts_as_hand(tranca):
    """E5 (V 9, indirect_morto_void off in tranca): if the deal ends before the indirectly taken
    morto is played, its cards count against the side as hand cards; no morto penalty."""
    st = make_position(
        tranca,
        hands={0: "KC KD KH", 1: "7H", 2: "JC", 3: "8H"},
        stock="5C 9C 9D 9H",
        mortos={0: "QC QD QH 4S 5S", 1: "6D"},
    )
    cols = play(tranca, st)
    # as above, but at turn 4 seat 0 faces an empty stock and 8H on top: the deal ends
    assert int(cols["n_turns"][0]) == 5
    # A: melded 30; hands QC QD QH 30 + 4S 5S 10 + 9D 10 = 50; morto 0 -> -20
    assert side_cols(cols, "score", "hand_penalty", "morto_penalty") == {
        "score": [-20, -115],
        "hand_penalty": [-50, -15],
        "morto_penalty": [0, -100],
    }


# ---- going out (000 Gameplay 11, Scoring: Going out bonus; V 10, 11; E6, E7) -------------------


def _going_out_position(rules, melded_before):
    return make_position(
        rules,
        hands={0: "5C 5D 5H", 1: "7D", 2: "4C", 3: "8D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 2},
        mortos={1: "6D"},
        stock="9S 4D",
        melded_before=melded_before,
    )


@pytest.mark.parametrize(
    "em_cima, melded_before, bonus",
    [
        (True, {0}, 100),  # the going-out player melded in an earlier turn: 100
        (True, set(), 200),  # em cima: nothing melded before the going-out turn: 200
        (True, {2}, 200),  # the partner's earlier melds do not matter: still em cima
        (False, set(), 100),  # switch off: 100
    ],
)
def test_going_out_bonus_and_em_cima(tranca, em_cima, melded_before, bonus):
    """000 Gameplay 11 + Scoring: Going out bonus, V 10-11, E7: going out (morto taken + a
    canasta) scores 100, or 200 em cima (the player had melded nothing before; melds of the
    going-out turn do not count); ``em_cima=False`` -> 100."""
    rules = tranca.replace(em_cima=em_cima)
    st = _going_out_position(rules, melded_before)
    cols = play(rules, st)
    # seat 0 draws 9S; 5C 5D 5H (may leave one card: the side may go out); discards 9S: out
    assert int(cols["end_reason"][0]) == 1 and int(cols["out_seat"][0]) == 0
    assert list(cols["went_out"]) == [1, 0]
    assert int(cols["em_cima"][0]) == (1 if bonus == 200 else 0)
    # A: melded 70 + 15 = 85; clean 200; bonus; hand 4C -5 -> 280 + bonus
    # B: morto -100; hands 7D 5 + 8D 10 -> -115
    assert side_cols(cols, "score", "going_out_bonus") == {
        "score": [280 + bonus, -115],
        "going_out_bonus": [bonus, 0],
    }


def test_going_out_by_melding_the_last_card(tranca):
    """000 Gameplay 11 ("The final card may be melded or discarded"), Glossary "Bater": a player
    whose side may go out can meld every card; no discard follows."""
    st = make_position(
        tranca,
        hands={0: "5C 5D 5H", 1: "7D", 2: "4C", 3: "8D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 2},
        mortos={1: "6D"},
        stock="KS 4D",
        melded_before={0},
    )
    cols = play(tranca, st)
    # seat 0 draws KS; KS onto the kings (50) beats 5 5 5 (40); then 5C 5D 5H: hand empty -> out
    assert int(cols["end_reason"][0]) == 1 and int(cols["out_seat"][0]) == 0
    assert pile_cards(st) == []
    # A: melded 8 x 10 + 3 x 5 = 95; clean 200; going out 100; hand 4C -5 -> 390
    # B: morto -100; hands 7D 5 + 8D 10 -> -115
    assert list(cols["score"]) == [390, -115]


@pytest.mark.parametrize("void, want_b, morto_b, hand_b", [(False, -15, 0, -45), (True, -75, -100, -5)])
def test_indirect_morto_void_switch(tranca, void, want_b, morto_b, hand_b):
    """V 9, E5, switch ``indirect_morto_void`` (002 Detalle; off in tranca): a morto taken by the
    discard, with the opponents going out before the taker's next turn, counts as never taken
    (-100, its cards not counted) when the switch is on; off, its cards are hand cards."""
    rules = tranca.replace(indirect_morto_void=void)
    st = make_position(
        rules,
        hands={0: "4C", 1: "QC QD QH", 2: "5C 5D 5H", 3: "7D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 0},
        mortos={1: "AC AD"},
        stock="9S 4S",
        seat=1,
        melded_before={2},
    )
    cols = play(rules, st, ("basic", "basic"))
    # turn 0 seat 1 draws 9S, melds Q Q Q, discards 9S: hand empty -> morto AC AD (indirect)
    # turn 1 seat 2: top 9S, no 9s: draws 4S, melds 5 5 5, discards 4S: out (melded before: 100)
    assert int(cols["out_seat"][0]) == 2
    assert int(cols["score"][0]) == 380  # 70 + 15 + 200 + 100 - 4C 5
    # B: melded 30; off: AC AD 40 + 7D 5 = 45 in hand -> -15;  on: morto -100, 7D -5 -> -75
    assert side_cols(cols, "score", "morto_penalty", "hand_penalty") == {
        "score": [380, want_b],
        "morto_penalty": [0, morto_b],
        "hand_penalty": [-5, hand_b],
    }


def test_going_out_refused_without_canasta_must_keep_a_card(tranca):
    """000 Gameplay 11, V 10, E6: with the morto taken but no canasta the player may not empty
    the hand, so no meld may leave 0 or 1 card; the player keeps cards and discards."""
    kw = {"melds": {0: ["KC KD KH KS KC KD"]}, "taken_mortos": {0: 2}, "mortos": {1: "6D"}}
    # 4 cards: 5 5 5 would leave one card -> refused; with 5 cards (two left) it is allowed
    st = make_position(tranca, hands={0: "5C 5D 5H 9S", 1: "7D"}, stock="4D", **kw)
    assert meld_acts(tranca, st, 0) == []
    st = make_position(tranca, hands={0: "5C 5D 5H 9S 8S", 1: "7D"}, stock="4D", **kw)
    assert meld_acts(tranca, st, 0) == [(A_NEW, FIVE, NEW_3NAT)]
    # in play
    st = make_position(tranca, hands={0: "5C 5D 5H", 1: "7D", 2: "4C", 3: "8D"}, stock="9S", **kw)
    cols = play(tranca, st)
    # seat 0 draws 9S, may not meld the 5s; keeps 5s 60-1=59 each, 9S 18 -> discards 9S
    # seat 1: stock empty, top 9S, hand 7D -> end
    assert cards(st.hand[0]) == hand("5C 5D 5H")
    assert int(cols["end_reason"][0]) == 2
    # A: melded 60 (no canasta); hands 15 + 4C 5 = 20 -> 40;  B: morto -100, hands 15 -> -115
    assert side_cols(cols, "score", "going_out_bonus", "canasta_bonus") == {
        "score": [40, -115],
        "going_out_bonus": [0, 0],
        "canasta_bonus": [0, 0],
    }


def test_must_keep_a_card_applies_to_pile_capture(tranca):
    """E6 / V 10: a capture that would leave the player (morto taken, no canasta) with 0 or 1
    card is refused; with cards to spare it is allowed; onto a meld it may empty the hand only
    if it completes the canasta."""
    kw = {"taken_mortos": {0: 2}, "mortos": {1: "6D"}, "stock": "4D"}
    st = make_position(tranca, hands={0: "KC KD", 1: "7D"}, pile="KH", **kw)
    assert draw_acts(tranca, st, 0) == [STOCK]  # K K + KH melded -> 0 cards
    st = make_position(tranca, hands={0: "KC KD 5S 6S", 1: "7D"}, pile="KH", **kw)
    assert draw_acts(tranca, st, 0) == sorted([STOCK, (A_CAP_NEW, 0, CAPNEW_2NAT)])
    st = make_position(tranca, hands={0: "5S", 1: "7D"}, melds={0: ["QC QD QH"]}, pile="QS", **kw)
    assert draw_acts(tranca, st, 0) == [STOCK]  # QS onto the queens -> 1 card left, no canasta
    st = make_position(tranca, hands={0: "5S", 1: "7D"}, melds={0: ["QC QD QH QS QC QD"]}, pile="QH", **kw)
    assert draw_acts(tranca, st, 0) == sorted([STOCK, (A_CAP_EXT, 0, 0)])  # 7th queen: canasta


def test_emptying_hand_without_morto_takes_morto_not_out(tranca):
    """000 Gameplay 10-11, V 9-10: with a canasta but the morto not yet taken, emptying the hand
    takes the morto; it is not going out."""
    st = make_position(
        tranca,
        hands={0: "5C 5D 5H", 1: "7D", 2: "4C", 3: "8D"},
        melds={0: [KINGS7]},
        mortos={0: "QC QD QH", 1: "6D"},
        stock="9S",
    )
    cols = play(tranca, st)
    # seat 0 draws 9S, melds 5 5 5, discards 9S: hand empty -> morto (indirect); seat 1: stock
    # empty, top 9S, hand 7D -> end (stock_out)
    assert int(cols["end_reason"][0]) == 2
    assert cards(st.hand[0]) == hand("QC QD QH")
    # A: melded 85; clean 200; no going out; hands QQQ 30 + 4C 5 = 35 -> 250
    assert side_cols(cols, "score", "went_out", "going_out_bonus", "morto_taken", "morto_direct") == {
        "score": [250, -115],
        "went_out": [0, 0],
        "going_out_bonus": [0, 0],
        "morto_taken": [1, 0],
        "morto_direct": [0, 0],
    }


# ---- scoring: morto penalty, hand values, the sum (000 Scoring; V 12; docs/rules.md 3.24) ------


@pytest.mark.parametrize("penalty, want_a", [(100, -110), (0, -10)])
def test_unclaimed_morto_penalty_and_switch(tranca, penalty, want_a):
    """000 Scoring: Morto not picked up penalty, V 12: -100 for a side that never took its
    morto; its cards are not also counted; ``morto_penalty=0`` switches it off."""
    rules = tranca.replace(morto_penalty=penalty)
    st = make_position(
        rules,
        hands={0: "4C", 1: "4D", 2: "5C", 3: "5D"},
        mortos={0: "AC AD JK JK"},  # 20 + 20 + 50 + 50 = 140 points that must not count
        taken_mortos={1: 1},
    )
    cols = play(rules, st)
    # A: -penalty; hands 4C 5 + 5C 5 = 10 -> -110 (or -10)
    # B: morto taken; hands 4D 5 + 5D 5 -> -10
    assert side_cols(cols, "score", "morto_penalty", "morto_taken") == {
        "score": [want_a, -10],
        "morto_penalty": [-penalty, 0],
        "morto_taken": [0, 1],
    }


def test_card_values_in_hand_and_melds(tranca):
    """000 Scoring: Card values / Hand penalties, V Card values: A 20, K..8 10, 7..4 5, black 3 5,
    2 20, joker 50; held cards subtract, melded cards add."""
    st = make_position(
        tranca,
        hands={
            0: "AC KC QC JC 10C 9C 8C 7C 6C 5C 4C",
            1: "AD",
            2: "3C 3S 2C 2D JK",
            3: "KD",
        },
        melds={1: ["7D 7H 7S 2H JK"]},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(tranca, st)
    # A hands: seat 0 A 20 + K Q J 10 9 8 6 x 10 = 60 + 7 6 5 4 4 x 5 = 20 -> 100;
    #          seat 2 3C 5 + 3S 5 + 2C 20 + 2D 20 + JK 50 = 100 -> -200
    # B melded: 7 7 7 3 x 5 = 15 + 2H 20 + JK 50 = 85; hands AD 20 + KD 10 = 30 -> 55
    assert side_cols(cols, "score", "hand_penalty", "melded_points") == {
        "score": [-200, 55],
        "hand_penalty": [-200, -30],
        "melded_points": [0, 85],
    }


@pytest.mark.parametrize("melded_before, score_a", [({0}, 535), (set(), 635)])
def test_worked_example_score_is_sum_of_parts(tranca, melded_before, score_a):
    """000 Scoring, docs/rules.md 3.24 (worked example): score = melded points + canasta bonuses
    + red 3s + going out - unclaimed morto - hand cards."""
    st = make_position(
        tranca,
        hands={0: "5C 5D 5H JK", 1: "AC JC", 2: "", 3: "4C 2C"},
        melds={0: [KINGS7]},
        red3={0: "3D", 1: "3H"},
        taken_mortos={0: 0},
        mortos={1: "6D"},
        stock="9D",
        melded_before=melded_before,
    )
    cols = play(tranca, st)
    # seat 0 draws 9D; 5C 5D 5H (40), then JK onto the 5s (empties the hand but the 9D, 20);
    # discards 9D: out.
    assert cards(st.mc[0, 1]) == hand("5C 5D 5H JK")
    # A: melded 70 + 15 + 50 = 135; clean 200; red 3 +100; going out 100 (200 em cima);
    #    hands empty -> 535 (635)
    # B: red 3 -100; morto -100; hands A 20 + J 10 + 4 5 + 2 20 = 55 -> -255
    go = score_a - 435
    assert side_cols(
        cols,
        "score",
        "melded_points",
        "canasta_bonus",
        "red3_points",
        "going_out_bonus",
        "morto_penalty",
        "hand_penalty",
    ) == {
        "score": [score_a, -255],
        "melded_points": [135, 0],
        "canasta_bonus": [200, 0],
        "red3_points": [100, -100],
        "going_out_bonus": [go, 0],
        "morto_penalty": [0, -100],
        "hand_penalty": [0, -55],
    }
