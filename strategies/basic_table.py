"""``basic``: what it reads off the table (wilds in hand, whether a side may go out, the side's
sets, the cards still to be drawn, the end of the deal near, the red 3s seen).
"""

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import n_twos
from tranca_sim.engine.obs import (
    PUB_CANASTAS,
    PUB_CLEAN,
    PUB_HAND_N,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_N_SEATS,
    PUB_N_SIDES,
    PUB_RED3,
    PUB_STOCK_N,
    seat_side,
)
from tranca_sim.engine.state import (
    MH_RANK,
    MH_TYPE,
    MS_STOCK,
    MS_WAITING,
    MT_SET,
)
from tranca_sim.rules import (
    R_GO_OUT_CLEAN,
    R_MORTO_SIZE,
    R_MORTO_STOCK_TAKEN,
    R_STOCK_OUT,
)
from tranca_sim.strategies.basic_params import END_HAND, END_STOCK, P_RED3_OWN, P_RED3_PACE


@njit(cache=True, inline="always")
def _wilds(hand):
    return n_twos(hand) + hand[JOKER]


@njit(cache=True, inline="always")
def _may_go_out(obs, side):
    """Has ``side`` taken its morto and made the canasta the rules ask for going out?"""
    ms = obs.pub[PUB_MORTO + side]
    if ms == MS_WAITING or (ms == MS_STOCK and obs.rp[R_MORTO_STOCK_TAKEN] == 0):
        return False  # E23: a morto that became the stock was never taken
    if obs.rp[R_GO_OUT_CLEAN] != 0:
        return obs.pub[PUB_CLEAN + side] > 0
    return obs.pub[PUB_CANASTAS + side] > 0


@njit(cache=True, inline="always")
def _set_ranks(obs, side):
    """Bit ``r`` set: ``side`` has a same-rank meld of rank ``r``."""
    bits = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_SET:
            bits |= 1 << obs.mh[side, m, MH_RANK]
    return bits


@njit(cache=True, inline="always")
def stock_left(obs):
    """Cards still to be drawn: the stock, and with ``stock_out = 1`` (004) the untaken mortos
    that will become the stock."""
    n = obs.pub[PUB_STOCK_N]
    if obs.rp[R_STOCK_OUT] != 0:
        for sd in range(2):
            if obs.pub[PUB_MORTO + sd] == MS_WAITING:
                n += obs.rp[R_MORTO_SIZE]
    return n


@njit(cache=True, inline="always")
def _near_end(obs, side):
    """004 tip 6 "near the end of the round": few stock cards, or an opponent about to go out."""
    if stock_left(obs) <= END_STOCK:
        return True
    for s in range(obs.pub[PUB_N_SEATS]):
        o = seat_side(obs, s)
        if o != side and obs.pub[PUB_HAND_N + s] <= END_HAND and _may_go_out(obs, o):
            return True
    return False


@njit(cache=True, inline="always")
def red3_seen(obs, side, own):
    """Red 3s seen on the table (000 tip 5 "how many have been drawn"): every side's, or with
    ``own`` only ``side``'s."""
    if own:
        return obs.pub[PUB_RED3 + side]
    n = 0
    for o in range(obs.pub[PUB_N_SIDES]):
        n += obs.pub[PUB_RED3 + o]
    return n


@njit(cache=True, inline="always")
def _red3_hurry(prm, obs, side):
    """red3_pace = N: N or more red 3s seen and the side still without the canasta that turns them
    from -100 into +100 each (000 Gameplay 5): the pace quickens (any usable pile is taken)."""
    n = prm[P_RED3_PACE]
    if n <= 0.0 or obs.pub[PUB_CANASTAS + side] > 0:
        return False
    return red3_seen(obs, side, prm[P_RED3_OWN] != 0.0) >= n
