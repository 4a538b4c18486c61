"""``basic`` where runs are melded: how much a natural is worth keeping for the side's runs and the
hand's suit neighbours, read one card at a time or for every kind at once as 52-bit masks.
"""

from tranca_sim.engine.cards import JOKER
from tranca_sim.engine.jit import njit
from tranca_sim.engine.obs import (
    PUB_N_MELDS,
)
from tranca_sim.engine.runs import hand_bits
from tranca_sim.engine.state import (
    MH_HI,
    MH_LO,
    MH_SUIT,
    MH_TYPE,
    MT_RUN,
)
from tranca_sim.rules import (
    R_MELD_SETS,
    R_SEVERAL_RUNS,
    R_VALUES,
)


@njit(cache=True, inline="always")
def _neighbours_keep(obs, s, r):
    """The run value of rank ``r`` (1-13) of suit ``s`` from its suit neighbours in the hand:
    +15 for each next to it, +8 for each one further (the ace next to the king: Q-K-A)."""
    keep = 0
    for d in (-2, -1, 1, 2):
        q = r + d
        if q == 0:
            q = 13  # the ace next to the king (Q-K-A)
        elif q == 14 or q == 15:
            q -= 13
        if q < 1 or q > 13 or q == r:
            continue
        if obs.hand[s * 13 + q - 1] > 0:
            keep += 15 if d == -1 or d == 1 else 8
    return keep


@njit(cache=True, _nrt=False, forceinline=True)
def _run_keep(obs, side, k):
    """Where runs are melded: how much a natural ``k`` is worth keeping for runs.  Its suit
    neighbours in the hand (+15 next to it, +8 one further) and the side's runs it extends
    (+50: it goes on the table next turn).  A card whose place a run of the side already holds
    can join no run while ``several_runs_per_suit`` is off (E19: no second run of the suit):
    -40 where runs are the only melds (it can never be melded), else 0 (a set may take it)."""
    s = k // 13
    r = k % 13 + 1
    keep = 0
    several = obs.rp[R_SEVERAL_RUNS] != 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_RUN and obs.mh[side, m, MH_SUIT] == s:
            lo = obs.mh[side, m, MH_LO]
            hi = obs.mh[side, m, MH_HI]
            if lo - 1 == r or hi + 1 == r or (r == 1 and (hi == 13 or lo == 2)):
                keep += 50
            elif not several and (lo <= r <= hi if r != 1 else (lo == 1 and hi == 14)):
                return -40 if obs.rp[R_MELD_SETS] == 0 else 0
    return keep + _neighbours_keep(obs, s, r)


@njit(cache=True, _nrt=False)
def _extends_run(obs, side, k):
    """The natural ``k`` goes on an end of one of ``side``'s runs of its suit."""
    s = k // 13
    r = k % 13 + 1
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_RUN and obs.mh[side, m, MH_SUIT] == s:
            lo = obs.mh[side, m, MH_LO]
            hi = obs.mh[side, m, MH_HI]
            if lo - 1 == r or hi + 1 == r or (r == 1 and (hi == 13 or lo == 2)):
                return True
    return False


@njit(cache=True, inline="always")
def _run_ext_mask(obs, side):
    """Bit ``k`` set for each natural ``k`` that goes on an end of one of ``side``'s runs (the
    answers of :func:`_extends_run` for every kind at once, from one pass over the side's melds):
    below the low end (the low ace below a run from the 2), above the high end (the high ace above
    the K)."""
    mask = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        e = 0  # bit r - 1: rank r
        if lo >= 2:
            e |= 1 << (lo - 2)  # rank lo - 1 (lo = 2: the low ace)
        if hi <= 12:
            e |= 1 << hi  # rank hi + 1
        elif hi == 13:
            e |= 1  # the high ace above the K
        mask |= e << (13 * obs.mh[side, m, MH_SUIT])
    return mask


# The hand's and the runs' bits for all four suits at once, in 52-bit masks (bit 13 s + r - 1: rank r of
# suit s, as runs.hand_bits): one word per question, and a kind's answer one shift away, where a
# table per suit cost an indirect jump (a switch over the suit) at each read.
_SUIT_ACE = 1 | (1 << 13) | (1 << 26) | (1 << 39)  # bit 0 of each suit: the ace
_SUIT_KING = _SUIT_ACE << 12  # bit 12 of each suit: the king
_LOW11 = 0x7FF * _SUIT_ACE  # bits 0-10 of each suit
_LOW2 = 3 * _SUIT_ACE  # bits 0-1 of each suit
_HIGH11 = 0x1FFC * _SUIT_ACE  # bits 2-12 of each suit
_ALL52 = (1 << 52) - 1
_NO_KEY = 1 << 40  # _choose_discard: above every keep * 64 + k
_NATURALS = _ALL52 & ~(2 * _SUIT_ACE)  # every kind but the 2s and the joker


@njit(cache=True, inline="always")
def _values_below_32(rp):
    """Every suited kind's card value (``R_VALUES``) is 0-31: one OR over the 52 values."""
    v = 0
    for k in range(52):
        v |= rp[R_VALUES + k]
    return 0 <= v < 32


