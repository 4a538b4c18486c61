"""Same-suit runs (numba): laying, pile capture and the invariant check; the listing of the legal
run actions is :mod:`tranca_sim.engine.run_listing`.

A run is three or more cards of one suit in sequence (seed ``000_95ec226e9cdd732e.txt``
Common Variations "Tranca Carioca"; ``004_083ae37bb3863d19.txt`` How to play; VARIANTS.md
decision 6).  It lives in a meld row of type ``MT_RUN`` with its suit in ``MH_SUIT`` and its
*positions* ``MH_LO..MH_HI``: 1 = ace low (A-2-3), 2..13 = the rank, 14 = ace high
(Q-K-A); one run may go A..A (14 cards), never round the corner (K-A-2).  Each position
holds exactly one card: the natural of the suit at that position, or a wild (a 2 of any
suit, or a joker) standing for it (004: "A 2 used as a wild card stands for the missing
card").  ``MH_WMASK`` has bit ``p`` set when a wild stands at position ``p``; the 2 of the
run's suit at position 2 is natural and keeps the run clean (004, VARIANTS 1).

Decisions (docs/rules.md section 5):

- E16: with special 3s (``threes_special``, 000 Gameplay 5-6, VARIANTS 7-8) position 3 is
  closed to runs: a 3 cannot be melded, and a wild standing for it would meld that 3, so
  runs lie within positions 4..14 (4 up to the high ace); ace-low runs and the natural 2
  happen only where 3s are plain cards.
- E17: a run follows the meld limits of its preset like a set: at most ``max_wilds`` wilds
  and at least ``min_naturals`` naturals (000 Gameplay 7, VARIANTS 2).
- E18: a wild keeps the position it stands for; it is never moved, so the natural of that
  position cannot join that run (004 "stands for the missing card"; 002 "pudiendo
  subsistir cualquier carta").  Runs grow only at their ends.
- E19: several runs of one suit may lie on a side's table (two decks; VARIANTS 5); switch
  ``several_runs_per_suit``.  E18's alternative (the wild moves, ``run_wild_moves``, E21) and a
  wild on top of an unlocked closed pile taken onto a run (E15) are in
  :mod:`tranca_sim.engine.run_options`.

Actions (:mod:`tranca_sim.engine.obs`): ``A_RUN_NEW`` lays three cards, ``A_RUN_EXT`` one card
at an end; a longer run is a new run and extensions in the same turn.  A closed pile is taken
onto a run (``A_CAP_EXT``, y = end) or with a new run of the top card and two cards of the
hand (``A_CAP_RUN``), 000 Gameplay 3, VARIANTS 4.
"""

from __future__ import annotations

import numpy as np

from ..rules import (
    R_CANASTA_SIZE,
    R_MAX_WILDS,
    R_MELD_RUNS,
    R_MIN_NATURALS,
)
from .cards import JOKER
from .jit import njit
from .melds import (
    apply_meld_action,
    count_canastas,
    is_wild,
    list_draw_actions,
    list_meld_actions,
    open_meld,
    side_of,
)
from .obs import (
    A_CAP_EXT,
    A_CAP_RUN,
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
    C_JOKER,
    C_NAT,
    END_LOW,
    RUN_GAP,
    RUN_TOP_NAT,
)
from .run_index import index_runs, note_run, own_two_home
from .run_listing import (  # noqa: F401  (re-exported: the run listing is named from this module too)
    hand_bits,
    list_run_actions,
    list_run_captures,
    min_pos,
    run_capture_top,
)
from .run_options import (
    apply_run_swap,
    wild_top_onto_run,
)
from .run_shapes import (
    _lay_gap_run,
    _take_run_wild,
    pos_kind,
)
from .state import (
    EV_CARD,
    EV_EXTEND_RUN,
    EV_NEW_RUN,
    MH_GREW,
    MH_HI,
    MH_LO,
    MH_N,
    MH_NAT,
    MH_SUIT,
    MH_WILD,
    MH_WMASK,
    MT_RUN,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED_NOW,
    SS_CANASTAS,
    SS_CLEAN,
    log_event,
)

