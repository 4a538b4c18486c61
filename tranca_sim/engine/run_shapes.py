"""Run shapes (numba): the new runs and pile captures that are not one window of three with at most
one wild, and the pieces they share with :mod:`tranca_sim.engine.runs`.

Every legal shape is playable (VARIANTS.md decision 17, docs/rules.md E17, E26):

- natural-wild-wild-natural where a meld holds two wilds (000 Gameplay 7: "no more than two wild
  cards"; ``tranca-carioca``): no window of three of that run holds two naturals, so it is laid as
  one new run of four cards (``A_RUN_NEW`` / ``A_CAP_RUN`` with y = ``RUN_GAP`` + j);
- the suit's own 2 on top of a closed pile laid in its own place as the natural (004 How to play:
  "A 2 of the same suit, placed in its own spot (ace, 2, 3 or 2, 3, 4), does not count as a wild
  card"; ``buraco-fechado``): ``A_CAP_RUN`` with y = ``RUN_TOP_NAT`` + the variant;
- a pile capture with a wild standing at the place of a natural the hand keeps, as a new run from
  the hand may.
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules import R_MAX_WILDS, R_MIN_NATURALS, R_SEVERAL_RUNS
from .cards import JOKER
from .jit import njit
from .melds import can_empty, count_canastas, n_twos, side_of
from .obs import A_CAP_RUN, A_RUN_NEW, RUN_GAP, RUN_TOP_NAT, act
from .run_index import note_run, own_two_home
from .run_options import may_open_run
from .state import (
    EV_CARD,
    EV_NEW_RUN,
    MAXM,
    MH_HI,
    MH_JOKERS,
    MH_N,
    MH_NAT,
    MH_WILD,
    MH_WMASK,
    SC_MELD_FULL,
    SC_PILE_N,
    SE_HAND_N,
    SS_N_MELDS,
    log_event,
)

#: the listing's count above which the shapes with more wilds than needed (a wild for a natural the
#: hand holds, natural-wild-wild-natural) are no longer added, so that with the windows of three left
#: (at most 48 x 2) and every extension (24 meld rows x 2 ends x 3) the listing stays within the 512
#: actions of the kernel's buffers however large the hand; a hand of most of the pack only reaches it
LIST_ROOM = 200


@njit(cache=True, inline="always")
def pos_kind(s, p):
    """Kind of the natural card of suit ``s`` at run position ``p`` (1 and 14 are the ace)."""
    return s * 13 + (0 if p == 14 else p - 1)


@njit(cache=True, inline="always")
def twos_as_wild(hand, s, p):
    """2s of the hand that may stand as a wild at position ``p`` of a run of suit ``s``: at
    position 2 the suit's own 2 would be natural, so only the other suits' 2s count."""
    tw = n_twos(hand)
    if p == 2:
        tw -= hand[s * 13 + 1]
    return tw


@njit(cache=True, inline="always")
def gap_wilds_ok(j, p, twos, other, jk):
    """May two wilds stand at positions ``p + 1`` and ``p + 2`` of a run (natural-wild-wild-natural)
    with ``j`` jokers among them (0, 1, 2)?  ``twos``: the 2s of the hand free to be wilds (the
    suit's own 2 laid as the natural of position 2 is not), ``other``: those of other suits.  A wild
    at position 2 (``p == 1``) is not the suit's own 2 (it would be natural there, 004): with one
    joker the joker stands there, with none another suit's 2 does."""
    if j == 0:
        return twos >= 2 and (p != 1 or other >= 1)
    if j == 1:
        return jk >= 1 and twos >= 1
    return jk >= 2


@njit(cache=True, _nrt=False)
def _list_gap_runs(hand, bits, lo_min, tw_all, jk, acts, n):
    """Append the new runs natural-wild-wild-natural (four cards, positions p..p+3: the naturals of
    p and p + 3 from the hand, two wilds between) where a meld may hold two wilds (000 Gameplay 7,
    VARIANTS 2, 17: ``tranca-carioca``): no window of three of that run holds two naturals, so no
    new run of three and extensions can lay it.  ``A_RUN_NEW``, x = suit * 16 + p, y = ``RUN_GAP``
    + j, j jokers among the two wilds.  ``bits``: the hand's naturals by suit lane and position, the
    lanes of the suits a run may be opened in (as in :func:`list_run_actions`)."""
    lanes = 0xFFF & ~((1 << lo_min) - 1)  # p in lo_min..11: p + 3 <= 14
    gaps = bits & (bits >> 3) & (lanes | (lanes << 16) | (lanes << 32) | (lanes << 48))
    while gaps != 0 and n <= LIST_ROOM + 30:
        tz = trailing_zeros(gaps)
        gaps &= gaps - 1
        s = tz >> 4
        p = tz & 15
        own2 = hand[s * 13 + 1]
        twos = tw_all - 1 if p == 2 else tw_all  # the suit's 2 at position 2 is the natural there
        other = tw_all - own2
        for j in range(3):
            if gap_wilds_ok(j, p, twos, other, jk):
                acts[n] = act(A_RUN_NEW, s * 16 + p, RUN_GAP + j)
                n += 1
    return n


@njit(cache=True, _nrt=False)
def _room(st, side):
    if st.ss[side, SS_N_MELDS] >= MAXM:
        st.sc[SC_MELD_FULL] += 1
        return False
    return True


@njit(cache=True, _nrt=False)
def _window_captures(hand, s, p, top_at, jk, wild_ok, flag, acts, n):
    """Append the captures of a closed pile whose top card is the natural at offset ``top_at`` of
    the window p..p+2 of suit ``s``, with two cards of the hand: the two naturals (``A_CAP_RUN``, y =
    ``flag``), or a wild at the place of one of them, missing or held (y = ``flag`` + 1 + 2 * offset
    + j, j = 1 for a joker; every legal shape, VARIANTS 17).  ``flag``: ``RUN_TOP_NAT`` for the suit's
    own 2 on top, natural at position 2."""
    held = 0
    for o in range(3):
        if o == top_at or hand[pos_kind(s, p + o)] > 0:
            held |= 1 << o
    if held == 7:
        acts[n] = act(A_CAP_RUN, s * 16 + p, flag)
        n += 1
    if not wild_ok:
        return n
    own2 = hand[s * 13 + 1]
    for o in range(3):
        if o == top_at or (held | (1 << o)) != 7:
            continue
        tw = twos_as_wild(hand, s, p + o)
        if p <= 2 and own2 > 0 and p + o != 2 and p + top_at != 2:
            tw -= 1  # the hand's own 2 is the natural at position 2 of this window
        if tw > 0:
            acts[n] = act(A_CAP_RUN, s * 16 + p, flag + 1 + 2 * o)
            n += 1
        if jk > 0:
            acts[n] = act(A_CAP_RUN, s * 16 + p, flag + 2 + 2 * o)
            n += 1
    return n


@njit(cache=True, _nrt=False)
def _gap_captures(hand, s, r, lo_min, jk, flag, acts, n):
    """Append the captures of a closed pile whose top card, the natural of rank ``r`` (1..13) of
    suit ``s``, is one natural of a new run natural-wild-wild-natural (``RUN_GAP``, two wilds a
    meld, VARIANTS 17) with the other natural and two wilds from the hand: ``A_CAP_RUN``, x = suit *
    16 + p, y = ``flag`` + ``RUN_GAP`` + j (j jokers; ``flag`` ``RUN_TOP_NAT`` for the suit's own 2
    on top).  The caller has checked the wild limits, the keep rule, the meld room and E19."""
    tw_all = n_twos(hand)
    other = tw_all - hand[s * 13 + 1]
    for qi in range(2):
        q = r
        if r == 1:
            q = 1 if qi == 0 else 14
        elif qi == 1:
            break
        for top_at in (0, 3):
            p = q - top_at
            if p < lo_min or p > 11:
                continue
            if hand[pos_kind(s, p + 3 - top_at)] == 0:
                continue  # the other natural
            twos = tw_all - 1 if (p == 2 and top_at == 3) else tw_all  # the hand's own 2 as the natural
            for j in range(3):
                if gap_wilds_ok(j, p, twos, other, jk):
                    acts[n] = act(A_CAP_RUN, s * 16 + p, flag + RUN_GAP + j)
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def _own_two_new_runs(st, rp, seat, acts, n, t):
    """Append the captures of a closed pile whose top card ``t`` is a 2 laid as the natural of its
    own place in a new run of its suit (004 How to play: "A 2 of the same suit, placed in its own
    spot (ace, 2, 3 or 2, 3, 4), does not count as a wild card"; VARIANTS 17; runs reach position 2
    only with plain 3s, E16): A-2-3 or 2-3-4 with two cards of the hand (two naturals, or one and a
    wild at the other place), and 2-wild-wild-5 where a meld holds two wilds.  ``A_CAP_RUN``, y =
    ``RUN_TOP_NAT`` + the variant of a natural top card."""
    side = side_of(rp, seat)
    s = t // 13
    after = st.se[seat, SE_HAND_N] + st.sc[SC_PILE_N] - 1
    if not (after >= 4 or can_empty(st, rp, side)):  # _keep_ok(after - 2, ...), E6
        return n
    if rp[R_SEVERAL_RUNS] == 0 and not may_open_run(st, rp, side, s):
        return n
    if not _room(st, side):
        return n
    hand = st.hand[seat]
    jk = hand[JOKER]
    wild_ok = rp[R_MAX_WILDS] >= 1 and rp[R_MIN_NATURALS] <= 2
    for p in range(1, 3):
        n = _window_captures(hand, s, p, 2 - p, jk, wild_ok, RUN_TOP_NAT, acts, n)
    if wild_ok and rp[R_MAX_WILDS] >= 2 and (after >= 5 or can_empty(st, rp, side)):
        n = _gap_captures(hand, s, 2, 1, jk, RUN_TOP_NAT, acts, n)
    return n


@njit(cache=True, _nrt=False)
def _take_run_wild(hand, se, mh, mc, s, p, joker):
    """Move a wild from the hand to a run at position ``p``: a joker, or a 2 (another suit's
    first, so the run's own 2 stays available as a natural).  Returns its kind.  ``hand``,
    ``se``: the seat's rows of ``State.hand`` and ``State.se``; ``mh``, ``mc``: the run's rows of
    ``State.mh`` and ``State.mc`` (rows, not the State: a call that passes the whole State costs
    more than this body)."""
    k = -1
    if joker:
        k = JOKER
    else:
        for ss in range(4):
            if ss != s and hand[ss * 13 + 1] > 0:
                k = ss * 13 + 1
                break
        if k < 0 and p != 2 and hand[s * 13 + 1] > 0:
            k = s * 13 + 1
    hand[k] -= 1  # melds._hand_to_meld on the rows
    se[SE_HAND_N] -= 1
    mc[k] += 1
    mh[MH_N] += 1
    mh[MH_WILD] += 1
    mh[MH_WMASK] |= 1 << p
    if k == JOKER:
        mh[MH_JOKERS] += 1
    return k


@njit(cache=True, _nrt=False)
def _lay_gap_run(st, rp, seat, side, m, s, p, j, top_at):
    """Fill the new run row ``m`` (its suit, low end and turn set) as natural-wild-wild-natural at
    positions p..p+3 (``RUN_GAP``): the naturals of p and p + 3 from the hand, but the one at offset
    ``top_at`` (0 or 3; -1 none), the pile's top card, already counted in the row; ``j`` jokers
    among the two wilds.  The wild of position p + 1 is placed first, so a wild standing at position
    2 is another suit's 2 or the joker (:func:`gap_wilds_ok`).  Logged as one new run of four."""
    st.mh[side, m, MH_HI] = p + 3
    hand = st.hand[seat]
    for o in (0, 3):
        if o != top_at:
            k = pos_kind(s, p + o)
            hand[k] -= 1
            st.se[seat, SE_HAND_N] -= 1
            st.mc[side, m, k] += 1
            st.mh[side, m, MH_N] += 1
            st.mh[side, m, MH_NAT] += 1
    joker1 = j == 2 or (j == 1 and p + 1 == 2)
    joker2 = j == 2 or (j == 1 and not joker1)
    k1 = _take_run_wild(
        hand, st.se[seat], st.mh[side, m], st.mc[side, m], np.int64(s), np.int64(p + 1), joker1
    )
    k2 = _take_run_wild(
        hand, st.se[seat], st.mh[side, m], st.mc[side, m], np.int64(s), np.int64(p + 2), joker2
    )
    log_event(st, EV_NEW_RUN, seat, m, 4)
    log_event(st, EV_CARD, seat, pos_kind(s, p), m)
    log_event(st, EV_CARD, seat, k1, m)
    log_event(st, EV_CARD, seat, k2, m)
    log_event(st, EV_CARD, seat, pos_kind(s, p + 3), m)
    own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
    count_canastas(st, rp, side)
    note_run(rp, st.ss[side], st.mh[side, m], m)
