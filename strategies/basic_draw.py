"""``basic``'s draw: the stock or the pile (how much of the pile fits, the open pile's tests, the
tips that take or leave the pile).
"""

from collections import namedtuple

from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import is_black3, is_wild, n_naturals
from tranca_sim.engine.obs import (
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_OPEN,
    A_CAP_RUN,
    A_STOCK,
    CAPNEW_2NAT,
    PUB_CAN_EMPTY,
    PUB_HAND_N,
    PUB_MORTO,
    PUB_N_SIDES,
    PUB_PILE_N,
    PUB_PILE_TOP,
    PUB_SEAT,
    PUB_SIDE,
    act_type,
    act_y,
)
from tranca_sim.engine.state import (
    MS_WAITING,
)
from tranca_sim.rules import (
    R_GO_OUT_CLEAN,
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_THREES_SPECIAL,
)
from tranca_sim.strategies.basic_params import (
    CLOSE_HAND,
    OUT_HAND,
    P_MORTO_RUSH,
    P_NEVER_PILE,
    P_NEVER_WILD,
    P_OUT_PILE_MAX,
    P_PILE_FIT,
    P_RUN_PILE_MIN,
    P_RUN_PILE_SHARE,
    P_TAKE_PILE_MIN,
    P_WILD_RESERVE,
    PILE_BIG,
    RUSH_EVERY_PILE,
    RUSH_PILE_MAX,
    RUSH_SMALL_HAND,
)
from tranca_sim.strategies.basic_runs import _nb_planes, _run_fit_mask
from tranca_sim.strategies.basic_table import _may_go_out, _red3_hurry, _set_ranks, _wilds


@njit(cache=True, _nrt=False)
def pile_fit_share(obs):
    """Share of the pile's cards that fit (004 tip 3): wilds, ranks the side has melded, and
    ranks of which hand and pile together hold three or more naturals.  0.0 for an empty pile."""
    pn = obs.pub[PUB_PILE_N]
    if pn == 0:
        return 0.0
    side = obs.pub[PUB_SIDE]
    own = _set_ranks(obs, side)
    special = obs.rp[R_THREES_SPECIAL] != 0
    cnt = 0  # 4 bits per rank: naturals of that rank in the pile
    for i in range(pn):
        k = obs.pile[i]
        if not is_wild(k):
            cnt += 1 << (4 * (k % 13 + 1))
    fit = 0
    for i in range(pn):
        k = obs.pile[i]
        if is_wild(k):
            fit += 1
        elif special and is_black3(k):
            continue
        else:
            r = k % 13 + 1
            if own & (1 << r) or n_naturals(obs.hand, r) + ((cnt >> (4 * r)) & 15) >= 3:
                fit += 1
    return fit / pn


@njit(cache=True, _nrt=False, forceinline=True)
def _open_pile_fits_runs(prm, obs):
    """Runs only (``meld_sets`` off, open ``buraco``): every card taken that is not melded counts
    against the side and keeps its hand from emptying (004 tip 3), so the open pile is taken
    only when its top card fits the side's runs or the hand (:func:`_run_keep` above 0) and at least the
    share ``run_pile_share`` of its cards do (wilds fit where ``max_wilds`` is above 0)."""
    pn = obs.pub[PUB_PILE_N]
    t = obs.pub[PUB_PILE_TOP]
    side = obs.pub[PUB_SIDE]
    wilds_play = obs.rp[R_MAX_WILDS] > 0  # max_wilds = 0: a 2 is only the natural of its own place
    if t < 0:
        return False
    fm, run_ends, held = _run_fit_mask(obs, side, wilds_play)
    if not (fm >> t) & 1:  # (wilds_play and is_wild(t)) or _run_keep(obs, side, t) > 0
        return False
    if pn == 1:
        # as with sets: a one-card pile only when its card is melded this turn (no swaps, E13)
        hn = obs.pub[PUB_HAND_N + obs.pub[PUB_SEAT]]
        room = obs.pub[PUB_CAN_EMPTY] != 0
        if is_wild(t) or not (hn >= 4 or room):
            return False
        # the natural t can be melded at once in a run: onto an end of one of the side's runs of its
        # suit that no run covers (the fit mask's run ends: _run_keep 50 or more; the hand's
        # neighbours add at most 46), or with two naturals of its suit from the hand (t-2 t-1, t-1 t+1
        # or t+1 t+2; the ace high above the K, low below the 2), read from the hand's bits
        if (run_ends >> t) & 1:
            return True
        up1, dn1, up2, dn2 = _nb_planes(held)  # rank r + 1 held, r - 1, r + 2, r - 2 (none for the ace)
        return ((((dn2 & dn1) | (dn1 & up1) | (up1 & up2)) >> t) & 1) != 0
    fit = 0
    for i in range(pn):
        fit += (fm >> obs.pile[i]) & 1  # _run_keep of the card above 0, or a wild where wilds play
    return fit >= prm[P_RUN_PILE_SHARE] * pn