# ---- laying runs -----------------------------------------------------------------


@njit(cache=True, inline="always")
def _canasta(st, rp, side, m):
    """(is a canasta, is a clean canasta) for run ``m`` of ``side`` as
    :func:`~tranca_sim.engine.melds.count_canastas` counts it (a run is never a black-3 set)."""
    c = st.mh[side, m, MH_N] >= rp[R_CANASTA_SIZE]
    return c, c and st.mh[side, m, MH_WILD] == 0


@njit(cache=True, inline="always")
def _recount(st, rp, side, m, was, was_clean):
    """:func:`~tranca_sim.engine.melds.count_canastas` after a change to run ``m`` alone: the side's
    counts (kept up to date after every change) move by what ``m`` became against what it was
    (``was``, ``was_clean`` from :func:`_canasta` before the change), without a pass over every
    meld of the side."""
    now, now_clean = _canasta(st, rp, side, m)
    st.ss[side, SS_CANASTAS] += (1 if now else 0) - (1 if was else 0)
    st.ss[side, SS_CLEAN] += (1 if now_clean else 0) - (1 if was_clean else 0)


@njit(cache=True, _nrt=False)
def _fill_run(hand, se, mh, mc, s, p, y, skip):
    """Fill positions p..p+2 of a new run from the hand (all but offset ``skip``, already
    placed): naturals first, then the wild of variant ``y``; returns the three kinds in position
    order (for the log).  The rows as for :func:`_take_run_wild`."""
    wo = (y - 1) // 2 if y > 0 else -1
    k0 = -1
    k1 = -1
    k2 = -1
    for o in range(3):
        if o == skip or o == wo:
            continue
        k = pos_kind(s, p + o)
        hand[k] -= 1
        se[SE_HAND_N] -= 1
        mc[k] += 1  # _put_natural, written in place
        mh[MH_N] += 1
        mh[MH_NAT] += 1
        if o == 0:
            k0 = k
        elif o == 1:
            k1 = k
        else:
            k2 = k
    if wo >= 0:
        k = _take_run_wild(
            hand, se, mh, mc, np.int64(s), np.int64(p + wo), (y - 1) % 2 == 1
        )  # int64: one compile
        if wo == 0:
            k0 = k
        elif wo == 1:
            k1 = k
        else:
            k2 = k
    return (k0, k1, k2)


@njit(cache=True, _nrt=False, forceinline=True)  # inlined into play_turn (issue 8)
def apply_run_action(st, rp, seat, a_type, x, y):
    """Lay the run action (type, x, y) for ``seat``; returns the meld row used."""
    if a_type == A_RUN_SWAP:
        return apply_run_swap(st, rp, seat, x, y)
    side = side_of(rp, seat)
    st.se[seat, SE_MELDED_NOW] = 1
    if a_type == A_RUN_NEW:
        s = x // 16
        p = x % 16
        m = open_meld(st, side, MT_RUN, 0)  # _open_run, written in place
        st.mh[side, m, MH_SUIT] = s
        st.mh[side, m, MH_LO] = p
        st.mh[side, m, MH_HI] = p + 2
        st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
        if y >= RUN_GAP:
            _lay_gap_run(st, rp, seat, side, m, s, p, y - RUN_GAP, np.int64(-1))
            return m
        ks = _fill_run(
            st.hand[seat], st.se[seat], st.mh[side, m], st.mc[side, m], s, p, y, np.int64(-1)
        )  # one compile
        log_event(st, EV_NEW_RUN, seat, m, 3)
        for k in ks:
            log_event(st, EV_CARD, seat, k, m)
        own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
        _recount(st, rp, side, m, False, False)  # count_canastas, for the new run
        note_run(rp, st.ss[side], st.mh[side, m], m)
        return m
    m = x
    s = st.mh[side, m, MH_SUIT]
    end = y // 4
    c = y % 4
    p = st.mh[side, m, MH_LO] - 1 if end == END_LOW else st.mh[side, m, MH_HI] + 1
    was, was_clean = _canasta(st, rp, side, m)
    if c == C_NAT:
        k = pos_kind(s, p)
        st.hand[seat, k] -= 1
        st.se[seat, SE_HAND_N] -= 1
        st.mc[side, m, k] += 1  # _put_natural, written in place
        st.mh[side, m, MH_N] += 1
        st.mh[side, m, MH_NAT] += 1
    else:
        k = _take_run_wild(
            st.hand[seat], st.se[seat], st.mh[side, m], st.mc[side, m], np.int64(s), np.int64(p), c == C_JOKER
        )
    if end == END_LOW:
        st.mh[side, m, MH_LO] = p
    else:
        st.mh[side, m, MH_HI] = p
    st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
    log_event(st, EV_EXTEND_RUN, seat, m, k + 64 * end)
    own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
    _recount(st, rp, side, m, was, was_clean)  # count_canastas, for the one run that changed
    note_run(rp, st.ss[side], st.mh[side, m], m)
    return m


