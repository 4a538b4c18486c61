"""Listing the legal run actions of a seat (numba): new runs and extensions from the hand, and
a closed pile taken onto a run or into a new one.  What a run is, and laying the actions listed
here: :mod:`tranca_sim.engine.runs`."""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules import (
    R_MAX_WILDS,
    R_MIN_NATURALS,
    R_PILE_CLOSED,
    R_RUN_WILD_MOVES,
    R_SEVERAL_RUNS,
    R_THREES_SPECIAL,
)
from .cards import JOKER
from .jit import njit
from .melds import (
    _empty_ok_after_ext,
    can_empty,
    is_black3,
    is_red3,
    is_wild,
    locked,
    n_twos,
    side_of,
)
from .obs import (
    A_CAP_EXT,
    A_RUN_EXT,
    A_RUN_NEW,
    C_JOKER,
    C_NAT,
    C_TWO,
    END_HIGH,
    END_LOW,
    act,
)
from .run_index import run_rows
from .run_options import (
    list_run_swaps,
    list_wild_run_captures,
    may_open_run,
)
from .run_shapes import (
    LIST_ROOM,
    _gap_captures,
    _list_gap_runs,
    _own_two_new_runs,
    _room,
    _window_captures,
)
from .state import (
    MAXM,
    MH_HI,
    MH_LO,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MT_RUN,
    SC_MELD_FULL,
    SC_PILE_N,
    SE_HAND_N,
    SS_N_MELDS,
    SS_RUN_ROOM,
)


@njit(cache=True, inline="always")
def min_pos(rp):
    """Lowest run position: 4 with special 3s (E16), else 1 (the low ace)."""
    return 4 if rp[R_THREES_SPECIAL] != 0 else 1


_LOW15 = np.uint64(0x7FFF7FFF7FFF7FFF)  # hand_bits: the low 15 bits of each of four 16-bit counts
_TOP = np.uint64(0x8000800080008000)  # their top bits
_GATHER = np.uint64(0x0001000200040008)  # bits 15, 31, 47, 63 (shifted down 15) to bits 48-51


@njit(cache=True, inline="always")
def hand_bits(hand):
    """Bit ``k`` set for each natural kind ``k`` (0-51) the hand holds (``hand[k] > 0``): the 52
    counts read four at a time as 13 ``uint64`` words (``hand`` a C-contiguous ``int16`` row, its
    counts 0..32767).  In a word the four 16-bit counts are tested for non-zero at once (the low 15
    bits of each plus 0x7FFF carry into the count's top bit, which a count below 0x8000 leaves
    clear; no carry crosses into the next count) and the four top bits are gathered into bits 48-51
    by one multiplication (each product term lands on a bit of its own: nothing carries).  Unsigned
    words: in ``int64`` the compiler may assume the sum never reaches the sign bit."""
    words = hand[:52].view(np.uint64)
    bits = 0
    for i in range(13):
        t = ((words[i] & _LOW15) + _LOW15) & _TOP  # bit 16j + 15: count j > 0
        nz = ((t >> np.uint64(15)) * _GATHER) >> np.uint64(48)  # bit 48 + j: count j > 0
        bits |= np.int64(nz) << (4 * i)
    return bits


