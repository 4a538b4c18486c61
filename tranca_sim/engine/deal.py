"""One deal from the dealt pack to the score (numba).

:func:`setup_deal` deals a deck order (E2, E3), :func:`play_deal` plays turns
until the deal ends, asking the seats' strategies through the generated
switch the plugged strategies give (:mod:`tranca_sim.engine.contract`):
``strategies/_dispatch.py`` -- or, in a process that plays user strategies,
the switch :func:`tranca_sim.strategies.user.engine_dispatch` generates in the cache
directory (chosen here, before the kernels below are defined, so numba caches
them apart).  A strategy only ever receives an
:data:`~tranca_sim.engine.obs.Obs`; an answer outside the legal choices is
counted (``SE_ILLEGAL``) and replaced by the first legal choice.
"""

from __future__ import annotations

from ..rules import (
    R_FIRST_REDRAW,
    R_HAND_SIZE,
    R_MAX_TURNS,
    R_MELD_RUNS,
    R_MELD_SETS,
    R_MORTO_SIZE,
    R_N_SEATS,
    R_N_SIDES,
    R_STOCK_OUT,
    R_THREES_SPECIAL,
    R_TURN_UP,
)
from . import observe as _observe
from .cards import N_KINDS
from .contract import plugged
from .jit import njit
from .melds import (
    apply_meld_action,
    can_empty,
    can_go_out,
    is_red3,
    is_wild,
    list_draw_actions,
    list_meld_actions,
    side_of,
)
from .obs import (
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
    A_STOCK,
    PUB_REDRAW_CARD,
    act_type,
    act_x,
    act_y,
)
from .opening import filter_draws, filter_melds, must_go_on, opening_pending
from .play_facts import note_turn_end
from .runs import apply_run_action, list_run_actions, list_run_captures
from .state import (
    END_STOCK_OUT,
    END_TURN_LIMIT,
    EV_BURY,
    EV_END,
    EV_TURN,
    EV_TURN_UP,
    SC_DECK_N,
    SC_ERRORS,
    SC_FIRST_SEAT,
    SC_NO_DISCARD,
    SC_OUT_SEAT,
    SC_OVER,
    SC_PILE_N,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_ILLEGAL,
    SE_INIT_BLACK3,
    SE_INIT_JOKERS,
    SE_INIT_RED3,
    SE_INIT_WILDS,
    SE_MELDED,
    SE_MELDED_NOW,
    SS_FIRST_CANASTA,
    SS_INDIRECT_SEAT,
    SS_MELD_MIN,
    SS_MORTO_AT,
    SS_MORTO_SEAT,
    SS_MORTO_TURN,
    log_event,
    reset_state,
)
from .turn import (
    after_meld,
    count_errors,
    discard,
    draw_stock,
    go_out,
    lay_red3s_at_end,
    legal_discard,
    morto_to_stock,
    place_red3s,
    redraw,
    redraw_card,
    take_pile,
)

# before any kernel of this module is defined: may move numba's cache (strategies/user.py)
choose_draw, choose_meld, choose_discard, choose_redraw = plugged().engine_dispatch()

# what the player to move sees (tranca_sim/engine/observe.py: also used by the search's rollouts)
fill_pub = _observe.fill_pub
_obs = _observe.player_obs
_obs_again = _observe.player_obs_again  # later in the same turn: only what a turn changes
_obs_meld = _observe.player_obs_meld  # after melds of this meld phase: only what a meld changes