@njit(cache=True, _nrt=False)
def run_top_card(st, rp, seat, a_type, x, y, t):
    """Meld the taken pile's top card ``t`` into a run: onto an end of run ``x``
    (``A_CAP_EXT``, y = end) or in a new run (``A_CAP_RUN``) with two cards of the hand; a wild
    top card (``lock_by_wild`` off) is melded as a wild (:func:`~.run_options.wild_top_onto_run`)."""
    side = side_of(rp, seat)
    if is_wild(t):
        own_place = False  # the suit's own 2 at position 2: a natural (004)
        if a_type == A_CAP_RUN:
            own_place = y >= RUN_TOP_NAT
        elif t != JOKER and y == END_LOW:
            own_place = st.mh[side, x, MH_SUIT] * 13 + 1 == t and st.mh[side, x, MH_LO] == 3
        if not own_place:
            return wild_top_onto_run(st, rp, seat, a_type, x, y, t)
        if a_type == A_CAP_RUN:
            y -= RUN_TOP_NAT
    st.se[seat, SE_MELDED_NOW] = 1
    if a_type == A_CAP_EXT:
        m = x
        if y == END_LOW:
            st.mh[side, m, MH_LO] -= 1
        else:
            st.mh[side, m, MH_HI] += 1
        st.mc[side, m, t] += 1  # _put_natural, written in place
        st.mh[side, m, MH_N] += 1
        st.mh[side, m, MH_NAT] += 1
        st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
        log_event(st, EV_EXTEND_RUN, seat, m, t + 64 * y)
        own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
        count_canastas(st, rp, side)
        note_run(rp, st.ss[side], st.mh[side, m], m)
        return m
    s = x // 16
    p = x % 16
    r = t % 13 + 1
    q = r
    if r == 1:
        q = 1 if p == 1 else 14
    m = open_meld(st, side, MT_RUN, 0)  # _open_run, written in place
    st.mh[side, m, MH_SUIT] = s
    st.mh[side, m, MH_LO] = p
    st.mh[side, m, MH_HI] = p + 2
    st.mh[side, m, MH_GREW] = st.sc[SC_TURN]
    st.mc[side, m, t] += 1  # _put_natural, written in place
    st.mh[side, m, MH_N] += 1
    st.mh[side, m, MH_NAT] += 1
    if y >= RUN_GAP:
        _lay_gap_run(st, rp, seat, side, m, s, p, y - RUN_GAP, np.int64(q - p))
        return m
    ks = _fill_run(st.hand[seat], st.se[seat], st.mh[side, m], st.mc[side, m], s, p, y, q - p)
    log_event(st, EV_NEW_RUN, seat, m, 3)
    for o in range(3):
        log_event(st, EV_CARD, seat, t if o == q - p else ks[o], m)
    own_two_home(st.mh[side, m], st.mc[side, m])  # the clean reading of its cards
    count_canastas(st, rp, side)
    note_run(rp, st.ss[side], st.mh[side, m], m)
    return m