@njit(cache=True, inline="always")
def _nb_planes(held):
    """:func:`_neighbours_keep`'s four neighbours for every kind at once, from the hand's
    :func:`~tranca_sim.engine.runs.hand_bits` ``held`` (52 bits; the joker's bit is ignored): bit ``k`` (kind ``k`` of rank r) of ``up1``
    set when the hand holds rank r + 1 of its suit, ``dn1`` rank r - 1 (both +15 in
    :func:`_neighbours_keep`), ``up2`` rank r + 2, ``dn2`` rank r - 2 (both +8); the ace next to the
    king both ways, Q-K-A and A-2-3, but not Q-A (``dn2`` of the ace is 0)."""
    h = held & _ALL52
    up1 = ((h >> 1) & ~_SUIT_KING) | ((h & _SUIT_ACE) << 12)
    dn1 = ((h << 1) & _ALL52 & ~_SUIT_ACE) | ((h & _SUIT_KING) >> 12)
    up2 = ((h >> 2) & _LOW11) | ((h & _LOW2) << 11)
    dn2 = ((h << 2) & _HIGH11) | ((h & _SUIT_KING) >> 11)
    return up1, dn1, up2, dn2


@njit(cache=True, inline="always")
def _run_end_bits(lo, hi):
    """The naturals a run of positions ``lo..hi`` takes at an end, as bits ``r - 1`` of rank ``r``
    (bit 0 the ace: below the 2 or above the K) of its suit's 13."""
    e = 0
    if lo >= 2:
        e |= 1 << (lo - 2)  # rank lo - 1 (lo = 2: the low ace)
    if hi <= 12:
        e |= 1 << hi  # rank hi + 1
    elif hi == 13:
        e |= 1  # the high ace above the K (with lo = 2 the low ace set it already)
    return e


@njit(cache=True, inline="always")
def _run_cover_bits(lo, hi):
    """The places a run of positions ``lo..hi`` holds, as bits ``r - 1`` of rank ``r`` of its
    suit's 13 (the ace's, bit 0, only by an A..A run)."""
    c = ((1 << (min(13, hi))) - 1) & ~((1 << ((max(2, lo)) - 1)) - 1)  # no min/max calls
    if lo == 1 and hi == 14:
        c |= 1
    return c


@njit(cache=True, inline="always")
def _run_planes(obs, side):
    """``side``'s runs read once for many cards (the answers of :func:`_run_keep` without a pass
    over the melds per card), as 52-bit masks: the count of the runs that take the natural ``k`` at
    an end (r = 1 the ace, below the 2 or above the K) as four bit planes ``c0``-``c3`` (bit ``k`` of ``c_j``: bit j of the count; a count
    stays below 16: a rank ends at most the runs a suit's 26 cards can make), and ``cover``, bit
    ``k`` set when a run holds the place of ``k`` (the ace: an A..A run), computed only without
    ``several_runs_per_suit`` (E19), its readers' only case."""
    several = obs.rp[R_SEVERAL_RUNS] != 0
    c0 = 0
    c1 = 0
    c2 = 0
    c3 = 0
    cover = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        sh = 13 * obs.mh[side, m, MH_SUIT]
        e = _run_end_bits(lo, hi) << sh
        carry = c0 & e  # the count plus one where e is set, bit plane by bit plane
        c0 ^= e
        e = c1 & carry
        c1 ^= carry
        carry = c2 & e
        c2 ^= e
        c3 ^= carry
        if not several:
            cover |= _run_cover_bits(lo, hi) << sh
    return c0, c1, c2, c3, cover


@njit(cache=True, inline="always")
def _run_keep_planes(c0, c1, c2, c3, up1, dn1, up2, dn2, k):
    """:func:`_run_keep` of the natural ``k`` whose place no run covers, from :func:`_run_planes`
    and :func:`_nb_planes`: 50 for each run it extends, +15 / +8 for each neighbour in the hand."""
    ext = ((c0 >> k) & 1) + 2 * ((c1 >> k) & 1) + 4 * ((c2 >> k) & 1) + 8 * ((c3 >> k) & 1)
    return 50 * ext + 15 * (((up1 >> k) & 1) + ((dn1 >> k) & 1)) + 8 * (((up2 >> k) & 1) + ((dn2 >> k) & 1))


@njit(cache=True, inline="always")
def _run_fit_mask(obs, side, wilds_play):
    """Bit ``k`` set for each kind ``k`` that fits ``side``'s runs or the hand (:func:`_run_keep`
    above 0), and for the wilds when ``wilds_play`` (2s and the joker); a pile
    of cards is then counted with one shift a card.  Without ``wilds_play`` a 2 is the natural of
    its place and the joker fits nothing.  Returns that mask, the naturals that go on an end of
    one of the side's runs and whose place no run covers (:func:`_run_keep` 50 or more), and the
    hand's :func:`~tranca_sim.engine.runs.hand_bits`."""
    several = obs.rp[R_SEVERAL_RUNS] != 0
    ends = 0  # bit 13 s + r - 1: a run of suit s takes rank r at an end
    cover = 0  # bit 13 s + r - 1: a run of suit s holds the place of rank r (read without several runs)
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] != MT_RUN:
            continue
        lo = obs.mh[side, m, MH_LO]
        hi = obs.mh[side, m, MH_HI]
        sh = 13 * obs.mh[side, m, MH_SUIT]
        ends |= _run_end_bits(lo, hi) << sh
        if not several:  # the covered places keep no card out with several runs per suit (E19)
            cover |= _run_cover_bits(lo, hi) << sh
    held = hand_bits(obs.hand)
    up1, dn1, up2, dn2 = _nb_planes(held)
    fm = (up1 | dn1 | up2 | dn2 | ends) & ~cover  # a neighbour in the hand or a run end, not covered
    if wilds_play:
        fm |= (1 << 1) | (1 << 14) | (1 << 27) | (1 << 40) | (1 << JOKER)
    return fm, ends & ~cover, held
