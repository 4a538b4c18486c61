"""Rule tests of ``stock_out = 1``: an untaken morto becomes the stock (docs/rules.md 3.17, E22, E23).

Source: seed ``004_083ae37bb3863d19.txt`` ("004") How to play: "If the stock runs out and a
morto is still face down on the table, that morto becomes the new stock. If no morto is left,
the round ends there and nobody scores the bonus for going out"; VARIANTS.md decision 14 (also
for ``tranca-br``, seed 002, which is silent).  Engine choices: E22 (which morto, when: the
drawing side's first, at the moment a card must be drawn from the empty stock), E23 (that side
never took a morto: it cannot go out and pays the unclaimed-morto penalty; switch
``morto_stock_taken``).

Every expected outcome is worked out by hand.  ``passive`` (strategies/passive.py) draws from the
stock, never melds, and discards its lowest card kind (clubs A..K = 0..12, diamonds 13..25,
hearts 26..38, spades 39..51).  Card values of 004 (Card values and scoring): A 15, K..8 10,
7..3 5, 2 10; unclaimed morto -100; red 3s (``tranca-br``, seed 002) +-100.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim import referee as R
from tranca_sim.engine import play_position
from tranca_sim.engine.cards import counts_to_cards, parse, to_str
from tranca_sim.engine.log import play_logged
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.state import MS_STOCK, SC_PILE_N, SS_MORTO
from tranca_sim.engine.turn import legal_discard
from tranca_sim.rules import Rules, RulesError, get_preset

BURACO = get_preset("buraco")
BR = get_preset("tranca-br")
PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")
STOCK_OUT = 2  # END_REASONS.index("stock_out")


def play(rules, st, strategies=("passive", "passive")):
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols


def hand(st, seat):
    return sorted(counts_to_cards(st.hand[seat]))


def pile(st):
    return [to_str(int(k)) for k in st.pile[: st.sc[SC_PILE_N]]]


def _both_waiting(rules):
    """Stock and pile empty, both mortos waiting; seat 0 (side A) to move."""
    return make_position(
        rules,
        hands={0: "QC", 1: "5C", 2: "6C", 3: "8C"},
        mortos={0: "9D 4H", 1: "5S 6S"},
    )


def test_drawing_sides_morto_becomes_the_stock_first():
    """E22 (morto_stock_side = 0).  Turn 0: seat 0 (side A) faces the empty stock; both mortos
    wait, so side A's becomes the stock, in its dealt order 9D 4H.  Seat 0 draws 9D, holds QC 9D
    and discards QC (kind 11 < 9D 21).  Turn 1: seat 1 draws 4H (the stock is not empty yet),
    discards 5C (4 < 4H 29).  Turn 2: seat 2 faces the empty stock: side B's morto is the only
    one left and becomes the stock (5S 6S); seat 2 draws 5S and discards 6C (5 < 5S 43).  Turn 3:
    seat 3 draws 6S, discards 8C (7 < 6S 44).  Turn 4: seat 0, no stock, no morto: the deal ends
    (stock_out) at its draw, the fifth turn begun (n_turns 5), no going-out bonus.
    A: hands 9D 10 + 5S 5 = -15; its morto became the stock, never taken: -100 (E23) -> -115.
    B: hands 4H 5 + 6S 5 = -10; -100 -> -110."""
    st = _both_waiting(BURACO)
    cols = play(BURACO, st)
    assert (hand(st, 0), hand(st, 1), hand(st, 2), hand(st, 3)) == (["9D"], ["4H"], ["5S"], ["6S"])
    assert pile(st) == ["QC", "5C", "6C", "8C"]
    assert int(cols["end_reason"][0]) == STOCK_OUT and int(cols["n_turns"][0]) == 5
    assert [int(x) for x in cols["score"]] == [-115, -110]
    assert [int(x) for x in cols["morto_penalty"]] == [-100, -100]
    assert [int(x) for x in cols["morto_taken"]] == [0, 0]
    assert [int(x) for x in cols["morto_stock"]] == [1, 1]
    assert [int(st.ss[s, SS_MORTO]) for s in range(2)] == [MS_STOCK, MS_STOCK]


def test_morto_stock_column_names_the_side_whose_morto_became_the_stock():
    """The run-file column ``morto_stock`` (E22, E23): side A took its morto (seat 2) before; the
    stock is empty and side B's morto 5S 6S waits.  Turn 0: seat 0 faces the empty stock; the
    only untaken morto, side B's, becomes the stock (004 "that morto becomes the new stock").
    Seat 0 draws 5S, holds QC 5S and discards QC (kind 11 < 5S 43).  Turn 1: seat 1 draws 6S,
    holds 5C 6S, discards 5C (4 < 44).  Turn 2: seat 2 faces the empty stock with no morto left:
    the deal ends at its draw (n_turns 3), nobody went out.
    A: hands 5S 5 + 6C 5 = -10, its morto taken: -10, morto_stock 0.
    B: hands 6S 5 + 8C 10 = -15; its morto became the stock, never taken: -100 (E23) -> -115,
    morto_stock 1."""
    st = make_position(
        BURACO, hands={0: "QC", 1: "5C", 2: "6C", 3: "8C"}, mortos={1: "5S 6S"}, taken_mortos={0: 2}
    )
    cols = play(BURACO, st)
    assert (hand(st, 0), hand(st, 1)) == (["5S"], ["6S"])
    assert int(cols["end_reason"][0]) == STOCK_OUT and int(cols["n_turns"][0]) == 3
    assert [int(x) for x in cols["score"]] == [-10, -115]
    assert [int(x) for x in cols["morto_taken"]] == [1, 0]
    assert [int(x) for x in cols["morto_stock"]] == [0, 1]


def test_other_sides_morto_first_with_the_switch():
    """E22 switch morto_stock_side = 1: at turn 0 side B's morto (5S 6S) becomes the stock first.
    Seat 0 draws 5S, holds QC 5S, discards QC (11 < 43).  Seat 1 draws 6S, discards 5C (4 < 44).
    Seat 2 faces the empty stock: side A's morto becomes the stock (9D 4H); draws 9D, discards
    6C (5 < 21).  Seat 3 draws 4H, discards 8C (7 < 29).  Turn 4 ends the deal.
    A: 5S 5 + 9D 10 = -15, -100 -> -115; B: 6S 5 + 4H 5 = -10, -100 -> -110 (the same totals,
    other hands)."""
    rules = BURACO.replace(morto_stock_side=1)
    st = _both_waiting(rules)
    cols = play(rules, st)
    assert (hand(st, 0), hand(st, 1), hand(st, 2), hand(st, 3)) == (["5S"], ["6S"], ["9D"], ["4H"])
    assert [int(x) for x in cols["score"]] == [-115, -110]


def test_morto_turned_stock_counts_as_taken_with_the_switch():
    """E23 switch morto_stock_taken: the same deal as above, but a morto that became the stock
    is not charged: A -15, B -10."""
    rules = BURACO.replace(morto_stock_taken=True)
    cols = play(rules, _both_waiting(rules))
    assert [int(x) for x in cols["score"]] == [-15, -10]
    assert [int(x) for x in cols["morto_penalty"]] == [0, 0]


def test_red3_replacement_comes_from_the_morto():
    """tranca-br (002 red 3s, VARIANTS 14): seat 0 draws the last stock card, the red 3H, and lays
    it (002 Tres Rojo); its replacement must come from the empty stock, so side A's morto becomes
    the stock and seat 0 draws 9D from it.  Holds QC 9D, discards QC.  Seat 1 draws 4H, discards
    5C; seat 2 turns side B's morto into the stock, draws 5S, discards 6C; seat 3 draws 6S,
    discards 8C; turn 4 ends the deal (the closed pile's 8C cannot be melded by seat 0 anyway).
    A: red 3 without a canasta -100; hands 9D 10 + 5S 5 = -15; morto -100 -> -215.
    B: hands 4H 5 + 6S 5 = -10; morto -100 -> -110."""
    st = make_position(
        BR, hands={0: "QC", 1: "5C", 2: "6C", 3: "8C"}, stock="3H", mortos={0: "9D 4H", 1: "5S 6S"}
    )
    cols = play(BR, st)
    assert hand(st, 0) == ["9D"] and int(cols["n_turns"][0]) == 5
    assert [int(x) for x in cols["red3_points"]] == [-100, 0]
    assert [int(x) for x in cols["score"]] == [-215, -110]


def test_no_morto_left_ends_the_deal_before_a_capture():
    """004 "If no morto is left, the round ends there": both mortos taken, stock empty, the closed
    pile's KD could be taken by seat 0 with KC KH (tranca-br).  The deal ends at once, at seat 0's
    draw (n_turns 1: the turn begun).
    A: hands KC 10 + KH 10 + 5C 5 + 6D 5 = -30; B: 5D 5 + 7D 5 = -10.
    With stock_out = 0 (000 Gameplay 12, E8) seat 0 must take the pile instead."""
    kw = {"hands": {0: "KC KH 5C", 1: "5D", 2: "6D", 3: "7D"}, "pile": "QS KD", "taken_mortos": {0: 2, 1: 1}}
    st = make_position(BR, **kw)
    cols = play(BR, st, ("basic", "basic"))
    assert int(cols["end_reason"][0]) == STOCK_OUT and int(cols["n_turns"][0]) == 1
    assert [int(x) for x in cols["score"]] == [-30, -10]
    assert [int(x) for x in cols["morto_stock"]] == [0, 0]  # both mortos were taken
    rules0 = BR.replace(stock_out=0)
    st = make_position(rules0, **kw)
    cols = play(rules0, st, ("basic", "basic"))
    assert int(cols["pile_captures"][0]) == 1


def test_side_without_a_morto_may_not_empty_the_hand():
    """E23: side A's morto became the stock, so side A can never take one: even with a clean
    canasta (004 "your team must have taken its morto") seat 0 may not discard its last card.
    With morto_stock_taken the morto counts as taken and the clean canasta lets it go out."""
    kw = {
        "hands": {0: "KC", 1: "5C"},
        "melds": {0: ["4H 5H 6H 7H 8H 9H 10H"]},
        "stock": "9S",
        "mortos": {1: "6S"},
        "stock_mortos": {0},
    }
    st = make_position(BURACO, **kw)
    assert not legal_discard(st, BURACO.to_array(), 0, parse("KC"))
    rules = BURACO.replace(morto_stock_taken=True)
    st = make_position(rules, **kw)
    assert legal_discard(st, rules.to_array(), 0, parse("KC"))


def test_validation():
    assert BURACO.stock_out == 1 and BR.stock_out == 1
    assert get_preset("tranca").replace(stock_out=1).stock_out == 1
    with pytest.raises(RulesError, match="morto_stock_side"):
        BURACO.replace(morto_stock_side=2)
    with pytest.raises(RulesError, match="stock_out"):
        Rules(stock_out=2).validate()


@pytest.mark.parametrize("preset", ["buraco", "tranca-br"])
def test_referee_checks_the_morto_stock(preset):
    """The referee follows E22: an engine log in which a morto became the stock while both
    waited is accepted; the same log naming the other side's morto is refused (code stock_out),
    and so is the log with the morto_stock action removed (a draw from an empty stock)."""
    rules = get_preset(preset)
    for i in range(200):
        log = play_logged(rules, ("passive", "passive"), 3, i)
        acts = log["actions"]
        j = next(k for k, a in enumerate(acts) if a["act"] == "morto_stock")
        if not any(a["act"] == "morto" for a in acts[:j]):
            break
    else:
        raise AssertionError("no deal with both mortos waiting when the stock ran out")
    assert R.check_log(log).ok
    other = "B" if acts[j]["side"] == "A" else "A"
    bad = dict(log, actions=acts[:j] + [dict(acts[j], side=other)] + acts[j + 1 :])
    v = R.check_log(bad)
    assert not v.ok and v.code == "stock_out" and v.index == j and "E22" in v.reason
    bad = dict(log, actions=acts[:j] + acts[j + 1 :])
    v = R.check_log(bad)
    assert not v.ok and v.index == j
    # under the tranca rules (stock_out = 0) no morto ever becomes the stock
    v = R.check_log(dict(log, rules=dict(log["rules"], stock_out=0)))
    assert not v.ok


def test_passive_deals_use_both_mortos_as_stock():
    """passive never melds, so no morto is ever taken: in every buraco deal both mortos become the
    stock in turn and the deal ends by stock_out after the 104 - 44 - 22 = 38 stock cards and the
    22 morto cards have been drawn, one a turn: 60 turns, and the 61st ends at its draw."""
    from tranca_sim.engine import simulate_chunk

    cols = simulate_chunk(BURACO, ("passive", "passive"), 1, 0, 20)
    assert set(np.asarray(cols["n_turns"]).tolist()) == {61}
    assert set(np.asarray(cols["end_reason"]).tolist()) == {STOCK_OUT}
    assert set(np.asarray(cols["morto_penalty"]).tolist()) == {-100}
