"""Rule tests of same-suit runs (``meld_runs``; the ``tranca-carioca`` preset).

Every test is a hand-made position or a card list, with the expected outcome worked out by
hand from the sources, the arithmetic in a comment.  Sources: seed ``000_95ec226e9cdd732e.txt``
("000": Common Variations "Tranca Carioca", Gameplay n, Scoring), seed
``004_083ae37bb3863d19.txt`` ("004": How to play -- the ace at both ends, a 2 standing for the
missing card, the suit's own 2 in its place natural), VARIANTS.md decisions ("V n") and the
engine choices E16-E19 of docs/rules.md section 5.

Run positions: 1 = ace low, 2..13 the rank, 14 = ace high.  Kinds: suit * 13 + rank - 1 with
clubs 0, diamonds 1, hearts 2, spades 3 (hearts 26..38, spades 39..51).  Card values of 000:
A 20, K..8 10, 7..4 5, 2 20, joker 50.  ``basic`` melds a natural extension that completes a
canasta (score 60) before anything else, and goes out as soon as it may.

Where a rule needs plain 3s (the ace low, the natural 2, the A..A run: with special 3s runs
start at the 4, E16), the position uses ``tranca-carioca`` with ``threes_special=False``
(3s are plain cards, as in the Buraco presets of VARIANTS).
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim.engine import play_position, simulate_chunk
from tranca_sim.engine.log import play_logged
from tranca_sim.engine.obs import (
    A_CAP_EXT,
    A_CAP_RUN,
    A_RUN_EXT,
    A_RUN_NEW,
    C_JOKER,
    C_NAT,
    C_TWO,
    END_HIGH,
    END_LOW,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import list_draws, list_melds
from tranca_sim.engine.state import MH_HI, MH_LO, MH_N, MH_TYPE, MH_WILD, MH_WMASK, MT_RUN, SC_PILE_N
from tranca_sim.engine.turn import take_pile
from tranca_sim.referee import check_log, score_side, validate_meld
from tranca_sim.referee.questions import _meld_check
from tranca_sim.rules import get_preset

C, D, H, S = 0, 1, 2, 3
PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")


@pytest.fixture(scope="module")
def carioca():
    return get_preset("tranca-carioca")


@pytest.fixture(scope="module")
def plain3(carioca):
    """Runs with plain 3s: the low ace and the natural 2 are reachable (E16)."""
    return carioca.replace(threes_special=False, black3_on_going_out=False, lock_by_black3=False)


def run_x(suit, low):
    return suit * 16 + low


def acts_of(fn, rules, st, seat):
    acts = np.zeros(512, np.int32)
    n = fn(st, rules.to_array(), seat, acts)
    return {(int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n]}


def run_acts(rules, st, seat=0):
    return {a for a in acts_of(list_melds, rules, st, seat) if a[0] in (A_RUN_NEW, A_RUN_EXT)}


def play(rules, st, strategies=("basic", "passive")):
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols


def position(rules, hand0, melds0=(), pile=None, stock="KS", taken=True):
    """Seat 0 to move with ``hand0``; side A's runs ``melds0``; side B holds plain cards."""
    return make_position(
        rules,
        hands={0: hand0, 1: "KD", 2: "9C", 3: "QD"},
        melds={0: list(melds0)} if melds0 else None,
        pile=pile,
        stock=stock,
        mortos={1: "JD"} if taken else {0: "JC", 1: "JD"},
        taken_mortos={0: 2} if taken else None,
        melded_before={0, 2},
    )


# ---- the preset -------------------------------------------------------------------------------


def test_carioca_is_tranca_with_runs(carioca):
    """VARIANTS presets: tranca-carioca = same rank and same-suit runs, otherwise tranca (000)."""
    tranca = get_preset("tranca")
    assert carioca.meld_runs and carioca.meld_sets
    assert carioca.replace(meld_runs=False, name="tranca", description=tranca.description) == tranca


# ---- new runs: ace low, ace high, E16 ---------------------------------------------------------


def test_ace_high_run_is_listed(carioca):
    """004 / V 6: the ace is high after the king: QH KH AH is a run at positions 12..14."""
    st = position(carioca, "QH KH AH 9S 9C")
    assert (A_RUN_NEW, run_x(H, 12), 0) in run_acts(carioca, st)
    chk = validate_meld("QH KH AH", carioca)
    assert (chk.legal, chk.kind, chk.suit, chk.low, chk.high, chk.clean) == (True, "run", "H", 12, 14, True)


