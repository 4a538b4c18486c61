"""A user strategy whose every answer is outside the legal choices (tests/test_user_strategies.py).

The engine replaces an illegal draw by the first legal draw (the stock while it has cards),
an illegal meld answer by "stop melding" and an illegal discard by the lowest legal card kind in
hand (tranca_sim/engine/deal.py) -- exactly what the built-in ``passive`` chooses, so this
strategy must play every deal like ``passive``.
"""

from numba import njit

from tranca_sim.engine.rng import randbelow

NAME = "allbad"
PARAMS = ()


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    return n + randbelow(rng, 3) if randbelow(rng, 2) == 0 else -1 - randbelow(rng, 3)


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    return n + randbelow(rng, 3) if randbelow(rng, 2) == 0 else -2 - randbelow(rng, 3)


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    return 53 + randbelow(rng, 1000) if randbelow(rng, 2) == 0 else -1 - randbelow(rng, 1000)
