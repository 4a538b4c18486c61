"""Melds: card classes, legality, listing and laying (numba).

Same-rank melds (sets) follow seed ``000_95ec226e9cdd732e.txt`` Gameplay 7-9
and VARIANTS.md decisions 1, 2 and 5: at least ``min_naturals`` naturals of
the meld's rank, at most ``max_wilds`` wilds (2s and jokers), three cards or
more; seven or more make a canasta, clean without wilds, dirty with.  3s are
not natural in the Tranca presets (decisions 7, 8).  The header/row layout
is shared with same-suit runs (a later preset).
"""

from __future__ import annotations

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from ..rules import (
    R_BLACK3_GOING_OUT,
    R_CANASTA_SIZE,
    R_GO_OUT_CLEAN,
    R_LOCK_BLACK3,
    R_LOCK_WILD,
    R_MAX_WILDS,
    R_MELD_SETS,
    R_MIN_NATURALS,
    R_MORTO_STOCK_TAKEN,
    R_N_SIDES,
    R_PILE_CLOSED,
    R_SEVERAL_PER_RANK,
    R_THREES_SPECIAL,
)
from .cards import JOKER
from .jit import njit
from .obs import (
    A_BLACK3,
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_OPEN,
    A_EXT,
    A_NEW,
    A_STOCK,
    C_JOKER,
    C_NAT,
    C_TWO,
    CAPNEW_2NAT,
    CAPNEW_JOKER,
    CAPNEW_TWO,
    NEW_3NAT,
    NEW_JOKER,
    NEW_TWO,
    act,
)
from .state import (
    EV_BLACK3,
    EV_CARD,
    EV_EXTEND,
    EV_NEW_MELD,
    MAXM,
    MH_GREW,
    MH_JOKERS,
    MH_N,
    MH_NAT,
    MH_RANK,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MS_STOCK,
    MS_WAITING,
    MT_BLACK3,
    MT_SET,
    SC_DECK_N,
    SC_MELD_FULL,
    SC_PILE_N,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED_NOW,
    SS_CANASTAS,
    SS_CLEAN,
    SS_MORTO,
    SS_N_MELDS,
    SS_SECOND_MELDS,
    log_event,
)

TWO_KINDS = (1, 14, 27, 40)
BLACK3_KINDS = (2, 41)


@njit(cache=True, inline="always")
def side_of(rp, seat):
    """The side of ``seat``: in two partnerships seats 0 and 2 are side 0, 1 and 3 side 1
    (000 Players); a solo player (tranca-2p / tranca-3p, 000 Common Variations) is its own side.
    Written with masks (``seat & 3`` is the seat, 0..3) so the compiler knows the side is not
    negative and indexes the side arrays without numba's negative-index wraparound."""
    return seat & 1 if rp[R_N_SIDES] == 2 else seat & 3


@njit(cache=True, inline="always")
def is_wild(k):
    return k == JOKER or k % 13 == 1


@njit(cache=True, inline="always")
def is_red3(k):
    return k == 15 or k == 28


@njit(cache=True, inline="always")
def is_black3(k):
    return k == 2 or k == 41


@njit(cache=True, inline="always")
def rank_of(k):
    return k % 13 + 1


@njit(cache=True, inline="always")
def set_rank_ok(rp, r):
    """May rank ``r`` (1..13) carry a same-rank meld?  2s are always wild (decision 1);
    3s only where they are plain cards (Buraco fechado)."""
    if r == 2:
        return False
    if r == 3 and rp[R_THREES_SPECIAL] != 0:
        return False
    return True


@njit(cache=True, inline="always")
def n_naturals(hand, r):
    return hand[r - 1] + hand[13 + r - 1] + hand[26 + r - 1] + hand[39 + r - 1]


@njit(cache=True, inline="always")
def n_twos(hand):
    return hand[1] + hand[14] + hand[27] + hand[40]


