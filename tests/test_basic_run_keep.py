"""``basic``'s discard in the presets that meld runs reads the side's runs and the hand's
neighbours as 52-bit masks (``_run_planes``, ``_nb_planes``, ``_run_keep_planes``; issue 8,
buraco's speed).  Checked against the plain computation they replace: ``_run_keep`` (a pass over
the side's melds and the hand's neighbours for one card, written from the rule) for every kind, and
the whole discard choice against a reference discard that loops over the 53 kinds with
``_run_keep`` and ``_extends_run``, on random hands and tables of every preset that melds runs;
and one ``buraco`` position worked by hand.
"""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.deal import _obs
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals
from tranca_sim.engine.obs import (
    PUB_CAN_EMPTY,
    PUB_HAND_N,
    PUB_LEN,
    PUB_N_SEATS,
    PUB_NO_DISCARD,
    PUB_SEAT,
    PUB_SIDE,
    next_seat,
    seat_side,
)
from tranca_sim.engine.runs import hand_bits
from tranca_sim.engine.state import (
    MH_HI,
    MH_LO,
    MH_N,
    MH_NAT,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MT_RUN,
    SC_PILE_N,
    SE_HAND_N,
    SS_N_MELDS,
    new_state,
)
from tranca_sim.rules import (
    PRESETS,
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_SEVERAL_RUNS,
    R_THREES_SPECIAL,
    R_VALUES,
    get_preset,
)
from tranca_sim.strategies import resolve
from tranca_sim.strategies.basic_discard import DiscardView, _choose_discard
from tranca_sim.strategies.basic_draw import DrawView, _open_pile_fits_runs
from tranca_sim.strategies.basic_params import P_BLACK3_LOCK, P_PARTNER, P_SAFE_DISCARD
from tranca_sim.strategies.basic_runs import (
    _extends_run,
    _nb_planes,
    _run_keep,
    _run_keep_planes,
    _run_planes,
)
from tranca_sim.strategies.basic_table import _set_ranks

RUN_PRESETS = sorted(name for name in PRESETS if get_preset(name).meld_runs)


@njit
def _keeps(st, rp, side):
    """Every kind's run keep for ``side`` (seat 0's hand), the masks' way and ``_run_keep``'s."""
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    obs = _obs(st, rp, 0, pub, hidden)
    c0, c1, c2, c3, cover = _run_planes(obs, side)
    up1, dn1, up2, dn2 = _nb_planes(hand_bits(obs.hand))
    several = rp[R_SEVERAL_RUNS] != 0
    covered_keep = -40 if rp[R_MELD_SETS] == 0 else 0
    new = np.zeros(52, np.int64)
    old = np.zeros(52, np.int64)
    for k in range(52):
        if not several and (cover >> k) & 1:
            new[k] = covered_keep
        else:
            new[k] = _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k)
        old[k] = _run_keep(obs, side, k)
    return new, old


@njit
def _reference_discard(prm, obs, seen_pairs):
    """The discard as it was written before the masks: every kind of the hand in order, the run
    keep from ``_run_keep`` and the opponents' run ends from ``_extends_run``; the first kind of the
    lowest keep."""
    hand = obs.hand
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    n_seats = obs.pub[PUB_N_SEATS]
    nxt = next_seat(obs, seat)
    prv = seat - 1 if seat > 0 else n_seats - 1
    opp = seat_side(obs, nxt)
    own = _set_ranks(obs, side) if prm[P_PARTNER] != 0.0 else 0
    safe = prm[P_SAFE_DISCARD] != 0.0
    lock = prm[P_BLACK3_LOCK] != 0.0
    opp_ranks = _set_ranks(obs, opp) if safe or lock else 0
    runs = obs.rp[R_MELD_RUNS] != 0
    wilds_meld = obs.rp[R_MAX_WILDS] > 0
    special = obs.rp[R_THREES_SPECIAL] != 0
    sets = obs.rp[R_MELD_SETS] != 0
    best = -1
    best_keep = 1 << 30
    b3 = -1
    for k in range(53):
        if hand[k] == 0 or k == obs.pub[PUB_NO_DISCARD]:
            continue
        if is_wild(k) and wilds_meld:
            keep = 1000
        elif is_wild(k):
            if runs and k != JOKER and not special:
                keep = _run_keep(obs, side, k) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -1000 - obs.rp[R_VALUES + k]
        elif is_black3(k) and special:
            b3 = k
            keep = 900 if lock else 19
        else:
            r = k % 13 + 1
            if sets:
                keep = 20 * n_naturals(hand, r) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -obs.rp[R_VALUES + k] // 5
            if own & (1 << r):
                keep += 40
            if runs:
                keep += _run_keep(obs, side, k)
            if seen_pairs & (1 << r):
                keep += 30
            if safe:
                if opp_ranks & (1 << r):
                    keep += 60
                if n_naturals(obs.taken[nxt], r) > 0 or n_naturals(obs.taken[prv], r) > 0:
                    keep += 30
                if runs and _extends_run(obs, opp, k):
                    keep += 60
        if keep < best_keep:
            best_keep = keep
            best = k
    if lock and b3 >= 0 and best != b3 and not is_wild(best):
        r = best % 13 + 1
        if opp_ranks & (1 << r) or n_naturals(obs.taken[nxt], r) > 0:
            return b3
    return best


