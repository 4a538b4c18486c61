"""Output columns and rule questions say exactly what the code does (issue 6, item 5).

- ``black3_locks`` / ``wild_locks`` count only real locks: a discard that leaves the pile locked
  for the next player under the active rules (``lock_by_black3`` / ``lock_by_wild``, 000 Gameplay
  4, 6; VARIANTS 3); the going-out discard is not one, nobody plays after it.
- ``score_side`` takes a red-3 count or the red 3s, never a bool, and answers plain ints.

Positions are hand-made; ``passive`` draws from the stock and discards its lowest card kind
(clubs A..K = 0..12, so 2C = 1 and 3C = 2); ``basic`` is described in tests/test_rules_tranca.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim import referee as R
from tranca_sim.engine import play_position
from tranca_sim.engine.positions import make_position
from tranca_sim.rules import get_preset

TRANCA = get_preset("tranca")
KINGS7 = "KC KD KH KS KC KD KH"


def _cols(cols, *names):
    return {n: [int(cols[n][0]), int(cols[n][1])] for n in names}


@pytest.mark.parametrize(
    "held, switch, want",
    [
        # seat 0 draws 8H, discards 3C: the pile is locked by a black 3 for seat 1
        ("3C 9H", {}, {"black3_locks": [1, 0], "wild_locks": [0, 0]}),
        # the same discard with lock_by_black3 off locks nothing
        ("3C 9H", {"lock_by_black3": False}, {"black3_locks": [0, 0], "wild_locks": [0, 0]}),
        # seat 0 discards 2C: locked by a wild
        ("2C 9H", {}, {"black3_locks": [0, 0], "wild_locks": [1, 0]}),
        # lock_by_wild off: a 2 on top is no lock
        ("2C 9H", {"lock_by_wild": False}, {"black3_locks": [0, 0], "wild_locks": [0, 0]}),
    ],
)
def test_lock_columns_count_real_locks(held, switch, want):
    rules = TRANCA.replace(**switch)
    st = make_position(
        rules, hands={0: held, 1: "7D", 2: "8D", 3: "9D"}, mortos={0: "4S", 1: "5S"}, stock="8H"
    )
    cols = play_position(rules, st, ("passive", "passive"))
    # turn 0: seat 0 draws 8H and discards its lowest kind (3C = 2 or 2C = 1);
    # turn 1: seat 1 faces an empty stock and a pile it cannot take (a black 3 or a 2 on top
    # cannot be melded with 7D): the deal ends (E8), 2 turns
    assert int(cols["n_turns"][0]) == 2 and int(cols["end_reason"][0]) == 2
    assert _cols(cols, "black3_locks", "wild_locks") == want


def test_going_out_discard_is_not_a_lock():
    """The last card discarded to go out locks nothing: the deal is over."""
    st = make_position(
        TRANCA,
        hands={0: "5C 5D 5H 3C", 1: "7D", 2: "4C", 3: "8D"},
        melds={0: [KINGS7]},
        taken_mortos={0: 2},
        mortos={1: "6D"},
        stock="5S 4D",
        melded_before={0},
    )
    cols = play_position(TRANCA, st, ("basic", "basic"))
    # seat 0 draws 5S, melds 5C 5D 5H and adds 5S, discards 3C: hand empty, morto taken and a
    # canasta on the table -> goes out (not em cima: seat 0 melded before)
    # A: melded 70 + 4 x 5 = 90; clean canasta 200; going out 100; seat 2 holds 4C -5 -> 385
    # B: morto never taken -100; hands 7D 5 + 8D 10 = 15 -> -115
    assert _cols(cols, "score", "went_out", "black3_locks", "wild_locks") == {
        "score": [385, -115],
        "went_out": [1, 0],
        "black3_locks": [0, 0],
        "wild_locks": [0, 0],
    }


def test_score_side_refuses_a_bool_for_a_count():
    with pytest.raises(TypeError, match="red3 must be a count"):
        R.score_side([], red3=True)
    with pytest.raises(TypeError, match="red3 must be a count"):
        R.score_side([], red3=1.0)
    with pytest.raises(TypeError, match="went_out must be True or False"):
        R.score_side(["KC KC KD KD KH KH KS"], went_out="yes")
    with pytest.raises(TypeError, match="melds must be a list of melds"):
        R.score_side("KH KD KC")
    with pytest.raises(TypeError, match="rules must be a Rules"):
        R.score_side([], rules="tranca")


def test_score_side_answers_plain_ints():
    # two red 3s without a canasta: 2 x -100; numpy count and numpy flag accepted
    s = R.score_side([], red3=np.int64(2), morto_taken=np.bool_(True))
    assert s["red3_count"] == 2 and s["red3_points"] == -200 and s["score"] == -200
    assert all(type(v) is int for v in s.values())
    t = R.score_side([], red3="3H 3D", went_out=0, morto_taken=1)
    assert (t["red3_count"], t["score"]) == (2, -200)
