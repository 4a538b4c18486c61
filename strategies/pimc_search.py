"""Determinised Monte Carlo search for one decision (numba): the engine side of the ``search`` strategy.

Method ("perfect information Monte Carlo", PIMC): at a decision the player
samples ``worlds`` full deals consistent with what it has seen (its
:data:`~tranca_sim.engine.obs.Obs`), plays every legal choice out in each world
with a fixed rollout policy for every seat, and takes the choice with the
best mean score difference (own side minus the other) at the end of the deal,
or at a static evaluation after ``turns`` more turns.  Ginsberg (2001), "GIB:
Imperfect information in a computationally challenging game", JAIR 14; Long,
Sturtevant, Buro & Furtak (2010), "Understanding the success of perfect
information Monte Carlo sampling in game tree search", AAAI; compare
information-set MCTS, Cowling, Powley & Whitehouse (2012), IEEE TCIAIG 4(2).

**It never peeks.**  :func:`search_choice` receives only the Obs, the legal
actions and the strategy's own random stream.  :func:`~tranca_sim.strategies.pimc_worlds.sample_world`
(world sampling, a module of its own) builds each world from the Obs alone: the player's hand, the melds, the pile, the red 3s,
the cards each seat took from the pile (``Obs.taken``), the hand sizes, the
morto states and the stock size are copied; the cards nobody has seen are
shuffled into the other hands, the waiting mortos and the stock, the cards a
seat took from the pile and that are seen nowhere else going first into that
seat's hand.  Two deals with the same Obs and the same stream give the same
worlds and the same decision, whatever their hidden cards.

Rollouts replay the engine's own turn functions (:mod:`tranca_sim.engine.turn`,
:mod:`~tranca_sim.engine.melds`, :mod:`~tranca_sim.engine.runs`) in
:func:`rollout_turn`, a copy of :func:`tranca_sim.engine.deal.play_turn` that
asks the rollout policy directly instead of the strategy switch (the switch
holds the search player itself); ``tests/test_search.py`` checks that the copy
plays whole deals exactly as the engine does.

Scope: every preset: 4 seats in two partnerships or 2 or 3 solo players (each
with an own morto), same-rank melds and runs, face-down or face-up mortos, the
first player's redraw (003: searched as a decision of its own), the indirect
morto paid when void (002), and an untaken morto becoming the stock when the
stock runs out (``stock_out = 1``: the sampled worlds keep each waiting morto's
cards where the engine takes them from).  Not played: a minimum first meld
(``first_meld_min``, refused by :func:`tranca_sim.strategies.pimc.check_rules`).  Not
reconstructed from the Obs (not in it): whether a seat has melded before this
turn (for em cima: taken as "its side has melds") and which seat holds an
indirectly taken morto not yet played (guessed from hand sizes).
"""

from __future__ import annotations

import numpy as np

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.contract import N_PARAMS
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import (
    apply_meld_action,
    can_empty,
    can_go_out,
    list_draw_actions,
    list_meld_actions,
    side_of,
)
from tranca_sim.engine.obs import (
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
    A_STOCK,
    PUB_LEN,
    PUB_REDRAW_CARD,
    PUB_SEAT,
    act_type,
    act_x,
    act_y,
    may_discard,
)
from tranca_sim.engine.observe import player_obs as _obs
from tranca_sim.engine.rng import next_u64, seed_stream
from tranca_sim.engine.runs import apply_run_action, list_run_actions, list_run_captures
from tranca_sim.engine.scratch import sys_free, sys_malloc, view
from tranca_sim.engine.state import (
    END_STOCK_OUT,
    END_TURN_LIMIT,
    MAX_SEATS,
    MAX_SIDES,
    MAXM,
    MH_LEN,
    PACK_MAX,
    SC_DECK_N,
    SC_LEN,
    SC_NO_DISCARD,
    SC_OVER,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_LEN,
    SE_MELDED,
    SE_MELDED_NOW,
    SS_INDIRECT_SEAT,
    SS_LEN,
    State,
    copy_state,
)
from tranca_sim.engine.turn import (
    after_meld,
    discard,
    draw_stock,
    go_out,
    lay_red3s_at_end,
    legal_discard,
    morto_to_stock,
    place_red3s,
    redraw,
    redraw_card,
    score_deal,
    take_pile,
)
from tranca_sim.rules import (
    R_FIRST_REDRAW,
    R_MAX_TURNS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_N_SEATS,
    R_N_SIDES,
    R_STOCK_OUT,
    R_THREES_SPECIAL,
)
from tranca_sim.schema import OS_LEN, OS_SCORE
from tranca_sim.strategies import basic as _basic
from tranca_sim.strategies.pimc_worlds import sample_world