@njit(cache=True, inline="always")
def n_black3(hand):
    return hand[2] + hand[41]


@njit(cache=True, inline="always")
def locked(st, rp):
    """True when the pile is locked: a wild or black 3 on top (000 Gameplay 4, decision 3)."""
    n = st.sc[SC_PILE_N]
    if n == 0:
        return False
    t = st.pile[n - 1]
    if rp[R_LOCK_WILD] != 0 and is_wild(t):
        return True
    if rp[R_LOCK_BLACK3] != 0 and is_black3(t):
        return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def count_canastas(st, rp, side):
    """Recount ``side``'s canastas into ``ss[side, SS_CANASTAS]`` and ``ss[side, SS_CLEAN]``
    (000 Gameplay 8); called after every change to the side's runs and by the search's positions
    (laying a set keeps the counts up to date by :func:`note_meld_grew` instead)."""
    cs = rp[R_CANASTA_SIZE]
    n = 0
    clean = 0
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] != MT_BLACK3 and st.mh[side, m, MH_N] >= cs:
            n += 1
            if st.mh[side, m, MH_WILD] == 0:
                clean += 1
    st.ss[side, SS_CANASTAS] = n
    st.ss[side, SS_CLEAN] = clean


@njit(cache=True, inline="always")
def note_meld_grew(st, rp, side, m, n0, w0):
    """Keep ``side``'s canasta counts up to date after meld ``m`` (a set) grew from ``n0`` cards with
    ``w0`` wilds to its present size: what :func:`count_canastas` would recount, without the pass
    over the side's melds (issue 9).  A new meld grew from 0 cards."""
    cs = rp[R_CANASTA_SIZE]
    n1 = st.mh[side, m, MH_N]
    was = n0 >= cs
    now = n1 >= cs
    if was != now:
        st.ss[side, SS_CANASTAS] += 1 if now else -1
    was_clean = was and w0 == 0
    now_clean = now and st.mh[side, m, MH_WILD] == 0
    if was_clean != now_clean:
        st.ss[side, SS_CLEAN] += 1 if now_clean else -1


@njit(cache=True, inline="always")
def has_canasta(st, rp, side, clean_only):
    """True if ``side`` has a canasta (a clean one when ``clean_only``)."""
    return st.ss[side, SS_CLEAN if clean_only else SS_CANASTAS] > 0


@njit(cache=True, _nrt=False, forceinline=True)
def can_go_out(st, rp, side):
    """Side has taken its morto and has the preset's canasta (000 Gameplay 11, decision 10)."""
    ms = st.ss[side, SS_MORTO]
    if ms == MS_WAITING or (ms == MS_STOCK and rp[R_MORTO_STOCK_TAKEN] == 0):
        return False  # E23: a morto that became the stock was never taken
    return has_canasta(st, rp, side, rp[R_GO_OUT_CLEAN] != 0)


@njit(cache=True, _nrt=False, forceinline=True)
def can_empty(st, rp, side):
    """The player may empty the hand: to take the side's morto, or to go out."""
    return st.ss[side, SS_MORTO] == MS_WAITING or can_go_out(st, rp, side)


@njit(cache=True, inline="always")
def _keep_ok(after, empty_ok):
    # E6: a player who may not empty the hand must keep 2 cards after melding
    return after >= 2 or empty_ok


@njit(cache=True, _nrt=False, forceinline=True)
def _empty_ok_after_ext(st, rp, side, m, natural):
    """May the player empty the hand once one more card (a natural or a wild) is on meld ``m``?
    The extension can make a canasta, or turn the side's only clean canasta dirty."""
    ms = st.ss[side, SS_MORTO]
    if ms == MS_WAITING:
        return True
    if ms == MS_STOCK and rp[R_MORTO_STOCK_TAKEN] == 0:
        return False  # E23: that side can never empty the hand
    cs = rp[R_CANASTA_SIZE]
    n = st.mh[side, m, MH_N]
    clean_now = st.mh[side, m, MH_WILD] == 0
    was = 1 if n >= cs else 0
    was_clean = 1 if (n >= cs and clean_now) else 0
    will = 1 if n + 1 >= cs else 0
    will_clean = 1 if (n + 1 >= cs and clean_now and natural) else 0
    if rp[R_GO_OUT_CLEAN] != 0:
        return st.ss[side, SS_CLEAN] - was_clean + will_clean > 0
    return st.ss[side, SS_CANASTAS] - was + will > 0


