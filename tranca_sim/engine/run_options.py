"""Run options (numba): one run a suit, the wild that moves, a wild on top taken onto a run.

Rule switches of docs/rules.md section 5 (the listing of :mod:`tranca_sim.engine.runs` calls
these behind a test of the switch, so presets without them pay nothing):

- E19, ``several_runs_per_suit`` (rule-vector slot ``R_SEVERAL_RUNS``): on, a side may hold
  several runs of one suit; off, at most one run of each suit (as ``several_melds_per_rank``
  off allows one set of each rank, VARIANTS 5).  :func:`may_open_run`.
- E21, ``run_wild_moves`` (``R_RUN_WILD_MOVES``): off (E18), a wild keeps the place it stands for;
  on, the natural of that place may be laid there and the wild moves to an end of the run
  (``A_RUN_SWAP``): the run grows by one card, its wilds stay as many.  :func:`list_run_swaps`,
  :func:`apply_run_swap`.
- E15 on runs: with ``lock_by_wild`` off, a wild on top of a closed pile is taken by melding it
  as a wild onto an end of one of the side's runs below the wild limit (``A_CAP_EXT``, y = end),
  or in a new run of three with two naturals of the hand (``A_CAP_RUN``).
  :func:`list_wild_run_captures`, :func:`wild_top_onto_run`.

A moved wild never goes to position 2 (E21). A wild from the pile may stand there, for the suit's
missing 2, as a wild from the hand may (E26, VARIANTS 17); the run's own 2 on top goes there as the
natural (004: "A 2 of the same suit, placed in its own spot ... does not count as a wild card").
"""

from __future__ import annotations

import numpy as np

from ..rules import R_MAX_WILDS, R_MIN_NATURALS, R_SEVERAL_RUNS, R_THREES_SPECIAL
from .cards import JOKER
from .jit import njit
from .melds import _empty_ok_after_ext, _keep_ok, can_empty, count_canastas, side_of
from .obs import A_CAP_EXT, A_CAP_RUN, A_RUN_SWAP, END_LOW, act
from .run_index import note_run, own_two_home
from .state import (
    EV_CARD,
    EV_EXTEND_RUN,
    EV_NEW_RUN,
    EV_RUN_SWAP,
    MAXM,
    MH_GREW,
    MH_HI,
    MH_JOKERS,
    MH_LO,
    MH_N,
    MH_NAT,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MH_WMASK,
    MT_RUN,
    SC_MELD_FULL,
    SC_PILE_N,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED_NOW,
    SS_N_MELDS,
    log_event,
)


@njit(cache=True, inline="always")
def _pos_kind(s, p):
    return s * 13 + (0 if p == 14 else p - 1)


@njit(cache=True, inline="always")
def _min_pos(rp):
    return 4 if rp[R_THREES_SPECIAL] != 0 else 1


@njit(cache=True, _nrt=False)
def may_open_run(st, rp, side, s):
    """May ``side`` start a new run of suit ``s``?  Always with ``several_runs_per_suit`` (E19);
    else only while it holds no run of that suit."""
    if rp[R_SEVERAL_RUNS] != 0:
        return True
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] == MT_RUN and st.mh[side, m, MH_SUIT] == s:
            return False
    return True


@njit(cache=True, _nrt=False)
def list_run_swaps(st, rp, seat, acts, n):
    """Append ``A_RUN_SWAP`` actions (``run_wild_moves``, E21) to ``acts[n:]``: x = run row, y =
    2 * p + end, the natural of the wild's position p laid there and the wild moved to the run's
    low (end 0) or high (end 1) end.  Returns the new count."""
    side = side_of(rp, seat)
    hand = st.hand[seat]
    hn = st.se[seat, SE_HAND_N]
    lo_min = _min_pos(rp)
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] != MT_RUN or st.mh[side, m, MH_WMASK] == 0:
            continue
        if not _keep_ok(hn - 1, _empty_ok_after_ext(st, rp, side, m, True)):
            continue
        s = st.mh[side, m, MH_SUIT]
        lo = st.mh[side, m, MH_LO]
        hi = st.mh[side, m, MH_HI]
        wm = st.mh[side, m, MH_WMASK]
        for p in range(lo, hi + 1):
            if not wm & (1 << p) or hand[_pos_kind(s, p)] == 0:
                continue
            for end in range(2):
                q = lo - 1 if end == END_LOW else hi + 1
                if q < lo_min or q > 14 or q == 2:
                    continue
                acts[n] = act(A_RUN_SWAP, m, 2 * p + end)
                n += 1
    return n


@njit(cache=True, _nrt=False)
def apply_run_swap(st, rp, seat, m, y):
    """Lay the natural of position ``y // 2`` of run ``m`` in place of its wild, the wild moved to
    end ``y % 2`` (E21); logged as ``EV_RUN_SWAP``."""
    side = side_of(rp, seat)
    st.se[seat, SE_MELDED_NOW] = 1
    p = y // 2
    end = y % 2
    s = st.mh[side, m, MH_SUIT]
    k = _pos_kind(s, p)
    st.hand[seat, k] -= 1
    st.se[seat, SE_HAND_N] -= 1
    st.mc[side, m, k] += 1
    st.mh[side, m, MH_N] += 1
    st.mh[side, m, MH_NAT] += 1
    if end == END_LOW:
        q = st.mh[side, m, MH_LO] - 1
        st.mh[side, m, MH_LO] = q
    else:
        q = st.mh[side, m, MH_HI] + 1
        st.mh[side, m, MH_HI] = q
    st.mh[side, m, MH_WMASK] = (st.mh[side, m, MH_WMASK] & ~(1 << p)) | (1 << q)
    st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
    log_event(st, EV_RUN_SWAP, seat, m, k + 64 * end)
    own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
    count_canastas(st, rp, side)
    note_run(rp, st.ss[side], st.mh[side, m], m)
    return m