PH_DRAW = 0
PH_MELD = 1
PH_DISCARD = 2
PH_REDRAW = 3  # the first player's redraw (003): keep the drawn card (0) or throw it back (1)


def _policies():
    """Rollout policies: names and ``basic`` parameter rows.  Row 0 is ``basic`` with its
    defaults; when the ``tuned`` parameter set exists (``strategies/tuned.py``, the parameters
    ``tranca-sim tune`` found, ``strategies/tuned/tranca.toml``) it is row 1 and the default."""
    names = ["basic"]
    rows = [[float(p[1]) for p in _basic.PARAMS]]
    try:
        from tranca_sim.strategies import tuned
    except ImportError:
        tuned = None
    if tuned is not None and hasattr(tuned, "params_row"):
        names.append("tuned")
        rows.append([float(x) for x in tuned.params_row("tranca")[: len(_basic.PARAMS)]])
    prm = np.zeros((len(rows), N_PARAMS), np.float64)
    for i, r in enumerate(rows):
        prm[i, : len(r)] = r
    return tuple(names), prm


#: ``search:policy=i`` plays rollouts with ``basic``'s functions and row i (a numba constant:
#: ``tranca_sim/_cache.py`` hashes ``strategies/tuned/*.toml`` so new tuned values recompile)
POLICY_NAMES, POLICY_PRM = _policies()
DEFAULT_POLICY = len(POLICY_NAMES) - 1

#: the search player's tip (:mod:`tranca_sim.strategies.pimc`): ``TIP_SLOTS`` triples (a parameter index of
#: ``basic``, its value with the tip, its value without; index -1: none) from parameter ``TIP_AT``
TIP_AT = 5
TIP_SLOTS = 2

MAX_CAND = 64  # candidates per decision (meld actions are at most ~40, discard kinds 53)


# ---- the rollout policy ------------------------------------------------------------


@njit(cache=True, _nrt=False)
def meld_phase(st, rp, seat, prm, rng, acts, pub, hidden):
    """The meld phase of ``seat``'s turn under the rollout policy (``basic`` with ``prm``), as in
    :func:`tranca_sim.engine.deal.play_turn`.  Returns True if the deal is over."""
    # runs only (open buraco): no set can be listed, so the sets' listing is skipped, as play_turn does
    sets_listed = rp[R_MELD_SETS] != 0 or rp[R_THREES_SPECIAL] != 0
    while True:
        n = list_meld_actions(st, rp, seat, acts) if sets_listed else 0
        if rp[R_MELD_RUNS] != 0:
            n = list_run_actions(st, rp, seat, acts, n)
        if n == 0:
            return False
        i = _basic.choose_meld(prm, _obs(st, rp, seat, pub, hidden), acts, n, rng)
        if i < 0 or i >= n:
            return False
        if apply_meld(st, rp, seat, acts[i]):
            return True


@njit(cache=True, _nrt=False)
def apply_meld(st, rp, seat, a):
    """Lay meld action ``a`` for ``seat``; True if the deal is then over (went out)."""
    t = act_type(a)
    if t == A_RUN_NEW or t == A_RUN_EXT or t == A_RUN_SWAP:
        apply_run_action(st, rp, seat, t, act_x(a), act_y(a))
    else:
        apply_meld_action(st, rp, seat, t, act_x(a), act_y(a))
    return after_meld(st, rp, seat)


@njit(cache=True, _nrt=False)
def discard_phase(st, rp, seat, prm, rng, pub, hidden):
    """The discard of ``seat``'s turn under the rollout policy, as in ``play_turn``."""
    side = side_of(rp, seat)
    if st.se[seat, SE_HAND_N] == 0:
        if can_go_out(st, rp, side):
            go_out(st, rp, seat)
        else:
            st.sc[SC_OVER] = END_STOCK_OUT
        return
    if st.se[seat, SE_HAND_N] == 1 and not can_empty(st, rp, side):
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    k = _basic.choose_discard(prm, _obs(st, rp, seat, pub, hidden), rng)
    if not legal_discard(st, rp, seat, k):
        for kk in range(N_KINDS):
            if legal_discard(st, rp, seat, kk):
                k = kk
                break
    discard(st, rp, seat, k)


