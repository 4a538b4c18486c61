"""``greedy``: a user's own strategy in its own file (docs/strategies.md, "Your own strategy").

Run it by path, no edit of the installed package:
    tranca-sim simulate --side-a examples/greedy.py:greedy:min_pile=3 --side-b basic
"""

from numba import njit

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.melds import is_black3, is_wild
from tranca_sim.engine.obs import A_NEW, A_STOCK, PUB_PILE_N, act_type
from tranca_sim.rules import R_VALUES

NAME = "greedy"
DOC = "takes any pile of min_pile cards or more, lays every meld it can, sheds its highest single card"
PARAMS = (("min_pile", 1, "take the pile only if it holds at least this many cards", 1, 108, "int"),)


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    take = obs.pub[PUB_PILE_N] >= prm[0]
    for i in range(n):  # the stock, or the first legal way to take the pile
        if (act_type(acts[i]) != A_STOCK) == take:
            return i
    return 0


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    for i in range(n):  # new melds first: each lays three cards at once
        if act_type(acts[i]) == A_NEW:
            return i
    return 0  # n >= 1: an extension (or the black-3 set); never stops while something is legal


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    best, best_key = -1, -1
    for k in range(N_KINDS):
        c = obs.hand[k]
        if c > 0:  # black 3s first (they lock the pile), wilds last; else a single card, the highest value
            key = (
                3000
                if is_black3(k)
                else (0 if is_wild(k) else (1000 if c == 1 else 0) + obs.rp[R_VALUES + k])
            )
            if key > best_key:
                best, best_key = k, key
    return best
