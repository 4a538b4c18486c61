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
from tranca_sim.engine.obs import A_STOCK, PUB_LEN, Obs, act
from tranca_sim.engine.state import SC_DECK_N, SC_OVER, SC_SEAT, SC_STOCK_PTR, SE_HAND_N, SS_INDIRECT_SEAT
from tranca_sim.engine.turn import place_red3s
from tranca_sim.strategies.pimc_search import apply_draw, meld_phase, rollout


@njit(cache=True)
def rollout_deal(st, rp, deck, first_seat, prm, turns):
    """Deal ``deck`` (``int16[n_cards]``) with ``first_seat`` to play and play ``turns`` turns
    (0: the whole deal) with the search's rollout loop and policy parameters ``prm``."""
    setup_deal(st, rp, deck, deck.shape[0], first_seat)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, N_KINDS), np.int16)
    rngs = np.zeros((4, 4), np.uint64)
    rollout(st, rp, prm, rngs, acts, pub, hidden, turns)


@njit(cache=True)
def to_discard(st, rp, prm):
    """Start the turn of the seat to move: red 3s, a stock draw, the policy's melds (stops at its
    discard decision).  Returns False if the deal ended on the way or the hand has one card."""
    seat = st.sc[SC_SEAT]
    if st.ss[seat & 1, SS_INDIRECT_SEAT] == seat:
        st.ss[seat & 1, SS_INDIRECT_SEAT] = -1
    place_red3s(st, rp, seat)
    if st.sc[SC_STOCK_PTR] >= st.sc[SC_DECK_N]:
        return False
    apply_draw(st, rp, seat, act(A_STOCK, 0, 0))
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, N_KINDS), np.int16)
    rng = np.zeros(4, np.uint64)
    if meld_phase(st, rp, seat, prm, rng, acts, pub, hidden):
        return False
    return st.sc[SC_OVER] == 0 and st.se[seat, SE_HAND_N] > 1


def observe(st, rp, seat) -> Obs:
    """Seat ``seat``'s observation of ``st`` (its hand, the public facts, no hidden counts)."""
    pub = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, seat, pub)
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, np.zeros((2, N_KINDS), np.int16), rp)