@njit(cache=True, _nrt=False)
def setup_deal(st, rp, deck, deck_n, first_seat):
    """Deal ``deck[:deck_n]`` (kinds, position 0 = top) into ``st``.

    Hands one card at a time clockwise from ``first_seat`` (000 Setup 3, E2)
    to the table's ``n_seats`` players, then side A's morto, side B's morto
    (and side C's with three solo players), the rest is the stock; the first
    discard is turned up with wilds and red 3s buried mid-stock (000 Setup
    6-7, decision 13, E3).
    """
    reset_state(st)
    for i in range(deck_n):
        st.deck[i] = deck[i]
    st.sc[SC_DECK_N] = deck_n
    hs = rp[R_HAND_SIZE]
    n_seats = rp[R_N_SEATS]
    n_sides = rp[R_N_SIDES]
    p = 0
    seat = first_seat
    for j in range(n_seats * hs):
        st.hand[seat, st.deck[p]] += 1
        p += 1
        seat = seat + 1 if seat + 1 < n_seats else 0  # clockwise (no division in the hot loop)
    for side in range(n_sides):
        st.ss[side, SS_MORTO_AT] = p  # its cards stay at deck[p:p + morto_size] in deal order (E22)
        for j in range(rp[R_MORTO_SIZE]):
            st.morto[side, st.deck[p]] += 1
            p += 1
    for seat in range(n_seats):
        h = st.hand[seat]
        st.se[seat, SE_HAND_N] = hs
        st.se[seat, SE_INIT_JOKERS] = h[52]
        st.se[seat, SE_INIT_WILDS] = h[52] + h[1] + h[14] + h[27] + h[40]
        st.se[seat, SE_INIT_RED3] = h[15] + h[28]
        st.se[seat, SE_INIT_BLACK3] = h[2] + h[41]
    if rp[R_TURN_UP] != 0:
        special = rp[R_THREES_SPECIAL] != 0
        for _ in range(deck_n):
            if p >= deck_n:
                break
            k = st.deck[p]
            if is_wild(k) or (special and is_red3(k)):
                h = (deck_n - p - 1) // 2  # cards left above the buried one
                if h == 0:
                    break
                for i in range(p, p + h):
                    st.deck[i] = st.deck[i + 1]
                st.deck[p + h] = k
                log_event(st, EV_BURY, -1, k, h)
            else:
                st.pile[0] = k
                st.sc[SC_PILE_N] = 1
                log_event(st, EV_TURN_UP, -1, k, 0)
                p += 1
                break
    st.sc[SC_STOCK_PTR] = p
    st.sc[SC_SEAT] = first_seat
    st.sc[SC_FIRST_SEAT] = first_seat
    st.sc[SC_OUT_SEAT] = -1
    for side in range(n_sides):
        st.ss[side, SS_MORTO_TURN] = -1
        st.ss[side, SS_MORTO_SEAT] = -1
        st.ss[side, SS_INDIRECT_SEAT] = -1
        st.ss[side, SS_FIRST_CANASTA] = -1


@njit(cache=True, _nrt=False, forceinline=True)
def _check(st, rp, pack, check):
    if check:
        st.sc[SC_ERRORS] += count_errors(st, rp, pack)


@njit(cache=True, _nrt=False)
def _first_redraw(st, rp, seat, sid, prm, rng, pub, hidden):
    """003 (``first_player_redraw``, VARIANTS 13, E20): the first player, on the deal's first turn,
    after drawing from the stock, may throw the drawn card on the pile and draw once more.  The
    strategy decides (``choose_redraw``: 1 throw back and draw again, 0 keep; any other answer is
    counted as illegal and keeps the card)."""
    k = redraw_card(st, seat)
    if k < 0:
        return
    obs = _obs(st, rp, seat, pub, hidden)
    pub[PUB_REDRAW_CARD] = k
    c = choose_redraw(sid, prm, obs, rng)
    if c == 1:
        redraw(st, rp, seat, k)
    elif c != 0:
        st.se[seat, SE_ILLEGAL] += 1


