"""Run shapes the engine used to leave out (issue 21 items 1 and 2; VARIANTS 17), hand-made positions
with the expected actions and results worked out from the seeds.

- Two wilds a meld (000 Gameplay 7: "at least two natural cards and no more than two wild cards";
  ``tranca-carioca`` adds same-suit runs, 000 Common Variations): the run natural-wild-wild-natural,
  e.g. 4H 2C JK 7H, is legal and has no window of three holding two naturals, so it is laid as one
  new run of four cards (``A_RUN_NEW`` / ``A_CAP_RUN`` with y = ``RUN_GAP`` + jokers among the wilds).
- The suit's own 2 from a closed pile (004 How to play: "A 2 of the same suit, placed in its own spot
  (ace, 2, 3 or 2, 3, 4), does not count as a wild card. The meld stays clean"; 004 "Closed buraco":
  the pile is taken "only by using its top card in a meld right away"): it goes to its own place,
  natural, onto a run from the 3 or in a new A-2-3 / 2-3-4.  No seed keeps a wild from the pile out
  of the 2's place either (E26).
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim.engine.log import play_logged
from tranca_sim.engine.obs import (
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_RUN,
    A_STOCK,
    END_HIGH,
    END_LOW,
    RUN_GAP,
    RUN_TOP_NAT,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import apply_meld, list_draws, list_melds
from tranca_sim.engine.state import MH_HI, MH_LO, MH_N, MH_NAT, MH_WILD, MH_WMASK, SC_PILE_N
from tranca_sim.engine.turn import take_pile
from tranca_sim.referee import check_log, validate_meld
from tranca_sim.rules import get_preset

C, D, H, S = 0, 1, 2, 3
CARIOCA = get_preset("tranca-carioca")
FECHADO = get_preset("buraco-fechado")


def acts_of(fn, rules, st):
    acts = np.zeros(512, np.int32)
    n = fn(st, rules.to_array(), 0, acts)
    return [(int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n]]


def position(rules, hand, melds=(), pile=None):
    """Seat 0 to move with ``hand``; side A's melds; both mortos still waiting (no keep rule)."""
    return make_position(
        rules,
        hands={0: hand, 1: "KD", 2: "9C", 3: "QD"},
        melds={0: list(melds)} if melds else None,
        pile=pile,
        stock="KS",
        mortos={0: "JC", 1: "JD"},
    )


def run_row(st, m=0):
    h = st.mh[0, m]
    wm = int(h[MH_WMASK])
    return int(h[MH_LO]), int(h[MH_HI]), int(h[MH_N]), int(h[MH_WILD]), [p for p in range(15) if wm >> p & 1]


# ---- natural-wild-wild-natural -----------------------------------------------------------------


def test_the_hand_of_the_issue_lays_4h_2c_jk_7h():
    """tranca-carioca, hand 4H 7H 2C JK 9C 10D QS (issue 21): the only meld is 4H 2C JK 7H, hearts
    places 4..7 with the wilds at 5 and 6 (two naturals, two wilds: 000 Gameplay 7).  No set (no two
    naturals of a rank), no run of three (4H and 7H are three places apart).  Listed once, as x =
    hearts * 16 + 4, y = RUN_GAP + 1 (one joker among the wilds).  Laid: 4 cards, 2 naturals, 2
    wilds at places 5 and 6; the hand keeps 9C 10D QS; the referee calls those cards a legal dirty
    run of places 4..7."""
    st = position(CARIOCA, "4H 7H 2C JK 9C 10D QS")
    assert acts_of(list_melds, CARIOCA, st) == [(8, H * 16 + 4, RUN_GAP + 1)]
    apply_meld(st, CARIOCA.to_array(), 0, 8, H * 16 + 4, RUN_GAP + 1)
    assert run_row(st) == (4, 7, 4, 2, [5, 6])
    assert int(st.mh[0, 0, MH_NAT]) == 2
    assert sorted(np.flatnonzero(st.hand[0]).tolist()) == [8, 22, 50]  # 9C 10D QS
    chk = validate_meld("4H 2C JK 7H", CARIOCA)
    assert (chk.legal, chk.clean, chk.kind, chk.low, chk.high, chk.wild_at) == (
        True,
        False,
        "run",
        4,
        7,
        (5, 6),
    )


