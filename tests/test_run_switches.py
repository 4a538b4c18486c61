"""Run switches: one run a suit (E19), the wild that moves (E21), a wild on top taken onto a run (E15).

Hand-made positions under ``tranca-carioca`` (runs from the 4 to the high ace, 000 card values:
A 20, K..8 10, 7..4 5, 2 20, joker 50), the expected outcome worked out by hand in each docstring.
Sources: docs/rules.md section 5 (E15, E18, E19, E21), VARIANTS.md 5, seed ``004_083ae37bb3863d19.txt``
How to play ("A 2 used as a wild card stands for the missing card").
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from tranca_sim.engine import play_position
from tranca_sim.engine.log import decode
from tranca_sim.engine.obs import A_CAP_EXT, A_CAP_RUN, A_RUN_NEW, A_RUN_SWAP, act_type, act_x, act_y
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import list_draws, list_melds
from tranca_sim.engine.state import MH_HI, MH_LO, MH_WMASK, SC_LOG_N, SC_LOG_ON
from tranca_sim.referee import check_log
from tranca_sim.rules import get_preset

H, S = 2, 3
KINGS = "KC KC KD KD KH KH KS"  # a clean canasta: side A may go out once its morto is taken
PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")


@pytest.fixture(scope="module")
def carioca():
    return get_preset("tranca-carioca")


def acts_of(fn, rules, st, seat=0):
    acts = np.zeros(512, np.int32)
    n = fn(st, rules.to_array(), seat, acts)
    return {(int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n]}


def play_logged_position(rules, st, strategies=("basic", "passive")):
    """Play on from ``st`` with the action log on; the columns and the log's actions."""
    st.sc[SC_LOG_ON] = 1
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols, decode(st.log[: st.sc[SC_LOG_N]])


# ---- E19: several runs of one suit, or one ------------------------------------------------------


def _second_run(rules):
    return make_position(
        rules,
        hands={0: "9H 10H JH", 1: "7D", 2: "9C", 3: "QD"},
        melds={0: [KINGS, "4H 5H 6H"]},
        stock="5C 8S 8D",
        mortos={1: "JS"},
        taken_mortos={0: 2},
        melded_before={0, 2},
    )


def test_several_runs_of_a_suit(carioca):
    """E19 on (the default): seat 0 draws 5C, lays 9H 10H JH as a second run of hearts and goes out
    by discarding 5C.  By hand (000 values): kings 70 + 4H 5H 6H 15 + 9H 10H JH 30 = 115; clean
    canasta 200; going out 100 (seat 0 melded before: no em cima); partner's 9C -10 -> 405.
    Side B: 7D -5, QD -10, morto never taken -100 -> -115.
    Off: no second run of hearts is listed; seat 0 cannot go out in this turn."""
    assert (A_RUN_NEW, H * 16 + 9, 0) in acts_of(list_melds, carioca, _second_run(carioca))
    cols, _ = play_logged_position(carioca, _second_run(carioca))
    assert list(cols["score"]) == [405, -115] and int(cols["n_turns"][0]) == 1
    one = carioca.replace(several_runs_per_suit=False)
    assert (A_RUN_NEW, H * 16 + 9, 0) not in acts_of(list_melds, one, _second_run(one))
    cols, _ = play_logged_position(one, _second_run(one))
    assert int(cols["n_turns"][0]) > 1


def test_referee_one_run_a_suit(carioca):
    """The referee refuses a second run of hearts when the rules allow one run a suit (E19 off)."""
    one = carioca.replace(several_runs_per_suit=False)
    table = _table_at(one, {0: "9H 10H JH 5C"}, [KINGS, "4H 5H 6H"])
    with pytest.raises(Exception) as e:
        table.step(
            {"turn": 0, "seat": 0, "act": "meld", "meld": 2, "cards": ["9H", "10H", "JH"], "run": True}
        )
    assert "one run a suit" in str(e.value) and "E19" in str(e.value)
    table = _table_at(carioca, {0: "9H 10H JH 5C"}, [KINGS, "4H 5H 6H"])
    table.step({"turn": 0, "seat": 0, "act": "meld", "meld": 2, "cards": ["9H", "10H", "JH"], "run": True})
    assert len(table.melds[0]) == 3


