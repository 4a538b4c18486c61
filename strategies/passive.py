"""``passive``: always draws from the stock, never melds, discards its lowest card kind
(that may be discarded, E13).

A fixed, predictable player for rule tests and as a floor in experiments.
No parameters.
"""

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.jit import njit
from tranca_sim.engine.obs import A_STOCK, act_type, may_discard

NAME = "passive"
DOC = "draws from the stock, never melds, discards its lowest card kind (for tests)"
PARAMS: tuple = ()


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    for i in range(n):
        if act_type(acts[i]) == A_STOCK:
            return i
    return 0


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    return -1


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    for k in range(N_KINDS):
        if may_discard(obs, k):
            return k
    return -1