@njit
def _discards(st, rp, prm, seen_pairs):
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    obs = _obs(st, rp, 0, pub, hidden)
    view = DiscardView(obs.hand, obs.pub, obs.mh, obs.taken, obs.rp)
    return _choose_discard(prm, view, seen_pairs), _reference_discard(prm, view, seen_pairs)


def _put_runs(st, side, runs):
    for m, (s, lo, hi, w) in enumerate(runs):
        row = st.mh[side, m]
        row[MH_TYPE], row[MH_SUIT], row[MH_LO], row[MH_HI] = MT_RUN, s, lo, hi
        row[MH_N], row[MH_WILD], row[MH_NAT] = hi - lo + 1, w, hi - lo + 1 - w
    st.ss[side, SS_N_MELDS] = len(runs)


def random_position(rules, rng):
    """Seat 0's hand of 1-16 cards (more 2s and jokers at times) and 0-8 random runs on each side
    (several of a suit, ends at the ace low and high: more than a deal of the preset may make)."""
    lo_min = 4 if rules.threes_special else 1
    st = new_state(rules.n_sides)
    hand = np.zeros(53, np.int16)
    pack = [k for k in range(52) for _ in range(2)] + [52] * rules.n_jokers
    for k in rng.choice(len(pack), size=int(rng.integers(1, 17)), replace=False):
        hand[pack[k]] += 1
    if rng.random() < 0.3:
        hand[int(rng.integers(4)) * 13 + 1] += 1
        hand[52] += 1
    st.hand[0, :] = hand
    st.se[0, SE_HAND_N] = int(hand.sum())
    for side in range(2):
        runs = []
        for _ in range(int(rng.integers(0, 9))):
            lo = int(rng.integers(lo_min, 13))
            if rng.random() < 0.1:
                lo, hi = 1, 14  # A..A
            else:
                hi = int(rng.integers(lo + 2, 15))
            runs.append((int(rng.integers(4)), lo, hi, int(rng.integers(0, rules.max_wilds + 1))))
        _put_runs(st, side, runs)
    st.taken[1, int(rng.integers(52))] = 1  # a card the next player took from the pile (safe_discard)
    return st


@pytest.mark.parametrize("preset", RUN_PRESETS)
def test_run_keep_masks_match_run_keep(preset):
    rules = get_preset(preset)
    rp = rules.to_array()
    rng = np.random.default_rng(80)
    seen = set()
    for i in range(1500):
        st = random_position(rules, rng)
        new, old = _keeps(st, rp, 0)
        assert new.tolist() == old.tolist(), (i, np.nonzero(st.hand[0])[0].tolist())
        seen.update(int(v) for v in old)
    # the cases were exercised: covered places (without several runs), one and two run ends,
    # the neighbour values
    assert {50, 100, 15, 23, 30}.issubset(seen), sorted(seen)
    if not rules.several_runs_per_suit:
        assert (-40 if not rules.meld_sets else 0) in seen


@pytest.mark.parametrize("preset", RUN_PRESETS)
@pytest.mark.parametrize("spec", ["basic", "basic:safe_discard=1,partner=1", "basic:black3_lock=1,safe_discard=1"])
def test_discard_matches_the_plain_discard(preset, spec):
    rules = get_preset(preset)
    rp = rules.to_array()
    prm = resolve(spec).params
    rng = np.random.default_rng(81)
    kinds = set()
    for i in range(800):
        st = random_position(rules, rng)
        seen_pairs = int(rng.integers(0, 1 << 14)) if rng.random() < 0.2 else 0
        new, old = _discards(st, rp, prm, seen_pairs)
        assert new == old, (i, np.nonzero(st.hand[0])[0].tolist())
        kinds.add(int(old))
    assert len(kinds) > 30  # many different discards