@njit(cache=True, _nrt=False, forceinline=True)  # inlined into play_turn (issue 8)
def list_run_actions(st, rp, seat, acts, n):
    """Append the legal run actions of ``seat``'s meld phase to ``acts[n:]``; return the new count.

    New runs of three cards (three naturals, or two naturals and a wild standing at the
    missing position), and one card (natural or wild) at either end of each of the side's runs.
    """
    side = side_of(rp, seat)
    hand = st.hand[seat]
    hn = st.se[seat, SE_HAND_N]
    maxw = rp[R_MAX_WILDS]
    minn = rp[R_MIN_NATURALS]
    lo_min = min_pos(rp)
    jk = hand[JOKER]
    tw_all = n_twos(hand)
    below = (1 << lo_min) - 1  # positions under the preset's lowest
    win = 0x1FFF & ~below  # first positions of a window of three: lo_min..12
    held = hand_bits(hand)  # bit k: the hand holds kind k
    # E6 as _keep_ok(hn - 3, can_empty(...)): the side's test made only when the hand is short
    room = False
    if hn >= 5 or can_empty(st, rp, side):
        room = st.ss[side, SS_N_MELDS] < MAXM  # _room, without a call that passes the State
        if not room:
            st.sc[SC_MELD_FULL] += 1
    # bit 16 s + p of hp: the hand holds the natural of suit s at run position p (1..14, the ace at
    # 1 and 14), positions under the preset's lowest cleared: the four suits in 16-bit lanes
    hp = 0
    for s in range(4):
        h = ((held >> (13 * s)) & 0x1FFF) << 1  # bit p: the natural of position p (kind 13 s + p - 1)
        h |= (h & 2) << 13  # the ace also stands at position 14
        hp |= (h & ~below) << (16 * s)
    if room:
        wild_ok = maxw >= 1 and minn <= 2
        allowed = -1  # every bit: the lanes of the suits a new run may be opened in (E19)
        if rp[R_SEVERAL_RUNS] == 0:
            for s in range(4):
                if not may_open_run(st, rp, side, s):
                    allowed &= ~(0xFFFF << (16 * s))
        bits = hp & allowed
        # bit 16 s + p: two or more naturals in positions p..p+2 of suit s (a window a wild may
        # complete), p in lo_min..12: a shift crosses into the lane below only at its positions
        # 14-15, which the window mask leaves out
        b1 = bits >> 1
        b2 = bits >> 2
        wins = win | (win << 16) | (win << 32) | (win << 48)
        two = ((bits & b1) | (bits & b2) | (b1 & b2)) & wins
        if not wild_ok or tw_all + jk == 0:
            # only windows of three naturals: with no 2 and no joker in the hand a window of two
            # naturals lists nothing (its 2s as wild, at most tw_all, and jk are both 0): 4 in 10
            # buraco hands, whose windows of two were visited for nothing (issue 8)
            two &= b2 & b1 & bits
        while two != 0:  # the windows (s, p), suit by suit, lowest position first
            tz = trailing_zeros(two)
            two &= two - 1
            s = tz >> 4
            p = tz & 15
            w = (bits >> tz) & 7
            if w == 7 and minn <= 3:
                acts[n] = act(A_RUN_NEW, s * 16 + p, 0)
                n += 1
            if wild_ok:
                own2 = hand[s * 13 + 1]
                # the wild's place: the missing one, or with three naturals any of the three (a wild
                # may stand for a natural the hand keeps, as in a set: every legal shape, VARIANTS 17)
                o = 0 if (w == 7 or not w & 1) else (1 if not w & 2 else 2)
                o_end = 3 if w == 7 else o + 1
                if w == 7 and n > LIST_ROOM:
                    o_end = 0  # a hand of most of the pack: the listing keeps room for the rest (512)
                while o < o_end:
                    tw = tw_all - own2 if p + o == 2 else tw_all  # twos_as_wild(hand, s, p + o)
                    if p <= 2 and own2 > 0 and p + o != 2:
                        tw -= 1  # the suit's 2 is the natural at position 2 of this window
                    if tw > 0:
                        acts[n] = act(A_RUN_NEW, s * 16 + p, 1 + 2 * o)
                        n += 1
                    if jk > 0:
                        acts[n] = act(A_RUN_NEW, s * 16 + p, 2 + 2 * o)
                        n += 1
                    o += 1
        # four cards: E6 as _keep_ok(hn - 4, can_empty(...))
        if maxw >= 2 and minn <= 2 and tw_all + jk >= 2 and (hn >= 6 or can_empty(st, rp, side)):
            n = _list_gap_runs(hand, bits, lo_min, tw_all, jk, acts, n)
    wild_any = tw_all + jk > 0
    valid = 0x7FFF & ~below  # the positions lo_min..14 a run may reach
    # the runs that can take a card, from the side's run index (run_index.py): those with an end
    # natural in the hand, and with a wild in the hand those below their wild limit; lowest row
    # first, as a pass over every meld row (which skipped the others) visited them (issue 8)
    rows = run_rows(st.ss[side], held)
    if wild_any:
        rows |= np.int64(st.ss[side, SS_RUN_ROOM])
    while rows != 0:
        # int32, as the row loop's m was (a range over State.ss's int32 count): the callees taking m
        # (_empty_ok_after_ext, act) are not compiled a second time for an int64 (first compile)
        m = np.int32(trailing_zeros(rows))
        rows &= rows - 1
        s = st.mh[side, m, MH_SUIT]
        lo = st.mh[side, m, MH_LO]
        hi = st.mh[side, m, MH_HI]
        # bit p: an end position p of the run inside lo_min..14 (lo - 1 = 0 and hi + 1 = 15 fall out)
        ends = ((1 << (lo - 1)) | (1 << (hi + 1))) & valid
        nat = ends & (hp >> (16 * s))  # the ends whose natural the hand holds
        wild_room = wild_any and st.mh[side, m, MH_WILD] < maxw
        for end in range(2):
            p = lo - 1 if end == END_LOW else hi + 1
            if not (ends >> p) & 1:
                continue
            # E6 (_keep_ok): the run's canasta test only when the hand would keep fewer than 2 cards
            if (nat >> p) & 1 and (hn >= 3 or _empty_ok_after_ext(st, rp, side, m, True)):
                acts[n] = act(A_RUN_EXT, m, end * 4 + C_NAT)
                n += 1
            if wild_room and (hn >= 3 or _empty_ok_after_ext(st, rp, side, m, False)):
                if (tw_all - hand[s * 13 + 1] if p == 2 else tw_all) > 0:  # twos_as_wild(hand, s, p)
                    acts[n] = act(A_RUN_EXT, m, end * 4 + C_TWO)
                    n += 1
                if jk > 0:
                    acts[n] = act(A_RUN_EXT, m, end * 4 + C_JOKER)
                    n += 1
    if rp[R_RUN_WILD_MOVES] != 0:
        n = list_run_swaps(st, rp, seat, acts, n)
    return n


