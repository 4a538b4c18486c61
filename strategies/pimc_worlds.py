"""The worlds of the search player (numba): one full deal consistent with what the player has seen.

:func:`sample_world` is the only place a world is made (the search player's decisions,
:mod:`tranca_sim.strategies.pimc_search`, and the position analyser, :mod:`tranca_sim.analyse_kernel`).
It reads nothing but the player's :data:`~tranca_sim.engine.obs.Obs` and its random stream: the
never-peeks promise of ``tests/test_search.py`` rests on it.
"""

from __future__ import annotations

from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.jit import njit
from tranca_sim.engine.melds import count_canastas, is_red3, side_of
from tranca_sim.engine.obs import (
    PUB_HAND_N,
    PUB_MELDED_NOW,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_NO_DISCARD,
    PUB_PILE_N,
    PUB_RED3,
    PUB_REDRAWN,
    PUB_SEAT,
    PUB_STOCK_N,
    PUB_TURN,
)
from tranca_sim.engine.rng import randbelow
from tranca_sim.engine.run_index import note_run
from tranca_sim.engine.state import (
    MH_TYPE,
    MS_INDIRECT,
    MS_WAITING,
    MT_RUN,
    SC_DECK_N,
    SC_FIRST_SEAT,
    SC_LOG_ON,
    SC_NO_DISCARD,
    SC_OUT_SEAT,
    SC_PILE_N,
    SC_REDRAWN,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED,
    SE_MELDED_NOW,
    SS_INDIRECT_SEAT,
    SS_MORTO,
    SS_MORTO_AT,
    SS_MORTO_SEAT,
    SS_MORTO_TURN,
    SS_N_MELDS,
    SS_RED3,
    copy2d,
    copy3d,
    reset_state,
)
from tranca_sim.rules import R_MELD_RUNS, R_MORTO_SIZE, R_MORTOS_FACE_UP, R_N_JOKERS, R_N_SEATS, R_N_SIDES


