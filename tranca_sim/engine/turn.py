"""The phases of a turn (numba): red 3s, draw, pile capture, morto pickup,
discard, going out; and the deal's score and invariants.

Sources: seed ``000_95ec226e9cdd732e.txt`` Gameplay 1-12 and Scoring,
VARIANTS.md decisions 3, 4, 7, 9-14; engine choices E3-E9 in docs/rules.md.
"""

from __future__ import annotations

import numpy as np

from ..rules import (
    R_CANASTA_SIZE,
    R_CLEAN_BONUS,
    R_DIRTY_BONUS,
    R_EM_CIMA,
    R_EM_CIMA_BONUS,
    R_GO_OUT_BONUS,
    R_INDIRECT_VOID,
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MIN_NATURALS,
    R_MORTO_PENALTY,
    R_MORTO_STOCK_SIDE,
    R_MORTO_STOCK_TAKEN,
    R_N_SEATS,
    R_N_SIDES,
    R_RED3_VALUE,
    R_REDISCARD,
    R_SPECIAL_CANASTAS,
    R_STOCK_OUT,
    R_THREES_SPECIAL,
    R_VALUES,
    SPECIAL_AA_BONUS,
    SPECIAL_AK_BONUS,
    STOCK_OUT_MORTO,
)
from ..schema import (
    OS_CANASTA_BONUS,
    OS_CANASTAS_CLEAN,
    OS_CANASTAS_DIRTY,
    OS_GOING_OUT_BONUS,
    OS_HAND_PENALTY,
    OS_MELDED_POINTS,
    OS_MORTO_PENALTY,
    OS_RED3_COUNT,
    OS_RED3_POINTS,
    OS_SCORE,
    OS_WENT_OUT,
)
from .cards import N_KINDS
from .jit import njit
from .melds import can_empty, is_black3, is_wild, locked, meld_top_card, side_of
from .obs import A_CAP_EXT, A_CAP_NEW, A_CAP_OPEN, A_CAP_RUN
from .play_facts import note_discard
from .run_index import run_index_errors
from .runs import run_errors, run_top_card
from .state import (
    END_WENT_OUT,
    EV_DISCARD,
    EV_DRAW,
    EV_GO_OUT,
    EV_MORTO,
    EV_MORTO_STOCK,
    EV_RED3,
    EV_REDRAW,
    EV_TAKE_PILE,
    MH_HI,
    MH_LO,
    MH_N,
    MH_RANK,
    MH_TYPE,
    MH_WILD,
    MS_DIRECT,
    MS_INDIRECT,
    MS_STOCK,
    MS_WAITING,
    MT_BLACK3,
    MT_RUN,
    SC_DECK_N,
    SC_EM_CIMA,
    SC_NO_DISCARD,
    SC_OUT_SEAT,
    SC_OVER,
    SC_PILE_N,
    SC_REDRAWN,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED,
    SS_B3_LOCKS,
    SS_CANASTAS,
    SS_CAPTURES,
    SS_CLEAN,
    SS_INDIRECT_SEAT,
    SS_MORTO,
    SS_MORTO_AT,
    SS_MORTO_SEAT,
    SS_MORTO_TURN,
    SS_N_MELDS,
    SS_PILE_CARDS,
    SS_RED3,
    SS_WILD_LOCKS,
    log_event,
)


@njit(cache=True, _nrt=False, forceinline=True)
def draw_stock(st, seat):
    """Top stock card into ``seat``'s hand; returns its kind, or -1 if the stock is empty."""
    p = st.sc[SC_STOCK_PTR]
    if p >= st.sc[SC_DECK_N]:
        return -1
    k = st.deck[p]
    st.sc[SC_STOCK_PTR] = p + 1
    st.hand[seat, k] += 1
    st.se[seat, SE_HAND_N] += 1
    log_event(st, EV_DRAW, seat, k, 0)
    return k


