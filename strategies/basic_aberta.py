"""``basic`` in Tranca Aberta: what the face-up mortos tell.

Seed ``000_95ec226e9cdd732e.txt`` "Common Variations", "Tranca Aberta": the mortos are dealt face
up, so both sides know what is waiting.  A strategy sees them in ``obs.morto`` (``int16[2,
N_KINDS]``) only when the rules deal them face up (``R_MORTOS_FACE_UP``); a face-down morto is
never seen (zeros), so every function here returns its "nothing seen" value then.  The engine
keeps ``obs.morto`` after a morto is taken: the players remember what was face up.

- :func:`opp_morto_pairs` (``basic`` ``morto_seen=1``, its default): ranks of which the
  opponents' morto, once they have taken it, held two or more naturals; ``basic`` keeps cards of
  those ranks in its discard, as it keeps ranks an opponent took from the pile.
- :func:`morto_strong` (``basic`` ``aberta_rush=1``, off by default): the side's own waiting morto
  is worth hurrying for; ``basic`` then empties its first hand as fast as possible, as
  ``morto_rush=3`` does (lays everything, wilds on any meld: a reading of the early morto).
"""

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import n_naturals, n_twos
from tranca_sim.engine.obs import PUB_MORTO, PUB_N_MELDS, PUB_SEAT, next_seat, seat_side
from tranca_sim.engine.state import MH_RANK, MH_TYPE, MS_WAITING, MT_SET
from tranca_sim.rules import R_MORTOS_FACE_UP

STRONG_WILDS = 2  # a morto holding 2 or more wilds is strong
STRONG_FIT = 3  # ... or 3 or more cards that fit: wilds plus naturals of ranks the side has melded


@njit(cache=True, _nrt=False)
def morto_fit(obs, side):
    """(wilds, fitting cards) of ``side``'s face-up morto: its 2s and jokers, and those plus its
    naturals of ranks of which ``side`` has a same-rank meld on the table.  ``(0, 0)`` when the
    mortos are face down (``obs.morto`` is zeros) or the morto was taken.  Shapes: ``obs.morto``
    ``int16[2, N_KINDS]``; returns two ints (card counts)."""
    if obs.rp[R_MORTOS_FACE_UP] == 0 or obs.pub[PUB_MORTO + side] != MS_WAITING:
        return 0, 0
    m = obs.morto[side]
    wilds = n_twos(m) + m[JOKER]
    fit = wilds
    seen = 0
    for i in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, i, MH_TYPE] == MT_SET:
            r = obs.mh[side, i, MH_RANK]
            if not seen & (1 << r):
                seen |= 1 << r
                fit += n_naturals(m, r)
    return wilds, fit


@njit(cache=True, _nrt=False)
def morto_strong(obs, side):
    """True when ``side``'s face-up morto is waiting and holds ``STRONG_WILDS`` (2) or more wilds,
    or ``STRONG_FIT`` (3) or more cards that fit (:func:`morto_fit`).  Always False when the
    mortos are face down (seed 000 "Common Variations": only Tranca Aberta shows them)."""
    wilds, fit = morto_fit(obs, side)
    return wilds >= STRONG_WILDS or fit >= STRONG_FIT


@njit(cache=True, _nrt=False)
def opp_morto_pairs(obs, side):
    """Bit ``r`` set: the opponents of ``side`` -- the side of the next player, who could take the
    pile -- have taken their face-up morto and it held two or more naturals of rank ``r`` (so a
    player of theirs may hold a pair of that rank and take the pile with it).  0 while their
    morto waits or when the mortos are face down."""
    opp = seat_side(obs, next_seat(obs, obs.pub[PUB_SEAT]))
    if obs.rp[R_MORTOS_FACE_UP] == 0 or obs.pub[PUB_MORTO + opp] == MS_WAITING:
        return 0
    m = obs.morto[opp]
    bits = 0
    for r in range(1, 14):
        if n_naturals(m, r) >= 2:
            bits |= 1 << r
    return bits