@njit(cache=True, _nrt=False)
def sample_world(obs, rng, st, unseen, pool):
    """Fill ``st`` with one full deal consistent with ``obs`` (hidden cards drawn with ``rng``).

    ``unseen`` ``int64[N_KINDS]`` and ``pool`` ``int16[PACK_MAX]`` are scratch; ``st`` has
    :data:`~tranca_sim.engine.state.MAX_SIDES` side rows (any table).  Returns the number of
    unseen cards dealt.  Reads nothing but ``obs``: the other hands, the waiting face-down
    mortos and the stock are a uniform deal of the cards not seen (the pack of the rules, 104
    cards and ``n_jokers`` jokers, minus the player's hand, the melds, the pile and the red 3s
    laid), except that each seat's hand first gets the cards it took from the pile that are seen
    nowhere else (up to its hand size), and red 3s go to the mortos and the stock (a hand never
    keeps one past its turn).  The table's ``n_seats`` hands and ``n_sides`` mortos (one a
    partnership or solo player) are the observed sizes.  Where an untaken morto becomes the
    stock when the stock runs out (``stock_out = 1``), each waiting morto's cards also lie in
    ``deck`` after the stock, where :func:`tranca_sim.engine.turn.morto_to_stock` finds them.
    """
    rp = obs.rp
    pub = obs.pub
    me = pub[PUB_SEAT]
    n_seats = rp[R_N_SEATS]
    n_sides = rp[R_N_SIDES]
    reset_state(st)
    st.sc[SC_LOG_ON] = 0  # a sampled world is never logged
    for k in range(N_KINDS):
        unseen[k] = 2 if k < 52 else rp[R_N_JOKERS]
        unseen[k] -= obs.hand[k]
        st.hand[me, k] = obs.hand[k]
    copy3d(st.mh, obs.mh)
    copy3d(st.mc, obs.mc)
    copy2d(st.taken, obs.taken)
    for sd in range(n_sides):
        for m in range(pub[PUB_N_MELDS + sd]):
            for k in range(N_KINDS):
                unseen[k] -= obs.mc[sd, m, k]
    pn = pub[PUB_PILE_N]
    for i in range(pn):
        st.pile[i] = obs.pile[i]
        unseen[obs.pile[i]] -= 1
    for sd in range(n_sides):
        for _ in range(pub[PUB_RED3 + sd]):
            k = 15 if unseen[15] > 0 else 28
            unseen[k] -= 1
            st.red3[sd, k] += 1
    face_up = rp[R_MORTOS_FACE_UP] != 0
    for sd in range(n_sides):
        if pub[PUB_MORTO + sd] == MS_WAITING:
            if face_up:
                for k in range(N_KINDS):
                    st.morto[sd, k] = obs.morto[sd, k]
                    unseen[k] -= obs.morto[sd, k]
    n_hands = 0
    for j in range(1, n_seats):
        s = (me + j) % n_seats
        room = pub[PUB_HAND_N + s]
        for k in range(N_KINDS):
            if room == 0:
                break
            c = min(obs.taken[s, k], unseen[k], room)
            if c > 0:
                st.hand[s, k] += c
                unseen[k] -= c
                room -= c
        n_hands += room
    n = 0
    for k in range(N_KINDS):
        for _ in range(unseen[k]):
            if n < pool.shape[0]:
                pool[n] = k
                n += 1
    for i in range(n - 1, 0, -1):  # Fisher-Yates
        j = randbelow(rng, i + 1)
        t = pool[i]
        pool[i] = pool[j]
        pool[j] = t
    h = min(n_hands, n)
    nxt = h
    for i in range(h):  # red 3s out of the hands: swap with the next non-red-3 card further on
        if is_red3(pool[i]):
            while nxt < n and is_red3(pool[nxt]):
                nxt += 1
            if nxt < n:
                t = pool[i]
                pool[i] = pool[nxt]
                pool[nxt] = t
                nxt += 1
    p = 0
    for j in range(1, n_seats):
        s = (me + j) % n_seats
        have = 0
        for k in range(N_KINDS):
            have += st.hand[s, k]
        for _ in range(pub[PUB_HAND_N + s] - have):
            if p < n:
                st.hand[s, pool[p]] += 1
                p += 1
    stock_n = pub[PUB_STOCK_N]
    d = stock_n  # the waiting mortos: counts, and their cards in deck after the stock's
    for sd in range(n_sides):
        if pub[PUB_MORTO + sd] == MS_WAITING:
            st.ss[sd, SS_MORTO_AT] = d
            if face_up:
                for k in range(N_KINDS):
                    for _ in range(st.morto[sd, k]):
                        st.deck[d] = k
                        d += 1
            else:
                for _ in range(rp[R_MORTO_SIZE]):
                    if p < n:
                        st.morto[sd, pool[p]] += 1
                        st.deck[d] = pool[p]
                        p += 1
                        d += 1
    for i in range(stock_n):  # the stock: deck[0:stock_n], top first
        if p < n:
            st.deck[i] = pool[p]
            p += 1
    st.sc[SC_STOCK_PTR] = 0
    st.sc[SC_DECK_N] = stock_n
    st.sc[SC_PILE_N] = pn
    turn = pub[PUB_TURN]
    st.sc[SC_TURN] = turn
    st.sc[SC_SEAT] = me
    st.sc[SC_FIRST_SEAT] = (me - turn) % n_seats
    st.sc[SC_OUT_SEAT] = -1
    st.sc[SC_REDRAWN] = pub[PUB_REDRAWN] + 1
    nd = pub[PUB_NO_DISCARD]
    st.sc[SC_NO_DISCARD] = nd + 1 if nd >= 0 else 0
    for sd in range(n_sides):
        st.ss[sd, SS_MORTO] = pub[PUB_MORTO + sd]
        st.ss[sd, SS_MORTO_TURN] = -1
        st.ss[sd, SS_MORTO_SEAT] = -1
        st.ss[sd, SS_RED3] = pub[PUB_RED3 + sd]
        st.ss[sd, SS_N_MELDS] = pub[PUB_N_MELDS + sd]
        st.ss[sd, SS_INDIRECT_SEAT] = -1
        count_canastas(st, rp, sd)
        if rp[R_MELD_RUNS] != 0:
            for m in range(pub[PUB_N_MELDS + sd]):  # the listing's run index (run_index.index_runs)
                if st.mh[sd, m, MH_TYPE] == MT_RUN:
                    note_run(rp, st.ss[sd], st.mh[sd, m], m)
        if pub[PUB_MORTO + sd] == MS_INDIRECT:
            # a seat holding exactly a morto's worth of cards that has not played since taking it
            # by its discard: the seats after the player up to its own previous turn
            for j in range(1, n_seats):
                s = (me - j) % n_seats
                if side_of(rp, s) == sd and pub[PUB_HAND_N + s] == rp[R_MORTO_SIZE]:
                    st.ss[sd, SS_INDIRECT_SEAT] = s
                    break
    for s in range(n_seats):
        st.se[s, SE_HAND_N] = pub[PUB_HAND_N + s]
        st.se[s, SE_MELDED] = 1 if pub[PUB_N_MELDS + side_of(rp, s)] > 0 else 0
    st.se[me, SE_MELDED_NOW] = pub[PUB_MELDED_NOW]
    return n


__all__ = ["sample_world"]