@njit(cache=True, _nrt=False)
def morto_to_stock(st, rp, seat):
    """Refill an empty stock for ``seat``, who must draw from it; returns True if the stock has
    cards afterwards.

    ``stock_out = 1`` (``004_083ae37bb3863d19.txt`` How to play: "If the stock runs out and a
    morto is still face down on the table, that morto becomes the new stock"; VARIANTS 14): an
    untaken morto becomes the stock, its cards in the order they were dealt (top first).  With
    both untaken, the morto of ``seat``'s side (``morto_stock_side = 0``) or of the other side
    (1) goes first (E22).  That side can no longer take a morto (E23).  With ``stock_out = 0``
    the stock stays empty."""
    if st.sc[SC_STOCK_PTR] < st.sc[SC_DECK_N]:
        return True
    if rp[R_STOCK_OUT] != STOCK_OUT_MORTO:
        return False
    own = side_of(rp, seat)
    ns = rp[R_N_SIDES]
    for i in range(ns):
        # own side first, then clockwise (0); or the others clockwise, own last (1)
        side = (own + i + rp[R_MORTO_STOCK_SIDE]) % ns
        if st.ss[side, SS_MORTO] == MS_WAITING:
            n = 0
            for k in range(N_KINDS):
                n += st.morto[side, k]
                st.morto[side, k] = 0
            p = st.ss[side, SS_MORTO_AT]
            st.sc[SC_STOCK_PTR] = p
            st.sc[SC_DECK_N] = p + n
            st.ss[side, SS_MORTO] = MS_STOCK
            log_event(st, EV_MORTO_STOCK, seat, side, 0)
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def place_red3s(st, rp, seat):
    """Put every red 3 of ``seat``'s hand in the side's area, each replaced from the stock
    (000 Gameplay 5, decision 7, E4).  Returns how many were placed."""
    if rp[R_THREES_SPECIAL] == 0:
        return 0
    side = side_of(rp, seat)
    placed = 0
    while True:
        k = -1
        if st.hand[seat, 15] > 0:
            k = 15
        elif st.hand[seat, 28] > 0:
            k = 28
        if k < 0:
            return placed
        st.hand[seat, k] -= 1
        st.se[seat, SE_HAND_N] -= 1
        st.red3[side, k] += 1
        st.ss[side, SS_RED3] += 1
        placed += 1
        log_event(st, EV_RED3, seat, k, 0)
        if morto_to_stock(st, rp, seat):
            draw_stock(st, seat)


@njit(cache=True, _nrt=False, forceinline=True)
def redraw_card(st, seat):
    """The card the first player may throw back with the redraw (003, ``first_player_redraw``): the
    last card drawn from the stock (after red-3 replacements), if it is in the hand and the stock
    still has a card to draw instead; else -1.  The caller checks the rule and the first turn."""
    p = st.sc[SC_STOCK_PTR]
    if p == 0 or p >= st.sc[SC_DECK_N] or st.sc[SC_REDRAWN] != 0:
        return -1
    k = st.deck[p - 1]
    return k if st.hand[seat, k] > 0 else -1


@njit(cache=True, _nrt=False)
def redraw(st, rp, seat, k):
    """003 O jogo (VARIANTS 13, E20): the first player throws the drawn card ``k`` on the pile,
    where it starts the pile ("lixo") and stays, and draws once more from the stock; red 3s drawn
    are laid and replaced as usual.  The thrown card locks nothing: the player has drawn already."""
    st.hand[seat, k] -= 1
    st.se[seat, SE_HAND_N] -= 1
    st.pile[st.sc[SC_PILE_N]] = k
    st.sc[SC_PILE_N] += 1
    st.sc[SC_REDRAWN] = k + 1
    log_event(st, EV_REDRAW, seat, k, 0)
    draw_stock(st, seat)
    place_red3s(st, rp, seat)


