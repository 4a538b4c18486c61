"""The analyser's compiled part: every candidate of one decision played out on the same sampled
worlds, each outcome kept (not only the mean the search player keeps).

It talks to the search player's machinery (:mod:`tranca_sim.strategies.pimc_search`): the worlds are
:func:`~tranca_sim.strategies.pimc_worlds.sample_world` (from the observation alone: it never sees hidden
cards), a candidate is played and rolled out to the end of the deal by
:func:`~tranca_sim.strategies.pimc_search._play_candidate`, and the streams are seeded as
:func:`~tranca_sim.strategies.pimc_search.search_choice` seeds them (world ``w`` of key ``key``: stream 0 for
the world, 1 + seat for each seat's rollout choices), so every candidate meets the same worlds and
the same rollout streams (common random numbers).
"""

from __future__ import annotations

import numpy as np

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import side_of
from tranca_sim.engine.obs import PUB_LEN, PUB_SEAT
from tranca_sim.engine.rng import seed_stream
from tranca_sim.engine.state import (
    MAX_SEATS,
    MAX_SIDES,
    MS_WAITING,
    PACK_MAX,
    SC_OUT_SEAT,
    SC_TURN,
    SS_CAPTURES,
    SS_MORTO,
    copy_state,
)
from tranca_sim.rules import R_N_SIDES
from tranca_sim.schema import OS_LEN
from tranca_sim.strategies.pimc_search import _play_candidate, evaluate
from tranca_sim.strategies.pimc_worlds import sample_world

#: the outcome columns of one candidate in one world
O_DIFF = 0  # points: own side minus the other (three players: minus the two others' mean), at the end
O_WE_OUT = 1  # 1 if the player's side went out
O_THEY_OUT = 2  # 1 if the other side (three players: another player) went out
O_OUR_MORTO = 3  # 1 if the player's side took its morto
O_THEIR_MORTO = 4  # 1 if the other side took its morto (three players: another player took theirs)
O_THEIR_PILE = 5  # 1 if the other side (another player) took the pile at least once after the decision
O_OUR_PILE = 6  # 1 if the player's side took the pile after the decision (this draw included)
O_TURNS = 7  # turns played after the decision
N_OUT = 8


@njit(cache=True, nogil=True)  # threads play worlds side by side (tranca_sim.analyse.play_out)
def play_worlds(phase, obs, cands, prm, key, w0, w1, base, st, res):
    """Fill ``res[w - w0, c, :]`` (``float64[w1 - w0, len(cands), N_OUT]``) with the outcomes of
    candidate ``cands[c]`` in world ``w`` for ``w`` in ``w0..w1-1``: the phase's choice (``phase``
    ``PH_DRAW`` / ``PH_MELD`` / ``PH_DISCARD`` of :mod:`tranca_sim.strategies.pimc_search`) played for the
    seat to move, the rest of its turn and the deal to its end by the rollout policy (row
    ``prm`` for every seat).  ``base`` and ``st`` are scratch states."""
    rp = obs.rp
    me = obs.pub[PUB_SEAT]
    side = side_of(rp, me)
    n_sides = rp[R_N_SIDES]
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((MAX_SIDES, N_KINDS), np.int16)
    rngs = np.zeros((MAX_SEATS, 4), np.uint64)
    wrng = np.zeros(4, np.uint64)
    unseen = np.zeros(N_KINDS, np.int64)
    pool = np.zeros(PACK_MAX, np.int16)
    out = np.zeros((MAX_SIDES, OS_LEN), np.int32)
    caps = np.zeros(MAX_SIDES, np.int32)
    for w in range(w0, w1):
        seed_stream(wrng, key, w, 0)
        sample_world(obs, wrng, base, unseen, pool)
        for sd in range(n_sides):
            caps[sd] = base.ss[sd, SS_CAPTURES]
        t0 = base.sc[SC_TURN]
        for c in range(cands.shape[0]):
            copy_state(st, base)
            for s in range(MAX_SEATS):
                seed_stream(rngs[s], key, w, 1 + s)
            _play_candidate(phase, cands[c], st, rp, me, prm, prm, rngs, acts, pub, hidden, 0, -1)
            r = res[w - w0, c]
            r[O_DIFF] = evaluate(st, rp, side, out)
            o = st.sc[SC_OUT_SEAT]
            r[O_WE_OUT] = 1.0 if o >= 0 and side_of(rp, o) == side else 0.0
            r[O_THEY_OUT] = 1.0 if o >= 0 and side_of(rp, o) != side else 0.0
            r[O_OUR_MORTO] = 1.0 if st.ss[side, SS_MORTO] != MS_WAITING else 0.0
            r[O_OUR_PILE] = 1.0 if st.ss[side, SS_CAPTURES] > caps[side] else 0.0
            r[O_THEIR_MORTO] = 0.0
            r[O_THEIR_PILE] = 0.0
            for sd in range(n_sides):
                if sd != side:
                    if st.ss[sd, SS_MORTO] != MS_WAITING:
                        r[O_THEIR_MORTO] = 1.0
                    if st.ss[sd, SS_CAPTURES] > caps[sd]:
                        r[O_THEIR_PILE] = 1.0
            r[O_TURNS] = st.sc[SC_TURN] - t0