@njit(cache=True, _nrt=False)
def apply_draw(st, rp, seat, a):
    """Draw action ``a`` (the stock or a way to take the pile); True if the deal is then over."""
    if act_type(a) == A_STOCK:
        draw_stock(st, seat)
        place_red3s(st, rp, seat)
        return False
    take_pile(st, rp, seat, act_type(a), act_x(a), act_y(a))
    return after_meld(st, rp, seat)


@njit(cache=True, _nrt=False)
def policy_redraw(st, rp, seat, prm, rng, pub, hidden):
    """The first player's redraw (003, ``first_player_redraw``) under the rollout policy, as
    :func:`tranca_sim.engine.deal._first_redraw`: the caller has drawn from the stock on turn 0."""
    k = redraw_card(st, seat)
    if k >= 0:
        obs = _obs(st, rp, seat, pub, hidden)
        pub[PUB_REDRAW_CARD] = k
        if _basic.choose_redraw(prm, obs, rng) == 1:
            redraw(st, rp, seat, k)


@njit(cache=True, _nrt=False)
def rollout_turn(st, rp, seat, prm, rng, acts, pub, hidden):
    """One whole turn of ``seat`` under the rollout policy: :func:`tranca_sim.engine.deal.play_turn`
    without the log and the checks, asking ``basic`` (with ``prm``) instead of the strategy switch.
    An empty stock is refilled by an untaken morto where the rules say so (``stock_out = 1``)."""
    side = side_of(rp, seat)
    if st.ss[side, SS_INDIRECT_SEAT] == seat:
        st.ss[side, SS_INDIRECT_SEAT] = -1
    st.sc[SC_NO_DISCARD] = 0
    place_red3s(st, rp, seat)
    if rp[R_STOCK_OUT] != 0 and st.sc[SC_STOCK_PTR] >= st.sc[SC_DECK_N] and not morto_to_stock(st, rp, seat):
        st.sc[SC_OVER] = END_STOCK_OUT  # 004: stock and mortos out, the deal ends (VARIANTS 14)
        return
    n = list_draw_actions(st, rp, seat, acts)
    if rp[R_MELD_RUNS] != 0:
        n = list_run_captures(st, rp, seat, acts, n)
    if n == 0:
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    i = _basic.choose_draw(prm, _obs(st, rp, seat, pub, hidden), acts, n, rng)
    if i < 0 or i >= n:
        i = 0
    if apply_draw(st, rp, seat, acts[i]):
        return
    if act_type(acts[i]) == A_STOCK and rp[R_FIRST_REDRAW] != 0 and st.sc[SC_TURN] == 0:
        policy_redraw(st, rp, seat, prm, rng, pub, hidden)  # 003 first-player redraw
    if meld_phase(st, rp, seat, prm, rng, acts, pub, hidden):
        return
    discard_phase(st, rp, seat, prm, rng, pub, hidden)


@njit(cache=True, _nrt=False)
def end_turn(st, rp, seat):
    """The bookkeeping of :func:`tranca_sim.engine.deal.play_deal` after a turn (clockwise round
    the table's ``n_seats`` players)."""
    st.se[seat, SE_MELDED] |= st.se[seat, SE_MELDED_NOW]
    st.se[seat, SE_MELDED_NOW] = 0
    st.sc[SC_TURN] += 1
    st.sc[SC_SEAT] = seat + 1 if seat + 1 < rp[R_N_SEATS] else 0


@njit(cache=True, _nrt=False, inline="always")  # issue 9: one level fewer above the rollout turn
def rollout(st, rp, prm, rngs, acts, pub, hidden, turns):
    """Play on from ``st`` under the rollout policy until the deal ends or ``turns`` turns have
    been played (``turns <= 0``: to the end).  ``rngs`` ``uint64[4, 4]``: one stream per seat
    (rows past the table's ``n_seats`` unused)."""
    rollout_sides(st, rp, prm, prm, 0, rngs, acts, pub, hidden, turns)


@njit(cache=True, _nrt=False, inline="always")
def rollout_sides(st, rp, prm, tprm, side, rngs, acts, pub, hidden, turns):
    """:func:`rollout` with the seats of ``side`` playing the parameter row ``tprm`` (the search
    player's own side following its tip) and the others ``prm``.  A deal that ends here ends as in
    :func:`tranca_sim.engine.deal.play_deal`: every red 3 still held is laid in its side's area (E4:
    a seat whose turn never came, or a morto taken by the discard whose taker never played again)."""
    max_turns = rp[R_MAX_TURNS]
    played = 0
    while st.sc[SC_OVER] == 0:
        if turns > 0 and played >= turns:
            return
        if st.sc[SC_TURN] >= max_turns:
            st.sc[SC_OVER] = END_TURN_LIMIT
            break
        seat = st.sc[SC_SEAT]
        if side_of(rp, seat) == side:
            rollout_turn(st, rp, seat, tprm, rngs[seat], acts, pub, hidden)
        else:
            rollout_turn(st, rp, seat, prm, rngs[seat], acts, pub, hidden)
        end_turn(st, rp, seat)
        played += 1
    lay_red3s_at_end(st, rp)


