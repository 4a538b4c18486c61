"""What a strategy sees, and the actions it chooses from.

A strategy never receives the deal's :class:`~tranca_sim.engine.state.State`; the
engine builds an :data:`Obs` holding only what the player to move could see:

- ``hand``  ``int16[N_KINDS]``: the player's own hand (counts by kind),
- ``pub``   ``int32[PUB_LEN]``: public facts (``PUB_*`` indices below),
- ``pile``  ``int16[108]``: the discard pile, bottom first (``pub[PUB_PILE_N]`` cards),
- ``mh``, ``mc``: every meld on the table (every side, ``pub[PUB_N_SIDES]`` of them; header and card counts,
  see :mod:`tranca_sim.engine.state`): ``mh[side, m, MH_TYPE]`` is ``MT_SET``
  (rank in ``MH_RANK``), ``MT_RUN`` (suit in ``MH_SUIT``, positions
  ``MH_LO..MH_HI``, wild positions as bits of ``MH_WMASK``) or ``MT_BLACK3``,
- ``taken`` ``int16[4, N_KINDS]``: cards each seat took from the pile so far,
- ``morto`` ``int16[n_sides, N_KINDS]``: the mortos when the preset deals them face
  up (``tranca-aberta``), zeros otherwise,
- ``rp``    the rule vector (:mod:`tranca_sim.rules`).

Never another seat's hand, a face-down morto or the stock order.  The arrays
are views: a strategy must not write to them.

Actions are ``int32`` codes ``(type << 16) | (x << 8) | y`` built by
:func:`act`; the engine lists only legal ones and the strategy picks an index.
The discard is a card kind: any kind for which :func:`may_discard` is True (the
engine replaces any other answer by the first legal kind and counts an error).
"""

from __future__ import annotations

from collections import namedtuple

from ..rules import R_VALUES
from .jit import njit

Obs = namedtuple("Obs", ["hand", "pub", "pile", "mh", "mc", "taken", "morto", "rp"])

# ---- public facts ------------------------------------------------------------
PUB_SEAT = 0
PUB_SIDE = 1
PUB_TURN = 2
PUB_STOCK_N = 3
PUB_PILE_N = 4
PUB_LOCKED = 5  # 1 if the pile is locked (a wild or black 3 on top)
PUB_PILE_TOP = 6  # kind on top of the pile, -1 if empty
PUB_CAN_EMPTY = 7  # 1 if the player may empty the hand now (morto pickup or going out)
PUB_HAND_N = 8  # + seat: cards in each hand (up to 4 seats)
PUB_MORTO = 12  # + side: MS_* state of each side's morto (up to 3 sides: solo players of tranca-3p)
PUB_RED3 = 15  # + side: red 3s in each side's area
PUB_CANASTAS = 18  # + side: canastas (clean or dirty)
PUB_CLEAN = 21  # + side: clean canastas
PUB_N_MELDS = 24  # + side
PUB_MELDED_NOW = 27  # 1 if the player has melded this turn
PUB_NO_DISCARD = 28  # kind the player may not discard this turn (E13: just taken from a one-card pile), -1
PUB_MATCH_SCORE = 29  # + side: each side's match score before this deal (0 outside a match; up to 3 sides)
PUB_DEAL_IN_MATCH = 32  # deal number in the match, 0-based (0 outside a match)
PUB_MELD_MIN = 33  # card points the player's side must lay in its first meld(s) of this deal (E25), 0 none
PUB_REDRAW_CARD = 34  # first_player_redraw (003): the card the player may throw back now, -1 if none
PUB_REDRAWN = 35  # kind the first player threw back with the redraw this deal (bottom of the pile), -1
PUB_N_SEATS = 36  # players at the table: 4 (two partnerships), 2 or 3 (solo players, tranca-2p / -3p)
PUB_N_SIDES = 37  # sides: 2, or 3 with three solo players; a solo player's side is the player's seat
# 38..39 are reserved for the facts of issue 8 (Buraco)
PUB_LEN = 40