@pytest.mark.parametrize(
    "wilds, ys",
    [
        ("2C 2D", [RUN_GAP]),  # two 2s: j = 0 jokers
        ("JK JK", [RUN_GAP + 2]),  # two jokers
        ("2C 2D JK", [RUN_GAP, RUN_GAP + 1]),  # two 2s, or a 2 and the joker
        ("2C", []),  # one wild: no gap of two can be filled
    ],
)
def test_two_wilds_between_two_naturals_by_kind_of_wild(wilds, ys):
    """8S and JS three places apart (8..11 of spades) with the wilds given: one listing per mix of
    wilds the hand can put at places 9 and 10 (a 2 of any suit, the joker: 000 Gameplay 7)."""
    st = position(CARIOCA, f"8S JS {wilds} 5D 7C KC")
    got = [a for a in acts_of(list_melds, CARIOCA, st) if a[0] == 8]
    assert got == [(8, S * 16 + 8, y) for y in ys]


def test_a_wild_in_the_twos_place_of_natural_wild_wild_natural():
    """Plain 3s (runs reach the low ace, E16) and two wilds a meld: AH _ _ 4H.  A wild at place 2
    stands for the 2H; the 2H itself would be natural there (004), so with 2H 2C in hand the shape
    A-w-w-4 with two 2s has the 2C at place 2 and the 2H at place 3 (a wild there); with 2H alone
    and a joker, the joker stands at place 2 and the 2H at place 3."""
    rules = CARIOCA.replace(threes_special=False, black3_on_going_out=False, lock_by_black3=False)
    st = position(rules, "AH 4H 2H 2C 9S 9D 6C")
    gap = [a for a in acts_of(list_melds, rules, st) if a[0] == 8 and a[2] >= RUN_GAP]
    assert gap == [(8, H * 16 + 1, RUN_GAP)]
    apply_meld(st, rules.to_array(), 0, 8, H * 16 + 1, RUN_GAP)
    assert run_row(st) == (1, 4, 4, 2, [2, 3])
    assert int(st.mc[0, 0, C * 13 + 1]) == 1 and int(st.mc[0, 0, H * 13 + 1]) == 1
    st = position(rules, "AH 4H 2H JK 9S 9D 6C")
    gap = [a for a in acts_of(list_melds, rules, st) if a[0] == 8 and a[2] >= RUN_GAP]
    assert gap == [(8, H * 16 + 1, RUN_GAP + 1)]
    apply_meld(st, rules.to_array(), 0, 8, H * 16 + 1, RUN_GAP + 1)
    assert int(st.mc[0, 0, 52]) == 1 and run_row(st)[4] == [2, 3]


def test_natural_wild_wild_natural_keeps_two_cards_in_hand():
    """E6 (VARIANTS 10): a side that has taken its morto and has no canasta keeps two cards after
    melding.  tranca-carioca, morto taken, no melds: hand 4H 7H 2C JK 9C (5 cards) would keep one
    after the four-card run: not listed; with QS more (6 cards) it keeps 9C QS: listed."""
    kw = {"stock": "KS", "mortos": {1: "JD"}, "taken_mortos": {0: 2}}
    st = make_position(CARIOCA, hands={0: "4H 7H 2C JK 9C", 1: "KD", 2: "9C", 3: "QD"}, **kw)
    assert acts_of(list_melds, CARIOCA, st) == []
    st = make_position(CARIOCA, hands={0: "4H 7H 2C JK 9C QS", 1: "KD", 2: "9C", 3: "QD"}, **kw)
    assert acts_of(list_melds, CARIOCA, st) == [(8, H * 16 + 4, RUN_GAP + 1)]