@njit(cache=True, _nrt=False, forceinline=True)
def has_set_of_rank(st, side, r):
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] == MT_SET and st.mh[side, m, MH_RANK] == r:
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def _new_set_allowed(st, rp, side, r):
    if rp[R_SEVERAL_PER_RANK] == 0 and has_set_of_rank(st, side, r):
        return False
    if st.ss[side, SS_N_MELDS] >= MAXM:
        st.sc[SC_MELD_FULL] += 1
        return False
    return True


@njit(cache=True, inline="always")
def _put(acts, n, a):
    """``acts[n] = a``; return ``n + 1``.  The index is passed unsigned, so numba adds no wraparound of
    a negative index (a listing's count is never negative): no test and no reload of the array's
    size at each store (issue 9)."""
    acts[np.uint64(n)] = a
    return n + 1


@njit(cache=True, _nrt=False, forceinline=True)
def list_meld_actions(st, rp, seat, acts):
    """Fill ``acts`` (``int32[>=64]``) with the legal meld-phase actions of ``seat``; return their count.

    New sets (three cards), one-card extensions of the side's sets, and the
    black-3 set on the going-out turn.  Laying a longer meld is a new set
    followed by extensions in the same turn.
    """
    side = side_of(rp, seat)
    hand = st.hand[seat]
    hn = st.se[seat, SE_HAND_N]
    # issue 9: the rule values read once, before the first store into ``acts`` (numba gives LLVM no
    # type-based aliasing, so a rule read after a store into ``acts`` is a load again)
    maxw = rp[R_MAX_WILDS]
    minn = rp[R_MIN_NATURALS]
    meld_sets = rp[R_MELD_SETS] != 0
    threes_special = rp[R_THREES_SPECIAL] != 0
    several = rp[R_SEVERAL_PER_RANK] != 0
    black3_out = rp[R_BLACK3_GOING_OUT] != 0
    tw = n_twos(hand)
    jk = hand[JOKER]
    n = 0
    # the ranks holding a natural, two naturals or more, three or more, gathered as bits without a
    # branch per rank (a branch per rank mispredicts on most hands); the new sets visit their
    # candidates lowest first as one loop over the ranks would, the extensions test a bit instead of
    # counting the meld rank's naturals
    singles = 0
    pairs = 0
    triples = 0
    for r in range(1, 14):
        nat = n_naturals(hand, r)
        singles |= (((-nat) >> 63) & 1) << r  # bit r: a natural of rank r
        pairs |= (((1 - nat) >> 63) & 1) << r  # bit r: two naturals or more
        triples |= (((2 - nat) >> 63) & 1) << r  # bit r: three naturals or more
    # E6 as _keep_ok(hn - 3, can_empty(...)), the side test made only when the hand is short
    if meld_sets and (hn >= 5 or can_empty(st, rp, side)):
        # the candidate ranks: two naturals or more of a rank that may carry a set (set_rank_ok: no 2s,
        # no 3s where they are special), and three naturals unless a wild may complete the pair
        cand = pairs & ~(1 << 2)
        if threes_special:
            cand &= ~(1 << 3)
        if maxw < 1 or tw + jk == 0:
            cand &= triples
        nat3_ok = minn <= 3
        wild_ok = maxw >= 1 and minn <= 2
        full = st.ss[side, SS_N_MELDS] >= MAXM
        while cand != 0:
            r = trailing_zeros(cand)
            cand &= cand - 1
            # _new_set_allowed
            if not several and has_set_of_rank(st, side, r):
                continue
            if full:
                st.sc[SC_MELD_FULL] += 1
                continue
            if (triples >> r) & 1 and nat3_ok:
                n = _put(acts, n, act(A_NEW, r, NEW_3NAT))
            if wild_ok:
                if tw > 0:
                    n = _put(acts, n, act(A_NEW, r, NEW_TWO))
                if jk > 0:
                    n = _put(acts, n, act(A_NEW, r, NEW_JOKER))
    wild_ext = tw + jk > 0
    long_hand = hn >= 3
    n_melds = st.ss[side, SS_N_MELDS]
    for m in range(n_melds):
        if st.mh[side, m, MH_TYPE] != MT_SET:
            continue
        r = st.mh[side, m, MH_RANK]
        # E6 (_keep_ok): the meld's canasta test only when the hand would keep fewer than 2 cards
        if (singles >> r) & 1 and (long_hand or _empty_ok_after_ext(st, rp, side, m, True)):  # a natural of r
            n = _put(acts, n, act(A_EXT, m, C_NAT))
        if wild_ext and st.mh[side, m, MH_WILD] < maxw and (long_hand or _empty_ok_after_ext(st, rp, side, m, False)):
            if tw > 0:
                n = _put(acts, n, act(A_EXT, m, C_TWO))
            if jk > 0:
                n = _put(acts, n, act(A_EXT, m, C_JOKER))
    if black3_out and threes_special and n_melds < MAXM:
        b3 = n_black3(hand)
        if b3 >= 3 and hn - b3 <= 1 and can_go_out(st, rp, side):
            n = _put(acts, n, act(A_BLACK3, 0, 0))
    return n