@njit(cache=True, _nrt=False, forceinline=True)
def take_pile(st, rp, seat, a_type, x, y):
    """Take the whole discard pile; in a closed pile the top card is melded at once
    (000 Gameplay 3, decision 4, E10).  The card of a one-card open pile may not be discarded
    again in the same turn unless ``rediscard_one_card_pile`` (E13)."""
    side = side_of(rp, seat)
    pn = st.sc[SC_PILE_N]
    rest = pn
    log_event(st, EV_TAKE_PILE, seat, st.pile[pn - 1], pn)
    if a_type == A_CAP_OPEN and pn == 1 and rp[R_REDISCARD] == 0:
        st.sc[SC_NO_DISCARD] = st.pile[0] + 1
    if a_type == A_CAP_RUN or (a_type == A_CAP_EXT and st.mh[side, x, MH_TYPE] == MT_RUN):
        run_top_card(st, rp, seat, a_type, x, y, st.pile[pn - 1])
        rest = pn - 1
    elif a_type == A_CAP_EXT or a_type == A_CAP_NEW:
        t = st.pile[pn - 1]
        meld_top_card(st, rp, seat, a_type, y, x, t)
        rest = pn - 1
    for i in range(rest):
        k = st.pile[i]
        st.hand[seat, k] += 1
        st.taken[seat, k] += 1
    st.se[seat, SE_HAND_N] += rest
    st.sc[SC_PILE_N] = 0
    st.ss[side, SS_CAPTURES] += 1
    st.ss[side, SS_PILE_CARDS] += pn


@njit(cache=True, _nrt=False)
def take_morto(st, rp, seat, direct):
    """The side's morto into ``seat``'s hand (000 Gameplay 10, decision 9, E4, E5).

    Taken directly, its red 3s are laid and replaced at once; taken indirectly (by the
    discard), they stay with the morto until the taker's next turn (002 Cierre Indirecto)."""
    side = side_of(rp, seat)
    log_event(st, EV_MORTO, seat, 1 if direct else 0, side)
    n = 0
    for k in range(N_KINDS):
        c = st.morto[side, k]
        st.hand[seat, k] += c
        n += c
    st.se[seat, SE_HAND_N] += n
    st.ss[side, SS_MORTO] = MS_DIRECT if direct else MS_INDIRECT
    st.ss[side, SS_MORTO_TURN] = st.sc[SC_TURN]
    st.ss[side, SS_MORTO_SEAT] = seat
    if direct:
        place_red3s(st, rp, seat)
    else:
        # 002 Cierre Indirecto: the morto is used only from the taker's next turn, so its red 3s are
        # laid (and replaced) at the start of that turn, before the draw, like dealt ones (E4)
        st.ss[side, SS_INDIRECT_SEAT] = seat


@njit(cache=True, _nrt=False, forceinline=True)
def go_out(st, rp, seat):
    """End the deal by going out (bater)."""
    st.sc[SC_OVER] = END_WENT_OUT
    st.sc[SC_OUT_SEAT] = seat
    st.sc[SC_EM_CIMA] = 1 if (rp[R_EM_CIMA] != 0 and st.se[seat, SE_MELDED] == 0) else 0
    log_event(st, EV_GO_OUT, seat, st.sc[SC_EM_CIMA], 0)


@njit(cache=True, _nrt=False, forceinline=True)
def after_meld(st, rp, seat):
    """Resolve an empty hand after a meld: direct morto pickup or going out.
    Returns True if the deal is over."""
    if st.se[seat, SE_HAND_N] > 0:
        return False
    side = side_of(rp, seat)
    if st.ss[side, SS_MORTO] == MS_WAITING:
        take_morto(st, rp, seat, np.bool_(True))  # not a literal: one compile
        return False
    go_out(st, rp, seat)
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def no_discard_kind(st, seat):
    """The kind ``seat`` may not discard this turn, or -1: the card just taken from a one-card
    open pile (E13), unless the hand holds nothing else (then the ban yields)."""
    b = st.sc[SC_NO_DISCARD] - 1
    if b < 0 or st.hand[seat, b] >= st.se[seat, SE_HAND_N]:
        return -1
    return b