def _table_at(rules, st_hands, runs):
    """The referee's table in the meld phase of seat 0 (turn 0), with side A's melds ``runs``."""
    from collections import Counter

    from tranca_sim.engine.cards import to_str
    from tranca_sim.engine.positions import stack_deck
    from tranca_sim.referee.actions import _Replay
    from tranca_sim.referee.questions import _meld_check
    from tranca_sim.referee.table import _Meld

    deck = [to_str(k) for k in stack_deck(rules)]
    t = _Replay(rules, deck, 0)
    t.phase, t.turn, t.seat = "play", 0, 0
    t.hands[0] = Counter(st_hands[0].split())
    for cards in runs:
        cs = cards.split()
        chk, _ = _meld_check(cs, rules, False)
        if chk.kind == "run":
            t.melds[0].append(_Meld("run", None, cs, suit=chk.suit, low=chk.low))
        else:
            t.melds[0].append(_Meld("set", chk.rank, cs))
    t.morto_state[0] = "direct"
    return t


# ---- E21: the wild moves when the natural of its place comes ------------------------------------


def _swap_position(rules):
    return make_position(
        rules,
        hands={0: "6H", 1: "7D", 2: "9C", 3: "QD"},
        melds={0: [KINGS, "5H 2C 7H"]},
        stock="9S 8S 8D",
        mortos={1: "JS"},
        taken_mortos={0: 2},
        melded_before={0, 2},
    )


def test_wild_stays_by_default(carioca):
    """E18 (run_wild_moves off): the 2C stands for the 6H for good; 6H cannot join 5H 2C 7H (its
    ends are the 4 and the 8), so no action lays it and seat 0 does not go out in this turn."""
    st = _swap_position(carioca)
    assert not any(a[0] == A_RUN_SWAP for a in acts_of(list_melds, carioca, st))
    cols, _ = play_logged_position(carioca, st)
    assert int(cols["n_turns"][0]) > 1


def test_wild_moves_when_switched_on(carioca):
    """E21 (run_wild_moves on): the 6H takes its place, the 2C moves to the low end (position 4) or
    the high end (8).  Seat 0 draws 9S, lays the 6H (the 2C to the low end, listed first), discards
    9S and goes out.  By hand: kings 70; run 2C 5H 6H 7H = 20 + 15 = 35; melded 105; clean canasta
    200; going out 100; partner's 9C -10 -> 395.  Side B -115 as above."""
    moves = carioca.replace(run_wild_moves=True)
    st = _swap_position(moves)
    acts = acts_of(list_melds, moves, st)
    assert {(A_RUN_SWAP, 1, 2 * 6 + 0), (A_RUN_SWAP, 1, 2 * 6 + 1)} <= acts
    cols, actions = play_logged_position(moves, st)
    assert list(cols["score"]) == [395, -115]
    swap = [a for a in actions if a["act"] == "replace_wild"]
    assert swap == [{"turn": 0, "seat": 0, "act": "replace_wild", "meld": 1, "card": "6H", "end": "low"}]
    assert (int(st.mh[0, 1, MH_LO]), int(st.mh[0, 1, MH_HI]), int(st.mh[0, 1, MH_WMASK])) == (4, 7, 1 << 4)


def test_referee_wild_moves(carioca):
    """The referee plays the swap with the switch on and refuses it with the switch off (E18)."""
    on = carioca.replace(run_wild_moves=True)
    t = _table_at(on, {0: "6H 9S"}, [KINGS, "5H 2C 7H"])
    t.step({"turn": 0, "seat": 0, "act": "replace_wild", "meld": 1, "card": "6H", "end": "high"})
    assert t.melds[0][1].cards == ["5H", "6H", "7H", "2C"] and t.melds[0][1].low == 5
    t = _table_at(on, {0: "6H 9S"}, [KINGS, "5H 2C 7H"])
    with pytest.raises(Exception) as e:
        t.step({"turn": 0, "seat": 0, "act": "replace_wild", "meld": 1, "card": "9S", "end": "low"})
    assert "no wild of this run stands for 9S" in str(e.value)
    t = _table_at(carioca, {0: "6H 9S"}, [KINGS, "5H 2C 7H"])
    with pytest.raises(Exception) as e:
        t.step({"turn": 0, "seat": 0, "act": "replace_wild", "meld": 1, "card": "6H", "end": "low"})
    assert "E18" in str(e.value)


# ---- E15 on runs: a wild on top of an unlocked closed pile -------------------------------------


def _wild_top(rules, hand0="JS 4C"):
    return make_position(
        rules,
        hands={0: hand0, 1: "7D", 2: "9C", 3: "QD"},
        melds={0: ["5H 6H 7H"]},
        pile="9D 8S 2C",
        stock="KS 8D",
        mortos={0: "JC", 1: "JS"},
    )