def test_ace_low_run_with_plain_threes(plain3):
    """004 / V 6: the ace is low before the 2; with plain 3s A-2-3 of hearts is a run, and the 2H
    in its own place is natural (004, V 1), so the run is clean."""
    st = position(plain3, "AH 2H 3H 9S 9C")
    assert (A_RUN_NEW, run_x(H, 1), 0) in run_acts(plain3, st)
    chk = validate_meld("AH 2H 3H", plain3)
    assert (chk.legal, chk.low, chk.high, chk.clean, chk.wild_at) == (True, 1, 3, True, ())


def test_special_threes_close_position_three(carioca):
    """E16 (000 Gameplay 6, V 8): with special 3s no run reaches the 3, not even with a wild
    standing for it.  Hand 2C 4H 5H: the only run is 4H 5H with the 2C standing for the 6
    (positions 4..6); none at 3..5 (2C for the 3) nor an ace-low run."""
    st = position(carioca, "2C 4H 5H 9S 9C")
    new = {a for a in run_acts(carioca, st) if a[0] == A_RUN_NEW}
    # variant 1 + 2 * offset + 0: a 2 standing at position 4 + 2 = 6
    assert new == {(A_RUN_NEW, run_x(H, 4), 1 + 2 * 2)}
    chk, _ = _meld_check(["2C", "4H", "5H"], carioca, False, run=True)  # in order: 2C for the 3
    assert not chk.legal and "E16" in chk.reason
    assert validate_meld("2C 4H 5H", carioca).wild_at == (6,)
    assert not validate_meld("AH 2H 4H", carioca).legal