@njit(cache=True, _nrt=False)
def list_wild_run_captures(st, rp, seat, acts, n, t):
    """Append the ways to take a closed pile whose top card ``t`` is an unlocked wild with a run
    (E15 on runs): onto an end of a side run holding fewer than ``max_wilds`` wilds (``A_CAP_EXT``,
    y = end), or in a new run of three with two naturals of the hand around the wild's place
    (``A_CAP_RUN``, x = suit * 16 + low, y = 1 + 2 * offset + j, j = 1 for a joker).  The caller
    checks that the pile is closed, not locked and ``t`` a wild."""
    side = side_of(rp, seat)
    hand = st.hand[seat]
    lo_min = _min_pos(rp)
    after = st.se[seat, SE_HAND_N] + st.sc[SC_PILE_N] - 1
    maxw = rp[R_MAX_WILDS]
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        own2 = st.mh[side, m, MH_SUIT] * 13 + 1 == t  # the run's own 2 on top
        room = st.mh[side, m, MH_WILD] < maxw
        for end in range(2):
            q = st.mh[side, m, MH_LO] - 1 if end == END_LOW else st.mh[side, m, MH_HI] + 1
            if q < lo_min or q > 14:
                continue
            natural = own2 and q == 2  # in its own place the suit's 2 is natural (004, VARIANTS 17)
            if not (natural or room) or not _keep_ok(after, _empty_ok_after_ext(st, rp, side, m, natural)):
                continue
            acts[n] = act(A_CAP_EXT, m, end)
            n += 1
    if maxw < 1 or rp[R_MIN_NATURALS] > 2 or not _keep_ok(after - 2, can_empty(st, rp, side)):
        return n
    if st.ss[side, SS_N_MELDS] >= MAXM:
        st.sc[SC_MELD_FULL] += 1
        return n
    j = 1 if t == JOKER else 0
    for s in range(4):
        if not may_open_run(st, rp, side, s):
            continue
        for p in range(lo_min, 13):
            for o in range(3):
                if p + o == 2 and t == s * 13 + 1:
                    continue  # the suit's own 2 at its place is natural: runs.list_run_captures lists it
                ok = True
                for oo in range(3):
                    if oo != o and hand[_pos_kind(s, p + oo)] == 0:
                        ok = False
                if ok:
                    acts[n] = act(A_CAP_RUN, s * 16 + p, 1 + 2 * o + j)
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def wild_top_onto_run(st, rp, seat, a_type, x, y, t):
    """Meld the taken pile's top wild ``t`` into a run (E15 on runs): at end ``y`` of run ``x``
    (``A_CAP_EXT``) or in a new run ``x = suit * 16 + low`` with the wild at offset
    ``(y - 1) // 2`` and two naturals of the hand (``A_CAP_RUN``).  Returns the meld row."""
    side = side_of(rp, seat)
    st.se[seat, SE_MELDED_NOW] = 1
    if a_type == A_CAP_EXT:
        m = x
        if y == END_LOW:
            q = st.mh[side, m, MH_LO] - 1
            st.mh[side, m, MH_LO] = q
        else:
            q = st.mh[side, m, MH_HI] + 1
            st.mh[side, m, MH_HI] = q
        _place_wild(st, side, np.int64(m), q, t)  # int64: one compile
        st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
        log_event(st, EV_EXTEND_RUN, seat, m, t + 64 * y)
        own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
        count_canastas(st, rp, side)
        note_run(rp, st.ss[side], st.mh[side, m], m)
        return m
    s = x // 16
    p = x % 16
    o = (y - 1) // 2
    m = st.ss[side, SS_N_MELDS]
    st.ss[side, SS_N_MELDS] = m + 1
    st.mh[side, m, :] = 0
    st.mc[side, m, :] = 0
    st.mh[side, m, MH_TYPE] = MT_RUN
    st.mh[side, m, MH_SUIT] = s
    st.mh[side, m, MH_LO] = p
    st.mh[side, m, MH_HI] = p + 2
    st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
    _place_wild(st, side, np.int64(m), p + o, t)
    log_event(st, EV_NEW_RUN, seat, m, 3)
    for oo in range(3):
        if oo == o:
            log_event(st, EV_CARD, seat, t, m)
            continue
        k = _pos_kind(s, p + oo)
        st.hand[seat, k] -= 1
        st.se[seat, SE_HAND_N] -= 1
        st.mc[side, m, k] += 1
        st.mh[side, m, MH_N] += 1
        st.mh[side, m, MH_NAT] += 1
        log_event(st, EV_CARD, seat, k, m)
    own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
    count_canastas(st, rp, side)
    note_run(rp, st.ss[side], st.mh[side, m], m)
    return m


@njit(cache=True, _nrt=False)
def _place_wild(st, side, m, q, t):
    st.mc[side, m, t] += 1
    st.mh[side, m, MH_N] += 1
    st.mh[side, m, MH_WILD] += 1
    st.mh[side, m, MH_WMASK] |= 1 << q
    if t == JOKER:
        st.mh[side, m, MH_JOKERS] += 1