# issue 9: IR-inlined into play_deal, its only caller in the engine, so the deal's State and the
# turn's other arrays are passed once a deal (to play_deal) instead of once a turn
@njit(cache=True, _nrt=False, inline="always")
def play_turn(st, rp, seat, sid, prm, rng, acts, pub, hidden, pack, check, scr, acts2):
    """Play one turn of ``seat``: red 3s, draw, melds, discard (000 Gameplay 1-12).

    ``scr`` (a State) and ``acts2`` (``int32[512]``) are scratch space for the minimum first meld
    (004, E25: :mod:`tranca_sim.engine.opening`), used only while the side's minimum is pending."""
    side = side_of(rp, seat)
    if st.ss[side, SS_INDIRECT_SEAT] == seat:
        st.ss[side, SS_INDIRECT_SEAT] = -1  # the indirectly taken morto is now in play
    st.sc[SC_NO_DISCARD] = 0
    log_event(st, EV_TURN, seat, 0, 0)
    place_red3s(st, rp, seat)
    _check(st, rp, pack, check)
    # ---- draw: stock, or the pile (E8: with the stock empty only the pile) ----
    # morto_to_stock's own first test made here: the call (which passes the whole State) only when
    # the stock is empty (issue 8: every turn of buraco, stock_out = 1)
    if rp[R_STOCK_OUT] != 0 and st.sc[SC_STOCK_PTR] >= st.sc[SC_DECK_N] and not morto_to_stock(st, rp, seat):
        st.sc[SC_OVER] = END_STOCK_OUT  # 004: stock and mortos out, the deal ends there (VARIANTS 14)
        return
    n = list_draw_actions(st, rp, seat, acts)
    if rp[R_MELD_RUNS] != 0:
        n = list_run_captures(st, rp, seat, acts, n)
    if st.ss[side, SS_MELD_MIN] > 0 and opening_pending(st, rp, side):
        n = filter_draws(st, rp, seat, acts, n, scr, acts2)
    if n == 0:
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    i = choose_draw(sid, prm, _obs(st, rp, seat, pub, hidden), acts, n, rng)
    if i < 0 or i >= n:
        st.se[seat, SE_ILLEGAL] += 1
        i = 0
    a = acts[i]
    # pub holds fill_pub's facts from before the draw; after a stock draw (and its red 3s) only what
    # refresh_pub_meld writes has changed, so the later choices refresh that much (issue 9); after the
    # first player's redraw or a capture of the pile, the first later choice refreshes everything
    refreshed = False
    if act_type(a) == A_STOCK:
        draw_stock(st, seat)
        place_red3s(st, rp, seat)
        refreshed = True
        if rp[R_FIRST_REDRAW] != 0 and st.sc[SC_TURN] == 0:
            _first_redraw(st, rp, seat, sid, prm, rng, pub, hidden)
            refreshed = False
    else:
        take_pile(st, rp, seat, act_type(a), act_x(a), act_y(a))
        if after_meld(st, rp, seat):
            _check(st, rp, pack, check)
            return
    _check(st, rp, pack, check)
    # ---- melds ----
    # runs only (open buraco): no set or black-3 set can be listed, so the sets' listing (a pass over
    # the hand's 13 ranks) is not made (issue 8)
    sets_listed = rp[R_MELD_SETS] != 0 or rp[R_THREES_SPECIAL] != 0
    while True:
        n = list_meld_actions(st, rp, seat, acts) if sets_listed else 0
        if rp[R_MELD_RUNS] != 0:
            n = list_run_actions(st, rp, seat, acts, n)
        if st.ss[side, SS_MELD_MIN] > 0 and opening_pending(st, rp, side):
            n = filter_melds(st, rp, seat, acts, n, scr, acts2)
        if n == 0:
            break
        obs = _obs_meld(st, rp, seat, pub, hidden) if refreshed else _obs_again(st, rp, seat, pub, hidden)
        refreshed = True
        i = choose_meld(sid, prm, obs, acts, n, rng)
        if i == -1 and st.ss[side, SS_MELD_MIN] > 0 and must_go_on(st, rp, side):
            st.se[seat, SE_ILLEGAL] += 1  # E25: a first meld short of the minimum must be finished
            i = 0
        if i == -1:
            break
        if i < -1 or i >= n:
            st.se[seat, SE_ILLEGAL] += 1
            if not (st.ss[side, SS_MELD_MIN] > 0 and must_go_on(st, rp, side)):
                break
            i = 0
        a = acts[i]
        t = act_type(a)
        if t == A_RUN_NEW or t == A_RUN_EXT or t == A_RUN_SWAP:
            apply_run_action(st, rp, seat, t, act_x(a), act_y(a))
        else:
            apply_meld_action(st, rp, seat, t, act_x(a), act_y(a))
        over = after_meld(st, rp, seat)
        _check(st, rp, pack, check)
        if over:
            return
    # ---- discard ----
    if check and st.ss[side, SS_MELD_MIN] > 0 and must_go_on(st, rp, side):
        st.sc[SC_ERRORS] += 1  # E25: a first meld short of the minimum (the listing should prevent it)
    if st.se[seat, SE_HAND_N] == 0:
        # a morto taken directly that held only red 3s, with no stock left to replace them
        if can_go_out(st, rp, side):
            go_out(st, rp, seat)
        else:
            st.sc[SC_OVER] = END_STOCK_OUT
        return
    if st.se[seat, SE_HAND_N] == 1 and not can_empty(st, rp, side):
        # E8: one card, may not empty the hand, nothing to draw: the player cannot play
        if check and st.sc[SC_STOCK_PTR] < st.sc[SC_DECK_N]:
            st.sc[SC_ERRORS] += 1
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    obs = _obs_meld(st, rp, seat, pub, hidden) if refreshed else _obs_again(st, rp, seat, pub, hidden)
    k = choose_discard(sid, prm, obs, rng)
    if not legal_discard(st, rp, seat, k):
        # a strategy that names an illegal card is counted and overruled: the first legal kind
        st.se[seat, SE_ILLEGAL] += 1
        for kk in range(N_KINDS):
            if legal_discard(st, rp, seat, kk):
                k = kk
                break
    discard(st, rp, seat, k)
    _check(st, rp, pack, check)


