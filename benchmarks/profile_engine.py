"""Where a deal's time goes: cycle counters around each phase of a turn (one thread).

Usage::

    python benchmarks/profile_engine.py [--deals 20000] [--preset tranca[,buraco,...]] [--pair basic-basic[,random-random]]

A copy of the engine's turn (:func:`tranca_sim.engine.deal.play_turn`) with the CPU's cycle counter
(``llvm.readcyclecounter``) read around each phase: listing the legal draws and melds, the
strategy's choices, the observation a strategy receives (``fill_pub``), applying the draw, the
melds and the discard, and, per deal, the shuffle and deal, and the scoring.  It checks that the
copy plays exactly the engine's deals (same scores as ``simulate_chunk``), then prints cycles and
microseconds per deal for each phase, their share, how many listings found nothing, and the
counter's own overhead.  The copy must follow ``play_turn`` when the engine's turn changes (the
check says when it no longer does).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from tranca_sim import schema as S
from tranca_sim.engine import deal as D
from tranca_sim.engine import kernel as K
from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.obs import (
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
    A_STOCK,
    PUB_LEN,
    Obs,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.observe import refresh_pub
from tranca_sim.engine.rng import STREAM_SEAT0, STREAM_SHUFFLE, seed_stream
from tranca_sim.engine.state import (
    END_STOCK_OUT,
    END_TURN_LIMIT,
    EV_TURN,
    SC_DECK_N,
    SC_NO_DISCARD,
    SC_OVER,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_ILLEGAL,
    SE_MELDED,
    SE_MELDED_NOW,
    SS_INDIRECT_SEAT,
    SS_MELD_MIN,
    new_state_nb,
)
from tranca_sim.rules import (
    R_FIRST_REDRAW,
    R_MAX_TURNS,
    R_MELD_RUNS,
    R_MORTOS_FACE_UP,
    R_N_JOKERS,
    R_STOCK_OUT,
)

PHASES = (
    "setup (shuffle, deal)",
    "list draws",
    "observation (fill_pub)",
    "choose draw",
    "apply draw (stock/pile, red 3s, morto)",
    "list melds",
    "choose meld",
    "apply meld (+ morto, going out)",
    "choose discard",
    "apply discard",
    "score and record",
)
(P_SETUP, P_LDRAW, P_OBS, P_CDRAW, P_ADRAW, P_LMELD, P_CMELD, P_AMELD, P_CDISC, P_ADISC, P_SCORE) = range(11)
N_PH = len(PHASES)
C_EMPTY_MELD_LISTS = N_PH  # extra counters: meld listings that found nothing, all meld listings, turns
C_MELD_LISTS = N_PH + 1
C_TURNS = N_PH + 2


@intrinsic
def cycles(typingctx):
    """The CPU's cycle counter (``llvm.readcyclecounter``: rdtsc on x86)."""

    def codegen(context, builder, sig, args):
        fn = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(ir.IntType(64), []), "llvm.readcyclecounter"
        )
        return builder.call(fn, [])

    return types.int64(), codegen


@njit
def _obs(st, rp, seat, pub, hidden, tm):
    t = cycles()
    D.fill_pub(st, rp, seat, pub)
    tm[P_OBS] += cycles() - t
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else hidden
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)


@njit
def _obs_again(st, rp, seat, pub, hidden, tm):
    """:func:`_obs` later in the same turn: the engine's ``refresh_pub`` (what a turn changes)."""
    t = cycles()
    refresh_pub(st, rp, seat, pub)
    tm[P_OBS] += cycles() - t
    morto = st.morto if rp[R_MORTOS_FACE_UP] != 0 else hidden
    return Obs(st.hand[seat], pub, st.pile, st.mh, st.mc, st.taken, morto, rp)