# ---- action types -------------------------------------------------------------
A_NEW = 1  # new meld: x = rank, y = NEW_* variant
A_EXT = 2  # extend own side's meld: x = meld row, y = C_* card class
A_BLACK3 = 3  # lay the pure black-3 set and go out (000 Gameplay 6)
A_CAP_EXT = 4  # take the pile, top card onto meld row x
A_CAP_NEW = 5  # take the pile, top card in a new meld: y = CAPNEW_* variant; x = the meld's rank
#               when the top card is a wild (lock_by_wild off), 0 = the top card's own rank
A_STOCK = 6  # draw from the stock
A_CAP_OPEN = 7  # take an open pile (no meld needed; Buraco aberto)
#               A_CAP_EXT onto a run: x = meld row, y = END_LOW / END_HIGH (where the top card goes)
A_RUN_NEW = 8  # new same-suit run of 3 (4 for RUN_GAP): x = suit * 16 + low position, y = RUN_* variant
A_RUN_EXT = 9  # one card onto an end of the side's run x: y = end * 4 + C_* card class
A_CAP_RUN = 10  # take the pile, top card in a new run of 3 (4 for RUN_GAP): x = suit * 16 + low position, y = RUN_* variant
#               (a wild on top, lock_by_wild off: y = 1 + 2 * offset + j, the wild at low + offset, E15)
A_RUN_SWAP = 11  # run_wild_moves (E21): x = run row, y = 2 * p + end: the natural of the wild's position p
#               laid there, the wild moved to the low (0) or high (1) end

NEW_3NAT = 0  # three naturals
NEW_TWO = 1  # two naturals and a 2 as wild
NEW_JOKER = 2  # two naturals and a joker

C_NAT = 0  # a natural of the meld's rank
C_TWO = 1  # a 2 as wild
C_JOKER = 2

CAPNEW_2NAT = 0  # top card + two naturals from the hand (of rank x when the top card is a wild)
CAPNEW_TWO = 1  # top card + one natural + a 2
CAPNEW_JOKER = 2  # top card + one natural + a joker

# runs (tranca_sim.engine.runs): positions 1 = ace low, 2..13 = rank, 14 = ace high
RUN_3NAT = 0  # three naturals of the suit (the pile's top card one of them for A_CAP_RUN)
#               1 + 2 * offset + j: a wild stands at position low + offset; j = 0 a 2, j = 1 a joker
RUN_GAP = 7  # RUN_GAP + j: four cards, natural-wild-wild-natural (two wilds a meld), j jokers among the
#              two wilds (VARIANTS 17); for A_CAP_RUN the pile's top card is one of the naturals
RUN_TOP_NAT = 32  # A_CAP_RUN, + a variant above: the top card is the suit's own 2, natural at position 2
#                   (004 "A 2 of the same suit, placed in its own spot ... does not count as a wild card")
END_LOW = 0
END_HIGH = 1


@njit(cache=True, inline="always")
def may_discard(obs, k):
    """May the player discard a card of kind ``k`` now?  It must be in the hand and not be the
    card just taken from a one-card pile (E13, ``pub[PUB_NO_DISCARD]``).  The engine enforces the
    same rule (:func:`tranca_sim.engine.turn.legal_discard`); a strategy's ``choose_discard`` must
    return a kind for which this is True."""
    return 0 <= k < obs.hand.shape[0] and obs.hand[k] > 0 and k != obs.pub[PUB_NO_DISCARD]


@njit(cache=True, _nrt=False)
def side_melded_points(obs, side):
    """Card points of every card ``side`` has melded this deal (no bonuses)."""
    pts = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        for k in range(obs.mc.shape[2]):
            c = obs.mc[side, m, k]
            if c:
                pts += c * obs.rp[R_VALUES + k]
    return pts


@njit(cache=True, _nrt=False)
def must_meld_on(obs):
    """True while the player's side has started its first meld of the deal and it is still short
    of the minimum ``pub[PUB_MELD_MIN]`` (004 variation, E25): the engine then refuses "stop"
    (an answer of -1 from ``choose_meld`` is counted as illegal and replaced by the first listed
    action, which always leads to a finished first meld)."""
    need = obs.pub[PUB_MELD_MIN]
    if need <= 0:
        return False
    pts = side_melded_points(obs, obs.pub[PUB_SIDE])
    return 0 < pts < need


@njit(cache=True, inline="always")
def seat_side(obs, s):
    """The side of seat ``s`` (``pub[PUB_N_SIDES]`` sides): seats 0 and 2 are side 0, 1 and 3
    side 1 in partnerships; a solo player (tranca-2p / tranca-3p) is its own side."""
    return s & 1 if obs.pub[PUB_N_SIDES] == 2 else s & 3  # masks: never negative (no wraparound)


@njit(cache=True, inline="always")
def next_seat(obs, s):
    """The seat playing after seat ``s``: clockwise round the ``pub[PUB_N_SEATS]`` players."""
    return s + 1 if s + 1 < obs.pub[PUB_N_SEATS] else 0


@njit(cache=True, inline="always")
def act(t, x, y):
    """Action code of type ``t`` with operands ``x`` and ``y`` (each 0..255)."""
    return (t << 16) | (x << 8) | y


@njit(cache=True, inline="always")
def act_type(a):
    return a >> 16


@njit(cache=True, inline="always")
def act_x(a):
    return (a >> 8) & 255


@njit(cache=True, inline="always")
def act_y(a):
    return a & 255