def test_the_pile_taken_with_natural_wild_wild_natural():
    """tranca-carioca, closed pile 9D 4H (top 4H, not a lock): hand 7H 2C JK KC QS.  The top card
    goes into 4H 2C JK 7H with three cards of the hand (VARIANTS 4: "with two or more ...
    cards from the hand"): A_CAP_RUN x = hearts * 16 + 4, y = RUN_GAP + 1.  After it the run is
    places 4..7 with wilds at 5, 6 and the hand is KC QS + the 9D from the pile."""
    st = position(CARIOCA, "7H 2C JK KC QS", pile="9D 4H")
    draws = acts_of(list_draws, CARIOCA, st)
    assert draws == [(A_STOCK, 0, 0), (A_CAP_RUN, H * 16 + 4, RUN_GAP + 1)]
    take_pile(st, CARIOCA.to_array(), 0, A_CAP_RUN, H * 16 + 4, RUN_GAP + 1)
    assert run_row(st) == (4, 7, 4, 2, [5, 6])
    assert int(st.sc[SC_PILE_N]) == 0 and sorted(np.flatnonzero(st.hand[0]).tolist()) == [12, 21, 50]


# ---- the suit's own 2 from the closed pile ----------------------------------------------------


def test_own_two_from_the_pile_onto_a_run_from_the_three():
    """buraco-fechado, side A's run 3H 4H 5H, closed pile 9S 2H (top 2H; no lock in 004): the 2H
    goes at the low end as the natural of its place (2-3-4-5, clean), or at the high end as a wild
    for the 6H (dirty).  Both are listed as A_CAP_EXT of run 0; laid low, the run is places 2..5,
    4 naturals, no wild."""
    st = position(FECHADO, "9C 10D QS", melds=["3H 4H 5H"], pile="9S 2H")
    draws = acts_of(list_draws, FECHADO, st)
    assert (A_CAP_EXT, 0, END_LOW) in draws and (A_CAP_EXT, 0, END_HIGH) in draws
    take_pile(st, FECHADO.to_array(), 0, A_CAP_EXT, 0, END_LOW)
    assert run_row(st) == (2, 5, 4, 0, [])
    assert int(st.mh[0, 0, MH_NAT]) == 4


def test_own_two_from_the_pile_in_a_new_ace_two_three():
    """buraco-fechado, hand AH 3H 9C 10D QS, closed pile 9S 2H: A-2-3 of hearts with the 2H natural
    in its place (004: "(ace, 2, 3 ...)") is listed (A_CAP_RUN, x = hearts * 16 + 1, y = RUN_TOP_NAT:
    three naturals); laid, the run is places 1..3, clean, and the hand keeps 9C 10D QS + 9S."""
    st = position(FECHADO, "AH 3H 9C 10D QS", pile="9S 2H")
    draws = acts_of(list_draws, FECHADO, st)
    assert (A_CAP_RUN, H * 16 + 1, RUN_TOP_NAT) in draws
    take_pile(st, FECHADO.to_array(), 0, A_CAP_RUN, H * 16 + 1, RUN_TOP_NAT)
    assert run_row(st) == (1, 3, 3, 0, [])
    assert sorted(np.flatnonzero(st.hand[0]).tolist()) == [8, 22, 47, 50]


def test_own_two_from_the_pile_with_a_wild_of_the_hand():
    """buraco-fechado, hand 3H 2C 9D QS KC, closed pile 7D 2H: 2H(natural) 3H and the 2C standing
    for the 4H (or for the ace below: A-2-3 with the wild at the ace's place), one wild a meld
    (004): listed as RUN_TOP_NAT + 1 + 2 * offset, offset 2 in window 2..4, offset 0 in window
    1..3.  A 2C on top instead stands at place 2 for the 2H (E26, 004 "A 2 used as a wild card
    stands for the missing card"), onto a run 3H 4H 5H."""
    st = position(FECHADO, "3H 2C 9D QS KC", pile="7D 2H")
    runs = {a for a in acts_of(list_draws, FECHADO, st) if a[0] == A_CAP_RUN}
    assert runs == {
        (A_CAP_RUN, H * 16 + 2, RUN_TOP_NAT + 1 + 2 * 2),
        (A_CAP_RUN, H * 16 + 1, RUN_TOP_NAT + 1),
    }
    take_pile(st, FECHADO.to_array(), 0, A_CAP_RUN, H * 16 + 2, RUN_TOP_NAT + 5)
    assert run_row(st) == (2, 4, 3, 1, [4])
    st = position(FECHADO, "9C 10D QS", melds=["3H 4H 5H"], pile="9S 2C")
    assert (A_CAP_EXT, 0, END_LOW) in acts_of(list_draws, FECHADO, st)
    take_pile(st, FECHADO.to_array(), 0, A_CAP_EXT, 0, END_LOW)
    assert run_row(st) == (2, 5, 4, 1, [2])