@njit
def play_turn_timed(st, rp, seat, sid, prm, rng, acts, pub, hidden, pack, scr, acts2, tm):
    """:func:`tranca_sim.engine.deal.play_turn` (check off) with the phase timers."""
    tm[C_TURNS] += 1
    side = seat & 1
    if st.ss[side, SS_INDIRECT_SEAT] == seat:
        st.ss[side, SS_INDIRECT_SEAT] = -1
    st.sc[SC_NO_DISCARD] = 0
    D.log_event(st, EV_TURN, seat, 0, 0)
    t = cycles()
    D.place_red3s(st, rp, seat)
    tm[P_ADRAW] += cycles() - t
    if rp[R_STOCK_OUT] != 0 and not D.morto_to_stock(st, rp, seat):
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    t = cycles()
    n = D.list_draw_actions(st, rp, seat, acts)
    if rp[R_MELD_RUNS] != 0:
        n = D.list_run_captures(st, rp, seat, acts, n)
    if st.ss[side, SS_MELD_MIN] > 0 and D.opening_pending(st, rp, side):
        n = D.filter_draws(st, rp, seat, acts, n, scr, acts2)
    tm[P_LDRAW] += cycles() - t
    if n == 0:
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    o = _obs(st, rp, seat, pub, hidden, tm)
    t = cycles()
    i = D.choose_draw(sid, prm, o, acts, n, rng)
    tm[P_CDRAW] += cycles() - t
    if i < 0 or i >= n:
        st.se[seat, SE_ILLEGAL] += 1
        i = 0
    a = acts[i]
    t = cycles()
    if act_type(a) == A_STOCK:
        D.draw_stock(st, seat)
        D.place_red3s(st, rp, seat)
        if rp[R_FIRST_REDRAW] != 0 and st.sc[SC_TURN] == 0:
            D._first_redraw(st, rp, seat, sid, prm, rng, pub, hidden)
    else:
        D.take_pile(st, rp, seat, act_type(a), act_x(a), act_y(a))
        if D.after_meld(st, rp, seat):
            tm[P_ADRAW] += cycles() - t
            return
    tm[P_ADRAW] += cycles() - t
    while True:
        t = cycles()
        n = D.list_meld_actions(st, rp, seat, acts)
        if rp[R_MELD_RUNS] != 0:
            n = D.list_run_actions(st, rp, seat, acts, n)
        if st.ss[side, SS_MELD_MIN] > 0 and D.opening_pending(st, rp, side):
            n = D.filter_melds(st, rp, seat, acts, n, scr, acts2)
        tm[P_LMELD] += cycles() - t
        tm[C_MELD_LISTS] += 1
        if n == 0:
            tm[C_EMPTY_MELD_LISTS] += 1
            break
        o = _obs_again(st, rp, seat, pub, hidden, tm)
        t = cycles()
        i = D.choose_meld(sid, prm, o, acts, n, rng)
        tm[P_CMELD] += cycles() - t
        if i == -1 and st.ss[side, SS_MELD_MIN] > 0 and D.must_go_on(st, rp, side):
            st.se[seat, SE_ILLEGAL] += 1
            i = 0
        if i == -1:
            break
        if i < -1 or i >= n:
            st.se[seat, SE_ILLEGAL] += 1
            if not (st.ss[side, SS_MELD_MIN] > 0 and D.must_go_on(st, rp, side)):
                break
            i = 0
        a = acts[i]
        ty = act_type(a)
        t = cycles()
        if ty == A_RUN_NEW or ty == A_RUN_EXT or ty == A_RUN_SWAP:
            D.apply_run_action(st, rp, seat, ty, act_x(a), act_y(a))
        else:
            D.apply_meld_action(st, rp, seat, ty, act_x(a), act_y(a))
        over = D.after_meld(st, rp, seat)
        tm[P_AMELD] += cycles() - t
        if over:
            return
    if st.se[seat, SE_HAND_N] == 0:
        if D.can_go_out(st, rp, side):
            D.go_out(st, rp, seat)
        else:
            st.sc[SC_OVER] = END_STOCK_OUT
        return
    if st.se[seat, SE_HAND_N] == 1 and not D.can_empty(st, rp, side):
        st.sc[SC_OVER] = END_STOCK_OUT
        return
    o = _obs_again(st, rp, seat, pub, hidden, tm)
    t = cycles()
    k = D.choose_discard(sid, prm, o, rng)
    tm[P_CDISC] += cycles() - t
    t = cycles()
    if not D.legal_discard(st, rp, seat, k):
        st.se[seat, SE_ILLEGAL] += 1
        for kk in range(N_KINDS):
            if D.legal_discard(st, rp, seat, kk):
                k = kk
                break
    D.discard(st, rp, seat, k)
    tm[P_ADISC] += cycles() - t


@njit
def profile_nb(rp, sids, prm, master_seed, count, out_side, out_deal, tm):
    pack_n = 104 + rp[R_N_JOKERS]
    st = new_state_nb(1, 2)
    deck = np.zeros(pack_n, np.int16)
    srng = np.zeros(4, np.uint64)
    rngs = np.zeros((4, 4), np.uint64)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, N_KINDS), np.int16)
    pack = K._pack_counts(rp)
    scr = new_state_nb(1, 2)
    acts2 = np.zeros(512, np.int32)
    mscore = np.zeros(st.ss.shape[0], np.int64)
    max_turns = rp[R_MAX_TURNS]
    for d in range(count):
        t = cycles()
        seed_stream(srng, master_seed, d, STREAM_SHUFFLE)
        K.shuffle_deck(srng, pack_n, deck)
        for seat in range(4):
            seed_stream(rngs[seat], master_seed, d, STREAM_SEAT0 + seat)
        D.setup_deal(st, rp, deck, pack_n, d % 4)
        K.set_match_facts(st, rp, mscore, 0)
        tm[P_SETUP] += cycles() - t
        while st.sc[SC_OVER] == 0:
            if st.sc[SC_TURN] >= max_turns:
                st.sc[SC_OVER] = END_TURN_LIMIT
                break
            seat = st.sc[SC_SEAT]
            play_turn_timed(
                st, rp, seat, sids[seat], prm[seat], rngs[seat], acts, pub, hidden, pack, scr, acts2, tm
            )
            st.se[seat, SE_MELDED] |= st.se[seat, SE_MELDED_NOW]
            st.se[seat, SE_MELDED_NOW] = 0
            st.sc[SC_TURN] += 1
            st.sc[SC_SEAT] = (seat + 1) % 4
        t = cycles()
        D.lay_red3s_at_end(st, rp)
        K.record(st, rp, out_side[d], out_deal[d])
        tm[P_SCORE] += cycles() - t
    return st.sc[SC_STOCK_PTR] <= st.sc[SC_DECK_N]


