"""The sides' run index (``engine/run_index.py``, issue 8): which run rows take which natural at an
end, and which have room for a wild, kept in ``State.ss`` for the run listing.

Hand-made positions with the index worked out by hand from the runs' ends (the natural one place
below the low end and one above the high end, inside the preset's positions: from 1, or from 4
with special 3s (E16), up to 14, the ace at 1 and 14); the index after a run is extended; played
deals of every run preset and run switch with the invariant checks on, which compare the index
kept through the deal with a fresh one after every turn phase; and a corrupted index is found by
that check.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tranca_sim.engine import simulate_chunk
from tranca_sim.engine.obs import A_RUN_EXT, C_NAT, END_LOW
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.run_index import index_runs, run_index_errors
from tranca_sim.engine.runs import apply_meld
from tranca_sim.engine.state import SS_RUN_ENDS, SS_RUN_KINDS, SS_RUN_ROOM
from tranca_sim.engine.turn import count_errors
from tranca_sim.rules import PRESETS, get_preset

C, D, H, S = 0, 1, 2, 3  # suits in kind order (cards.SUITS = "CDHS")


def _k(rank, suit):
    return suit * 13 + rank - 1


def _index(st, side=0):
    """{kind: rows} of the side's non-empty SS_RUN_ENDS entries, the room rows, the kinds' words."""
    ends = {k: int(st.ss[side, SS_RUN_ENDS + k]) for k in range(52) if st.ss[side, SS_RUN_ENDS + k]}
    words = (int(st.ss[side, SS_RUN_KINDS]), int(st.ss[side, SS_RUN_KINDS + 1]))
    return ends, int(st.ss[side, SS_RUN_ROOM]), words


def _words(kinds):
    w0 = sum(1 << k for k in kinds if k < 26)
    w1 = sum(1 << (k - 26) for k in kinds if k >= 26)
    return w0, w1


BURACO_MELDS = {
    0: [
        "4H 5H 6H",  # row 0, clean: 3H below, 7H above
        "8H 9H 2C",  # row 1, the 2C standing for the 10H: 7H below, JH above; at buraco's one wild
        "JS QS KS",  # row 2: 10S below, the ace above the K (position 14)
        "AD 2D 3D",  # row 3, the low ace and the natural 2D: nothing below the ace, 4D above
    ],
    1: ["9C 10C JC QC KC AC"],  # side 1, row 0: 8C below, nothing above the high ace
}


def _position(rules, hand0="5C 6C", melds=BURACO_MELDS):
    return make_position(
        rules,
        hands={0: hand0, 1: "7C", 2: "8C", 3: "9D"},
        melds=melds,
        stock="10D JD",
        taken_mortos={0: 0, 1: 1},
    )


def test_index_of_a_hand_made_buraco_position():
    rules = get_preset("buraco")
    st = _position(rules)
    want = {
        _k(3, H): 0b0001,
        _k(7, H): 0b0011,  # rows 0 and 1 both take the 7H
        _k(11, H): 0b0010,
        _k(10, S): 0b0100,
        _k(1, S): 0b0100,
        _k(4, D): 0b1000,
    }
    ends, room, words = _index(st)
    assert ends == want
    assert room == 0b1101  # row 1 holds its one wild
    assert words == _words(want)
    ends, room, words = _index(st, 1)
    assert ends == {_k(8, C): 0b1}
    assert room == 0b1 and words == _words([_k(8, C)])
    assert run_index_errors(st, rules.to_array()) == 0


def test_index_with_special_threes_starts_at_the_four():
    # tranca-carioca (000 variation: special 3s, E16): runs lie within 4..14, so the 4H-6H run has
    # no low end; two wilds a meld (000): the run holding one wild still has room
    rules = get_preset("tranca-carioca")
    st = _position(rules, melds={0: ["4H 5H 6H", "8H 9H 2C"]})
    ends, room, words = _index(st)
    assert ends == {_k(7, H): 0b11, _k(11, H): 0b10}
    assert room == 0b11
    assert words == _words([_k(7, H), _k(11, H)])


def test_index_follows_an_extension():
    rules = get_preset("buraco")
    rp = rules.to_array()
    st = _position(rules, "3H 5C 6C")
    apply_meld(st, rp, 0, A_RUN_EXT, 0, END_LOW * 4 + C_NAT)  # the 3H below row 0: now 3H..6H
    ends, room, _ = _index(st)
    assert ends[_k(2, H)] == 0b0001  # the 2H below it now
    assert _k(3, H) not in ends
    assert ends[_k(7, H)] == 0b0011
    assert room == 0b1101
    assert run_index_errors(st, rp) == 0


def test_a_wrong_index_is_an_invariant_error():
    rules = get_preset("buraco")
    rp = rules.to_array()
    st = _position(rules)
    pack = np.zeros((2, 53), np.int64)
    for where in (SS_RUN_ENDS + _k(5, S), SS_RUN_ENDS + _k(7, H), SS_RUN_ROOM, SS_RUN_KINDS + 1):
        for bit in (0, 1, 4):
            bad = _position(rules)
            bad.ss[0, where] ^= 1 << bit
            assert run_index_errors(bad, rp) == 1, (where, bit)
            pack[0] = 0
            assert count_errors(bad, rp, pack) > count_errors(st, rp, pack)
    index_runs(bad, rp)  # rebuilt from the rows: right again
    assert run_index_errors(bad, rp) == 0


RUN_RULES = [PRESETS[name] for name in sorted(PRESETS) if PRESETS[name].meld_runs] + [
    dataclasses.replace(get_preset("tranca-carioca"), name="carioca-wild-moves", run_wild_moves=True),
    dataclasses.replace(get_preset("tranca-carioca"), name="carioca-no-wild-lock", lock_by_wild=False),
]


@pytest.mark.parametrize("rules", RUN_RULES, ids=lambda r: r.name)
def test_played_deals_keep_the_index(rules):
    # check=True: count_errors after every turn phase compares the kept index with a fresh one
    for pair in (("basic", "basic"), ("random", "random")):
        c = simulate_chunk(rules, pair, 5, 0, 150, check=True)
        assert c["invariant_errors"].max() == 0, pair
