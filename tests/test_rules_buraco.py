"""Rule tests of the Buraco presets (``buraco``, ``buraco-fechado``) and ``tranca-br``, and of the
options that come with Buraco: jokers, going out on a dirty canasta, special canastas
(docs/rules.md 3.28, E22-E24).

Sources: seed ``004_083ae37bb3863d19.txt`` ("004": How to play, Card values and scoring, Common
variations), seed ``002_8e477453f063f1ab.txt`` ("002"), VARIANTS.md decisions ("V n").  Every
expected outcome is worked out by hand from the seeds, the arithmetic in a comment.

Card values of 004 (Card values and scoring): A 15, K Q J 10 9 8 10, 7..3 5, 2 10, joker 20
(when added, 004 "Buraco with jokers"); clean canasta 200, dirty 100, going out 100 (no em cima,
V 11), unclaimed morto -100; red 3s (tranca-br, 002 Tres Rojo) +-100.

A position whose stock is empty and whose mortos are both taken ends at once (stock_out = 1:
no morto left to become the stock, 004), so it is a pure scoring test.  ``basic`` melds a
natural extension that completes a canasta first and goes out as soon as it may.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim import referee as R
from tranca_sim.engine import deck_of, play_position
from tranca_sim.engine.cards import parse
from tranca_sim.engine.deal import setup_deal
from tranca_sim.engine.obs import (
    A_CAP_NEW,
    A_CAP_OPEN,
    A_NEW,
    A_RUN_NEW,
    A_STOCK,
    CAPNEW_2NAT,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import list_draws, list_melds
from tranca_sim.engine.state import SC_PILE_N, new_state
from tranca_sim.engine.turn import legal_discard
from tranca_sim.rules import RulesError, get_preset

BURACO = get_preset("buraco")
FECHADO = get_preset("buraco-fechado")
BR = get_preset("tranca-br")
PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")
H = 2  # hearts


def play(rules, st, strategies=("basic", "basic")):
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols


def acts_of(fn, rules, st, seat=0):
    acts = np.zeros(1024, np.int32)
    n = fn(st, rules.to_array(), seat, acts)
    return sorted((int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n])


def scores(cols):
    return [int(x) for x in cols["score"]]


# ---- the presets as data ------------------------------------------------------------------------


def test_presets_are_played_and_cite_their_seed():
    from tranca_sim.rules import PLANNED_PRESETS

    for r in (BURACO, FECHADO, BR):
        assert r.name not in PLANNED_PRESETS
        assert r.stock_out == 1 and r.card_values == "004" and not r.em_cima and not r.turn_up_first_discard
        assert r.n_jokers == 0 and r.max_wilds == 1
    assert (BURACO.meld_sets, BURACO.pile_closed, BURACO.threes_special, BURACO.go_out_needs_clean) == (
        False,
        False,
        False,
        True,
    )
    assert (FECHADO.meld_sets, FECHADO.pile_closed, FECHADO.go_out_needs_clean) == (True, True, False)
    assert not FECHADO.lock_by_wild and not FECHADO.lock_by_black3
    assert (BR.threes_special, BR.lock_by_wild, BR.lock_by_black3, BR.black3_on_going_out) == (
        True,
        False,
        True,
        False,
    )
    assert BR.indirect_morto_void and BR.go_out_needs_clean and BR.meld_runs and BR.meld_sets


def test_pile_starts_empty():
    """004 Setup and deal ("The discard pile starts empty"), 002 Juego Tranca (the first discard
    "empieza la papelera"), V 13: after the deal the pile is empty and the stock holds
    104 - 44 - 22 = 38 cards."""
    for rules in (BURACO, FECHADO, BR):
        st = new_state()
        deck = np.asarray(deck_of(rules, 1, 0), dtype=np.int16)
        setup_deal(st, rules.to_array(), deck, deck.shape[0], 0)
        assert int(st.sc[SC_PILE_N]) == 0
        assert int(st.sc[1] - st.sc[0]) == 38  # SC_DECK_N - SC_STOCK_PTR


# ---- buraco: runs only, open pile, no lock, plain 3s ----------------------------------------------


def test_runs_only_no_set_is_listed():
    """004 How to play: "A meld is a run of three or more cards in a row of the same suit".  Seat 0
    holds KC KD KH 5H 6H 7H 9S 9D: the only new meld is the run 5H 6H 7H (hearts from position
    5, three naturals), never the three kings; buraco-fechado (004 "Closed buraco": "melds of
    three or more cards of the same rank") lists both."""
    kw = {"hands": {0: "KC KD KH 5H 6H 7H 9S 9D", 1: "5C"}, "stock": "4C", "mortos": {0: "4S", 1: "6S"}}
    st = make_position(BURACO, **kw)
    assert acts_of(list_melds, BURACO, st) == [(A_RUN_NEW, H * 16 + 5, 0)]
    st = make_position(FECHADO, **kw)
    assert acts_of(list_melds, FECHADO, st) == sorted([(A_RUN_NEW, H * 16 + 5, 0), (A_NEW, 13, 0)])


@pytest.mark.parametrize("top", ["2C", "3S", "KD"])
def test_open_pile_without_lock(top):
    """004 How to play: "you may take the discard pile whenever it has cards"; no lock (V Presets):
    a wild (2C) or a black 3 (3S) on top changes nothing.  With the stock holding cards the
    draws are the stock and the open pile, nothing melded (A_CAP_OPEN)."""
    st = make_position(
        BURACO, hands={0: "5H 9S", 1: "5C"}, pile=f"7D {top}", stock="4C", mortos={0: "4S", 1: "6S"}
    )
    assert acts_of(list_draws, BURACO, st) == sorted([(A_STOCK, 0, 0), (A_CAP_OPEN, 0, 0)])


def test_threes_are_plain_cards():
    """004 Card values: "Cards from 3 to 7: 5 points each"; no red or black 3s in Buraco.  Side A
    holds 3H and 3C in hand and the run AH 2H 3H (ace low, the 2 of hearts natural in its place:
    004 "A 2 of the same suit, placed in its own spot ... does not count as a wild card").  The
    deal ends at once.  A: melded AH 15 + 2H 10 + 3H 5 = 30; hands 3H 5 + 3C 5 = -10 -> 20.
    B: hand 5C 5 -> -5.  No red-3 points."""
    st = make_position(
        BURACO,
        hands={0: "3H 3C", 1: "5C"},
        melds={0: ["AH 2H 3H"]},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(BURACO, st)
    assert scores(cols) == [20, -5]
    assert [int(x) for x in cols["red3_points"]] == [0, 0]


def _going_out(rules, run):
    """Side A has taken its morto and has the run ``run`` (six hearts 4..9); seat 0 (basic) holds
    10H, draws 9S, lays 10H on the high end (a canasta of seven) and may then go out by
    discarding 9S.  Seat 2 holds 5C; side B (seats 1, 3: 7D, 8D) has not taken its morto."""
    st = make_position(
        rules,
        hands={0: "10H", 1: "7D", 2: "5C", 3: "8D"},
        melds={0: [run]},
        stock="9S 4C",
        mortos={1: "6S"},
        taken_mortos={0: 2},
    )
    return play(rules, st)


def test_clean_canasta_going_out_worked_example():
    """004 How to play: going out needs the morto and a clean canastra; going out 100, no em cima
    (V 11: seat 0 melded nothing before, yet the bonus stays 100).
    A: melded 4H 5H 6H 7H 4 x 5 = 20, 8H 9H 10H 3 x 10 = 30 -> 50; clean canasta 200; going out 100;
       partner's 5C -5 -> 345.
    B: hands 7D 5 + 8D 10 = -15; morto never taken -100 -> -115."""
    cols = _going_out(BURACO, "4H 5H 6H 7H 8H 9H")
    assert int(cols["went_out"][0]) == 1
    assert [int(x) for x in cols["going_out_bonus"]] == [100, 0]
    assert scores(cols) == [345, -115]


def test_dirty_canasta_is_not_enough_in_buraco():
    """004 How to play ("A team with no clean canastra cannot go out"): with the run 4H 5H 2C 7H 8H
    9H (2C standing for the 6H) the 10H makes a dirty canasta only, so seat 0 may not then
    discard its last card: the extension is not even listed (it would leave one card, E6), and
    the hand 10H 9S must keep a card."""
    st = make_position(
        BURACO,
        hands={0: "10H 9S", 1: "7D"},
        melds={0: ["4H 5H 2C 7H 8H 9H"]},
        stock="4C",
        mortos={1: "6S"},
        taken_mortos={0: 2},
    )
    assert acts_of(list_melds, BURACO, st) == []
    rules = BURACO.replace(go_out_needs_clean=False)
    st = make_position(rules, **{**_dirty_kw(), "hands": {0: "10H 9S", 1: "7D"}})
    assert len(acts_of(list_melds, rules, st)) == 1  # 10H onto the high end: then 9S goes out


def _dirty_kw():
    return {"melds": {0: ["4H 5H 2C 7H 8H 9H"]}, "stock": "4C", "mortos": {1: "6S"}, "taken_mortos": {0: 2}}


def test_going_out_on_a_dirty_canasta_option():
    """004 Common variations "Going out with a dirty canastra" (go_out_needs_clean = False): the
    same deal as the worked example with the 2C for the 6H.
    A: melded 4H 5 + 5H 5 + 2C 10 + 7H 5 + 8H 9H 10H 30 = 55; dirty canasta 100; going out 100;
       5C -5 -> 250.  B: -115 as there."""
    cols = _going_out(BURACO.replace(go_out_needs_clean=False), "4H 5H 2C 7H 8H 9H")
    assert int(cols["went_out"][0]) == 1
    assert scores(cols) == [250, -115]


# ---- jokers -----------------------------------------------------------------------------------------


def test_jokers_in_buraco():
    """004 Common variations "Buraco with jokers": 108 cards, jokers wild with the 2s, "20 points
    is common".  A joker in a run stands for the missing card at its place and is the run's one
    wild: 4H 5H JK 7H is a dirty run with the joker at position 6; JK with a 2 in one run is two
    wilds, refused.  Scored: the canasta 4H 5H JK 7H 8H 9H 10H is melded 4H 5 + 5H 5 + JK 20 +
    7H 5 + 8H..10H 30 = 65, dirty +100 -> 165 (the deal ends at once, hands empty)."""
    rules = BURACO.replace(n_jokers=4)
    chk = R.validate_meld("4H 5H JK 7H", rules)
    assert (chk.legal, chk.kind, chk.clean, chk.wild_at) == (True, "run", False, (6,))
    assert not R.validate_meld("4H JK 2C 7H", rules).legal
    assert not R.validate_meld("4H 5H JK 7H", BURACO).legal  # no joker in the 104-card pack
    st = make_position(
        rules, hands={0: "", 1: "5C"}, melds={0: ["4H 5H JK 7H 8H 9H 10H"]}, taken_mortos={0: 0, 1: 1}
    )
    cols = play(rules, st)
    assert [int(cols["melded_points"][0]), int(cols["canasta_bonus"][0])] == [65, 100]
    assert scores(cols) == [165, -5]
    s = R.score_side(["4H 5H JK 7H 8H 9H 10H"], rules=rules)
    assert (s["melded_points"], s["canasta_bonus"]) == (65, 100)


def test_joker_run_is_listed_with_a_joker():
    """The engine lists a new run with the joker in the gap: seat 0 holds 5H 7H JK 9C 9D: the run
    5H JK 7H (hearts from 5, joker at offset 1: variant 2 + 2 x 1 = 4)."""
    rules = BURACO.replace(n_jokers=4)
    st = make_position(rules, hands={0: "5H 7H JK 9C 9D", 1: "5C"}, stock="4C", mortos={0: "4S", 1: "6S"})
    assert acts_of(list_melds, rules, st) == [(A_RUN_NEW, H * 16 + 5, 4)]


# ---- special canastas ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "run, melded, bonus_off, bonus_on",
    [
        # AH 15 + 2H 10 + 3H..7H 5 x 5 = 25 + 8H..KH 6 x 10 = 60 -> 110; clean A-K: 500 instead of 200
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH", 110, 200, 500),
        # the same + the high AH 15 -> 125; clean A..A: 1000 instead of 200
        ("AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 125, 200, 1000),
        # 2C standing for the 5H: dirty, 110 - 5 + 10 = 115; a dirty A-K stays a dirty canasta (E24)
        ("AH 2H 3H 4H 2C 6H 7H 8H 9H 10H JH QH KH", 115, 100, 100),
        # 2H..AH (13 cards, the 2H natural at its place, the ace high) holds exactly the cards of
        # the A-K of hearts: 110 points as above, and the cards decide (VARIANTS 16): clean A-K, 500
        ("2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 110, 200, 500),
        # 3H..AH with a 2C standing for the 2H's place: dirty (2C 10 + 3H..7H 25 + 8H..KH 60 + AH 15
        # = 110), an ordinary dirty canasta 100 with or without the option (VARIANTS 16)
        ("2C 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH AH", 110, 100, 100),
    ],
)
def test_special_canastas(run, melded, bonus_off, bonus_on):
    """004 Common variations "Special canastras": "a clean canastra from ace to king and a
    canastra from ace to ace earn bigger bonuses. 500 and 1,000 points are common" (E24).  The
    deal ends at once with empty hands; the side's score is melded + bonus; the referee's
    score_side agrees."""
    for rules, bonus in ((BURACO, bonus_off), (BURACO.replace(special_canastas=True), bonus_on)):
        st = make_position(rules, hands={0: "", 1: "5C"}, melds={0: [run]}, taken_mortos={0: 0, 1: 1})
        cols = play(rules, st)
        assert [int(cols["melded_points"][0]), int(cols["canasta_bonus"][0])] == [melded, bonus]
        s = R.score_side([run], rules=rules)
        assert (s["melded_points"], s["canasta_bonus"]) == (melded, bonus)


def test_special_canastas_need_runs_from_the_ace():
    """E16: with special 3s (tranca-br) runs start at the 4, so no A-K run exists: refused."""
    with pytest.raises(RulesError, match="special_canastas"):
        BR.replace(special_canastas=True)
    with pytest.raises(RulesError, match="special_canastas"):
        get_preset("tranca").replace(special_canastas=True)


# ---- buraco-fechado: closed pile, sets of any rank, no lock, any canasta --------------------------


def test_closed_buraco_pile_and_sets_of_threes():
    """004 "Closed buraco": the pile is taken "only by using its top card in a meld right away"
    and melds of one rank are allowed; 3s are plain, so three 3s are a meld; no lock.  Pile 5D 3S
    (a black 3 on top), seat 0 holds 3C 3H 9D: the pile is taken with the new meld 3S 3C 3H
    (A_CAP_NEW, two naturals), or the stock drawn.  In tranca-br the black 3 locks (002 Tres
    Negro): seat 0 holding 3C 5S 5H 9D has only the stock."""
    kw = {"hands": {0: "3C 3H 9D", 1: "5C"}, "pile": "5D 3S", "stock": "4C", "mortos": {0: "4S", 1: "6S"}}
    st = make_position(FECHADO, **kw)
    assert acts_of(list_draws, FECHADO, st) == sorted([(A_STOCK, 0, 0), (A_CAP_NEW, 0, CAPNEW_2NAT)])
    st = make_position(BR, **{**kw, "hands": {0: "3C 5S 5H 9D", 1: "5C"}})  # a red 3 is never held
    assert acts_of(list_draws, BR, st) == [(A_STOCK, 0, 0)]
    assert R.validate_meld("3C 3H 3S", FECHADO).legal
    assert not R.validate_meld("3C 3H 3S", BURACO).legal  # runs only
    assert not R.validate_meld("3C 3H 3S", BR).legal  # black 3s never melded (002)


def test_closed_buraco_any_canasta_goes_out():
    """004 "Closed buraco": "any canastra, clean or dirty, is enough to go out": the worked
    example's dirty run goes out without a switch.  A: 55 + dirty 100 + going out 100 - 5 = 250;
    B: -115."""
    cols = _going_out(FECHADO, "4H 5H 2C 7H 8H 9H")
    assert int(cols["went_out"][0]) == 1
    assert scores(cols) == [250, -115]


# ---- tranca-br (002) ------------------------------------------------------------------------------------


def test_tranca_br_melds():
    """002 Dinámica: runs of one suit and melds of one rank; "El As vale más que el Rey" (ace high);
    2s wild, "Dama-dos-As" (Q-2-A: the 2 for the K) and "siete - siete-dos"; one wild a meld
    (V Presets); with its special 3s a run starts at the 4 (E16)."""
    chk = R.validate_meld("QH 2C AH", BR)
    assert (chk.legal, chk.kind, chk.clean, chk.low, chk.high, chk.wild_at) == (
        True,
        "run",
        False,
        12,
        14,
        (13,),
    )
    assert R.validate_meld("7C 7D 2H", BR).kind == "set"
    assert not R.validate_meld("7C 7D 2H 2S", BR).legal  # two wilds
    assert not R.validate_meld("2H 3H 4H", BR).legal  # no run through the 3 (E16)
    chk = R.validate_meld("4D 5D 6D 7D 8D 9D 10D", BR)
    assert (chk.legal, chk.clean, chk.canasta) == (True, True, True)


def test_tranca_br_wild_on_top_does_not_lock():
    """002 Tres Negro: only a black 3 locks; a wild on top is taken by melding it (E15): pile 5D 2C,
    seat 0 holds KC KD 9S: the stock, or the pile with the new meld 2C KC KD (x = 13)."""
    st = make_position(
        BR, hands={0: "KC KD 9S", 1: "5C"}, pile="5D 2C", stock="4C", mortos={0: "4S", 1: "6S"}
    )
    assert acts_of(list_draws, BR, st) == sorted([(A_STOCK, 0, 0), (A_CAP_NEW, 13, CAPNEW_2NAT)])


def test_tranca_br_scoring():
    """002 Conteo with 004 values and Tres Rojo: side A has the clean canasta of seven kings and one
    red 3; hands 5C (seat 0) and 9D (seat 2); both mortos taken, the deal ends at once.
    A: kings 7 x 10 = 70; clean 200; red 3 with a canasta +100; hands 5 + 10 = -15 -> 355.
    B: one red 3 without a canasta -100; hand 8D -10 -> -110."""
    st = make_position(
        BR,
        hands={0: "5C", 1: "8D", 2: "9D"},
        melds={0: ["KC KD KH KS KC KD KH"]},
        red3={0: "3H", 1: "3D"},
        taken_mortos={0: 0, 1: 1},
    )
    cols = play(BR, st)
    assert scores(cols) == [355, -110]


# ---- validate_meld answers run questions for every new preset ---------------------------------------


@pytest.mark.parametrize(
    "preset, cards, legal, kind, clean, canasta",
    [
        ("buraco", "AH 2H 3H", True, "run", True, False),  # the suit's 2 natural in its place (004)
        ("buraco", "AH 2C 3H", True, "run", False, False),  # 2C stands for the 2H
        ("buraco", "KH AH 2H 3H", False, None, False, False),  # no wrap-around K-A-2 (V 6)
        ("buraco", "KC KD KH", False, None, False, False),  # runs only
        ("buraco", "4H 5H 6H 7H 8H 9H 10H", True, "run", True, True),
        ("buraco", "4H 2C 6H 7H 8H 9H 2S", False, None, False, False),  # two wilds (004: one a meld)
        ("buraco-fechado", "KC KD KH", True, "set", True, False),
        ("buraco-fechado", "KC KD 2H 2S", False, None, False, False),
        # in no position order: read with the fewest wilds, the 2D standing for the 8S (8..A of spades)
        ("buraco-fechado", "9S 10S JS QS KS AS 2D", True, "run", False, True),
        ("tranca-br", "4C 5C 6C", True, "run", True, False),
        ("tranca-br", "AC 2C 3C", False, None, False, False),  # E16: no run below the 4
    ],
)
def test_validate_meld_run_questions(preset, cards, legal, kind, clean, canasta):
    chk = R.validate_meld(cards, get_preset(preset))
    assert chk.legal == legal, chk.reason
    if legal:
        assert (chk.kind, chk.clean, chk.canasta) == (kind, clean, canasta)


def test_a_waiting_morto_lets_the_hand_empty():
    """The side whose morto waits may empty its hand: seat 0 may discard its last card (taking the
    morto indirectly) in every new preset."""
    for rules in (BURACO, FECHADO, BR):
        st = make_position(rules, hands={0: "9S", 1: "5C"}, stock="4C", mortos={0: "4S", 1: "6S"})
        assert legal_discard(st, rules.to_array(), 0, parse("9S"))
