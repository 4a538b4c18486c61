"""``basic``: a sensible heuristic player built from the rule guides' tips.

It takes the pile when it can use the top card, lays every natural it can,
starts melds with a wild when allowed, completes canastas, rushes its morto,
goes out as soon as it may, locks the pile with black 3s and avoids feeding
the opponents' melds.  Each tip is a parameter (floats; 0 = off):

==================  =======  ====================================================
name                default  meaning
==================  =======  ====================================================
take_pile_min       1        take the pile (when legal) only if it holds at least this many cards
wild_reserve        0        keep one wild in hand: never spend the last wild except to go out (000 tip 4)
clean_patience      1        never put a wild on a clean meld of 4+ naturals (wait for a clean canasta, 000 tip 3)
black3_lock         1        discard black 3s first, locking the pile (000 tip 2)
safe_discard        1        avoid discarding ranks the opponents have melded or took from the pile
go_out              1        go out as soon as the rules allow (0: hold while other moves exist)
wild_melds          1        start new melds with two naturals and a wild
==================  =======  ====================================================
"""

from numba import njit

from tranca_sim.engine.cards import JOKER, N_KINDS
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals, n_twos
from tranca_sim.engine.obs import (
    A_BLACK3,
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_OPEN,
    A_EXT,
    A_NEW,
    A_STOCK,
    C_NAT,
    CAPNEW_2NAT,
    NEW_3NAT,
    PUB_CAN_EMPTY,
    PUB_HAND_N,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_PILE_N,
    PUB_SEAT,
    PUB_SIDE,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.state import MH_N, MH_NAT, MH_RANK, MH_TYPE, MH_WILD, MS_WAITING, MT_SET
from tranca_sim.rules import R_CANASTA_SIZE, R_VALUES

NAME = "basic"
DOC = "heuristic player: canastas, morto, going out, black-3 locks, safe discards"
PARAMS = (  # (name, default, doc, lowest, highest); switches are 0 (off) or 1 (on)
    ("take_pile_min", 1.0, "take the pile only if it holds at least this many cards", 0, 108),
    ("wild_reserve", 0.0, "keep one wild in hand except to go out", 0, 1),
    ("clean_patience", 1.0, "no wild on a clean meld of 4+ naturals", 0, 1),
    ("black3_lock", 1.0, "discard black 3s first to lock the pile", 0, 1),
    ("safe_discard", 1.0, "avoid discarding ranks the opponents melded or took", 0, 1),
    ("go_out", 1.0, "go out as soon as allowed", 0, 1),
    ("wild_melds", 1.0, "start melds with two naturals and a wild", 0, 1),
)
P_TAKE_PILE_MIN = 0
P_WILD_RESERVE = 1
P_CLEAN_PATIENCE = 2
P_BLACK3_LOCK = 3
P_SAFE_DISCARD = 4
P_GO_OUT = 5
P_WILD_MELDS = 6


@njit(cache=True, inline="always")
def _wilds(hand):
    return n_twos(hand) + hand[JOKER]


@njit(cache=True, _nrt=False)
def choose_draw(prm, obs, acts, n, rng):
    stock = -1
    best = -1
    best_score = -1
    spare_wild = prm[P_WILD_RESERVE] == 0.0 or _wilds(obs.hand) >= 2
    for i in range(n):
        t = act_type(acts[i])
        if t == A_STOCK:
            stock = i
            continue
        s = 0
        if t == A_CAP_EXT or t == A_CAP_OPEN:
            s = 3
        elif t == A_CAP_NEW:
            s = 2 if act_y(acts[i]) == CAPNEW_2NAT else (1 if spare_wild else 0)
        if s > best_score:
            best_score = s
            best = i
    if stock < 0:
        return best  # stock exhausted: a capture is the only draw
    if best >= 0 and best_score > 0 and obs.pub[PUB_PILE_N] >= prm[P_TAKE_PILE_MIN]:
        return best
    return stock


@njit(cache=True, _nrt=False)
def choose_meld(prm, obs, acts, n, rng):
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    hn = obs.pub[PUB_HAND_N + seat]
    cs = obs.rp[R_CANASTA_SIZE]
    wilds = _wilds(obs.hand)
    morto_waiting = obs.pub[PUB_MORTO + side] == MS_WAITING
    may_empty = obs.pub[PUB_CAN_EMPTY] != 0
    best = -1
    best_score = 0
    for i in range(n):
        a = acts[i]
        t = act_type(a)
        x = act_x(a)
        s = 0
        if t == A_BLACK3:
            s = 100 if prm[P_GO_OUT] != 0.0 else 0
        elif t == A_EXT:
            size = obs.mh[side, x, MH_N]
            if act_y(a) == C_NAT:
                s = 60 if size + 1 == cs else 50
            else:
                clean = obs.mh[side, x, MH_WILD] == 0
                last_wild = wilds <= 1 and prm[P_WILD_RESERVE] != 0.0
                if clean and prm[P_CLEAN_PATIENCE] != 0.0 and obs.mh[side, x, MH_NAT] >= 4:
                    s = 0
                elif size + 1 >= cs and size < cs:
                    s = 30  # completes a canasta
                elif hn <= 2 and (morto_waiting or may_empty):
                    s = 20  # empties the hand: morto or going out
                if last_wild and not (hn <= 1 and may_empty):
                    s = 0
        elif t == A_NEW:
            if act_y(a) == NEW_3NAT:
                s = 40
            elif prm[P_WILD_MELDS] != 0.0:
                if prm[P_WILD_RESERVE] == 0.0 or wilds >= 2:
                    s = 10
        if s > 0 and prm[P_GO_OUT] == 0.0 and may_empty and not morto_waiting and hn <= 2 and t != A_BLACK3:
            s = 1  # holding: still plays, but last of all
        if s > best_score:
            best_score = s
            best = i
    return best


@njit(cache=True, _nrt=False)
def choose_discard(prm, obs, rng):
    hand = obs.hand
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    opp = 1 - side
    nxt = (seat + 1) % 4
    own_ranks = _set_ranks(obs, side)  # bit r set: the side has a same-rank meld of rank r
    opp_ranks = _set_ranks(obs, opp) if prm[P_SAFE_DISCARD] != 0.0 else 0
    best = -1
    best_keep = 1 << 30
    for k in range(N_KINDS):
        if hand[k] <= 0:
            continue
        if is_wild(k):
            keep = 1000
        elif is_black3(k):
            # locking: a black 3 goes first; otherwise it is junk like a lone low card
            keep = -100 if prm[P_BLACK3_LOCK] != 0.0 else 19
        else:
            r = k % 13 + 1
            keep = 20 * n_naturals(hand, r) - obs.rp[R_VALUES + k] // 5
            if own_ranks & (1 << r):
                keep += 40
            if prm[P_SAFE_DISCARD] != 0.0:
                if opp_ranks & (1 << r):
                    keep += 60  # the next player could take the pile with it
                if n_naturals(obs.taken[nxt], r) > 0:
                    keep += 30
        if keep < best_keep:
            best_keep = keep
            best = k
    return best


@njit(cache=True, inline="always")
def _set_ranks(obs, side):
    bits = 0
    for m in range(obs.pub[PUB_N_MELDS + side]):
        if obs.mh[side, m, MH_TYPE] == MT_SET:
            bits |= 1 << obs.mh[side, m, MH_RANK]
    return bits