@njit(cache=True, _nrt=False, forceinline=True)
def list_draw_actions(st, rp, seat, acts):
    """Fill ``acts`` with the legal draws of ``seat``: the stock (while it has cards) and each
    way to take the pile (000 Gameplay 2-4, decisions 3, 4, E10, E14); return their count.

    An open pile is taken while the stock has cards (E14: with the stock empty the deal ends).
    A closed pile is taken by melding its top card at once; a wild on top that does not lock
    (``lock_by_wild`` off) is melded as a wild onto a side meld or with two naturals (E15)."""
    side = side_of(rp, seat)
    n = 0
    stock = st.sc[SC_STOCK_PTR] < st.sc[SC_DECK_N]
    if stock:
        acts[n] = act(A_STOCK, 0, 0)
        n += 1
    pn = st.sc[SC_PILE_N]
    if pn == 0 or locked(st, rp):
        return n
    if rp[R_PILE_CLOSED] == 0:
        if stock:
            acts[n] = act(A_CAP_OPEN, 0, 0)
            n += 1
        return n
    t = st.pile[pn - 1]
    if is_red3(t) and rp[R_THREES_SPECIAL] != 0:
        return n
    if is_wild(t):
        return _wild_top_captures(st, rp, seat, acts, n)
    r = rank_of(t)
    if not set_rank_ok(rp, r):
        return n
    hand = st.hand[seat]
    hn = st.se[seat, SE_HAND_N]
    after = hn + pn - 1  # cards in hand after the capture, before the meld uses any from it
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] == MT_SET and st.mh[side, m, MH_RANK] == r:
            if after >= 2 or _empty_ok_after_ext(st, rp, side, m, True):  # _keep_ok, E6
                acts[n] = act(A_CAP_EXT, m, 0)
                n += 1
    nat = n_naturals(hand, r)
    if nat >= 1 and rp[R_MELD_SETS] != 0 and (after >= 4 or can_empty(st, rp, side)):  # _keep_ok(after - 2)
        tw = n_twos(hand)
        jk = hand[JOKER]
        wild_ok = rp[R_MAX_WILDS] >= 1 and rp[R_MIN_NATURALS] <= 2 and tw + jk > 0
        if (nat >= 2 or wild_ok) and _new_set_allowed(st, rp, side, r):
            if nat >= 2:
                acts[n] = act(A_CAP_NEW, 0, CAPNEW_2NAT)
                n += 1
            if wild_ok:
                if tw > 0:
                    acts[n] = act(A_CAP_NEW, 0, CAPNEW_TWO)
                    n += 1
                if jk > 0:
                    acts[n] = act(A_CAP_NEW, 0, CAPNEW_JOKER)
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def _wild_top_captures(st, rp, seat, acts, n):
    """Ways to take a closed pile with an unlocked wild on top (E15): the wild onto one of the
    side's sets below the wild limit, or a new set of that wild and two naturals of one rank
    from the hand (000 Gameplay 3, 7; decisions 2, 4).  Appends to ``acts[n:]``; returns the
    new count."""
    side = side_of(rp, seat)
    maxw = rp[R_MAX_WILDS]
    if maxw < 1:
        return n
    hand = st.hand[seat]
    pn = st.sc[SC_PILE_N]
    after = st.se[seat, SE_HAND_N] + pn - 1
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] == MT_SET and st.mh[side, m, MH_WILD] < maxw:
            if _keep_ok(after, _empty_ok_after_ext(st, rp, side, m, False)):
                acts[n] = act(A_CAP_EXT, m, 0)
                n += 1
    if rp[R_MELD_SETS] != 0 and rp[R_MIN_NATURALS] <= 2 and _keep_ok(after - 2, can_empty(st, rp, side)):
        for r in range(1, 14):
            if set_rank_ok(rp, r) and n_naturals(hand, r) >= 2 and _new_set_allowed(st, rp, side, r):
                acts[n] = act(A_CAP_NEW, r, CAPNEW_2NAT)
                n += 1
    return n