@njit(cache=True, _nrt=False)  # issue 9: a library of its own, with the turn inlined (see above)
def play_deal(st, rp, sids, prm, rngs, acts, pub, hidden, pack, check, scr, acts2):
    """Play the dealt position in ``st`` to its end.

    ``sids`` ``int64[4]`` strategy id per seat, ``prm`` ``float64[4, N_PARAMS]``,
    ``rngs`` ``uint64[4, 4]`` per-seat strategy streams (rows past the table's
    ``n_seats`` unused), ``scr``/``acts2`` scratch space (:func:`play_turn`).  Turns go
    clockwise round the ``n_seats`` players.  Afterwards
    ``st.sc[SC_OVER]`` holds the END_* reason and every red 3 still held has been laid
    in its side's area (E4; not a logged action: the end of the deal implies it).
    """
    max_turns = rp[R_MAX_TURNS]
    n_seats = rp[R_N_SEATS]
    while st.sc[SC_OVER] == 0:
        if st.sc[SC_TURN] >= max_turns:
            st.sc[SC_OVER] = END_TURN_LIMIT
            break
        seat = st.sc[SC_SEAT]
        play_turn(st, rp, seat, sids[seat], prm[seat], rngs[seat], acts, pub, hidden, pack, check, scr, acts2)
        note_turn_end(st, rp, seat)
        st.se[seat, SE_MELDED] |= st.se[seat, SE_MELDED_NOW]
        st.se[seat, SE_MELDED_NOW] = 0
        st.sc[SC_TURN] += 1
        st.sc[SC_SEAT] = seat + 1 if seat + 1 < n_seats else 0
    lay_red3s_at_end(st, rp)  # E4: red 3s still held are laid now (a seat that never played)
    _check(st, rp, pack, check)
    log_event(st, EV_END, -1, st.sc[SC_OVER], st.sc[SC_OUT_SEAT])