def test_a_set_capture_is_still_offered_beside_the_runs():
    """buraco-fechado also melds sets (004 "Closed buraco"): top 9S with 9C 9D in hand is a new set
    (A_CAP_NEW, two naturals) whatever runs are listed."""
    st = position(FECHADO, "9C 9D 3H", pile="2H 9S")
    assert (A_CAP_NEW, 0, 0) in acts_of(list_draws, FECHADO, st)


# ---- logged deals: the referee agrees on the new shapes ----------------------------------------------


@pytest.mark.parametrize("preset", ["tranca-carioca", "buraco-fechado"])
def test_referee_agrees_on_deals_with_the_new_shapes(preset):
    """Random play lays every listed shape now and then: over logged deals of random against random,
    runs of four cards laid at once (tranca-carioca) and the suit's 2 taken from the pile to its place
    (buraco-fechado) occur, and the independent referee finds every deal legal with the same score."""
    rules = get_preset(preset)
    seen = 0
    for d in range(60):
        log = play_logged(rules, ("random", "random"), 21, d)
        v = check_log(log)
        assert v.ok, (d, v)
        acts = log["actions"]
        for i, a in enumerate(acts):
            if preset == "tranca-carioca":
                seen += a["act"] == "meld" and bool(a.get("run")) and len(a["cards"]) == 4
            elif a["act"] == "take_pile" and a["top"].startswith("2") and i + 1 < len(acts):
                nxt, top = acts[i + 1], a["top"]
                if nxt["act"] == "meld" and nxt.get("run"):  # cards in place order, low first
                    chk = validate_meld(nxt["cards"], rules)
                    seen += chk.suit == top[-1] and 2 not in chk.wild_at and chk.low <= 2 <= chk.high
    assert seen > 0


# ---- a run is read by its cards ------------------------------------------------------------------


def test_the_suits_own_two_laid_as_a_wild_is_the_clean_run_from_the_two():
    """buraco (004, one wild a meld, plain 3s), run 3H 4H 5H, hand 2H 9C 9D 9S KC: the 2H may go at
    the low end (natural, 2-3-4-5) or at the high end standing for the 6H; the cards are the same,
    2H 3H 4H 5H, and the clean reading holds (VARIANTS 17: "as a player would lay it"): either way
    the run is places 2..5, 4 cards, no wild (and its open ends are the AH below and the 6H above)."""
    rules = get_preset("buraco")
    for end in (0, 1):
        st = position(rules, "2H 9C 9D 9S KC", melds=["3H 4H 5H"])
        a = next(x for x in acts_of(list_melds, rules, st) if x[0] == 9 and x[2] // 4 == end)
        apply_meld(st, rules.to_array(), 0, *a)
        assert run_row(st) == (2, 5, 4, 0, [])


def test_a_run_from_the_three_with_the_two_at_the_kings_place_is_ace_to_queen():
    """buraco, side A's run 6D..QD 2D AD (places 6..14, the 2D standing for the KD, the ace high),
    hand 5D 4D 3D 9C KC KS: laid 5D, 4D, 3D at the low end, the run holds AD 2D 3D..QD, the cards of
    the clean A..Q (the ace low, the 2D in its own place: 004), and is that run: places 1..12, 12
    cards, no wild, a clean canasta (7 or more cards)."""
    rules = get_preset("buraco")
    st = position(rules, "5D 4D 3D 9C KC KS", melds=["6D 7D 8D 9D 10D JD QD 2D AD"])
    for _ in range(3):
        a = next(x for x in acts_of(list_melds, rules, st) if x[0] == 9 and x[2] == 0)
        apply_meld(st, rules.to_array(), 0, *a)
    assert run_row(st) == (1, 12, 12, 0, [])
    assert (int(st.ss[0, 9]), int(st.ss[0, 10])) == (1, 1)  # canastas, clean ones
    chk = validate_meld("3D 4D 5D 6D 7D 8D 9D 10D JD QD 2D AD", rules)
    assert (chk.clean, chk.low, chk.high) == (True, 1, 12)