@njit
def overhead_nb(n, tm):
    """Cycles of one empty timed section (the counter's cost, subtracted from nothing: reported)."""
    for _ in range(n):
        t = cycles()
        tm[0] += cycles() - t


def _profile(rules, pair: str, n: int) -> bool:
    """Profile ``n`` deals of ``rules`` with ``pair`` (``A-B``); print the table; True if the timed copy
    played the engine's deals."""
    rp = rules.to_array()
    sids, prm, _ = K._seat_arrays(tuple(pair.split("-")), rules)
    out_side = np.zeros((n, 2, S.OS_LEN), np.int32)
    out_deal = np.zeros((n, S.OD_LEN), np.int32)
    tm = np.zeros(N_PH + 3, np.int64)
    t0 = time.perf_counter()
    profile_nb(rp, sids, prm, np.uint64(1), 10, out_side[:10], out_deal[:10], tm)  # compile (first call only)
    print(f"compiled (or loaded) the timed copy in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    tm[:] = 0
    w = time.perf_counter()
    c0 = time.process_time()
    profile_nb(rp, sids, prm, np.uint64(1), n, out_side, out_deal, tm)
    cpu = time.process_time() - c0
    w = time.perf_counter() - w
    ref = K.simulate_chunk(rules, tuple(pair.split("-")), 1, 0, n)
    got = K.columns_from_outputs(out_side, out_deal, 0)
    same = all(np.array_equal(ref[c], got[c]) for c in ref)
    oh = np.zeros(1, np.int64)
    overhead_nb(10, oh)
    oh[:] = 0
    overhead_nb(1_000_000, oh)
    per_timer = oh[0] / 1_000_000
    total = tm[:N_PH].sum()
    cyc_per_us = total / (cpu * 1e6) if cpu > 0 else float("nan")
    print(f"{rules.name} {pair}, {n} deals on one thread: {n / cpu:,.0f} deals per CPU-second "
          f"({cpu / n * 1e6:.1f} us a deal; wall {w:.1f} s); same deals as simulate_chunk: {same}")  # fmt: skip
    print(f"{'phase':42s} {'cycles/deal':>12s} {'us/deal':>8s} {'share':>6s}")
    for i, name in enumerate(PHASES):
        c = tm[i] / n
        print(f"{name:42s} {c:12,.0f} {c / cyc_per_us:8.2f} {tm[i] / total:6.1%}")
    turns = tm[C_TURNS] / n
    print(f"turns a deal {turns:.1f}; meld listings a deal {tm[C_MELD_LISTS] / n:.1f}, "
          f"of which found nothing {tm[C_EMPTY_MELD_LISTS] / n:.1f}")  # fmt: skip
    print(f"the counter costs about {per_timer:.0f} cycles a section, about {16 * turns:.0f} sections a deal "
          f"({16 * turns * per_timer / (total / n):.0%} of the timed cycles)")  # fmt: skip
    print(f"load average {os.getloadavg()[0]:.2f}\n")
    return same


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--preset", default="tranca", help="a preset or a comma list (one compile for all)")
    ap.add_argument("--pair", default="basic-basic", help="a pairing A-B or a comma list")
    args = ap.parse_args()

    from tranca_sim.rules import PRESETS, get_preset

    names = [p.strip() for p in args.preset.split(",") if p.strip()]
    for name in names:
        if name not in PRESETS:
            ap.error(f"--preset {name}: unknown preset (known: {', '.join(PRESETS)})")
        rules = get_preset(name)
        if rules.n_sides != 2 or rules.n_seats != 4:
            ap.error(f"--preset {name}: the timed copy plays partnership tables (4 seats, 2 sides) only")
    pairs = [p.strip() for p in args.pair.split(",") if p.strip()]
    for pair in pairs:
        if len(pair.split("-")) != 2:
            ap.error(f"--pair {pair}: give two strategy names joined by '-', e.g. basic-random")
    ok = True
    for name in names:
        for pair in pairs:
            ok &= _profile(get_preset(name), pair, args.deals)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
