"""The bit masks the runs code reads the hand and the table with (issue 8, buraco's speed):
``runs.hand_bits`` (bit ``k``: the hand holds kind ``k``) and ``basic_runs._run_ext_mask`` (bit ``k``:
the natural ``k`` goes on an end of one of a side's runs).  Expected masks are written from the
kinds by hand (``k = suit * 13 + rank - 1``, suits C D H S; tranca_sim/engine/cards.py).
"""

import numpy as np
import pytest
from numba import njit

from tranca_sim.engine.deal import _obs
from tranca_sim.engine.obs import PUB_LEN
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import hand_bits
from tranca_sim.rules import PRESETS
from tranca_sim.strategies.basic_runs import _run_ext_mask


@njit
def _bits(hand):
    return hand_bits(hand)


@pytest.mark.parametrize("seat", range(4))
@pytest.mark.parametrize("count", [1, 2, 7, 32767])
def test_hand_bits_each_kind_alone(seat, count):
    # each of the 52 suited kinds alone, in every seat's row of a (4, 53) hand array (rows start at
    # 106-byte steps: words not 8-byte aligned), with counts up to the int16 maximum; the joker
    # (kind 52) is not read
    for k in range(53):
        hands = np.zeros((4, 53), np.int16)
        hands[seat, k] = count
        hands[(seat + 1) % 4, :] = 5  # a neighbouring row full: nothing of it may leak in
        assert _bits(hands[seat]) == (1 << k if k < 52 else 0), k


def test_hand_bits_a_hand():
    # AC 2C (0, 1), 5D x2 (13 + 4 = 17), KH (26 + 12 = 38), 4S 4S 4S (39 + 3 = 42), KS (51), a joker
    hand = np.zeros(53, np.int16)
    for k, c in ((0, 1), (1, 1), (17, 2), (38, 1), (42, 3), (51, 1), (52, 1)):
        hand[k] = c
    want = (1 << 0) | (1 << 1) | (1 << 17) | (1 << 38) | (1 << 42) | (1 << 51)
    assert _bits(hand) == want


@njit
def _ext_mask(st, rp, side):
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    return _run_ext_mask(_obs(st, rp, 0, pub, hidden), side)


def test_run_ext_mask_buraco():
    # side B's runs (004: same-suit runs, the ace low below the 2 or high above the K, a 2 of another
    # suit standing in a run as its wild):
    #   2H 3H 4H            -> the AH below (26 + 0 = 26) and the 5H above (26 + 4 = 30)
    #   QS KS AS (ace high) -> the JS below (39 + 10 = 49), nothing above the high ace
    #   5C .. KC            -> the 4C below (3) and the high AC above the K (0)
    #   7D 2C(8D) 9D        -> the 6D below (13 + 5 = 18) and the 10D above (13 + 9 = 22)
    # side A has no run: an empty mask
    rules = PRESETS["buraco"]
    st = make_position(
        rules,
        hands={0: "4D 5D", 1: "6H 7H", 2: "8H 9H", 3: "10H JH"},
        melds={1: ["2H 3H 4H", "QS KS AS", "5C 6C 7C 8C 9C 10C JC QC KC", "7D 2C 9D"]},
        pile="JD",
        stock="4H 5H",
        mortos={0: "QH QH", 1: "KH KH"},
    )
    rp = rules.to_array()
    want = (1 << 26) | (1 << 30) | (1 << 49) | (1 << 3) | (1 << 0) | (1 << 18) | (1 << 22)
    assert _ext_mask(st, rp, 1) == want
    assert _ext_mask(st, rp, 0) == 0