@njit(cache=True, _nrt=False, forceinline=True)
def legal_discard(st, rp, seat, k):
    """May ``seat`` discard a card of kind ``k``?  Any card in hand, unless it is the last
    one and the player may not empty the hand (E6), or it is the card just taken from a
    one-card open pile (E13, :func:`no_discard_kind`).  Red 3s are never in hand."""
    if k < 0 or k >= N_KINDS or st.hand[seat, k] <= 0:
        return False
    if st.se[seat, SE_HAND_N] == 1 and not can_empty(st, rp, side_of(rp, seat)):
        return False
    if k == no_discard_kind(st, seat):
        return False
    return True


@njit(cache=True, _nrt=False, forceinline=True)
def discard(st, rp, seat, k):
    """Discard kind ``k`` on the pile; an empty hand then takes the morto (indirect) or goes out.
    Returns True if the deal is over."""
    side = side_of(rp, seat)
    st.hand[seat, k] -= 1
    st.se[seat, SE_HAND_N] -= 1
    st.pile[st.sc[SC_PILE_N]] = k
    st.sc[SC_PILE_N] += 1
    log_event(st, EV_DISCARD, seat, k, 0)
    if st.se[seat, SE_HAND_N] == 0 and st.ss[side, SS_MORTO] != MS_WAITING:
        go_out(st, rp, seat)  # the going-out discard locks nothing: no one plays after it
        return True
    count_lock(st, rp, side)
    note_discard(st, rp, seat, side, k)
    if st.se[seat, SE_HAND_N] == 0:
        take_morto(st, rp, seat, np.bool_(False))
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def count_lock(st, rp, side):
    """After a discard that the next player faces: count a real lock for ``side`` (the pile
    locked under the active rules, 000 Gameplay 4, 6, decision 3), by the card on top."""
    if not locked(st, rp):
        return
    if is_wild(st.pile[st.sc[SC_PILE_N] - 1]):
        st.ss[side, SS_WILD_LOCKS] += 1
    else:
        st.ss[side, SS_B3_LOCKS] += 1


@njit(cache=True, _nrt=False)
def void_morto_seat(st, rp, side):
    """The seat holding ``side``'s morto if that morto is void, else -1.

    002 Detalle (switch ``indirect_morto_void``, decision 9, E5): a morto taken by the discard
    is paid as if never taken when the opponents go out before the taker's next turn.  The
    taker's hand is then exactly that morto: the hand was empty when it was taken, and its red
    3s are laid only at the next turn (E4), so nothing else came into it."""
    if rp[R_INDIRECT_VOID] == 0 or st.sc[SC_OVER] != END_WENT_OUT:
        return -1
    if side_of(rp, st.sc[SC_OUT_SEAT]) == side:
        return -1
    return st.ss[side, SS_INDIRECT_SEAT]


@njit(cache=True, _nrt=False)
def lay_red3s_at_end(st, rp):
    """At the end of the deal, lay every red 3 still held in the side's red-3 area, without
    replacement (E4): dealt red 3s of a seat whose first turn never came, and those of a morto
    taken by the discard whose taker never played again.  A void morto's red 3s stay with it
    and count for nothing (002 Detalle, E5).  Returns how many were laid."""
    if rp[R_THREES_SPECIAL] == 0:
        return 0
    n = 0
    for seat in range(rp[R_N_SEATS]):
        side = side_of(rp, seat)
        if seat == void_morto_seat(st, rp, side):
            continue
        for k in (15, 28):
            c = st.hand[seat, k]
            if c > 0:
                st.hand[seat, k] = 0
                st.se[seat, SE_HAND_N] -= c
                st.red3[side, k] += c
                st.ss[side, SS_RED3] += c
                n += c
    return n


