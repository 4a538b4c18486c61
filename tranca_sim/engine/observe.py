"""What the player to move sees: its :data:`~tranca_sim.engine.obs.Obs`, built from the deal's state.

Used by the turn loop (:mod:`tranca_sim.engine.deal`) and by the search player's rollouts
(:mod:`tranca_sim.strategies.pimc_search`); kept apart from :mod:`~tranca_sim.engine.deal` so that
importing it does not build the engine's strategy switch.
"""

from __future__ import annotations

from ..rules import R_MORTOS_FACE_UP, R_N_SEATS, R_N_SIDES
from .jit import njit
from .melds import can_empty, has_canasta, locked, side_of
from .obs import (
    PUB_CAN_EMPTY,
    PUB_CANASTAS,
    PUB_CLEAN,
    PUB_DEAL_IN_MATCH,
    PUB_HAND_N,
    PUB_LOCKED,
    PUB_MATCH_SCORE,
    PUB_MELD_MIN,
    PUB_MELDED_NOW,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_N_SEATS,
    PUB_N_SIDES,
    PUB_NO_DISCARD,
    PUB_PILE_N,
    PUB_PILE_TOP,
    PUB_RED3,
    PUB_REDRAW_CARD,
    PUB_REDRAWN,
    PUB_SEAT,
    PUB_SIDE,
    PUB_STOCK_N,
    PUB_TURN,
    Obs,
)
from .state import (
    SC_DEAL_IN_MATCH,
    SC_DECK_N,
    SC_PILE_N,
    SC_REDRAWN,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED_NOW,
    SS_MATCH_SCORE,
    SS_MELD_MIN,
    SS_MORTO,
    SS_N_MELDS,
    SS_RED3,
)
from .turn import no_discard_kind


@njit(cache=True, _nrt=False, forceinline=True)
def fill_pub(st, rp, seat, pub):
    """The public facts the player at ``seat`` sees (``PUB_*`` layout): the facts fixed for the
    turn here, the ones a turn can change by :func:`refresh_pub`."""
    side = side_of(rp, seat)
    n_sides = rp[R_N_SIDES]
    pub[PUB_SEAT] = seat
    pub[PUB_SIDE] = side
    pub[PUB_TURN] = st.sc[SC_TURN]
    pub[PUB_DEAL_IN_MATCH] = st.sc[SC_DEAL_IN_MATCH]
    pub[PUB_MELD_MIN] = st.ss[side, SS_MELD_MIN]
    pub[PUB_N_SEATS] = rp[R_N_SEATS]
    pub[PUB_N_SIDES] = n_sides
    for s in range(4):
        pub[PUB_HAND_N + s] = st.se[s, SE_HAND_N]
    for sd in range(n_sides):
        pub[PUB_MATCH_SCORE + sd] = st.ss[sd, SS_MATCH_SCORE]
    refresh_pub(st, rp, seat, pub)


@njit(cache=True, _nrt=False, forceinline=True)
def refresh_pub(st, rp, seat, pub):
    """:func:`fill_pub` again for the player at ``seat`` later in the same turn (its meld and
    discard choices): only the facts a turn can change are written again.  ``pub`` must hold
    :func:`fill_pub`'s facts for this seat from this turn's draw.  Unchanged within a turn: the
    seat, side, turn, table size, the deal in the match and the match score, the side's first-meld
    minimum (set when the deal is dealt), and the other seats' hands (only the player's own hand
    changes on its turn).  Written again: the stock and pile, the lock, ``can_empty``, what the
    player melded, the card it may not discard, the redraw, its hand size, and every side's
    morto (``stock_out``: a waiting morto of either side may become the stock), red 3s, melds
    and canastas."""
    side = side_of(rp, seat)
    pn = st.sc[SC_PILE_N]
    pub[PUB_STOCK_N] = st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR]
    pub[PUB_PILE_N] = pn
    pub[PUB_LOCKED] = 1 if locked(st, rp) else 0
    pub[PUB_PILE_TOP] = st.pile[pn - 1] if pn > 0 else -1
    pub[PUB_CAN_EMPTY] = 1 if can_empty(st, rp, side) else 0
    pub[PUB_MELDED_NOW] = st.se[seat, SE_MELDED_NOW]
    pub[PUB_NO_DISCARD] = no_discard_kind(st, seat)
    pub[PUB_REDRAW_CARD] = -1
    pub[PUB_REDRAWN] = st.sc[SC_REDRAWN] - 1
    pub[PUB_HAND_N + seat] = st.se[seat, SE_HAND_N]
    for sd in range(rp[R_N_SIDES]):
        pub[PUB_MORTO + sd] = st.ss[sd, SS_MORTO]
        pub[PUB_RED3 + sd] = st.ss[sd, SS_RED3]
        pub[PUB_N_MELDS + sd] = st.ss[sd, SS_N_MELDS]
        pub[PUB_CANASTAS + sd] = 1 if has_canasta(st, rp, sd, False) else 0
        pub[PUB_CLEAN + sd] = 1 if has_canasta(st, rp, sd, True) else 0


