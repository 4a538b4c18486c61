"""What the tips' manipulation checks read from a deal (issue 22; :mod:`tranca_sim.lab.statistics.checks`).

Each tip of ``tranca_sim.strategies.basic.TIPS`` predicts a behaviour (an earlier morto, more locks when a
card would feed the opponents, a wild held longer, ...).  These counters are kept as the deal is
played, per side, and become run-file columns (:mod:`tranca_sim.schema`): a few reads at each
discard and at the end of each turn, and one pass over the side's melds when the deal is scored.
"""

from __future__ import annotations

from ..rules import R_MELD_RUNS, R_MELD_SETS, R_N_SEATS, R_THREES_SPECIAL
from .cards import JOKER
from .jit import njit
from .melds import has_set_of_rank, is_black3, is_wild, locked, rank_of, side_of
from .state import (
    MH_N,
    MH_TYPE,
    MH_WILD,
    MT_BLACK3,
    SC_TURN,
    SS_B3_GUARD,
    SS_CANASTAS,
    SS_FEEDS,
    SS_FIRST_CANASTA,
    SS_N_MELDS,
    SS_RUN_ENDS,
    SS_WILD_TURNS,
)


@njit(cache=True, _nrt=False, forceinline=True)
def fits_side(st, rp, side, k):
    """The natural ``k`` goes on a meld of ``side``: a same-rank meld of its rank, or an end of one
    of its runs."""
    if rp[R_MELD_SETS] != 0 and has_set_of_rank(st, side, rank_of(k)):
        return True
    return rp[R_MELD_RUNS] != 0 and st.ss[side, SS_RUN_ENDS + k] != 0


@njit(cache=True, _nrt=False)
def _hand_fits(st, rp, seat, side):
    """The hand of ``seat`` holds a natural (not a wild, not a special 3) that fits ``side``'s melds."""
    special = rp[R_THREES_SPECIAL] != 0
    for k in range(52):
        if st.hand[seat, k] > 0 and not is_wild(k) and not (special and k % 13 == 2) and fits_side(st, rp, side, k):
            return True
    return False


@njit(cache=True, _nrt=False, forceinline=True)
def note_discard(st, rp, seat, side, k):
    """After the discard of kind ``k`` that the next player faces (not a going-out discard): count a
    natural that fits a meld of the next player's side (``feeding_discards``) and a black-3 lock made
    while the hand still held such a natural (``black3_guard_locks``)."""
    nxt = seat + 1 if seat + 1 < rp[R_N_SEATS] else 0
    opp = side_of(rp, nxt)
    special = rp[R_THREES_SPECIAL] != 0
    if is_wild(k):
        return
    if special and k % 13 == 2:
        if is_black3(k) and locked(st, rp) and _hand_fits(st, rp, seat, opp):
            st.ss[side, SS_B3_GUARD] += 1
        return
    if fits_side(st, rp, opp, k):
        st.ss[side, SS_FEEDS] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def note_turn_end(st, rp, seat):
    """At the end of ``seat``'s turn: the side's first canasta's turn, and a wild still held."""
    side = side_of(rp, seat)
    if st.ss[side, SS_FIRST_CANASTA] < 0 and st.ss[side, SS_CANASTAS] > 0:
        st.ss[side, SS_FIRST_CANASTA] = st.sc[SC_TURN]
    h = st.hand[seat]
    if h[1] + h[14] + h[27] + h[40] + h[JOKER] > 0:
        st.ss[side, SS_WILD_TURNS] += 1


@njit(cache=True, _nrt=False)
def meld_facts(st, side):
    """``(cards, three_card, clean)`` of ``side``'s melds at the end (a black-3 set left out): the
    cards in them, the melds of exactly three cards, the melds without a wild."""
    cards = 0
    three = 0
    clean = 0
    for m in range(st.ss[side, SS_N_MELDS]):
        if st.mh[side, m, MH_TYPE] == MT_BLACK3:
            continue
        n = st.mh[side, m, MH_N]
        cards += n
        three += 1 if n == 3 else 0
        clean += 1 if st.mh[side, m, MH_WILD] == 0 else 0
    return cards, three, clean