def test_wild_on_top_onto_a_run(carioca):
    """lock_by_wild on (tranca-carioca): the 2C on top locks the pile, nothing takes it.  Off (E15):
    the 2C is melded as a wild at an end of side A's run 5H 6H 7H (position 4 or 8), the rest (9D
    8S) goes to the hand: two captures listed; basic (a pile of 3 cards, take_pile_min 3) takes it."""
    assert not any(a[0] in (A_CAP_EXT, A_CAP_RUN) for a in acts_of(list_draws, carioca, _wild_top(carioca)))
    open_wild = carioca.replace(lock_by_wild=False)
    caps = acts_of(list_draws, open_wild, _wild_top(open_wild))
    assert {(A_CAP_EXT, 0, 0), (A_CAP_EXT, 0, 1)} <= caps
    _, actions = play_logged_position(open_wild, _wild_top(open_wild))
    first = [(a["act"], a.get("card") or a.get("top")) for a in actions if a["turn"] == 0][:3]
    assert first[1:] == [("take_pile", "2C"), ("extend", "2C")]


def test_wild_on_top_in_a_new_run(carioca):
    """E15 on runs: with 5S 6S in hand the 2C on top also makes a new run with them: 2C 5S 6S (the
    wild at 4) or 5S 6S 2C (at 7), y = 1 + 2 * offset (a 2, not a joker)."""
    open_wild = carioca.replace(lock_by_wild=False)
    caps = acts_of(list_draws, open_wild, _wild_top(open_wild, "5S 6S JD"))
    assert {(A_CAP_RUN, S * 16 + 4, 1), (A_CAP_RUN, S * 16 + 5, 1 + 2 * 2)} <= caps


def test_wild_capture_logs_pass_the_referee(carioca):
    """Whole deals with a wild top card taken onto runs: the engine's logs pass the referee."""
    from tranca_sim.engine.log import play_logged

    open_wild = carioca.replace(lock_by_wild=False, run_wild_moves=True)
    seen = set()
    for d in range(40):
        log = play_logged(open_wild, ("random", "random"), 11, d)
        v = check_log(copy.deepcopy(log))
        assert v.ok, v
        seen |= {a["act"] for a in log["actions"]}
    assert "replace_wild" in seen


# ---- validate_meld: run questions under every played preset -----------------------------------

#: (cards, legal, kind, clean, canasta) worked out from each preset's sources (docs/rules.md 3.26):
#: runs only where the preset melds them; E16 (no run below the 4 with special 3s); E17 (the
#: preset's wild limit); 7 cards make a canasta (000 Gameplay 8, 002 Canasta)
MELD_CASES = {
    "tranca": [
        ("4H 5H 6H", False, None, False, False),  # 000 Gameplay 7: same-rank melds only
        ("KH KD 2C", True, "set", False, False),
        ("KH KD 2C JK", True, "set", False, False),  # two wilds (000 Gameplay 7)
    ],
    "tranca-aberta": [("4H 5H 6H", False, None, False, False), ("KH KD KS", True, "set", True, False)],
    "tranca-paulista": [
        ("4H 5H 6H", False, None, False, False),
        ("KH KD 2C 2D", False, None, False, False),  # at most one wild (VARIANTS Presets)
    ],
    "tranca-carioca": [
        ("4H 5H 6H", True, "run", True, False),
        ("QS KS AS", True, "run", True, False),  # ace high (VARIANTS 6)
        ("3H 4H 5H", False, None, False, False),  # E16: special 3s, no run reaches the 3
        ("4H 2C 6H 2D", True, "run", False, False),  # two wilds allowed (000: two a meld, E17)
        ("4H 2C 2D 8H", False, None, False, False),  # 4 and 8 leave three places for two wilds
        ("8D 9D 10D JD QD KD AD", True, "run", True, True),  # a clean run canasta
        ("8D 9D JK JD QD KD AD", True, "run", False, True),  # the joker stands for the 10D: dirty
        ("KD AD 4D", False, None, False, False),  # no wrap-around (VARIANTS 6)
    ],
    "tranca-sp": [
        ("4H 2C 6H 2D", False, None, False, False),  # one wild a meld (VARIANTS Presets)
        ("4H 2C 6H", True, "run", False, False),
        ("JK 5H 6H", False, None, False, False),  # no jokers in 003's pack
    ],
}


@pytest.mark.parametrize(
    ("preset", "cards", "legal", "kind", "clean", "canasta"),
    [(p, *c) for p, cases in MELD_CASES.items() for c in cases],
)
def test_validate_meld_per_preset(preset, cards, legal, kind, clean, canasta):
    from tranca_sim.referee import validate_meld

    m = validate_meld(cards, get_preset(preset))
    assert m.legal == legal, m.reason
    if legal:
        assert (m.kind, m.clean, m.canasta) == (kind, clean, canasta)
    else:
        assert m.reason
