"""A user strategy that never returns in some deals (tests/test_interrupt_kernel.py): ``mode=1``
loops forever at the first draw of a player dealt both jokers, ``mode=2`` raises there instead
(so a test finds those deals without hanging), ``mode=0`` (the default) never does either.
Otherwise it plays like ``passive``: the stock, no meld, the lowest card kind in hand.
"""

from numba import njit

from tranca_sim.engine.cards import JOKER, N_KINDS
from tranca_sim.engine.obs import PUB_N_SEATS, PUB_TURN

NAME = "forever"
PARAMS = (("mode", 0, "0: play on; 1: loop forever, 2: raise, at the first draw of a player dealt both jokers", 0, 2, "int"),)


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    if prm[0] > 0 and obs.pub[PUB_TURN] < obs.pub[PUB_N_SEATS] and obs.hand[JOKER] == 2:
        if prm[0] == 2:
            raise ValueError("dealt both jokers")
        spins = 0
        while obs.hand[JOKER] == 2:  # never ends: nothing here changes the hand
            spins += 1
        return spins
    return 0


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    return -1  # stop melding (an illegal answer would be replaced the same way)


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    for k in range(N_KINDS):
        if obs.hand[k] > 0:
            return k
    return 0
