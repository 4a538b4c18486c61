"""``basic``'s discard: the card of the lowest keep (junk before pairs, low before high, the
runs' neighbours and the tips that guard the pile).
"""

from collections import namedtuple

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals
from tranca_sim.engine.obs import (
    PUB_N_SEATS,
    PUB_NO_DISCARD,
    PUB_SEAT,
    PUB_SIDE,
    next_seat,
    seat_side,
)
from tranca_sim.engine.runs import hand_bits
from tranca_sim.rules import (
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_SEVERAL_RUNS,
    R_THREES_SPECIAL,
    R_VALUES,
)
from tranca_sim.strategies.basic_params import (
    P_BLACK3_LOCK,
    P_PARTNER,
    P_SAFE_DISCARD,
)
from tranca_sim.strategies.basic_runs import (
    _NATURALS,
    _NO_KEY,
    _nb_planes,
    _run_ext_mask,
    _run_keep_planes,
    _run_planes,
    _values_below_32,
)
from tranca_sim.strategies.basic_table import _set_ranks

DiscardView = namedtuple(
    "DiscardView", ["hand", "pub", "mh", "taken", "rp"]
)  # the arrays the discard reads (basic_draw: why)


@njit(cache=True, _nrt=False)
def _choose_discard(prm, obs, seen_pairs):
    """:func:`choose_discard` on a :data:`DiscardView` ``obs``; ``seen_pairs``: the ranks of the
    opponents' face-up morto (``morto_seen``, :func:`~tranca_sim.strategies.basic_aberta.opp_morto_pairs`)."""
    hand = obs.hand
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    n_seats = obs.pub[PUB_N_SEATS]
    nxt = next_seat(obs, seat)
    prv = seat - 1 if seat > 0 else n_seats - 1
    opp = seat_side(obs, nxt)  # the next player's side: the one that could take the pile
    own = _set_ranks(obs, side) if prm[P_PARTNER] != 0.0 else 0
    safe = prm[P_SAFE_DISCARD] != 0.0
    lock = prm[P_BLACK3_LOCK] != 0.0
    opp_ranks = _set_ranks(obs, opp) if safe or lock else 0  # read by safe_discard and black3_lock only
    runs = obs.rp[R_MELD_RUNS] != 0
    several = obs.rp[R_SEVERAL_RUNS] != 0
    covered_keep = -40 if obs.rp[R_MELD_SETS] == 0 else 0  # _run_keep of a card whose place a run holds
    c0, c1, c2, c3, cover = 0, 0, 0, 0, 0
    up1, dn1, up2, dn2 = 0, 0, 0, 0
    ext_opp = 0
    held = hand_bits(hand)  # bit k: the hand holds kind k (0-51)
    if runs:
        c0, c1, c2, c3, cover = _run_planes(obs, side)
        up1, dn1, up2, dn2 = _nb_planes(held)
        if safe:  # read by safe_discard only
            ext_opp = _run_ext_mask(obs, opp)
    # the lowest keep, the lowest kind among equal keeps (the kinds are visited lowest first): one
    # word keep * 64 + k, its minimum kept by a select instead of a branch per kind
    best_key = _NO_KEY
    b3 = -1
    wilds_meld = obs.rp[R_MAX_WILDS] > 0
    special = obs.rp[R_THREES_SPECIAL] != 0
    sets = obs.rp[R_MELD_SETS] != 0
    no_discard = obs.pub[PUB_NO_DISCARD]
    # the kinds in hand as bits (the naturals and 2s read by hand_bits, also the runs' neighbours
    # above; the joker), visited lowest first (the order of a loop over every kind): a branch per
    # kind on a hand of 11 kinds of 53 mispredicts
    present = held | ((((-np.int64(hand[JOKER])) >> 63) & 1) << JOKER)  # bit 52: hand[JOKER] > 0
    if no_discard >= 0:
        present &= ~(np.int64(1) << no_discard)  # may_discard
    if (
        runs
        and several
        and not sets
        and not special
        and wilds_meld
        and own == 0
        and seen_pairs == 0
        and not safe
    ):
        # open buraco's baseline: a natural's keep is -value // 5 plus its run keep, 0 for a lonely
        # natural (no run end, no suit neighbour in the hand) and 8 or more for any other; with card
        # values 0-31 a lonely natural keeps 0 or less and every other card 1 or more (a wild
        # 1000), so the discard is the lonely natural of the lowest keep, the lowest kind of equals
        lonely = present & _NATURALS & ~(up1 | dn1 | up2 | dn2 | c0 | c1 | c2 | c3)
        if lonely != 0 and _values_below_32(obs.rp):
            while lonely != 0:  # their run keep is 0
                k = trailing_zeros(lonely)
                lonely &= lonely - 1
                key = (-obs.rp[R_VALUES + k] // 5) * 64 + k
                best_key = min(best_key, key)
            present = 0  # nothing else can keep less
    while present != 0:
        k = trailing_zeros(present)
        present &= present - 1
        q = k % 13
        wild = k == JOKER or q == 1  # is_wild(k)
        if wild and wilds_meld:
            keep = 1000
        elif wild:  # max_wilds = 0: no meld takes a wild
            if runs and k != JOKER and not special:
                if not several and (cover >> k) & 1:
                    keep = covered_keep - obs.rp[R_VALUES + k] // 5  # the natural of place 2
                else:
                    keep = _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -1000 - obs.rp[R_VALUES + k]  # a dead card: only costs its value in hand
        elif is_black3(k) and special:
            b3 = k
            keep = 900 if lock else 19  # black3_lock: a defensive card; else junk like a lone 5
        else:
            r = q + 1
            if sets:
                keep = 20 * n_naturals(hand, r) - obs.rp[R_VALUES + k] // 5
            else:
                keep = -obs.rp[R_VALUES + k] // 5  # runs only: a pair of a rank is no meld
            if own & (1 << r):
                keep += 40
            if runs:
                if not several and (cover >> k) & 1:
                    keep += covered_keep  # _run_keep: its place is taken (E19)
                else:
                    keep += _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k)
            if seen_pairs & (1 << r):
                keep += 30  # Tranca Aberta: their morto brought a pair of this rank (as if taken)
            if safe:
                if opp_ranks & (1 << r):
                    keep += 60  # the next player could take the pile with it
                if n_naturals(obs.taken[nxt], r) > 0 or n_naturals(obs.taken[prv], r) > 0:
                    keep += 30
                if (ext_opp >> k) & 1:  # _extends_run(obs, opp, k) (0 without runs)
                    keep += 60  # it goes on an end of one of their runs
        key = keep * 64 + k
        best_key = min(best_key, key)
    best = -1 if best_key == _NO_KEY else best_key & 63
    if lock and b3 >= 0 and best != b3 and not is_wild(best):
        r = best % 13 + 1
        if opp_ranks & (1 << r) or n_naturals(obs.taken[nxt], r) > 0:
            return b3  # the other discard would feed an opposing meld: lock the pile
    return best