# ---- moving cards onto the table ---------------------------------------------


@njit(cache=True, inline="always")
def _hand_to_meld(st, seat, side, m, k):
    st.hand[seat, k] -= 1
    st.se[seat, SE_HAND_N] -= 1
    st.mc[side, m, k] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def take_natural(st, seat, side, m, r):
    """Move one natural of rank ``r`` from the hand to meld ``m`` (lowest suit first)."""
    for s in range(4):
        k = s * 13 + r - 1
        if st.hand[seat, k] > 0:
            _hand_to_meld(st, seat, side, m, k)
            st.mh[side, m, MH_N] += 1
            st.mh[side, m, MH_NAT] += 1
            return k
    return -1


@njit(cache=True, _nrt=False, forceinline=True)
def take_wild(st, seat, side, m, joker):
    """Move a joker (``joker``) or a 2 (lowest suit first) from the hand to meld ``m`` as a wild."""
    k = -1
    if joker:
        if st.hand[seat, JOKER] > 0:
            k = JOKER
    else:
        for kk in TWO_KINDS:
            if st.hand[seat, kk] > 0:
                k = kk
                break
    if k < 0:
        return -1
    _hand_to_meld(st, seat, side, m, k)
    st.mh[side, m, MH_N] += 1
    st.mh[side, m, MH_WILD] += 1
    if k == JOKER:
        st.mh[side, m, MH_JOKERS] += 1
    return k


@njit(cache=True, _nrt=False, forceinline=True)
def open_meld(st, side, mtype, r):
    """Start an empty meld row of type ``mtype`` and rank ``r``; return its index."""
    m = st.ss[side, SS_N_MELDS]
    st.ss[side, SS_N_MELDS] = m + 1
    st.mh[side, m, :] = 0
    st.mc[side, m, :] = 0
    st.mh[side, m, MH_TYPE] = mtype
    st.mh[side, m, MH_RANK] = r
    st.mh[side, m, MH_SUIT] = -1
    return m