@njit(cache=True, inline="always")
def special_bonus(rp, lo, hi):
    """What a clean run from position ``lo`` to ``hi`` scores beyond ``clean_bonus`` as a special
    canasta (``004_083ae37bb3863d19.txt`` Common variations "Special canastras": a clean A-K run
    500, an A..A run 1000, instead of the clean canasta's 200; E24): 0 for any other run.  The cards
    decide (VARIANTS 16): a clean run 2..A (the suit's own 2 natural at its place, the ace high) holds
    exactly the A-K cards of its suit, as the run A..K does, and scores as A-K."""
    if hi - lo == 13:  # 1..14
        return SPECIAL_AA_BONUS - rp[R_CLEAN_BONUS]
    if hi - lo == 12 and lo <= 2:  # 1..13 or 2..14
        return SPECIAL_AK_BONUS - rp[R_CLEAN_BONUS]
    return 0


@njit(cache=True, _nrt=False)
def score_deal(st, rp, out):
    """Score every side into ``out`` (``int32[n_sides, OS_LEN]``), 000 Scoring and decisions 11, 12.
    A side is a partnership (both partners' hands count) or a solo player (tranca-2p / -3p).

    score = melded card points + canasta bonuses + red 3s + going-out bonus
            + morto penalty + hand penalty.
    Red 3s are the side's red-3 area (:func:`lay_red3s_at_end` has laid the ones still held);
    a void morto (:func:`void_morto_seat`) costs ``-morto_penalty`` and none of its cards count.
    """
    cs = rp[R_CANASTA_SIZE]
    over = st.sc[SC_OVER]
    out_seat = st.sc[SC_OUT_SEAT]
    n_seats = rp[R_N_SEATS]
    n_sides = rp[R_N_SIDES]
    for side in range(n_sides):
        melded = 0
        clean = 0
        dirty = 0
        special = 0  # special canastas: what they score beyond clean_bonus
        for m in range(st.ss[side, SS_N_MELDS]):
            for k in range(N_KINDS):
                melded += st.mc[side, m, k] * rp[R_VALUES + k]
            if st.mh[side, m, MH_TYPE] != MT_BLACK3 and st.mh[side, m, MH_N] >= cs:
                if st.mh[side, m, MH_WILD] == 0:
                    clean += 1
                    if rp[R_SPECIAL_CANASTAS] != 0 and st.mh[side, m, MH_TYPE] == MT_RUN:
                        special += special_bonus(rp, st.mh[side, m, MH_LO], st.mh[side, m, MH_HI])
                else:
                    dirty += 1
        red3 = st.ss[side, SS_RED3]
        red3_pts = red3 * rp[R_RED3_VALUE] * (1 if clean + dirty > 0 else -1)
        bonus = clean * rp[R_CLEAN_BONUS] + dirty * rp[R_DIRTY_BONUS] + special
        went_out = over == END_WENT_OUT and side_of(rp, out_seat) == side
        go_bonus = 0
        if went_out:
            go_bonus = rp[R_EM_CIMA_BONUS] if st.sc[SC_EM_CIMA] != 0 else rp[R_GO_OUT_BONUS]
        morto_pen = 0
        void_seat = void_morto_seat(st, rp, side)
        ms = st.ss[side, SS_MORTO]
        if ms == MS_WAITING or void_seat >= 0 or (ms == MS_STOCK and rp[R_MORTO_STOCK_TAKEN] == 0):
            morto_pen = -rp[R_MORTO_PENALTY]
        hand_pen = 0
        for seat in range(side, n_seats, n_sides):
            if seat == void_seat:
                continue
            for k in range(N_KINDS):
                hand_pen -= st.hand[seat, k] * rp[R_VALUES + k]
        o = out[side]
        o[OS_MELDED_POINTS] = melded
        o[OS_CANASTAS_CLEAN] = clean
        o[OS_CANASTAS_DIRTY] = dirty
        o[OS_CANASTA_BONUS] = bonus
        o[OS_RED3_COUNT] = red3
        o[OS_RED3_POINTS] = red3_pts
        o[OS_GOING_OUT_BONUS] = go_bonus
        o[OS_MORTO_PENALTY] = morto_pen
        o[OS_HAND_PENALTY] = hand_pen
        o[OS_WENT_OUT] = 1 if went_out else 0
        o[OS_SCORE] = melded + bonus + red3_pts + go_bonus + morto_pen + hand_pen


