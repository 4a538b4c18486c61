"""The minimum first meld of a deal (numba): 004 Variations "Minimum points to lay down".

Seed ``004_083ae37bb3863d19.txt``: "in a game to 3,000 points, many rule sets ask a team with
1,500 points or more to lay down at least 75 points in cards in its first meld of each round";
VARIANTS.md lists it among the options any preset can switch.  Engine reading (docs/rules.md
E25):

- the minimum of a side for a deal is ``st.ss[side, SS_MELD_MIN]``, set from the side's match
  score before the deal (:meth:`tranca_sim.rules.Rules.first_meld_minimum`; 0 outside a match);
- the melds the side lays in the turn it first melds count together ("lay down ... in its first
  meld": the lay-down of that turn), card values only (no canasta bonus), the closed pile's
  melded top card included; once the side's melded card points reach the minimum the side is
  open and the rule is spent for the deal;
- the legal-action listing offers an opening action (a capture that melds the pile's top card, a
  new meld, an extension of a meld laid this turn) only when the engine's completion -- lay the
  first listed meld action again and again -- then reaches the minimum in the same turn.  So a
  player who starts an opening can always finish it, and may not stop melding (nor discard)
  before it is finished (:func:`must_go_on`).  An opening that only another order of the melds
  would reach is not offered: a documented limit of the listing (E25).
"""

from __future__ import annotations

from ..rules import R_MELD_RUNS, R_VALUES
from .cards import N_KINDS
from .jit import njit
from .melds import apply_meld_action, list_meld_actions, side_of
from .obs import A_CAP_EXT, A_CAP_NEW, A_CAP_RUN, A_RUN_EXT, A_RUN_NEW, act_type, act_x, act_y
from .runs import apply_run_action, list_run_actions
from .state import MS_WAITING, SC_LOG_ON, SC_OVER, SC_PILE_N, SS_MELD_MIN, SS_MORTO, SS_N_MELDS, copy_state
from .turn import after_meld, take_pile


@njit(cache=True, _nrt=False)
def side_points(st, rp, side):
    """Card points of every card ``side`` has melded this deal (no bonuses)."""
    pts = 0
    for m in range(st.ss[side, SS_N_MELDS]):
        for k in range(N_KINDS):
            c = st.mc[side, m, k]
            if c:
                pts += c * rp[R_VALUES + k]
    return pts


@njit(cache=True, _nrt=False)
def opening_pending(st, rp, side):
    """True while ``side`` has a minimum first meld this deal and has not laid it yet."""
    need = st.ss[side, SS_MELD_MIN]
    return need > 0 and side_points(st, rp, side) < need


@njit(cache=True, _nrt=False)
def must_go_on(st, rp, side):
    """True while ``side`` has started its first meld of the deal and it is short of the minimum:
    the player may not stop melding nor discard (E25)."""
    need = st.ss[side, SS_MELD_MIN]
    if need <= 0:
        return False
    pts = side_points(st, rp, side)
    return 0 < pts < need


@njit(cache=True, _nrt=False)
def _copy_unlogged(dst, src):
    """:func:`~tranca_sim.engine.state.copy_state`, and ``dst`` does not log."""
    copy_state(dst, src)
    dst.sc[SC_LOG_ON] = 0


@njit(cache=True, _nrt=False)
def _apply(scr, rp, seat, a):
    t = act_type(a)
    if t == A_RUN_NEW or t == A_RUN_EXT:
        apply_run_action(scr, rp, seat, t, act_x(a), act_y(a))
    else:
        apply_meld_action(scr, rp, seat, t, act_x(a), act_y(a))
    after_meld(scr, rp, seat)


@njit(cache=True, _nrt=False)
def completes(scr, rp, seat, acts2, need):
    """Lay the first listed meld action of ``seat`` in ``scr`` (a scratch copy, changed) again and
    again: True once the side's melded card points reach ``need``, False when nothing is left to
    lay or the deal ends first."""
    side = side_of(rp, seat)
    while True:
        if side_points(scr, rp, side) >= need:
            return True
        if scr.sc[SC_OVER] != 0:
            return False
        n = list_meld_actions(scr, rp, seat, acts2)
        if rp[R_MELD_RUNS] != 0:
            n = list_run_actions(scr, rp, seat, acts2, n)
        if n == 0:
            return False
        _apply(scr, rp, seat, acts2[0])


@njit(cache=True, _nrt=False)
def _reachable(st, rp, seat, extra):
    """Upper bound of the card points ``seat``'s side could have melded by the end of this turn:
    melded now + the hand + ``extra`` + a waiting morto (a direct pickup plays on)."""
    side = side_of(rp, seat)
    pts = side_points(st, rp, side) + extra
    for k in range(N_KINDS):
        pts += st.hand[seat, k] * rp[R_VALUES + k]
    if st.ss[side, SS_MORTO] == MS_WAITING:
        for k in range(N_KINDS):
            pts += st.morto[side, k] * rp[R_VALUES + k]
    return pts


@njit(cache=True, _nrt=False)
def filter_melds(st, rp, seat, acts, n, scr, acts2):
    """Keep in ``acts[:n]`` only the meld actions after which the side's first meld can still
    reach its minimum this turn (:func:`completes`); returns the new count.  Call it only while
    :func:`opening_pending`."""
    side = side_of(rp, seat)
    need = st.ss[side, SS_MELD_MIN]
    if _reachable(st, rp, seat, 0) < need:
        return 0
    j = 0
    for i in range(n):
        a = acts[i]
        _copy_unlogged(scr, st)
        _apply(scr, rp, seat, a)
        if completes(scr, rp, seat, acts2, need):
            acts[j] = a
            j += 1
    return j


@njit(cache=True, _nrt=False)
def filter_draws(st, rp, seat, acts, n, scr, acts2):
    """Keep in ``acts[:n]`` the draws that meld nothing (stock, an open pile) and the pile
    captures whose melded top card starts a first meld that can reach the side's minimum this
    turn; returns the new count.  Call it only while :func:`opening_pending`."""
    side = side_of(rp, seat)
    need = st.ss[side, SS_MELD_MIN]
    pile_pts = 0
    for i in range(st.sc[SC_PILE_N]):
        pile_pts += rp[R_VALUES + st.pile[i]]
    hopeless = _reachable(st, rp, seat, pile_pts) < need
    j = 0
    for i in range(n):
        a = acts[i]
        t = act_type(a)
        keep = True
        if t == A_CAP_NEW or t == A_CAP_RUN or t == A_CAP_EXT:
            keep = False
            if not hopeless:
                _copy_unlogged(scr, st)
                take_pile(scr, rp, seat, t, act_x(a), act_y(a))
                after_meld(scr, rp, seat)
                keep = completes(scr, rp, seat, acts2, need)
        if keep:
            acts[j] = a
            j += 1
    return j
