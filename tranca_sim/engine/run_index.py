"""Each side's runs indexed by the cards they take (numba; issue 8, speed).

The run listing (:func:`tranca_sim.engine.runs.list_run_actions`) offers a card at an end of each of
the side's runs that can take one: the end's natural when the hand holds it, a wild when the hand
holds one and the run has fewer than ``max_wilds``.  Most runs take nothing from most hands, and a
pass over every meld row at every listing was about half the listing's time in ``buraco`` (a side
lays a dozen runs in a deal).  The index in the side's row of ``State.ss`` says which rows to
visit:

- ``SS_RUN_ENDS + k`` (k 0..51): bit ``m`` set when run row ``m`` has an end position inside the
  preset's range (its lowest position, 4 with special 3s and else 1, up to 14; E16) just below its
  low end or above its high end, whose natural is kind ``k`` (the ace at positions 1 and 14);
- ``SS_RUN_ROOM``: bit ``m`` set when run row ``m`` has such an end position and fewer than
  ``max_wilds`` wilds;
- ``SS_RUN_KINDS + j``: bit ``k - 26 j`` set when ``SS_RUN_ENDS + k`` is not 0 (j = 0: kinds 0-25,
  j = 1: kinds 26-51).

Sets are not indexed.  :func:`note_run` is called after every change to a run's ends or wilds
(a new run, an extension, a capture onto a run, a swap); :func:`index_runs` rebuilds the whole
index (hand-made positions, the search's sampled worlds, the listing entry point of tests and
tools); :func:`run_index_errors` (the invariant checks) compares it with a fresh one.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules import R_MAX_WILDS, R_N_SIDES, R_THREES_SPECIAL
from .jit import njit
from .state import (
    MH_HI,
    MH_LO,
    MH_NAT,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MH_WMASK,
    MT_RUN,
    SS_N_MELDS,
    SS_RUN_ENDS,
    SS_RUN_KINDS,
    SS_RUN_ROOM,
)


@njit(cache=True, inline="always")
def end_kinds(rp, mh):
    """The kinds of the naturals at the two end positions of the run whose ``State.mh`` row is
    ``mh`` (low end, high end), each -1 when that end position is outside the preset's range."""
    s = mh[MH_SUIT]
    lo = mh[MH_LO]
    hi = mh[MH_HI]
    lo_min = 4 if rp[R_THREES_SPECIAL] != 0 else 1
    ka = s * 13 + lo - 2 if lo - 1 >= lo_min else -1  # position lo - 1 (1..13): kind 13 s + p - 1
    kb = -1
    if hi + 1 <= 14:
        kb = s * 13 + (0 if hi + 1 == 14 else hi)  # position hi + 1: the ace at 14
    return ka, kb


@njit(cache=True, inline="always")
def own_two_home(mh, mc):
    """Read a run by its cards (VARIANTS 16, 17): a run from the 3 whose only wild is the suit's own
    2, standing at its high end (3C 4C 5C with the 2C for the 6C), holds the cards of the clean run
    from the 2 (2C 3C 4C 5C: 004 "A 2 of the same suit, placed in its own spot ... does not count as
    a wild card"), and is that run: the 2 goes to its place, natural, the run one place lower.  So is
    a run 3..A whose 2 stands at the K's place: its cards are the clean A..Q, the ace low.  With the
    suit's 2 not in the run's places (low end 3) any 2 of the suit in it is a wild, so one of them
    and one wild is that 2.  ``mh``, ``mc``: the run's rows of ``State.mh`` and ``State.mc``."""
    hi = mh[MH_HI]
    if mh[MH_LO] == 3 and mh[MH_WILD] == 1 and mc[mh[MH_SUIT] * 13 + 1] == 1:
        wm = mh[MH_WMASK]
        if wm == (1 << hi) or (hi == 14 and wm == (1 << 13)):
            mh[MH_LO] = 2 if wm == (1 << hi) else 1
            mh[MH_HI] = hi - 1 if wm == (1 << hi) else 12
            mh[MH_WMASK] = 0
            mh[MH_WILD] = 0
            mh[MH_NAT] += 1