@njit(cache=True, _nrt=False)
def run_capture_top(st, rp):
    """The closed pile's top card if it can go into a run (a natural of a position runs may use,
    the pile not locked), else -1."""
    pn = st.sc[SC_PILE_N]
    if rp[R_PILE_CLOSED] == 0 or pn == 0 or locked(st, rp):
        return -1
    t = st.pile[pn - 1]
    if is_wild(t):
        return -1  # a wild on top (E15) is listed by run_options.list_wild_run_captures
    if rp[R_THREES_SPECIAL] != 0 and (is_red3(t) or is_black3(t)):
        return -1
    return t


@njit(cache=True, _nrt=False, forceinline=True)  # inlined into play_turn (issue 8)
def list_run_captures(st, rp, seat, acts, n):
    """Append the ways to take a closed pile with a run to ``acts[n:]``; return the new count.

    The top card onto an end of one of the side's runs of its suit (``A_CAP_EXT``, y = end),
    or in a new run of three with two cards of the hand (``A_CAP_RUN``): two naturals, or one
    natural and a wild at the missing position (000 Gameplay 3, VARIANTS 4; E10, E17)."""
    if rp[R_PILE_CLOSED] == 0:
        return n  # an open pile is taken whole (list_draw_actions): no call of run_capture_top
    pn = st.sc[SC_PILE_N]
    if rp[R_PILE_CLOSED] != 0 and pn > 0 and is_wild(st.pile[pn - 1]) and not locked(st, rp):
        t = st.pile[pn - 1]
        n = list_wild_run_captures(st, rp, seat, acts, n, t)  # E15 on runs (and the own 2 onto a run)
        if t != JOKER and min_pos(rp) <= 2:
            n = _own_two_new_runs(st, rp, seat, acts, n, t)
        return n
    t = run_capture_top(st, rp)
    if t < 0:
        return n
    side = side_of(rp, seat)
    hand = st.hand[seat]
    s = t // 13
    r = t % 13 + 1
    lo_min = min_pos(rp)
    after = st.se[seat, SE_HAND_N] + st.sc[SC_PILE_N] - 1
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] != MT_RUN or st.mh[side, m, MH_SUIT] != s:
            continue
        lo = st.mh[side, m, MH_LO]
        hi = st.mh[side, m, MH_HI]
        low_fit = lo - 1 >= lo_min and (lo - 1 == r or (r == 1 and lo - 1 == 1))
        high_fit = hi + 1 <= 14 and (hi + 1 == r or (r == 1 and hi + 1 == 14))
        if (low_fit or high_fit) and (after >= 2 or _empty_ok_after_ext(st, rp, side, m, True)):
            if low_fit:
                acts[n] = act(A_CAP_EXT, m, END_LOW)
                n += 1
            if high_fit:
                acts[n] = act(A_CAP_EXT, m, END_HIGH)
                n += 1
    if not (after >= 4 or can_empty(st, rp, side)):  # _keep_ok(after - 2, ...), E6
        return n
    if rp[R_SEVERAL_RUNS] == 0 and not may_open_run(st, rp, side, s):
        return n
    if not _room(st, side):
        return n
    wild_ok = rp[R_MAX_WILDS] >= 1 and rp[R_MIN_NATURALS] <= 2
    jk = hand[JOKER]
    for qi in range(2):
        q = r
        if r == 1:
            q = 1 if qi == 0 else 14
        elif qi == 1:
            break
        if q < lo_min:
            continue
        for p in range(max(lo_min, q - 2), min(q, 12) + 1):
            n = _window_captures(hand, s, p, q - p, jk, wild_ok, 0, acts, n)
    if wild_ok and rp[R_MAX_WILDS] >= 2 and (after >= 5 or can_empty(st, rp, side)):  # _keep_ok(after - 3)
        n = _gap_captures(hand, s, r, lo_min, jk, 0, acts, n)
    return n