@njit(cache=True, _nrt=False, forceinline=True)
def _open_pile_useful(prm, obs):
    """An open pile of two cards or more is always worth taking; a one-card pile only when its
    card can be melded this turn (onto a side set of its rank, or with two naturals from the hand)
    while keeping two cards (E6).  Taking a one-card pile only to swap a card would make no
    progress: two such players could pass cards round the table while the stock never shrinks."""
    if obs.rp[R_MELD_SETS] == 0:
        return _open_pile_fits_runs(prm, obs)
    if obs.pub[PUB_PILE_N] >= 2:
        return True
    t = obs.pub[PUB_PILE_TOP]
    if t < 0 or is_wild(t) or is_black3(t):
        return False
    r = t % 13 + 1
    side = obs.pub[PUB_SIDE]
    hn = obs.pub[PUB_HAND_N + obs.pub[PUB_SEAT]]
    room = obs.pub[PUB_CAN_EMPTY] != 0
    if (hn >= 2 or room) and _set_ranks(obs, side) & (1 << r):
        return True
    return (hn >= 4 or room) and n_naturals(obs.hand, r) >= 2


# issue 9: a strategy call passes every array of its arguments as a struct of 7-11 words (the whole
# Obs, prm, acts and rng: about 86 words for choose_meld); the engine's turn spent about 6% of its
# time pushing them.  choose_draw, choose_meld and choose_discard are thin wrappers, compiled inline
# into their caller (the engine's turn), that pass the choice only the arrays it reads, as a smaller
# namedtuple (the helpers below take it as they take the Obs: they read only these fields); MeldView
# in basic_meld, DiscardView in basic_discard.
DrawView = namedtuple("DrawView", ["hand", "pub", "pile", "mh", "rp"])


@njit(cache=True, _nrt=False)
def _choose_draw(prm, obs, acts, n):
    side = obs.pub[PUB_SIDE]
    seat = obs.pub[PUB_SEAT]
    wild_ok = prm[P_NEVER_WILD] == 0.0
    if wild_ok and prm[P_WILD_RESERVE] != 0.0:
        close = obs.pub[PUB_CAN_EMPTY] != 0 and obs.pub[PUB_HAND_N + seat] <= CLOSE_HAND
        wild_ok = _wilds(obs.hand) >= 2 or close
    stock = -1
    best = -1
    best_score = -1
    for i in range(n):
        t = act_type(acts[i])
        if t == A_STOCK:
            stock = i
            continue
        s = 0
        if t == A_CAP_EXT:
            s = 3
        elif t == A_CAP_OPEN:
            s = 3 if _open_pile_useful(prm, obs) else 0
        elif t == A_CAP_NEW:
            s = 2 if act_y(acts[i]) == CAPNEW_2NAT else (1 if wild_ok else 0)
        elif t == A_CAP_RUN:
            # y & 31: RUN_TOP_NAT (32) flags the suit's own 2 on top, natural in its place (VARIANTS 17)
            s = 2 if act_y(acts[i]) & 31 == 0 else (1 if wild_ok else 0)
        if s > best_score:
            best_score = s
            best = i
    if stock < 0:
        return best  # stock exhausted: a capture is the only draw
    if best < 0 or best_score <= 0 or prm[P_NEVER_PILE] != 0.0:
        return stock
    pn = obs.pub[PUB_PILE_N]
    clean_runs = obs.rp[R_MELD_RUNS] != 0 and obs.rp[R_GO_OUT_CLEAN] != 0
    pmin = prm[P_RUN_PILE_MIN] if clean_runs else prm[P_TAKE_PILE_MIN]
    if obs.pub[PUB_N_SIDES] == 3 and pmin > 1.0:
        # tranca-3p: 41 stock cards for three solo players who each need their own canasta; the
        # pile is the other source of cards, so any usable pile is taken (docs/strategies.md)
        pmin = 1.0
    rush = int(prm[P_MORTO_RUSH]) if obs.pub[PUB_MORTO + side] == MS_WAITING else 0
    if rush == RUSH_SMALL_HAND and pn > RUSH_PILE_MAX:
        return stock  # the early morto: a big pile would only refill the first hand
    if pn < pmin and not (_red3_hurry(prm, obs, side) or rush == RUSH_EVERY_PILE):
        return stock
    if (
        clean_runs
        and pn > prm[P_OUT_PILE_MAX]
        and obs.pub[PUB_HAND_N + seat] <= OUT_HAND
        and _may_go_out(obs, side)
    ):
        return stock  # out_pile_max: about to go out, a big pile would only refill the hand
    if prm[P_PILE_FIT] > 0.0 and pn >= PILE_BIG and pile_fit_share(obs) < prm[P_PILE_FIT]:
        return stock
    return best