@njit(cache=True, inline="always")
def note_run(rp, ss, mh, m):
    """Index run row ``m`` again after a change to its ends or wilds: ``ss`` the side's row of
    ``State.ss``, ``mh`` the run's row of ``State.mh``."""
    s = mh[MH_SUIT]
    bit = 1 << m
    base = SS_RUN_ENDS + 13 * s  # a run's suit never changes: its old ends are kinds of that suit
    for r in range(13):
        ss[base + r] &= ~bit
    ss[SS_RUN_ROOM] &= ~bit
    ka, kb = end_kinds(rp, mh)
    if ka >= 0:
        ss[SS_RUN_ENDS + ka] |= bit
    if kb >= 0:
        ss[SS_RUN_ENDS + kb] |= bit
    if (ka >= 0 or kb >= 0) and mh[MH_WILD] < rp[R_MAX_WILDS]:
        ss[SS_RUN_ROOM] |= bit
    u = 0
    for r in range(13):
        if ss[base + r] != 0:
            u |= 1 << r
    j = SS_RUN_KINDS + (s >> 1)
    sh = 13 * (s & 1)
    ss[j] = (ss[j] & ~(0x1FFF << sh)) | (u << sh)


@njit(cache=True, inline="always")
def run_rows(ss, held):
    """The run rows a hand can extend with a natural, as bits: the rows indexed under the kinds
    of ``held`` (bit k: the hand holds kind k, :func:`~tranca_sim.engine.runs.hand_bits`)."""
    x = held & (np.int64(ss[SS_RUN_KINDS]) | (np.int64(ss[SS_RUN_KINDS + 1]) << 26))
    rows = np.int64(0)
    while x != 0:
        k = trailing_zeros(x)
        x &= x - 1
        rows |= np.int64(ss[SS_RUN_ENDS + k])
    return rows


@njit(cache=True, _nrt=False)
def index_runs(st, rp):
    """Rebuild every side's run index from its meld rows (see the module docstring)."""
    for side in range(rp[R_N_SIDES]):
        ss = st.ss[side]
        for j in range(SS_RUN_ENDS, SS_RUN_KINDS + 2):
            ss[j] = 0
        for m in range(ss[SS_N_MELDS]):
            if st.mh[side, m, MH_TYPE] == MT_RUN:
                note_run(rp, ss, st.mh[side, m], m)


@njit(cache=True, _nrt=False)
def run_index_errors(st, rp):
    """Sides whose run index differs from what their meld rows give (0 when it is right)."""
    errors = 0
    for side in range(rp[R_N_SIDES]):
        ss = st.ss[side]
        pairs = 0  # (row, kind) pairs the rows give
        room = 0
        kinds = np.int64(0)
        bad = False
        for m in range(ss[SS_N_MELDS]):
            if st.mh[side, m, MH_TYPE] != MT_RUN:
                continue
            ka, kb = end_kinds(rp, st.mh[side, m])
            for k in (ka, kb):
                if k >= 0:
                    if not (ss[SS_RUN_ENDS + k] >> m) & 1:
                        bad = True
                    kinds |= np.int64(1) << k
            pairs += (1 if ka >= 0 else 0) + (1 if kb >= 0 and kb != ka else 0)
            if (ka >= 0 or kb >= 0) and st.mh[side, m, MH_WILD] < rp[R_MAX_WILDS]:
                room |= 1 << m
        n = 0
        for k in range(52):
            x = ss[SS_RUN_ENDS + k]
            while x != 0:
                x &= x - 1
                n += 1
        u = np.int64(ss[SS_RUN_KINDS]) | (np.int64(ss[SS_RUN_KINDS + 1]) << 26)
        if bad or n != pairs or ss[SS_RUN_ROOM] != room or u != kinds:
            errors += 1
    return errors
