"""The run listing (``runs.list_run_actions``, through ``runs.list_melds``) against a plain
reference written from the run rules (issue 8: the listing reads the hand and the runs' ends as
bit masks).  Random hands and random runs on the side's table, for every preset that melds runs:

- a new run is a window of three positions p..p+2 (p from the preset's lowest, 1 or 4 with special
  3s (E16), up to 12; positions 1 and 14 are the ace) with three naturals, or (``max_wilds`` >= 1,
  ``min_naturals`` <= 2) two naturals and a wild at the missing place, or at any place of a window
  of three naturals (VARIANTS 17: every legal shape): a 2 of the hand that is not the suit's own 2
  standing at position 2 of the window as its natural, or a joker; where a meld holds two wilds,
  also natural-wild-wild-natural (four places); no new run of a suit that already has one without
  ``several_runs_per_suit`` (E19);
- each run takes at its low end (position lo - 1) and its high end (hi + 1), inside the preset's
  positions, its natural, and while it holds fewer than ``max_wilds`` wilds a 2 (other than the
  suit's own 2 at position 2, which is natural there) or a joker (E17, E18).

Actions are compared in the listed order (``basic`` keeps the first of equal scores): new runs
suit by suit, lowest window first (three naturals; else the 2, then the joker), then each run in
row order, low end first (natural, 2, joker).  The hands hold 8 or more cards (no E6 limit).
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim.engine.obs import A_RUN_EXT, A_RUN_NEW, C_JOKER, C_NAT, C_TWO, act_type, act_x, act_y
from tranca_sim.engine.runs import list_melds
from tranca_sim.engine.state import (
    MH_HI,
    MH_LO,
    MH_N,
    MH_NAT,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MT_RUN,
    SE_HAND_N,
    SS_N_MELDS,
    new_state,
)
from tranca_sim.rules import PRESETS, get_preset

RUN_PRESETS = sorted(name for name in PRESETS if get_preset(name).meld_runs)


def _kind(s, q):
    """The natural of suit ``s`` at run position ``q`` (1 and 14: the ace)."""
    return s * 13 + (0 if q == 14 else q - 1)


def reference(rules, hand, runs):
    lo_min = 4 if rules.threes_special else 1
    maxw, minn = rules.max_wilds, rules.min_naturals
    twos = sum(int(hand[s * 13 + 1]) for s in range(4))
    jokers = int(hand[52])
    out = []
    for s in range(4):
        if not rules.several_runs_per_suit and any(r[0] == s for r in runs):
            continue
        for p in range(lo_min, 13):
            window = (p, p + 1, p + 2)
            missing = [o for o in range(3) if hand[_kind(s, window[o])] == 0]
            if not missing and minn <= 3:
                out.append((A_RUN_NEW, s * 16 + p, 0))
            if len(missing) <= 1 and maxw >= 1 and minn <= 2:
                # the wild at the missing place, or with three naturals at any place (VARIANTS 17)
                for o in missing or [0, 1, 2]:
                    own_two_natural = 2 in window and window[o] != 2  # the suit's 2 held at its place
                    # at place 2 the wild is not the suit's own 2 (it would be natural there)
                    unusable = 1 if own_two_natural else (int(hand[s * 13 + 1]) if window[o] == 2 else 0)
                    if twos - unusable > 0:
                        out.append((A_RUN_NEW, s * 16 + p, 1 + 2 * o))
                    if jokers > 0:
                        out.append((A_RUN_NEW, s * 16 + p, 2 + 2 * o))
    if maxw >= 2 and minn <= 2 and sum(int(c) for c in hand) >= 6:
        # natural-wild-wild-natural (two wilds a meld, VARIANTS 17): naturals at p and p + 3, two
        # wilds between, j jokers among them (y = 7 + j); a wild at place 2 is not the suit's own 2
        for s in range(4):
            if not rules.several_runs_per_suit and any(r[0] == s for r in runs):
                continue
            own = int(hand[s * 13 + 1])
            for p in range(lo_min, 12):
                if hand[_kind(s, p)] == 0 or hand[_kind(s, p + 3)] == 0:
                    continue
                free2 = twos - (1 if p == 2 else 0)
                for j, ok in enumerate(
                    (
                        free2 >= 2 and (p != 1 or twos - own >= 1),
                        jokers >= 1 and free2 >= 1,
                        jokers >= 2,
                    )
                ):
                    if ok:
                        out.append((A_RUN_NEW, s * 16 + p, 7 + j))
    for m, (s, lo, hi, wilds) in enumerate(runs):
        for end, p in ((0, lo - 1), (1, hi + 1)):
            if p < lo_min or p > 14:
                continue
            if hand[_kind(s, p)] > 0:
                out.append((A_RUN_EXT, m, end * 4 + C_NAT))
            if wilds < maxw:
                if twos - (int(hand[s * 13 + 1]) if p == 2 else 0) > 0:
                    out.append((A_RUN_EXT, m, end * 4 + C_TWO))
                if jokers > 0:
                    out.append((A_RUN_EXT, m, end * 4 + C_JOKER))
    return out


def listed(rules, st):
    acts = np.zeros(512, np.int32)
    n = list_melds(st, rules.to_array(), 0, acts)
    got = [(int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n]]
    return [a for a in got if a[0] in (A_RUN_NEW, A_RUN_EXT)]


def random_position(rules, rng):
    lo_min = 4 if rules.threes_special else 1
    st = new_state(rules.n_sides)
    hand = np.zeros(53, np.int16)
    pack = [k for k in range(52) for _ in range(2)] + [52] * rules.n_jokers
    for k in rng.choice(len(pack), size=int(rng.integers(8, 17)), replace=False):
        hand[pack[k]] += 1
    if rng.random() < 0.3:  # more 2s and jokers than a deal gives, for the wild cases
        hand[int(rng.integers(4)) * 13 + 1] += 1
        if rules.n_jokers:
            hand[52] += 1
    st.hand[0, :] = hand
    st.se[0, SE_HAND_N] = int(hand.sum())
    runs = []
    for m in range(int(rng.integers(0, 7))):
        s = int(rng.integers(4))
        lo = int(rng.integers(lo_min, 13))
        hi = int(rng.integers(lo + 2, 15))
        wilds = int(rng.integers(0, rules.max_wilds + 1))
        runs.append((s, lo, hi, wilds))
        row = st.mh[0, m]
        row[MH_TYPE], row[MH_SUIT], row[MH_LO], row[MH_HI] = MT_RUN, s, lo, hi
        row[MH_N], row[MH_WILD], row[MH_NAT] = hi - lo + 1, wilds, hi - lo + 1 - wilds
    st.ss[0, SS_N_MELDS] = len(runs)
    return st, hand, runs


@pytest.mark.parametrize("preset", RUN_PRESETS)
def test_run_listing_matches_the_rules_on_random_positions(preset):
    rules = get_preset(preset)
    rng = np.random.default_rng(8)
    n_new = n_ext = 0
    for i in range(1500):
        st, hand, runs = random_position(rules, rng)
        want = reference(rules, hand, runs)
        assert listed(rules, st) == want, (i, np.nonzero(hand)[0].tolist(), runs)
        n_new += sum(a[0] == A_RUN_NEW for a in want)
        n_ext += sum(a[0] == A_RUN_EXT for a in want)
    assert n_new > 1000 and n_ext > 1000  # both parts of the listing were exercised


def test_run_listing_a_hand_made_buraco_position():
    # buraco (004: plain 3s, one wild a run, several runs of a suit, no jokers).  Hand: AC 2C 3C
    # (kinds 0 1 2), 5D 7D (13 + 4, 13 + 6), QH KH (26 + 11, 26 + 12), 2S (39 + 1), 9S x2 (39 + 8).
    # Table: row 0 = clubs 4..6 (clean), row 1 = hearts 9..J holding one wild (at the limit).
    rules = get_preset("buraco")
    st = new_state(2)
    hand = np.zeros(53, np.int16)
    for k, c in ((0, 1), (1, 1), (2, 1), (17, 1), (19, 1), (37, 1), (38, 1), (40, 1), (47, 2)):
        hand[k] = c
    st.hand[0, :] = hand
    st.se[0, SE_HAND_N] = int(hand.sum())
    for m, (s, lo, hi, w) in enumerate(((0, 4, 6, 0), (2, 9, 11, 1))):
        row = st.mh[0, m]
        row[MH_TYPE], row[MH_SUIT], row[MH_LO], row[MH_HI] = MT_RUN, s, lo, hi
        row[MH_N], row[MH_WILD], row[MH_NAT] = 3, w, 3 - w
    st.ss[0, SS_N_MELDS] = 2
    want = [
        # clubs: A-2-3 of naturals (the 2C at its place); a wild may stand for any of the three
        # (VARIANTS 17): at the ace's place or the 3's the 2S (the 2C is the natural of place 2),
        # at place 2 the 2S for the 2C; 2-3 and a wild at 4 (the 2S); Q-K-A has only the ace
        (A_RUN_NEW, 0 * 16 + 1, 0),
        (A_RUN_NEW, 0 * 16 + 1, 1 + 2 * 0),
        (A_RUN_NEW, 0 * 16 + 1, 1 + 2 * 1),
        (A_RUN_NEW, 0 * 16 + 1, 1 + 2 * 2),
        (A_RUN_NEW, 0 * 16 + 2, 1 + 2 * 2),
        # diamonds: 5D _ 7D, the 6D missing (window 5, offset 1): a 2 (the 2C or the 2S)
        (A_RUN_NEW, 1 * 16 + 5, 1 + 2 * 1),
        # hearts: J Q K with the J missing (window 11, offset 0), Q K A with the ace missing
        # (window 12, offset 2)
        (A_RUN_NEW, 2 * 16 + 11, 1 + 2 * 0),
        (A_RUN_NEW, 2 * 16 + 12, 1 + 2 * 2),
        # spades: the 2S at place 2 and the 9S have no neighbour within a window: none
        # row 0 (clubs 4..6): the 3C below (natural) and a 2 below; above the 7C (not held) a 2
        (A_RUN_EXT, 0, 0 * 4 + C_NAT),
        (A_RUN_EXT, 0, 0 * 4 + C_TWO),
        (A_RUN_EXT, 0, 1 * 4 + C_TWO),
        # row 1 (hearts 9..J, at its one wild): the 8H below is not held; the QH above
        (A_RUN_EXT, 1, 1 * 4 + C_NAT),
    ]
    assert listed(rules, st) == want