@njit(cache=True, _nrt=False)
def evaluate(st, rp, side, out):
    """Score difference ``side`` minus the other side (three solo players: minus the mean of the
    other two): the deal's score if it is over, else the static evaluation "the score if the deal
    stopped now" (melds, canasta bonuses, red 3s, a waiting morto's penalty, cards in hand).  A
    deal over has had its held red 3s laid by the rollout (:func:`rollout_sides`), as the engine
    lays them."""
    score_deal(st, rp, out)
    ns = rp[R_N_SIDES]
    others = 0.0
    for sd in range(ns):
        if sd != side:
            others += out[sd, OS_SCORE]
    return out[side, OS_SCORE] - others / (ns - 1)


# ---- the decision ----------------------------------------------------------------------


@njit(cache=True, inline="always")
def _state_view(p, off):
    """A State over the block at ``p`` from byte ``off``; returns (state, next offset)."""
    deck = view(p, off, (PACK_MAX,), np.int16)
    off += 2 * PACK_MAX
    hand = view(p, off, (MAX_SEATS, N_KINDS), np.int16)
    off += 2 * MAX_SEATS * N_KINDS
    morto = view(p, off, (MAX_SIDES, N_KINDS), np.int16)
    off += 2 * MAX_SIDES * N_KINDS
    pile = view(p, off, (PACK_MAX,), np.int16)
    off += 2 * PACK_MAX
    mh = view(p, off, (MAX_SIDES, MAXM, MH_LEN), np.int16)
    off += 2 * MAX_SIDES * MAXM * MH_LEN
    mc = view(p, off, (MAX_SIDES, MAXM, N_KINDS), np.int16)
    off += 2 * MAX_SIDES * MAXM * N_KINDS
    red3 = view(p, off, (MAX_SIDES, N_KINDS), np.int16)
    off += 2 * MAX_SIDES * N_KINDS
    taken = view(p, off, (MAX_SEATS, N_KINDS), np.int16)
    off += 2 * MAX_SEATS * N_KINDS
    off = (off + 7) // 8 * 8
    sc = view(p, off, (SC_LEN,), np.int32)
    off += 4 * SC_LEN
    ss = view(p, off, (MAX_SIDES, SS_LEN), np.int32)
    off += 4 * MAX_SIDES * SS_LEN
    se = view(p, off, (MAX_SEATS, SE_LEN), np.int32)
    off += 4 * MAX_SEATS * SE_LEN
    log = view(p, off, (2,), np.int32)
    off += 8
    off = (off + 7) // 8 * 8
    return State(deck, hand, morto, pile, mh, mc, red3, taken, sc, ss, se, log), off


