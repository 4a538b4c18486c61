"""``random``: uniform over the legal choices at each decision.

Draw: uniform over stock and every legal way to take the pile.  Meld phase:
at each step uniform over the legal meld actions and "stop" (no "stop" while a first meld
short of the minimum is under way, E25).  Discard:
uniform over the distinct kinds in hand that may be discarded (E13).  The first player's redraw
(003): a coin flip.  Still obeys every rule (the
engine offers only legal actions).  No parameters.
"""

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.jit import njit
from tranca_sim.engine.obs import may_discard, must_meld_on
from tranca_sim.engine.rng import randbelow

NAME = "random"
DOC = "uniform over the legal choices at each decision (a baseline, not a player)"
PARAMS: tuple = ()


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    return randbelow(rng, n)


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    if must_meld_on(obs):  # a first meld short of the minimum (E25) may not stop
        return randbelow(rng, n)
    return randbelow(rng, n + 1) - 1  # -1 = stop melding


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    distinct = 0
    for k in range(N_KINDS):
        if may_discard(obs, k):
            distinct += 1
    j = randbelow(rng, distinct)
    for k in range(N_KINDS):
        if may_discard(obs, k):
            if j == 0:
                return k
            j -= 1
    return -1


@njit(cache=True, _nrt=False)
def choose_redraw(prm, obs, rng):
    return randbelow(rng, 2)  # 003 first-player redraw: a coin flip