@njit(cache=True, _nrt=False)
def run_errors(st, rp, side, m):
    """Violations of the run rules by run ``m`` of ``side`` (0 when legal): one card per
    position lo..hi, the natural of the suit there or a wild standing at a position marked in
    ``MH_WMASK``, the positions inside the preset's range (E16), the wild and natural limits
    (E17), and the header's counts."""
    s = st.mh[side, m, MH_SUIT]
    lo = st.mh[side, m, MH_LO]
    hi = st.mh[side, m, MH_HI]
    wm = st.mh[side, m, MH_WMASK]
    if s < 0 or s > 3 or lo < min_pos(rp) or hi > 14 or hi - lo < 2:
        return 1
    span = ((1 << (hi + 1)) - 1) ^ ((1 << lo) - 1)
    errors = 1 if wm & ~span else 0
    wild = 0
    for p in range(lo, hi + 1):
        if wm & (1 << p):
            wild += 1
    extra = 0
    n = 0
    for k in range(53):
        c = st.mc[side, m, k]
        n += c
        exp = 0
        if k < 52 and k // 13 == s:
            r = k % 13 + 1
            if r != 1:
                exp = 1 if lo <= r <= hi and not wm & (1 << r) else 0
            else:
                exp = (1 if lo == 1 and not wm & 2 else 0) + (1 if hi == 14 and not wm & (1 << 14) else 0)
        if c < exp:
            errors += 1
        elif c > exp:
            if not is_wild(k):
                errors += 1
            extra += c - exp
    nat = hi - lo + 1 - wild
    if extra != wild or n != hi - lo + 1 or n != st.mh[side, m, MH_N] or wild != st.mh[side, m, MH_WILD]:
        errors += 1
    if nat != st.mh[side, m, MH_NAT] or wild > rp[R_MAX_WILDS] or nat < rp[R_MIN_NATURALS]:
        errors += 1
    return errors


# ---- the whole listing, sets and runs (tests and tools) ---------------------------
# The engine's play_turn (deal.py) calls the parts itself, behind a test of R_MELD_RUNS: one more
# call level passing the State here cost ``tranca`` about 14% of its deals/s (measured).


@njit(cache=True, _nrt=False)
def list_draws(st, rp, seat, acts):
    """Every legal draw of ``seat`` (:func:`~tranca_sim.engine.melds.list_draw_actions`, then the
    run captures when the preset melds runs) into ``acts``; returns their count."""
    n = list_draw_actions(st, rp, seat, acts)
    if rp[R_MELD_RUNS] != 0:
        n = list_run_captures(st, rp, seat, acts, n)
    return n


@njit(cache=True, _nrt=False)
def list_melds(st, rp, seat, acts):
    """Every legal meld-phase action of ``seat`` (sets, black-3 set, runs) into ``acts``
    (``int32[>=512]``); returns their count.  The sides' run index is rebuilt first
    (:func:`~tranca_sim.engine.run_index.index_runs`), so a position whose meld rows were written by
    hand is listed right."""
    n = list_meld_actions(st, rp, seat, acts)
    if rp[R_MELD_RUNS] != 0:
        index_runs(st, rp)
        n = list_run_actions(st, rp, seat, acts, n)
    return n


@njit(cache=True, _nrt=False)
def apply_meld(st, rp, seat, a_type, x, y):
    """Lay a meld-phase action of either kind; returns the meld row used."""
    if a_type == A_RUN_NEW or a_type == A_RUN_EXT or a_type == A_RUN_SWAP:
        return apply_run_action(st, rp, seat, a_type, x, y)
    return apply_meld_action(st, rp, seat, a_type, x, y)