def test_discard_a_hand_made_buraco_position():
    # buraco (004: same-suit runs only, 2s wild, several runs of a suit; values A 15, 3-7 5,
    # 8-K 10, 2 10).  Seat 0 holds 4C 6C (kinds 3, 5), 9D (13 + 8 = 21), KH (26 + 12 = 38),
    # AS (39 + 0 = 39), 2S (40).  Side A's runs: clubs 7-8-9 (row 0), hearts 2-3-4 (row 1),
    # diamonds 5-6-7 and 10-J-Q (rows 2, 3).
    # Keeps (the lowest is discarded): -value // 5, +50 for each of the side's runs the card goes
    # on, +15 for each suit neighbour in the hand next to it, +8 for each one further:
    #   4C: -1, no run end (the clubs run takes the 6C and the 10C), the 6C one further: 7
    #   6C: -1 + 50 (below 7-8-9 of clubs) + 8 (the 4C) = 57
    #   9D: -2 + 50 (below 10-J-Q of diamonds) = 48
    #   KH: -2 (the hearts run takes the AH and the 5H; no heart in hand) = -2
    #   AS: -3 + 15 (the 2S one above the ace) = 12
    #   2S: a wild, 1000
    # The KH is discarded; without it, the 4C.
    rules = get_preset("buraco")
    rp = rules.to_array()
    prm = resolve("basic").params
    st = new_state(2)
    for k in (3, 5, 21, 38, 39, 40):
        st.hand[0, k] = 1
    st.se[0, SE_HAND_N] = 6
    _put_runs(st, 0, [(0, 7, 9, 0), (2, 2, 4, 0), (1, 5, 7, 0), (1, 10, 12, 0)])
    new, old = _discards(st, rp, prm, 0)
    assert (new, old) == (38, 38)
    st.hand[0, 38] = 0
    st.se[0, SE_HAND_N] = 5
    new, old = _discards(st, rp, prm, 0)
    assert (new, old) == (3, 3)


@njit
def _pile_fits(st, rp, prm, can_empty, hand_n):
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    obs = _obs(st, rp, 0, pub, hidden)
    pub[PUB_CAN_EMPTY] = can_empty
    pub[PUB_HAND_N] = hand_n  # seat 0's hand size
    keeps = np.zeros(52, np.int64)
    for k in range(52):
        keeps[k] = _run_keep(obs, 0, k)
    return _open_pile_fits_runs(prm, DrawView(obs.hand, obs.pub, obs.pile, obs.mh, obs.rp)), keeps


def reference_pile_fits(rules, st, share, can_empty, hand_n, keeps):
    """The open pile's test as its docstring states it, from ``_run_keep`` of each card: the top card
    fits (a wild where wilds play, else ``_run_keep`` above 0) and so do at least ``share`` of the
    pile's cards; a one-card pile only when its natural is melded at once: it goes on an end of one
    of the side's runs that no run covers (``_run_keep`` 50 or more: the neighbours add at most 46),
    or the hand holds two suit neighbours that make a run with it, and the hand keeps two cards."""
    pn = int(st.sc[SC_PILE_N])
    if pn == 0:
        return False
    wilds_play = rules.max_wilds > 0

    def wild(k):
        return k == 52 or k % 13 == 1

    def fits(k):
        if wild(k) and wilds_play:
            return True
        return k != 52 and keeps[k] > 0

    t = int(st.pile[pn - 1])
    if not fits(t):
        return False
    if pn == 1:
        if wild(t) or not (hand_n >= 4 or can_empty):
            return False
        if keeps[t] >= 50:
            return True
        s, r = t // 13, t % 13 + 1

        def held(rank):  # round the suit: after the K the ace
            return st.hand[0, s * 13 + (rank - 1) % 13] > 0

        up1, dn1, up2 = held(r + 1), held(r - 1), held(r + 2)
        dn2 = r != 1 and held(r - 2)  # below the ace: nothing (Q-A is no run)
        return bool((dn2 and dn1) or (dn1 and up1) or (up1 and up2))
    return sum(fits(int(k)) for k in st.pile[:pn]) >= share * pn


@pytest.mark.parametrize("preset", RUN_PRESETS)
@pytest.mark.parametrize("share", [0.25, 0.0, 0.5, 1.0])
def test_open_pile_test_matches_the_plain_rule(preset, share):
    rules = get_preset(preset)
    rp = rules.to_array()
    prm = resolve(f"basic:run_pile_share={share}").params
    rng = np.random.default_rng(82)
    pack = [k for k in range(52) for _ in range(2)] + [52] * rules.n_jokers
    answers = set()
    for i in range(800):
        st = random_position(rules, rng)
        pn = int(rng.choice([1, 1, 1, 2, 3, 5, 9, 20]))
        pile = [pack[j] for j in rng.choice(len(pack), size=pn, replace=False)]
        st.pile[:pn] = pile
        st.sc[SC_PILE_N] = pn
        can_empty, hand_n = int(rng.integers(2)), int(rng.integers(1, 12))
        got, keeps = _pile_fits(st, rp, prm, can_empty, hand_n)
        want = reference_pile_fits(rules, st, share, can_empty, hand_n, keeps)
        assert got == want, (i, np.nonzero(st.hand[0])[0].tolist(), pile)
        answers.add((pn == 1, bool(want)))
    assert answers == {(True, True), (True, False), (False, True), (False, False)}