#: one State of :func:`_state_view` (side rows for every table: MAX_SIDES)
STATE_BYTES = 8 * ((2 * (2 * PACK_MAX + 2 * MAX_SEATS * N_KINDS + 2 * MAX_SIDES * N_KINDS + MAX_SIDES * MAXM * (MH_LEN + N_KINDS)) + 7) // 8) + 8 * ((4 * (SC_LEN + MAX_SIDES * SS_LEN + MAX_SEATS * SE_LEN) + 8 + 7) // 8)  # fmt: skip
SCRATCH_BYTES = (
    2 * STATE_BYTES  # the world, the world played on
    + 4 * 512  # acts
    + 4 * PUB_LEN
    + 2 * MAX_SIDES * N_KINDS  # hidden (zeros)
    + 8 * N_PARAMS  # the rollout policy's parameters
    + 8 * N_PARAMS  # the same with the search player's tip (its own side's rollouts)
    + 8 * N_PARAMS  # the same with the tip's parameters at their values without the tip
    + 8 * 4 * 4  # rollout streams
    + 8 * 4  # world stream
    + 4 * MAX_SIDES * OS_LEN
    + 8 * MAX_CAND  # totals
    + 4 * MAX_CAND  # candidates
    + 8 * N_KINDS  # unseen
    + 2 * PACK_MAX  # pool
    + 64
)


@njit(cache=True, _nrt=False, inline="always")  # issue 9: one level fewer above the rollout turn
def _play_candidate(phase, c, st, rp, me, prm, tprm, rngs, acts, pub, hidden, turns, redraw_k):
    """Play candidate ``c`` (an action code, or for ``PH_MELD`` -1 = stop, for ``PH_DISCARD`` a
    kind, for ``PH_REDRAW`` 0 keep / 1 throw back the card drawn) for seat ``me`` in world ``st``,
    finish the turn and roll out (``me``'s side with the row ``tprm``, the others with ``prm``)."""
    over = False
    if phase == PH_DRAW:
        over = apply_draw(st, rp, me, c)
        if not over and act_type(c) == A_STOCK and rp[R_FIRST_REDRAW] != 0 and st.sc[SC_TURN] == 0:
            policy_redraw(st, rp, me, tprm, rngs[me], pub, hidden)  # 003: the first player's redraw
        if not over:
            over = meld_phase(st, rp, me, tprm, rngs[me], acts, pub, hidden)
        if not over:
            discard_phase(st, rp, me, tprm, rngs[me], pub, hidden)
    elif phase == PH_MELD:
        if c >= 0:
            over = apply_meld(st, rp, me, c)
            if not over:
                over = meld_phase(st, rp, me, tprm, rngs[me], acts, pub, hidden)
        if not over:
            discard_phase(st, rp, me, tprm, rngs[me], pub, hidden)
    elif phase == PH_REDRAW:
        if c == 1:
            redraw(st, rp, me, redraw_k)
        if not meld_phase(st, rp, me, tprm, rngs[me], acts, pub, hidden):
            discard_phase(st, rp, me, tprm, rngs[me], pub, hidden)
    else:
        discard(st, rp, me, c)
    end_turn(st, rp, me)
    rollout_sides(st, rp, prm, tprm, side_of(rp, me), rngs, acts, pub, hidden, turns)


@njit(cache=True, _nrt=False)
def search_choice(phase, search, sprm, obs, acts, n, rng):
    """The search player's answer at one decision.

    ``phase`` ``PH_DRAW`` / ``PH_MELD`` / ``PH_DISCARD`` / ``PH_REDRAW``; ``search`` False: the rollout policy's
    answer without searching; ``sprm`` the ``search`` strategy's
    parameter row (``worlds``, ``turns``, ``melds``, ``policy``, ``margin``, see
    :mod:`tranca_sim.strategies.pimc`; then the tip's slots, :data:`TIP_AT`); ``obs``, ``acts``, ``n``, ``rng`` as the engine passes them to a
    strategy.  Returns an index into ``acts[:n]`` (draw, meld; -1 = stop melding), a card kind
    (discard) or 0 / 1 (redraw: keep the card drawn / throw it back and draw again).  The rollout policy's own answer is kept unless another candidate's mean over the
    worlds beats it by more than ``margin`` points; candidates are compared on the same worlds
    and the same rollout streams (common random numbers).  Draws exactly one number from ``rng``
    when it searches.

    **A tip** (restricted play, Jaffe et al., AIIDE 2012): with a tip in its row (parameters of
    the rollout policy, each with its value with the tip and without), the rollout policy with
    the tip's values gives the "own answer", its own side plays that policy in the rollouts (the
    other side the policy as it is), and wherever the policy with the tip's values and with the
    values without it disagree (the situation the tip speaks about) the tip's answer is played
    without searching.  Elsewhere the player searches.  The same player "forbidden the tip" is
    the tip's values swapped: it plays the answer without the tip where the two disagree.
    Without a tip it plays exactly as before (the same decisions, the same stream).
    """
    worlds = max(1, int(sprm[0]))
    turns = int(sprm[1])
    pol = min(max(int(sprm[3]), 0), POLICY_PRM.shape[0] - 1)
    margin = sprm[4]
    me = obs.pub[PUB_SEAT]
    rp = obs.rp
    side = side_of(rp, me)
    redraw_k = obs.pub[PUB_REDRAW_CARD] if phase == PH_REDRAW else -1
    # the rollout policy's own answer, and the candidates
    p = sys_malloc(SCRATCH_BYTES)
    base, off = _state_view(p, 0)
    st, off = _state_view(p, off)
    wacts = view(p, off, (512,), np.int32)
    off += 4 * 512
    pub = view(p, off, (PUB_LEN,), np.int32)
    off += 4 * PUB_LEN
    hidden = view(p, off, (MAX_SIDES, N_KINDS), np.int16)
    off += 2 * MAX_SIDES * N_KINDS
    off = (off + 7) // 8 * 8
    prm = view(p, off, (N_PARAMS,), np.float64)
    off += 8 * N_PARAMS
    tprm = view(p, off, (N_PARAMS,), np.float64)
    off += 8 * N_PARAMS
    oprm = view(p, off, (N_PARAMS,), np.float64)
    off += 8 * N_PARAMS
    rngs = view(p, off, (4, 4), np.uint64)
    off += 8 * 16
    wrng = view(p, off, (4,), np.uint64)
    off += 8 * 4
    totals = view(p, off, (MAX_CAND,), np.float64)
    off += 8 * MAX_CAND
    unseen = view(p, off, (N_KINDS,), np.int64)
    off += 8 * N_KINDS
    out = view(p, off, (MAX_SIDES, OS_LEN), np.int32)
    off += 4 * MAX_SIDES * OS_LEN
    cand = view(p, off, (MAX_CAND,), np.int32)
    off += 4 * MAX_CAND
    pool = view(p, off, (PACK_MAX,), np.int16)
    hidden[:] = 0
    for i in range(N_PARAMS):
        prm[i] = POLICY_PRM[pol, i]
        tprm[i] = prm[i]
        oprm[i] = prm[i]
    tipped = False  # the tip it follows (sprm[TIP_AT..]): (basic's parameter index, value, value without)
    for j in range(TIP_SLOTS):
        ti = int(sprm[TIP_AT + 3 * j])
        if 0 <= ti < N_PARAMS:
            tprm[ti] = sprm[TIP_AT + 3 * j + 1]
            oprm[ti] = sprm[TIP_AT + 3 * j + 2]
            tipped = True
    nc = 0
    own = 0
    binds = False  # the tip changes the policy's answer here: the tip decides, no search
    if phase == PH_DRAW:
        own_i = _basic.choose_draw(tprm, obs, acts, n, rng)
        if tipped:
            binds = _basic.choose_draw(oprm, obs, acts, n, rng) != own_i
        for i in range(min(n, MAX_CAND)):
            cand[nc] = acts[i]
            nc += 1
        own = own_i if 0 <= own_i < nc else 0
    elif phase == PH_MELD:
        own_i = _basic.choose_meld(tprm, obs, acts, n, rng)
        if tipped:
            binds = _basic.choose_meld(oprm, obs, acts, n, rng) != own_i
        cand[0] = -1
        nc = 1
        for i in range(min(n, MAX_CAND - 1)):
            cand[nc] = acts[i]
            nc += 1
        own = own_i + 1 if -1 <= own_i < n else 0
    elif phase == PH_REDRAW:
        own_r = _basic.choose_redraw(tprm, obs, rng)
        if tipped:
            binds = _basic.choose_redraw(oprm, obs, rng) != own_r
        cand[0] = 0
        cand[1] = 1
        nc = 2 if redraw_k >= 0 else 1
        own = 1 if own_r == 1 and nc == 2 else 0
    else:
        own_k = _basic.choose_discard(tprm, obs, rng)
        if tipped:
            binds = _basic.choose_discard(oprm, obs, rng) != own_k
        own = -1
        for k in range(N_KINDS):
            if may_discard(obs, k):
                if k == own_k:
                    own = nc
                cand[nc] = k
                nc += 1
        own = max(own, 0)
    if search and nc > 1 and not binds:
        key = next_u64(rng)
        for c in range(nc):
            totals[c] = 0.0
        for w in range(worlds):
            seed_stream(wrng, key, w, 0)
            sample_world(obs, wrng, base, unseen, pool)
            for c in range(nc):
                copy_state(st, base)
                for s in range(4):
                    seed_stream(rngs[s], key, w, 1 + s)
                _play_candidate(
                    phase, cand[c], st, rp, me, prm, tprm, rngs, wacts, pub, hidden, turns, redraw_k
                )
                totals[c] += evaluate(st, rp, side, out)
        best = own
        best_v = totals[own] + margin * worlds
        for c in range(nc):
            if totals[c] > best_v:
                best = c
                best_v = totals[c]
        own = best
    if phase == PH_DRAW or phase == PH_REDRAW:
        ans = own
    elif phase == PH_MELD:
        ans = own - 1
    else:
        ans = cand[own] if nc > 0 else -1
    sys_free(p)
    return ans
