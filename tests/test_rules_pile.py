"""Rule tests of the pile decisions E13-E15 (docs/rules.md 3.6, 3.7, 3.17 and section 5).

E13: the card taken from a one-card open pile (or its twin) is not discarded again that turn.
E14: with an open pile and the stock empty, the deal ends.
E15: with ``lock_by_wild`` off, a wild on top of a closed pile is taken by melding it as a wild.

Each expected outcome is worked out by hand (conventions of tests/test_rules_tranca.py:
``passive`` draws from the stock and discards its lowest legal kind; ``basic`` as described
there; card values A 20, K..8 10, 7..4 5, 2 20, joker 50), and engine logs of the same
positions are refereed by the independent referee.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim import referee as R
from tranca_sim.engine import play_position
from tranca_sim.engine.cards import counts_to_cards, parse, to_str
from tranca_sim.engine.deal import _obs, fill_pub
from tranca_sim.engine.log import play_logged
from tranca_sim.engine.melds import list_draw_actions
from tranca_sim.engine.obs import (
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_OPEN,
    A_STOCK,
    CAPNEW_2NAT,
    PUB_LEN,
    PUB_NO_DISCARD,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position, stack_deck
from tranca_sim.engine.state import MH_N, MH_RANK, MH_WILD, SC_PILE_N
from tranca_sim.engine.turn import legal_discard, take_pile
from tranca_sim.rules import get_preset

TRANCA = get_preset("tranca")
OPEN = TRANCA.replace(pile_closed=False)
NOLOCK = TRANCA.replace(lock_by_wild=False)
STOCK = (A_STOCK, 0, 0)
OPEN_TAKE = (A_CAP_OPEN, 0, 0)
PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")


def play(rules, st, strategies):
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols


def draw_acts(rules, st, seat):
    acts = np.zeros(256, np.int32)
    n = list_draw_actions(st, rules.to_array(), seat, acts)
    return sorted((int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n])


def no_discard(rules, st, seat):
    pub = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rules.to_array(), seat, pub)
    k = int(pub[PUB_NO_DISCARD])
    return None if k < 0 else to_str(k)


def may(rules, st, seat, card):
    return bool(legal_discard(st, rules.to_array(), seat, parse(card)))


def cards(row):
    return sorted(counts_to_cards(row))


def pile_cards(st):
    return [to_str(int(k)) for k in st.pile[: st.sc[SC_PILE_N]]]


# ---- E13: one-card open pile ------------------------------------------------------------------


def _one_card_pile(rules, held="KH KC 7S"):
    st = make_position(
        rules, hands={0: held, 1: "5C", 2: "6C", 3: "8C"}, pile="KH", stock="9D 9H", mortos={0: "4S", 1: "5S"}
    )
    assert draw_acts(rules, st, 0) == sorted([STOCK, OPEN_TAKE])
    take_pile(st, rules.to_array(), 0, A_CAP_OPEN, 0, 0)
    return st


def test_one_card_pile_card_and_twin_not_discarded_again():
    """E13: seat 0 holds KH KC 7S and takes the one-card open pile KH: hand KH KH KC 7S.  Neither
    KH (the card taken, or its twin from the other deck) may be discarded this turn; KC (another
    suit) and 7S may.  Strategies see the banned kind in pub[PUB_NO_DISCARD]."""
    st = _one_card_pile(OPEN)
    assert cards(st.hand[0]) == sorted(["KH", "KH", "KC", "7S"])
    assert (may(OPEN, st, 0, "KH"), may(OPEN, st, 0, "KC"), may(OPEN, st, 0, "7S")) == (False, True, True)
    assert no_discard(OPEN, st, 0) == "KH"


def test_rediscard_switch_allows_it():
    """E13 switch ``rediscard_one_card_pile``: the same capture, and KH may be thrown back."""
    rules = OPEN.replace(rediscard_one_card_pile=True)
    st = _one_card_pile(rules)
    assert may(rules, st, 0, "KH") and no_discard(rules, st, 0) is None


def test_ban_yields_when_the_hand_holds_nothing_else():
    """E13: seat 0 holds only KH (its side's morto waits, so it may empty the hand) and takes
    the one-card pile KH: hand KH KH, nothing else to discard, so the ban yields."""
    st = _one_card_pile(OPEN, held="KH")
    assert may(OPEN, st, 0, "KH") and no_discard(OPEN, st, 0) is None


def test_a_pile_of_two_cards_has_no_ban():
    """E13 is about a one-card pile: taking KC KH (two cards), KH may be discarded at once."""
    st = make_position(OPEN, hands={0: "7S 4D", 1: "5C"}, pile="KC KH", stock="9D", mortos={0: "4S", 1: "5S"})
    take_pile(st, OPEN.to_array(), 0, A_CAP_OPEN, 0, 0)
    assert may(OPEN, st, 0, "KH") and no_discard(OPEN, st, 0) is None


def test_closed_pile_melds_the_card_so_no_ban():
    """E13 cannot act on a closed pile: the one-card pile's KH is melded at once (KH KC KD),
    so nothing taken is in the hand; the twin rule has nothing to ban."""
    st = make_position(
        TRANCA, hands={0: "KC KD 7S 4D", 1: "5C"}, pile="KH", stock="9D", mortos={0: "4S", 1: "5S"}
    )
    take_pile(st, TRANCA.to_array(), 0, A_CAP_NEW, 0, CAPNEW_2NAT)
    assert cards(st.hand[0]) == ["4D", "7S"]
    assert no_discard(TRANCA, st, 0) is None


# ---- E14: open pile, empty stock ----------------------------------------------------------------


def test_open_pile_with_empty_stock_ends_the_deal():
    """E14 (004 How to play: no stock, no morto -> the round ends): seat 0 (passive) draws the last
    stock card 9D and discards its lowest kind QC (QC 11 < 4D 16 < 9D 21); pile KH QC.  Seat 1
    faces an empty stock: the open pile is not taken, the deal ends after 2 turns, no bonus."""
    st = make_position(
        OPEN,
        hands={0: "QC 4D", 1: "5C", 2: "6C", 3: "8C"},
        pile="KH",
        stock="9D",
        mortos={0: "4S", 1: "5S"},
    )
    cols = play(OPEN, st, ("passive", "passive"))
    assert pile_cards(st) == ["KH", "QC"]
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 2
    # A: hands 4D 5 + 9D 10 + 6C 5 = 20; morto -100 -> -120
    # B: hands 5C 5 + 8C 10 = 15; morto -100 -> -115
    assert [int(x) for x in cols["score"]] == [-120, -115]
    assert [int(x) for x in cols["pile_captures"]] == [0, 0]


def test_open_pile_referee_refuses_a_capture_from_an_empty_stock():
    """E14 in the referee: passive vs passive with an open pile draws the stock to the end (it
    never takes the pile) and the deal ends when the player to move faces the empty stock; the
    referee accepts that log, and refuses (code open_pile) the same log ending instead with that
    player taking the pile."""
    log = play_logged(OPEN, ("passive", "passive"), 0, 0, deck=stack_deck(OPEN), first_seat=0)
    assert R.check_log(log).ok
    acts = log["actions"]
    assert acts[-1]["act"] == "end" and acts[-1]["reason"] == "stock_out"
    assert not any(a["act"] == "take_pile" for a in acts)
    last = [a for a in acts if a["act"] == "turn"][-1]
    pile = [a["card"] for a in acts if a["act"] in ("discard", "turn_up")]
    bad = dict(log, actions=acts[:-1] + [dict(last, act="take_pile", top=pile[-1], n=len(pile))])
    v = R.check_log(bad)
    assert not v.ok and v.code == "open_pile" and "E14" in v.reason


# ---- E13 in the referee ------------------------------------------------------------------------------


def _one_card_take(rules, strategies=("random", "random")):
    """An engine log (open pile) with a one-card capture whose taker discards another card."""
    for i in range(200):
        log = play_logged(rules, strategies, 5, i)
        acts = log["actions"]
        for j, a in enumerate(acts):
            if a["act"] == "take_pile" and a["n"] == 1:
                disc = next(k for k in range(j + 1, len(acts)) if acts[k]["act"] == "discard")
                if acts[disc]["turn"] == a["turn"] and acts[disc]["card"] != a["top"]:
                    return log, j, disc
    raise AssertionError("no one-card capture in 200 deals")


def test_referee_refuses_throwing_back_the_one_card_pile():
    """E13 in the referee: an engine log with a one-card open capture is accepted; edited so that
    the taker discards the card just taken, it is refused at that discard with code open_pile
    (the taker still holds another card).  With ``rediscard_one_card_pile`` the edited discard
    itself is legal (the referee may only object later, to the changed hand)."""
    log, j, disc = _one_card_take(OPEN)
    assert R.check_log(log).ok
    bad = dict(log)
    bad["actions"] = [dict(a) for a in log["actions"]]
    bad["actions"][disc]["card"] = log["actions"][j]["top"]
    v = R.check_log(bad)
    assert not v.ok and v.code == "open_pile" and v.index == disc and "E13" in v.reason
    bad["rules"] = dict(bad["rules"], rediscard_one_card_pile=True)
    v = R.check_log(bad)
    assert v.ok or v.index > disc


# ---- E15: a wild on top that does not lock -----------------------------------------------------


def test_wild_top_capture_choices():
    """E15: pile 4C 2D (a wild on top).  Seat 0 holds KC KD 5S 9H; side A has QC QD QH (no wild)
    and JC JD JH 2S 2H (two wilds, the limit).  With lock_by_wild off the pile is taken by the
    2D onto the queens, or as a new meld 2D KC KD (x = 13, kings); not onto the jacks (full of
    wilds), not with the single 5S or 9H.  With the tranca lock only the stock is left."""
    kw = {
        "hands": {0: "KC KD 5S 9H", 1: "5C"},
        "melds": {0: ["QC QD QH", "JC JD JH 2S 2H"]},
        "pile": "4C 2D",
        "stock": "7C",
        "mortos": {0: "4S", 1: "5D"},
    }
    st = make_position(NOLOCK, **kw)
    assert draw_acts(NOLOCK, st, 0) == sorted([STOCK, (A_CAP_EXT, 0, 0), (A_CAP_NEW, 13, CAPNEW_2NAT)])
    st = make_position(TRANCA, **kw)
    assert draw_acts(TRANCA, st, 0) == [STOCK]
    # one wild a meld (tranca-paulista): the queens (no wild) still take the 2D
    paulista = get_preset("tranca-paulista").replace(lock_by_wild=False)
    kw["melds"] = {0: ["QC QD QH", "JC JD JH 2S"]}
    st = make_position(paulista, **kw)
    assert draw_acts(paulista, st, 0) == sorted([STOCK, (A_CAP_EXT, 0, 0), (A_CAP_NEW, 13, CAPNEW_2NAT)])


def _wild_top_position(rules):
    return make_position(
        rules,
        hands={0: "KC KD 5S 9H", 1: "5C", 2: "6C", 3: "8C"},
        pile="4C 8S 2D",
        mortos={0: "4S", 1: "5S"},
    )


def test_wild_top_taken_and_melded_as_a_wild():
    """E15 played: stock empty, pile 4C 8S 2D.  Seat 0 (basic) must take the pile (E8), melding
    2D KC KD (a king meld with one wild); 4C 8S go to the hand: 5S 9H 4C 8S.  No meld left;
    keeps 5S 20-1=19, 9H 20-2=18, 4C 19, 8S 18 -> discards 9H (lower kind of the 18s).
    Seat 1 (5C) cannot meld the 9H: the deal ends after 2 turns."""
    st = _wild_top_position(NOLOCK)
    cols = play(NOLOCK, st, ("basic", "basic"))
    assert cards(st.mc[0, 0]) == sorted(["2D", "KC", "KD"])
    assert (int(st.mh[0, 0, MH_RANK]), int(st.mh[0, 0, MH_N]), int(st.mh[0, 0, MH_WILD])) == (13, 3, 1)
    assert cards(st.hand[0]) == sorted(["5S", "4C", "8S"])
    assert pile_cards(st) == ["9H"]
    assert int(cols["end_reason"][0]) == 2 and int(cols["n_turns"][0]) == 2
    # A: melded KC 10 + KD 10 + 2D 20 = 40; hands 5S 5 + 4C 5 + 8S 10 + 6C 5 = 25; morto -100
    #    -> 40 - 25 - 100 = -85
    # B: hands 5C 5 + 8C 10 = 15; morto -100 -> -115
    assert [int(x) for x in cols["score"]] == [-85, -115]
    assert [int(x) for x in cols["pile_captures"]] == [1, 0]
    assert [int(x) for x in cols["pile_cards"]] == [3, 0]


def test_wild_top_locks_in_tranca():
    """The same position under the tranca lock (000 Gameplay 4, V 3): the 2D locks the pile, the
    stock is empty, so the deal ends at once.  A: hands KC 10 + KD 10 + 5S 5 + 9H 10 + 6C 5 = 40,
    morto -100 -> -140; B: -115 as above."""
    st = _wild_top_position(TRANCA)
    cols = play(TRANCA, st, ("basic", "basic"))
    assert int(cols["n_turns"][0]) == 1
    assert [int(x) for x in cols["score"]] == [-140, -115]


def test_wild_top_capture_refereed():
    """E15 in the referee: engine logs with lock_by_wild off that take a wild top card are
    accepted; the same logs under the tranca rules are refused as locked_pile at that capture."""
    found = 0
    for i in range(300):
        log = play_logged(NOLOCK, ("basic", "basic"), 7, i)
        takes = [
            j
            for j, a in enumerate(log["actions"])
            if a["act"] == "take_pile" and a["top"] in ("2C", "2D", "2H", "2S", "JK")
        ]
        if not takes:
            continue
        found += 1
        v = R.check_log(log)
        assert v.ok, v
        locked = dict(log, rules=dict(log["rules"], lock_by_wild=True))
        v = R.check_log(locked)
        assert not v.ok and v.code == "locked_pile" and v.index <= takes[0]
        if found == 3:
            break
    assert found == 3


# ---- what a strategy sees: mortos face up ------------------------------------------------------


@pytest.mark.parametrize("face_up", [False, True])
def test_mortos_face_up_is_what_strategies_see(face_up):
    """mortos_face_up (000 "Tranca Aberta"): the Obs.morto a strategy receives holds both mortos
    when they are dealt face up, zeros otherwise.  (No built-in strategy reads it, so it changes
    no outcome of random or basic; see tests/test_rule_switches.py.)"""
    rules = TRANCA.replace(mortos_face_up=face_up)
    st = make_position(rules, hands={0: "KC", 1: "5C"}, stock="7C", mortos={0: "4S 9D", 1: "5D"})
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    obs = _obs(st, rules.to_array(), 0, pub, hidden)
    seen = [cards(obs.morto[0]), cards(obs.morto[1])]
    assert seen == ([["4S", "9D"], ["5D"]] if face_up else [[], []])