@njit(cache=True, _nrt=False, forceinline=True)
def refresh_pub_meld(st, rp, seat, pub):
    """:func:`refresh_pub` for ``seat``'s later choices of a turn when only a stock draw and melds
    have happened (issue 9): ``pub`` must hold :func:`fill_pub`'s or :func:`refresh_pub`'s facts for
    ``seat`` from earlier in this turn, from after any capture of the pile and any first-player
    redraw, and since then only these may have happened: a draw from the stock, the player's melds
    (sets and runs laid or extended), red 3s laid from the hand and each replaced from the stock, the
    morto taken directly by an emptied hand, an untaken morto that became the stock to replace a
    card.  None of those touches the pile (its size, top card, lock), the redraw, the other seats'
    hands or the other sides' red 3s, melds and canastas, so they are not written again.  Written
    again: the stock, ``can_empty``, what the player melded, the card it may not discard (it depends
    on the hand), its hand size, every side's morto (a morto that became the stock may be another
    side's), and the player's side's red 3s, melds and canastas."""
    side = side_of(rp, seat)
    pub[PUB_STOCK_N] = st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR]
    pub[PUB_CAN_EMPTY] = 1 if can_empty(st, rp, side) else 0
    pub[PUB_MELDED_NOW] = st.se[seat, SE_MELDED_NOW]
    pub[PUB_NO_DISCARD] = no_discard_kind(st, seat)
    pub[PUB_HAND_N + seat] = st.se[seat, SE_HAND_N]
    for sd in range(rp[R_N_SIDES]):
        pub[PUB_MORTO + sd] = st.ss[sd, SS_MORTO]
    pub[PUB_RED3 + side] = st.ss[side, SS_RED3]
    pub[PUB_N_MELDS + side] = st.ss[side, SS_N_MELDS]
    pub[PUB_CANASTAS + side] = 1 if has_canasta(st, rp, side, False) else 0
    pub[PUB_CLEAN + side] = 1 if has_canasta(st, rp, side, True) else 0


@njit(cache=True, inline="always")
def player_obs_meld(st, rp, seat, pub, hidden):
    """:func:`player_obs` after melds of ``seat``'s meld phase (:func:`refresh_pub_meld`)."""
    refresh_pub_meld(st, rp, seat, pub)
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else hidden
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)


@njit(cache=True, inline="always")
def player_obs_again(st, rp, seat, pub, hidden):
    """:func:`player_obs` later in the same turn of ``seat`` (:func:`refresh_pub`)."""
    refresh_pub(st, rp, seat, pub)
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else hidden
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)


@njit(cache=True, inline="always")
def player_obs(st, rp, seat, pub, hidden):
    """The :data:`Obs` of the player at ``seat``: its hand, ``pub`` filled by :func:`fill_pub`,
    the table; the mortos only when dealt face up, else ``hidden`` (zeros)."""
    fill_pub(st, rp, seat, pub)
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else hidden
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)
