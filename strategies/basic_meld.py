"""``basic``'s melds: the score of each listed meld action under the baseline and its tips, the
best one laid.
"""

from collections import namedtuple

import numpy as np

from tranca_sim.engine.jit import njit
from tranca_sim.engine.obs import (
    A_BLACK3,
    A_EXT,
    A_NEW,
    A_RUN_EXT,
    A_RUN_NEW,
    C_NAT,
    NEW_3NAT,
    PUB_CAN_EMPTY,
    PUB_CLEAN,
    PUB_HAND_N,
    PUB_LOCKED,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_SEAT,
    PUB_SIDE,
    PUB_TURN,
    RUN_3NAT,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.state import (
    MH_GREW,
    MH_N,
    MH_TYPE,
    MH_WILD,
    MS_WAITING,
    MT_BLACK3,
)
from tranca_sim.rules import (
    R_CANASTA_SIZE,
    R_GO_OUT_CLEAN,
    R_MELD_RUNS,
)
from tranca_sim.strategies.basic_params import (
    CLOSE_HAND,
    LONG_STEP,
    P_CLEAN_PATIENCE,
    P_ENDGAME_LAY,
    P_GO_OUT,
    P_KEEP_CLEAN,
    P_LONG_MELD,
    P_MORTO_MELDS,
    P_MORTO_RUSH,
    P_MORTO_STOCK,
    P_NEVER_OUT,
    P_NEVER_WILD,
    P_PARTNER,
    P_RUN_CLEAN_FIRST,
    P_SECOND_MELD,
    P_WILD_MELDS,
    P_WILD_RESERVE,
    RUSH_WILDS,
)
from tranca_sim.strategies.basic_table import _may_go_out, _near_end, _set_ranks, _wilds, stock_left

MeldView = namedtuple("MeldView", ["hand", "pub", "mh", "rp"])  # the arrays the meld reads (basic_draw: why)


@njit(cache=True, _nrt=False)
def _choose_meld(prm, obs, acts, n, rush):
    """:func:`choose_meld` on a :data:`MeldView` ``obs``; ``rush``: aberta_rush holds (the side's
    face-up morto is strong).  -1 when no action scores above 0."""
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    hn = obs.pub[PUB_HAND_N + seat]
    cs = obs.rp[R_CANASTA_SIZE]
    wilds = _wilds(obs.hand)
    morto_waiting = obs.pub[PUB_MORTO + side] == MS_WAITING
    may_empty = obs.pub[PUB_CAN_EMPTY] != 0
    can_out = _may_go_out(obs, side)
    n_melds = obs.pub[PUB_N_MELDS + side]
    stock_n = stock_left(obs)
    # ---- tips that lay everything ----
    lay_all = int(prm[P_MORTO_RUSH]) == RUSH_WILDS and morto_waiting
    if rush:
        lay_all = True  # Tranca Aberta: the side's face-up morto is worth hurrying for
    if prm[P_ENDGAME_LAY] != 0.0 and _near_end(obs, side):
        lay_all = True
    # ---- tips that hold back: cards that must stay in hand after a meld ----
    hold = 0
    if morto_waiting and not lay_all:
        if stock_n > prm[P_MORTO_STOCK] or n_melds < prm[P_MORTO_MELDS]:
            hold = 2
    if can_out and prm[P_NEVER_OUT] != 0.0:
        hold = 2
    close = may_empty and hn <= CLOSE_HAND  # wild_reserve: close to emptying the hand
    locked = obs.pub[PUB_LOCKED] != 0
    own = -1  # _set_ranks(obs, side), read by new melds only: computed at the first one
    n_clean = 0  # read by keep_clean only
    n_open = 0  # read by long_meld only: the side's melds that are not yet canastas
    for m in range(n_melds if prm[P_KEEP_CLEAN] != 0.0 or prm[P_LONG_MELD] > 0.0 else 0):
        if obs.mh[side, m, MH_TYPE] != MT_BLACK3:
            if obs.mh[side, m, MH_WILD] == 0:
                n_clean += 1
            if obs.mh[side, m, MH_N] < cs:
                n_open += 1
    turn = obs.pub[PUB_TURN]
    never_wild = prm[P_NEVER_WILD] != 0.0
    clean_runs = obs.rp[R_MELD_RUNS] != 0 and obs.rp[R_GO_OUT_CLEAN] != 0
    no_clean = clean_runs and obs.pub[PUB_CLEAN + side] == 0 and prm[P_RUN_CLEAN_FIRST] != 0.0
    reserve = prm[P_WILD_RESERVE] != 0.0 and wilds <= 1
    # what is the same for every listed action, read once (the loop below reads only the action
    # and, for an extension, its meld's row):
    empty_now = hn <= 2 and may_empty  # the meld may empty the hand (morto or going out)
    ext_ok = hn - 1 >= hold  # one card laid keeps the hand the holding tips ask for
    new_ok = hn - 3 >= hold
    # long_meld = w: a new meld is worth LONG_STEP * w less for each unfinished meld the side has
    # (one long meld is worth more than several three-card melds), unless it empties the hand
    short_cost = 0.0
    if prm[P_LONG_MELD] > 0.0 and not lay_all and not (hn <= 3 and may_empty):
        short_cost = LONG_STEP * prm[P_LONG_MELD] * n_open
    partner = prm[P_PARTNER] != 0.0
    new_wild = 0  # a new meld of two naturals and a wild (wild_melds; wild_reserve)
    if prm[P_WILD_MELDS] != 0.0 and not never_wild and not (reserve and not (close or locked)):
        new_wild = 10
    run_new_wild = new_wild
    if no_clean and not (hn <= 3 and may_empty):
        run_new_wild = 0  # run_clean_first: the naturals wait for a clean run
    black3 = 100 if prm[P_GO_OUT] != 0.0 and hold <= 0 else 0
    last_of_all = prm[P_GO_OUT] == 0.0 and may_empty and not morto_waiting and hn <= 2
    patience = prm[P_CLEAN_PATIENCE]
    keep_clean = prm[P_KEEP_CLEAN] != 0.0 and n_clean <= 1 and obs.pub[PUB_CLEAN + side] == 0
    reserve_wait = reserve and not close
    best = -1
    best_score = 0
    for i in range(n):
        a = acts[np.uint64(i)]  # unsigned: no wraparound test of a negative index (issue 9)
        t = act_type(a)
        x = act_x(a)
        y = act_y(a)
        s = 0
        if t == A_RUN_EXT or t == A_EXT:
            size = obs.mh[side, x, MH_N]
            if (y if t == A_EXT else y % 4) == C_NAT:
                s = 60 if size + 1 == cs else 50
            elif not never_wild:
                clean = obs.mh[side, x, MH_WILD] == 0
                if size + 1 >= cs and size < cs:
                    s = 30  # completes a canasta
                elif empty_now:
                    s = 20  # empties the hand: morto or going out
                elif lay_all:
                    s = 5  # after new melds: a wild starting a meld with a pair lays 3 cards, on a meld 1
                if clean and size >= cs and s > 0:
                    s = (
                        2 if empty_now else 0
                    )  # a clean canasta stays clean unless nothing else empties the hand
                if s > 0 and not lay_all:
                    waited = (turn - obs.mh[side, x, MH_GREW]) // 2
                    if clean and size >= cs - 2 and size < cs and waited < patience:
                        s = 0  # clean_patience: wait for a natural
                    if clean and keep_clean:
                        s = 0  # keep_clean: the last clean meld stays clean
                    if reserve_wait:
                        s = 0  # wild_reserve: the last wild waits
                    if clean and t == A_RUN_EXT and no_clean and not empty_now:
                        s = 0  # run_clean_first: the side's clean runs stay candidates for the clean canasta
            if not ext_ok:
                s = 0
        elif t == A_RUN_NEW:
            s = (40 if y == RUN_3NAT else run_new_wild) if new_ok else 0
            s = _less(s, short_cost)
        elif t == A_NEW:
            if own < 0:
                own = _set_ranks(obs, side)
            second = (own & (1 << x)) != 0
            if y == NEW_3NAT:  # three naturals: the same score whether the side has the rank or not
                s = 55 if second and prm[P_SECOND_MELD] != 0.0 else 40
            else:
                s = new_wild
            if (second and partner) or not new_ok:
                s = 0  # partner: extend the side's meld instead
            s = _less(s, short_cost)
        elif t == A_BLACK3:
            s = black3
        else:  # A_RUN_SWAP, run_wild_moves (E21): one natural more on the run, as an extension
            s = (60 if obs.mh[side, x, MH_N] + 1 == cs else 50) if ext_ok else 0
        if s > 0 and last_of_all and t != A_BLACK3:
            s = 1  # holding: still plays, but last of all
        if s > best_score:
            best_score = s
            best = i
    return best


@njit(cache=True, inline="always")
def _less(s, cost):
    """A new meld's score ``s`` lowered by ``cost`` (long_meld); 0 (not laid) when nothing is left."""
    if cost <= 0.0:
        return s
    v = s - cost
    return int(v) if v >= 1.0 else 0