@njit(cache=True, _nrt=False, forceinline=True)
def apply_meld_action(st, rp, seat, a_type, x, y):
    """Lay the meld-phase action (type, x, y) for ``seat``.  Returns the meld row used."""
    side = side_of(rp, seat)
    st.se[seat, SE_MELDED_NOW] = 1
    if a_type == A_NEW:
        if has_set_of_rank(st, side, x):
            st.ss[side, SS_SECOND_MELDS] += 1  # a second meld of the rank (the partner tip's check)
        m = open_meld(st, side, MT_SET, x)
        st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
        log_event(st, EV_NEW_MELD, seat, m, 3)
        log_event(st, EV_CARD, seat, take_natural(st, seat, side, m, x), m)
        log_event(st, EV_CARD, seat, take_natural(st, seat, side, m, x), m)
        if y == NEW_3NAT:
            k = take_natural(st, seat, side, m, x)
        else:
            k = take_wild(st, seat, side, m, y == NEW_JOKER)
        log_event(st, EV_CARD, seat, k, m)
        note_meld_grew(st, rp, side, m, 0, 0)
        return m
    if a_type == A_EXT:
        r = st.mh[side, x, MH_RANK]
        n0 = st.mh[side, x, MH_N]
        w0 = st.mh[side, x, MH_WILD]
        if y == C_NAT:
            k = take_natural(st, seat, side, x, r)
        else:
            k = take_wild(st, seat, side, x, y == C_JOKER)
        st.mh[side, x, MH_GREW] = st.sc[SC_TURN]
        log_event(st, EV_EXTEND, seat, x, k)
        note_meld_grew(st, rp, side, x, n0, w0)
        return x
    # A_BLACK3: every black 3 of the hand in one pure set
    m = open_meld(st, side, MT_BLACK3, 3)
    log_event(st, EV_BLACK3, seat, m, n_black3(st.hand[seat]))
    for k in BLACK3_KINDS:
        while st.hand[seat, k] > 0:
            _hand_to_meld(st, seat, side, m, k)
            st.mh[side, m, MH_N] += 1
            st.mh[side, m, MH_NAT] += 1
            log_event(st, EV_CARD, seat, k, m)
    return m  # a black-3 set is no canasta: the counts stay


@njit(cache=True, _nrt=False, forceinline=True)
def meld_top_card(st, rp, seat, a_type, y, x, t):
    """Meld the taken pile's top card ``t`` (kind) as the capture action requires; a wild top
    card (E15) is melded as a wild, in a new meld of rank ``x``."""
    side = side_of(rp, seat)
    st.se[seat, SE_MELDED_NOW] = 1
    wild = is_wild(t)
    r = x if wild else rank_of(t)
    n0 = 0
    w0 = 0
    if a_type == A_CAP_EXT:
        m = x
        n0 = st.mh[side, m, MH_N]
        w0 = st.mh[side, m, MH_WILD]
        log_event(st, EV_EXTEND, seat, m, t)
    else:
        if has_set_of_rank(st, side, r):
            st.ss[side, SS_SECOND_MELDS] += 1
        m = open_meld(st, side, MT_SET, r)
        log_event(st, EV_NEW_MELD, seat, m, 3)
        log_event(st, EV_CARD, seat, t, m)
    st.mc[side, m, t] += 1
    st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
    st.mh[side, m, MH_N] += 1
    if wild:
        st.mh[side, m, MH_WILD] += 1
        if t == JOKER:
            st.mh[side, m, MH_JOKERS] += 1
    else:
        st.mh[side, m, MH_NAT] += 1
    if a_type == A_CAP_NEW:
        log_event(st, EV_CARD, seat, take_natural(st, seat, side, m, r), m)
        if y == CAPNEW_2NAT:
            k = take_natural(st, seat, side, m, r)
        else:
            k = take_wild(st, seat, side, m, y == CAPNEW_JOKER)
        log_event(st, EV_CARD, seat, k, m)
    note_meld_grew(st, rp, side, m, n0, w0)
    return m