@njit(cache=True, _nrt=False)
def count_errors(st, rp, pack):
    """Invariant check: every card of ``pack[0]`` (``int64[2, N_KINDS]``: expected counts, then a
    scratch row) is in exactly one place (hands, waiting mortos, stock, pile, melds, red-3 areas)
    and every meld on the table is legal.  Returns the number of violations found (0 when all is
    well)."""
    cnt = pack[1]
    cnt[:] = 0
    for seat in range(4):  # every seat row: the rows past the table's seats must stay empty
        n = 0
        for k in range(N_KINDS):
            cnt[k] += st.hand[seat, k]
            n += st.hand[seat, k]
        if n != st.se[seat, SE_HAND_N]:
            return 1
    for side in range(rp[R_N_SIDES]):
        if st.ss[side, SS_MORTO] == MS_WAITING:
            for k in range(N_KINDS):
                cnt[k] += st.morto[side, k]
        for k in range(N_KINDS):
            cnt[k] += st.red3[side, k]
        for m in range(st.ss[side, SS_N_MELDS]):
            for k in range(N_KINDS):
                cnt[k] += st.mc[side, m, k]
    for i in range(st.sc[SC_STOCK_PTR], st.sc[SC_DECK_N]):
        cnt[st.deck[i]] += 1
    for i in range(st.sc[SC_PILE_N]):
        cnt[st.pile[i]] += 1
    errors = 0
    for k in range(N_KINDS):
        if cnt[k] != pack[0, k]:
            errors += 1
    errors += meld_errors(st, rp)
    if rp[R_MELD_RUNS] != 0:
        errors += run_index_errors(st, rp)  # the listing's run index (run_index.py) as the rows give it
    return errors


@njit(cache=True, _nrt=False)
def meld_errors(st, rp):
    """Count melds on the table that break the meld rules (decisions 1, 2, 6, 8; runs E16-E18)."""
    errors = 0
    for side in range(rp[R_N_SIDES]):
        canastas = 0
        clean = 0
        for m in range(st.ss[side, SS_N_MELDS]):
            t = st.mh[side, m, MH_TYPE]
            r = st.mh[side, m, MH_RANK]
            if t == MT_RUN:
                errors += run_errors(st, rp, side, m)
                if st.mh[side, m, MH_N] >= rp[R_CANASTA_SIZE]:
                    canastas += 1
                    if st.mh[side, m, MH_WILD] == 0:
                        clean += 1
                continue
            n = 0
            nat = 0
            wild = 0
            for k in range(N_KINDS):
                c = st.mc[side, m, k]
                if c == 0:
                    continue
                n += c
                if t == MT_BLACK3:
                    if not is_black3(k):
                        errors += 1
                    nat += c
                elif is_wild(k):
                    wild += c
                elif k % 13 + 1 == r:
                    if r == 3 and rp[R_THREES_SPECIAL] != 0:
                        errors += 1
                    nat += c
                else:
                    errors += 1
            if n < 3 or n != st.mh[side, m, MH_N] or wild != st.mh[side, m, MH_WILD]:
                errors += 1
            if t != MT_BLACK3 and n >= rp[R_CANASTA_SIZE]:
                canastas += 1
                if wild == 0:
                    clean += 1
            if t != MT_BLACK3 and (nat < rp[R_MIN_NATURALS] or wild > rp[R_MAX_WILDS]):
                errors += 1
        if canastas != st.ss[side, SS_CANASTAS] or clean != st.ss[side, SS_CLEAN]:
            errors += 1
    return errors
