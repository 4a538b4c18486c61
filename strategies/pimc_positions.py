"""Positions for the search player's tests and benchmarks: a deal played some turns into its
middle by the rollout policy, a turn advanced to its discard decision, and a seat's observation.

Shared by ``tests/test_search.py`` and ``benchmarks/bench_search.py`` (they built the same
positions each with its own copy).  Not used by the engine's own play.
"""

from __future__ import annotations

import numpy as np

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.deal import fill_pub, setup_deal
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import side_of
from tranca_sim.engine.obs import A_STOCK, PUB_LEN, Obs, act
from tranca_sim.engine.rng import seed_stream
from tranca_sim.engine.state import SC_OVER, SC_SEAT, SE_HAND_N, SS_INDIRECT_SEAT, copy_state, new_state_nb
from tranca_sim.engine.turn import legal_discard, morto_to_stock, place_red3s
from tranca_sim.rules import R_MORTOS_FACE_UP, R_N_SIDES
from tranca_sim.schema import OS_LEN
from tranca_sim.strategies.pimc_search import (
    DEFAULT_POLICY,
    PH_DISCARD,
    POLICY_PRM,
    _play_candidate,
    apply_draw,
    evaluate,
    meld_phase,
    rollout,
)


@njit(cache=True)
def rollout_deal(st, rp, deck, first_seat, prm, turns):
    """Deal ``deck`` (``int16[n_cards]``) with ``first_seat`` to play and play ``turns`` turns
    (0: the whole deal) with the search's rollout loop and policy parameters ``prm``."""
    setup_deal(st, rp, deck, deck.shape[0], first_seat)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((rp[R_N_SIDES], N_KINDS), np.int16)
    rngs = np.zeros((4, 4), np.uint64)
    rollout(st, rp, prm, rngs, acts, pub, hidden, turns)


@njit(cache=True)
def to_discard(st, rp, prm):
    """Start the turn of the seat to move: red 3s, a stock draw, the policy's melds (stops at its
    discard decision).  Returns False if the deal ended on the way or the hand has one card.
    An empty stock is refilled by an untaken morto where the rules say so (``stock_out = 1``)."""
    seat = st.sc[SC_SEAT]
    side = side_of(rp, seat)
    if st.ss[side, SS_INDIRECT_SEAT] == seat:
        st.ss[side, SS_INDIRECT_SEAT] = -1
    place_red3s(st, rp, seat)
    if not morto_to_stock(st, rp, seat):
        return False
    apply_draw(st, rp, seat, act(A_STOCK, 0, 0))
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((int(rp[R_N_SIDES]), N_KINDS), np.int16)
    rng = np.zeros(4, np.uint64)
    if meld_phase(st, rp, seat, prm, rng, acts, pub, hidden):
        return False
    return st.sc[SC_OVER] == 0 and st.se[seat, SE_HAND_N] > 1


def observe(st, rp, seat) -> Obs:
    """Seat ``seat``'s observation of ``st`` (its hand, the public facts, the mortos only when the
    rules deal them face up), as :func:`tranca_sim.engine.observe.player_obs` builds it."""
    pub = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, seat, pub)
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else np.zeros((int(rp[R_N_SIDES]), N_KINDS), np.int16)
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)


@njit(cache=True)
def peeking_discard(st, rp, worlds, turns, key):
    """The never-peeks test's control: the discard the search's loop chooses when every world is
    the true deal ``st`` (the other hands, the mortos and the stock order as they are), a player
    that peeks.  Candidates, rollout policy and streams as :func:`tranca_sim.strategies.pimc_search.search_choice`
    with ``key`` (no margin, no tip); returns the card kind."""
    me = st.sc[SC_SEAT]
    side = side_of(rp, me)
    n_sides = rp[R_N_SIDES]
    cand = np.zeros(N_KINDS, np.int64)
    nc = 0
    for k in range(N_KINDS):
        if legal_discard(st, rp, me, k):
            cand[nc] = k
            nc += 1
    totals = np.zeros(max(nc, 1))
    prm = POLICY_PRM[DEFAULT_POLICY].copy()
    world = new_state_nb(1, n_sides)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((n_sides, N_KINDS), np.int16)
    rngs = np.zeros((4, 4), np.uint64)
    out = np.zeros((n_sides, OS_LEN), np.int32)
    for w in range(worlds):
        for c in range(nc):
            copy_state(world, st)
            for s in range(4):
                seed_stream(rngs[s], key, w, 1 + s)
            _play_candidate(PH_DISCARD, cand[c], world, rp, me, prm, prm, rngs, acts, pub, hidden, turns, -1)
            totals[c] += evaluate(world, rp, side, out)
    return cand[np.argmax(totals[:nc])] if nc > 0 else -1
