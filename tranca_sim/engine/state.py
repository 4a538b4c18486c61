"""One deal's state: fixed-shape arrays with small dtypes.

A :data:`State` is a namedtuple of arrays (numba passes it by reference and
can cache kernels that take it).  Scalars live in the ``sc`` vector under the
``SC_*`` indices; per-side and per-seat counters in ``ss`` and ``se``.

Meld rows (``mh`` header, ``mc`` card counts) hold both same-rank sets and
same-suit runs: a header row carries the meld type, rank (sets) or suit and
the low/high positions (runs), the wild positions of a run (``MH_WMASK``), and
``mc`` counts the kinds in the meld.  Run positions: 1 = ace low, 2..13 = the
rank, 14 = ace high (VARIANTS 6); see :mod:`tranca_sim.engine.runs`.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np

from .cards import N_KINDS
from .jit import njit

MAX_SEATS = 4
MAX_SIDES = 3  # two partnerships, or 2 or 3 solo players (tranca-2p / tranca-3p)
MAXM = 24  # meld rows per side; a deal that would need more is refused a new meld (counted)
PACK_MAX = 108

# ---- meld header columns ------------------------------------------------
MH_TYPE = 0  # MT_* below
MH_RANK = 1  # sets: rank 1..13
MH_SUIT = 2  # runs: suit 0..3 (-1 for sets)
MH_LO = 3  # runs: lowest position (1 = low ace, 2..13 = rank, 14 = high ace)
MH_HI = 4
MH_N = 5  # cards in the meld
MH_NAT = 6  # natural cards
MH_WILD = 7  # cards acting as wilds (2s and jokers)
MH_JOKERS = 8
MH_GREW = 9  # turn (0-based) the meld last received a card: public history
MH_WMASK = 10  # runs: bit p set = a wild stands at position p (1..14); 0 for sets
MH_LEN = 11

MT_SET = 0
MT_RUN = 1
MT_BLACK3 = 2  # the pure black-3 set laid on the going-out turn (000 Gameplay 6)

# ---- scalar slots ---------------------------------------------------------
SC_STOCK_PTR = 0  # index into deck of the next stock card
SC_DECK_N = 1  # cards in the pack
SC_PILE_N = 2
SC_TURN = 3  # turns played so far
SC_SEAT = 4  # seat to move
SC_FIRST_SEAT = 5
SC_OVER = 6  # 0 playing, else an END_* reason
SC_OUT_SEAT = 7  # seat that went out, -1
SC_EM_CIMA = 8  # 1 if the going-out player had melded nothing before that turn
SC_ERRORS = 9  # invariant violations found (check mode)
SC_MELD_FULL = 10  # new melds refused because a side had MAXM rows
SC_DEAL_IN_MATCH = 11  # deal number in its match (0-based); 0 outside a match
SC_LOG_ON = 12  # 1 while the action log records, 2 if it overflowed
SC_LOG_N = 13  # ints used in ``log``
SC_NO_DISCARD = 14  # 1 + kind of the card taken from a one-card open pile this turn (E13), 0 if none
SC_REDRAWN = 15  # 1 + kind the first player threw back with the redraw (003, first_player_redraw), 0 if none
SC_LEN = 16

# ---- action log: records of LOG_W ints (code, turn, seat, a, b) -----------
LOG_W = 5
LOG_MAX = 40000  # ints; only the logged deals of a run use it
EV_TURN_UP = 1  # a = card turned as the first discard
EV_BURY = 2  # a = card buried mid-stock (E3)
EV_TURN = 3  # seat starts its turn
EV_RED3 = 4  # a = red 3 placed in the side's area
EV_DRAW = 5  # a = card drawn from the stock
EV_TAKE_PILE = 6  # a = top card, b = cards in the pile
EV_NEW_MELD = 7  # a = meld row, b = cards; followed by b EV_CARD records
EV_CARD = 8  # a = card, b = meld row
EV_EXTEND = 9  # a = meld row, b = card
EV_BLACK3 = 10  # a = meld row, b = cards; followed by b EV_CARD records
EV_MORTO = 11  # a = 1 direct / 0 indirect, b = side
EV_DISCARD = 12  # a = card
EV_GO_OUT = 13  # a = em cima
EV_END = 14  # a = END_* reason, b = seat that went out
EV_NEW_RUN = 15  # a = meld row, b = cards; followed by b EV_CARD records in position order, low first
EV_EXTEND_RUN = 16  # a = meld row, b = card + 64 * end (0 low end, 1 high end)
EV_RUN_SWAP = (
    18  # a = run row, b = card + 64 * end: the natural replaces the wild, which moves to that end (E21)
)
EV_REDRAW = 17  # a = card the first player throws on the pile to draw again (003); an EV_DRAW follows
EV_MORTO_STOCK = 19  # a = side whose untaken morto became the stock (stock_out=1, E22)

END_NONE = 0
END_WENT_OUT = 1  # bater
END_STOCK_OUT = 2  # stock exhausted and the player to move could not play (decision 14)
END_TURN_LIMIT = 3  # engine safety net (never seen in tests)
END_REASONS = ("playing", "went_out", "stock_out", "turn_limit")

# ---- per-side counters ----------------------------------------------------
SS_MORTO = 0  # MS_* state of the side's morto
SS_MORTO_TURN = 1  # turn number (0-based) the morto was taken, -1
SS_MORTO_SEAT = 2
SS_CAPTURES = 3  # pile captures
SS_PILE_CARDS = 4  # cards taken with those captures
SS_B3_LOCKS = 5  # discards leaving the pile locked by a black 3 for the next player (not going out)
SS_WILD_LOCKS = 6  # discards leaving the pile locked by a wild for the next player (not going out)
SS_RED3 = 7  # red 3s in the side's area
SS_N_MELDS = 8
SS_CANASTAS = 9  # canastas on the table (kept up to date by melds.count_canastas / note_meld_grew)
SS_CLEAN = 10  # clean canastas among them
SS_INDIRECT_SEAT = 11  # seat holding the side's indirectly taken morto, not yet played; -1
SS_MORTO_AT = 12  # deck index of the side's morto's first card (stock_out=1: it may become the stock)
SS_MATCH_SCORE = 13  # the side's match score before this deal (0 outside a match)
SS_MELD_MIN = 14  # card points the side's first meld(s) of this deal must total (004 minimum, E25); 0 none
# the side's runs indexed by what they take (issue 8; kept by tranca_sim/engine/run_index.py, where every
# change to a run's ends or wilds is noted): read by the run listing, which visits only the runs a
# card of the hand can go on instead of every meld row
SS_RUN_ENDS = 15  # + k (0..51): bit m set when run row m has an end position (inside the preset's
#                   lowest..14, just outside the run) whose natural is kind k
SS_RUN_ROOM = 67  # bit m: run row m has an end position and fewer than max_wilds wilds
SS_RUN_KINDS = 68  # + j (0, 1): bit k - 26 j set when SS_RUN_ENDS + k is not 0 (kinds 0-25, 26-51)
# what the tips' manipulation checks read (issue 22; tranca_sim/lab/statistics/checks.py), filled as play goes
SS_FIRST_CANASTA = 70  # turn (0-based) at whose end the side first had a canasta on the table; -1
SS_WILD_TURNS = 71  # the side's turns that ended with a wild (2 or joker) in the player's hand
SS_FEEDS = 72  # discards of a natural that fits a meld of the next player's side (its set rank, a run end)
SS_B3_GUARD = 73  # black-3 locks made while the player's hand still held a natural fitting such a meld
SS_SECOND_MELDS = 74  # new same-rank melds of a rank the side already had a same-rank meld of
SS_LEN = 75

MS_WAITING = 0
MS_DIRECT = 1  # taken by melding the last card: played in the same turn
MS_INDIRECT = 2  # taken by discarding the last card: played from the next turn
MS_STOCK = 3  # never taken: it became the stock (stock_out=1, 004 How to play; E22, E23)

# ---- per-seat counters ----------------------------------------------------
SE_MELDED = 0  # 1 once the seat has melded in a finished turn (for em cima)
SE_MELDED_NOW = 1  # melded in the current turn
SE_INIT_WILDS = 2  # initial hand: 2s + jokers
SE_INIT_JOKERS = 3
SE_INIT_RED3 = 4
SE_INIT_BLACK3 = 5
SE_HAND_N = 6
SE_ILLEGAL = 7  # strategy answers outside the legal choices (each replaced by the first legal one)
SE_LEN = 8

State = namedtuple(
    "State",
    [
        "deck",  # int16[PACK_MAX] kinds in deal order; stock = deck[sc[SC_STOCK_PTR]:sc[SC_DECK_N]]
        "hand",  # int16[MAX_SEATS, N_KINDS] counts
        "morto",  # int16[n_sides, N_KINDS] counts of each side's morto while waiting
        "pile",  # int16[PACK_MAX] kinds, bottom first; sc[SC_PILE_N] of them
        "mh",  # int16[n_sides, MAXM, MH_LEN] meld headers
        "mc",  # int16[n_sides, MAXM, N_KINDS] meld card counts
        "red3",  # int16[n_sides, N_KINDS] red 3s in each side's area (counts by kind)
        "taken",  # int16[MAX_SEATS, N_KINDS] cards each seat took from the pile (public)
        "sc",  # int32[SC_LEN]
        "ss",  # int32[n_sides, SS_LEN]
        "se",  # int32[MAX_SEATS, SE_LEN]
        "log",  # int32[LOG_MAX] action log (see EV_*), used when sc[SC_LOG_ON] == 1
    ],
)


@njit(cache=True)
def new_state_nb(log_max, n_sides):
    """Allocate one deal's arrays, zeroed, with room for ``log_max`` ints of action log and
    ``n_sides`` sides (2, or 3 solo players: rule vector ``R_N_SIDES``).  Seat arrays always
    have ``MAX_SEATS`` rows (the seats past the table's stay empty)."""
    return State(
        np.zeros(PACK_MAX, np.int16),
        np.zeros((MAX_SEATS, N_KINDS), np.int16),
        np.zeros((n_sides, N_KINDS), np.int16),
        np.zeros(PACK_MAX, np.int16),
        np.zeros((n_sides, MAXM, MH_LEN), np.int16),
        np.zeros((n_sides, MAXM, N_KINDS), np.int16),
        np.zeros((n_sides, N_KINDS), np.int16),
        np.zeros((MAX_SEATS, N_KINDS), np.int16),
        np.zeros(SC_LEN, np.int32),
        np.zeros((n_sides, SS_LEN), np.int32),
        np.zeros((MAX_SEATS, SE_LEN), np.int32),
        np.zeros(log_max, np.int32),
    )


def new_state(n_sides: int = 2) -> State:
    """One deal's arrays allocated from Python (zeroed, full action log) for ``n_sides`` sides
    (``Rules.n_sides``: 2, or 3 in tranca-3p); see :func:`reset_state`."""
    return new_state_nb.py_func(LOG_MAX, n_sides)


@njit(cache=True, inline="always")
def copy1d(dst, src):
    """``dst[:] = src`` element by element (no allocation: callable where reference counting is
    off); ``copy2d``/``copy3d`` for 2-d and 3-d arrays of the same shape."""
    for i in range(src.shape[0]):
        dst[i] = src[i]


@njit(cache=True, inline="always")
def copy2d(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            dst[i, j] = src[i, j]


@njit(cache=True, inline="always")
def copy3d(dst, src):
    for i in range(src.shape[0]):
        for j in range(src.shape[1]):
            for k in range(src.shape[2]):
                dst[i, j, k] = src[i, j, k]


@njit(cache=True, _nrt=False)
def copy_state(dst, src):
    """Copy every array of ``src`` but the action log into ``dst`` (same shapes; element by
    element: numba's slice assignment between arrays may allocate, which a kernel without
    reference counting cannot). The log switch ``sc[SC_LOG_ON]`` is copied with ``sc``."""
    copy1d(dst.deck, src.deck)
    copy2d(dst.hand, src.hand)
    copy2d(dst.morto, src.morto)
    copy1d(dst.pile, src.pile)
    copy3d(dst.mh, src.mh)
    copy3d(dst.mc, src.mc)
    copy2d(dst.red3, src.red3)
    copy2d(dst.taken, src.taken)
    copy1d(dst.sc, src.sc)
    copy2d(dst.ss, src.ss)
    copy2d(dst.se, src.se)


@njit(cache=True)
def reset_state(st):
    """Zero every array of ``st`` in place (the log switch survives, the log empties)."""
    log_on = st.sc[SC_LOG_ON]
    st.deck[:] = 0
    st.hand[:] = 0
    st.morto[:] = 0
    st.pile[:] = 0
    st.mh[:] = 0
    st.mc[:] = 0
    st.red3[:] = 0
    st.taken[:] = 0
    st.sc[:] = 0
    st.ss[:] = 0
    st.se[:] = 0
    st.sc[SC_LOG_ON] = log_on


@njit(cache=True, _nrt=False, inline="always")  # IR-inlined: no compile per argument-type combination
def log_event(st, code, seat, a, b):
    """Append one record to the action log when logging is on."""
    if st.sc[SC_LOG_ON] != 1:
        return
    n = st.sc[SC_LOG_N]
    if n + LOG_W > st.log.shape[0]:
        st.sc[SC_LOG_ON] = 2
        return
    st.log[n] = code
    st.log[n + 1] = st.sc[SC_TURN]
    st.log[n + 2] = seat
    st.log[n + 3] = a
    st.log[n + 4] = b
    st.sc[SC_LOG_N] = n + LOG_W