def test_no_wrap_around(plain3):
    """V 6: no wrap-around K-A-2.  KH AH 2H 3H needs the ace both high (after K) and low (before
    2): illegal.  A run QH KH AH ends at the high ace: the 2H cannot go above it."""
    chk = validate_meld("KH AH 2H 3H", plain3)
    assert not chk.legal and "wrap-around" in chk.reason
    st = position(plain3, "2H 9S 9C 8C", melds0=["QH KH AH"])
    high = {a for a in run_acts(plain3, st) if a[0] == A_RUN_EXT and a[2] // 4 == END_HIGH}
    assert high == set()


def test_a_to_a_run_of_fourteen(plain3):
    """V 6 / 004 special canastas: one run may go A..A, 14 cards.  Side A has AH 2H .. KH
    (positions 1..13, 13 cards), seat 0 holds the second AH: it goes on at the high end, and the
    run is then 14 cards, positions 1..14; nothing can be added to it after."""
    run13 = "AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"
    st = position(plain3, "AH 9S 9C 8C", melds0=[run13])
    acts = run_acts(plain3, st)
    assert (A_RUN_EXT, 0, END_HIGH * 4 + C_NAT) in acts
    assert (A_RUN_EXT, 0, END_LOW * 4 + C_NAT) not in acts  # the low ace is already there
    chk = validate_meld(run13 + " AH", plain3)
    assert (chk.legal, chk.low, chk.high, chk.clean, chk.canasta) == (True, 1, 14, True, True)
    # a 15th card: no place left (a wild would stand beyond the high ace)
    assert not validate_meld(run13 + " AH 2C", plain3).legal


# ---- wilds ------------------------------------------------------------------------------------


def test_natural_two_in_place_keeps_a_canasta_clean(plain3):
    """004 / V 1: the suit's own 2 in its place is natural: AH 2H 3H 4H 5H 6H 7H is a clean
    canasta (200); the same run with 2C in the 2's place is dirty (100).  Score by hand (000
    values): A 20 + 2 20 + 3 5 + 4 5 + 5 5 + 6 5 + 7 5 = 65; clean 65 + 200 = 265, dirty 265 - 100."""
    clean = score_side(["AH 2H 3H 4H 5H 6H 7H"], rules=plain3)
    dirty = score_side(["AH 2C 3H 4H 5H 6H 7H"], rules=plain3)
    assert (clean["canastas_clean"], clean["melded_points"], clean["total"]) == (1, 65, 265)
    assert (dirty["canastas_dirty"], dirty["melded_points"], dirty["total"]) == (1, 65, 165)


def test_wild_in_the_twos_place(plain3):
    """004 How to play: "A 2 used as a wild card stands for the missing card", and "A 2 of the
    same suit, placed in its own spot ... does not count as a wild card".  With plain 3s a run
    reaches the 2's place (E16), and a wild from the hand may stand there for the suit's missing
    2 as at any other place (E26).
    (a) Side A has 3H 4H 5H (places 3..5); seat 0 holds 2C 9S 5D JD (no two cards of a suit next
    to each other): the 2C may go at the low end, standing for the 2H at place 2, or at the high
    end for the 6H: two extensions, both with a 2 as the wild.
    (b) Holding the 2H instead, the low end takes it as the natural 2 (clean), and no wild is
    listed there (the only 2 would be natural); the 2H may still stand for the 6H at the high end.
    (c) Hand AH 3H 2C 9S 5D JD: one new run, A-2-3 of hearts with the 2C at offset 1 (variant
    1 + 2 * 1 = 3), the 2's place (three cards stay in hand: E6 is kept).
    (d) The referee reads AH 2C 3H 4H as a run of places 1..4 with its wild at 2 (dirty), and
    AH 2H 3H 4H as clean."""
    st = position(plain3, "2C 9S 5D JD", melds0=["3H 4H 5H"])
    assert run_acts(plain3, st) == {
        (A_RUN_EXT, 0, END_LOW * 4 + C_TWO),
        (A_RUN_EXT, 0, END_HIGH * 4 + C_TWO),
    }
    st = position(plain3, "2H 9S 5D JD", melds0=["3H 4H 5H"])
    assert run_acts(plain3, st) == {
        (A_RUN_EXT, 0, END_LOW * 4 + C_NAT),
        (A_RUN_EXT, 0, END_HIGH * 4 + C_TWO),
    }
    st = position(plain3, "AH 3H 2C 9S 5D JD")
    assert {a for a in run_acts(plain3, st) if a[0] == A_RUN_NEW} == {(A_RUN_NEW, run_x(H, 1), 3)}
    chk = validate_meld("AH 2C 3H 4H", plain3)
    assert (chk.legal, chk.low, chk.high, chk.clean, chk.wild_at) == (True, 1, 4, False, (2,))
    chk = validate_meld("AH 2H 3H 4H", plain3)
    assert (chk.legal, chk.low, chk.high, chk.clean, chk.wild_at) == (True, 1, 4, True, ())


def test_wild_limit_of_the_preset(carioca):
    """000 Gameplay 7, V 2, E17: at most 2 wilds in a run of tranca-carioca; with max_wilds=1
    (a switch) one.  Run 5H 2C 7H 2D (2C for the 6, 2D for the 8) holds two: no third wild is
    listed; 5H 2C 7H (one wild) may take a second under the preset but not under max_wilds=1."""
    st = position(carioca, "JK 2S 9S 9C", melds0=["5H 2C 7H 2D"])
    assert {a for a in run_acts(carioca, st) if a[2] % 4 != C_NAT} == set()
    st = position(carioca, "JK 9S 9C 8C", melds0=["5H 2C 7H"])
    assert run_acts(carioca, st) == {
        (A_RUN_EXT, 0, END_LOW * 4 + C_JOKER),
        (A_RUN_EXT, 0, END_HIGH * 4 + C_JOKER),
    }
    one = carioca.replace(max_wilds=1)
    st = position(one, "JK 9S 9C 8C", melds0=["5H 2C 7H"])
    assert run_acts(one, st) == set()
    assert not validate_meld("5H 2C 7H 2D JK", carioca).legal
    assert "at most 1" in validate_meld("5H 2C 7H 2D", one).reason


def test_min_naturals_in_a_run(carioca):
    """E17 (000 Gameplay 7, V 2): a run has at least 2 naturals; 5H 2C 2D is not a meld and no
    new run of one natural and two wilds is listed."""
    assert not validate_meld("5H 2C 2D", carioca).legal
    st = position(carioca, "5H 2C 2D 9S")
    assert {a for a in run_acts(carioca, st) if a[0] == A_RUN_NEW} == set()


def test_extension_at_either_end(carioca):
    """000 Tranca Carioca / 004: a run grows at either end.  Run 6H 7H 8H, hand 5H 9H 2C: the 5H
    below, the 9H above, the 2C (a wild) at either end."""
    st = position(carioca, "5H 9H 2C 9S 9C", melds0=["6H 7H 8H"])
    assert {a for a in run_acts(carioca, st) if a[0] == A_RUN_EXT} == {
        (A_RUN_EXT, 0, END_LOW * 4 + C_NAT),
        (A_RUN_EXT, 0, END_HIGH * 4 + C_NAT),
        (A_RUN_EXT, 0, END_LOW * 4 + C_TWO),
        (A_RUN_EXT, 0, END_HIGH * 4 + C_TWO),
    }


def test_wild_keeps_its_place(carioca):
    """E18 (004 "stands for the missing card"): run 5H 2C 7H, the 2C stands for the 6.  The 6H
    arriving cannot replace it, nor go anywhere in that run: only the 4H and 8H extend it.
    The position of the wild is public (MH_WMASK bit 6)."""
    st = position(carioca, "6H 9S 9C 8C", melds0=["5H 2C 7H"])
    assert st.mh[0, 0, MH_WMASK] == 1 << 6
    assert run_acts(carioca, st) == set()
    for cards in (["6H", "5H", "2C", "7H"], ["5H", "2C", "7H", "6H"]):  # the 6H at either end
        assert not _meld_check(cards, carioca, False, run=True)[0].legal


# ---- canastas and going out -------------------------------------------------------------------


@pytest.mark.parametrize(
    "run, expected",
    [
        # clean: 4H 5H 6H 7H = 4 x 5, 8H 9H 10H = 3 x 10 -> 50 melded; clean canasta 200; going out
        # 100 (seat 0 melded before: not em cima); partner's 9C -10 in hand -> 340
        (
            "4H 5H 6H 7H 8H 9H",
            {"melded_points": 50, "canasta_bonus": 200, "going_out_bonus": 100, "score": 340},
        ),
        # dirty: 2C stands for the 6: 4H 5 + 5H 5 + 2C 20 + 7H 5 + 8H 10 + 9H 10 + 10H 10 = 65;
        # dirty canasta 100; going out 100; -10 -> 255
        (
            "4H 5H 2C 7H 8H 9H",
            {"melded_points": 65, "canasta_bonus": 100, "going_out_bonus": 100, "score": 255},
        ),
    ],
)
def test_run_canasta_and_going_out(carioca, run, expected):
    """000 Gameplay 8, 11; V 6: a run of 7 cards is a canasta, clean without a wild, dirty with.
    Side A has taken its morto and has the six-card run; seat 0 (basic) holds 10H, draws KC,
    lays the 10H on top (the seventh card: a canasta) and goes out by discarding KC.  Side B:
    hands KD + QD = -20, morto never taken -100 -> -120."""
    st = make_position(
        carioca,
        hands={0: "10H", 1: "KD", 2: "9C", 3: "QD"},
        melds={0: [run]},
        stock="KC",
        mortos={1: "JD"},
        taken_mortos={0: 2},
        melded_before={0, 2},
    )
    cols = play(carioca, st)
    assert {k: int(cols[k][0]) for k in expected} == expected
    assert int(cols["went_out"][0]) == 1 and int(cols["score"][1]) == -120


def test_run_canasta_counts_for_the_red3s_and_going_out_rule(carioca):
    """A run canasta is a canasta for every rule: with it a side may go out (000 Gameplay 11) and
    its red 3s count +100 (000 Gameplay 5).  Referee score_side by hand: run 8S..AS, 7 cards:
    8 9 10 J Q K = 60 + A 20 = 80; clean 200; one red 3 +100; going out 100 -> 480."""
    got = score_side(["8S 9S 10S JS QS KS AS"], red3=1, went_out=True, rules=carioca)
    assert (got["melded_points"], got["canasta_bonus"], got["red3_points"], got["total"]) == (
        80,
        200,
        100,
        480,
    )


# ---- pile capture -----------------------------------------------------------------------------


def test_capture_onto_a_run_end(carioca):
    """000 Gameplay 3, V 4: a closed pile is taken by melding its top card at once onto a meld of
    the side.  Pile 5C 10H (top 10H); side A's run 4H..9H: the 10H goes on its high end, the
    rest of the pile (5C) to the hand.  Listed as A_CAP_EXT (run 0, high end); after it the run
    is positions 4..10, 7 cards, clean, and the hand is KC 9D + 5C."""
    st = position(carioca, "KC 9D", melds0=["4H 5H 6H 7H 8H 9H"], pile="5C 10H")
    draws = acts_of(list_draws, carioca, st, 0)
    assert (A_CAP_EXT, 0, END_HIGH) in draws
    take_pile(st, carioca.to_array(), 0, A_CAP_EXT, 0, END_HIGH)
    assert (st.mh[0, 0, MH_TYPE], st.mh[0, 0, MH_LO], st.mh[0, 0, MH_HI]) == (MT_RUN, 4, 10)
    assert (st.mh[0, 0, MH_N], st.mh[0, 0, MH_WILD], st.ss[0, 9], st.ss[0, 10]) == (7, 0, 1, 1)
    assert int(st.sc[SC_PILE_N]) == 0 and sorted(np.flatnonzero(st.hand[0]).tolist()) == [4, 12, 21]


def test_capture_with_a_new_run(carioca):
    """V 4 / E10: or with the top card and two cards of the hand as a new meld.  Top 6S, hand
    7S 8S 2C: new runs 6S 7S 8S (positions 6..8, variant 0: three naturals), 2C 6S 7S (the
    2C standing for the 5, variant 1 + 2 * 0 = 1), and 6S with the 2C standing for the 7S or the
    8S the hand keeps (variants 1 + 2 * 1 = 3 and 1 + 2 * 2 = 5: every legal shape, VARIANTS 17);
    no 4S 5S in hand, so no run 4..6.  Top AS
    with QS KS in hand: QS KS AS (positions 12..14; the low ace would need the 3, E16)."""
    st = position(carioca, "7S 8S 2C", pile="9D 6S")
    runs = {a for a in acts_of(list_draws, carioca, st, 0) if a[0] == A_CAP_RUN}
    assert runs == {
        (A_CAP_RUN, run_x(S, 6), 0),
        (A_CAP_RUN, run_x(S, 5), 1),
        (A_CAP_RUN, run_x(S, 6), 3),
        (A_CAP_RUN, run_x(S, 6), 5),
    }
    st = position(carioca, "KS QS 9C", pile="9D AS")
    runs = {a for a in acts_of(list_draws, carioca, st, 0) if a[0] == A_CAP_RUN}
    assert runs == {(A_CAP_RUN, run_x(S, 12), 0)}
    take_pile(st, carioca.to_array(), 0, A_CAP_RUN, run_x(S, 12), 0)
    assert (st.mh[0, 0, MH_LO], st.mh[0, 0, MH_HI], st.mh[0, 0, MH_WILD]) == (12, 14, 0)


def test_locked_pile_is_not_taken_with_a_run(carioca):
    """000 Gameplay 4, V 3: a black 3 or a wild on top locks the pile, runs or not."""
    for top in ("3S", "2H"):
        st = position(carioca, "4S 5S 6S 2C", pile="9D " + top)
        assert {a for a in acts_of(list_draws, carioca, st, 0) if a[0] in (A_CAP_RUN, A_CAP_EXT)} == set()


# ---- many deals: invariants, turn limit, referee agreement -------------------------------------


@pytest.mark.parametrize("strategy", ["basic", "random"])
def test_random_deals_keep_invariants_and_end(carioca, strategy):
    """Card conservation and meld legality after every action (--check invariants), no deal at
    the turn limit, over 1500 deals; basic goes out in most of them."""
    cols = simulate_chunk(carioca, strategy, 5, 0, 1500, check=True)
    assert int(cols["invariant_errors"].sum()) == 0
    assert int((cols["end_reason"] == 3).sum()) == 0
    if strategy == "basic":
        assert float(cols["went_out"].reshape(-1, 2).max(axis=1).mean()) > 0.9


def test_referee_agrees_on_logged_deals(carioca):
    """The independent referee replays logged tranca-carioca deals (runs laid, extended, taken
    with the pile) and finds every action legal and the same score."""
    seen = {"run": 0, "end": 0}
    for strategies in (("basic", "basic"), ("random", "basic")):
        for d in range(40):
            log = play_logged(carioca, strategies, 9, d)
            v = check_log(log)
            assert v.ok, (d, strategies, v)
            for a in log["actions"]:
                seen["run"] += a["act"] == "meld" and bool(a.get("run"))
                seen["end"] += "end" in a and a["act"] == "extend"
    assert seen["run"] > 50 and seen["end"] > 50
