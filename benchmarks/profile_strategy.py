"""What a strategy's choices cost, and an old build of ``basic`` against the new one, call by call.

Usage::

    python benchmarks/profile_strategy.py [--old ROOT] [--deals 20000] [--preset tranca]
                                          [--pair basic-basic] [--strategy basic]

Plays the deals of ``simulate_chunk`` (one thread) with a copy of the engine's turn
(:func:`tranca_sim.engine.deal.play_turn`, as ``profile_engine.py``) and, at each choice the engine
asks of a seat playing ``--strategy``, times with the CPU's cycle counter:

- ``null``: a compiled function with the same arguments that returns at once (what passing the
  player's :data:`~tranca_sim.engine.obs.Obs` and the other arguments costs);
- ``old`` / ``new``: the strategy's ``choose_*`` called directly, from ``ROOT/strategies/<name>.py``
  (``--old``, e.g. a checkout of main) and from this tree; called in alternating order, and every
  answer of the two compared (they must be identical: ``mismatches``).

The game follows ``new``'s answers (every seat must play ``--strategy``); the deals are checked to be
exactly ``simulate_chunk``'s.  The functions are called directly, not through the strategy switch
``strategies/_dispatch.py`` the engine goes through (that would compile every strategy again here).
Prints cycles per call and per deal for each, and the calls a deal.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np
from numba import njit

from benchmarks.profile_engine import cycles
from tranca_sim import schema as S
from tranca_sim.engine import deal as D
from tranca_sim.engine import kernel as K
from tranca_sim.engine.cards import N_KINDS
from tranca_sim.engine.obs import A_RUN_EXT, A_RUN_NEW, A_RUN_SWAP, A_STOCK, PUB_LEN, act_type, act_x, act_y
from tranca_sim.engine.observe import player_obs
from tranca_sim.engine.rng import STREAM_SEAT0, STREAM_SHUFFLE, seed_stream
from tranca_sim.engine.state import (
    END_STOCK_OUT,
    END_TURN_LIMIT,
    EV_TURN,
    SC_FIRST_SEAT,
    SC_NO_DISCARD,
    SC_OVER,
    SC_SEAT,
    SC_TURN,
    SE_HAND_N,
    SE_ILLEGAL,
    SE_MELDED,
    SE_MELDED_NOW,
    SS_INDIRECT_SEAT,
    SS_MELD_MIN,
    new_state_nb,
)
from tranca_sim.rules import R_FIRST_REDRAW, R_MAX_TURNS, R_MELD_RUNS, R_N_JOKERS, R_STOCK_OUT

CHOICES = ("draw", "meld", "discard")
WAYS = ("null", "old", "new")
# tm[choice, way] cycles; cnt[choice] calls; cnt[3 + choice] mismatches old/new
Z, O, N = range(3)


def _load(root: Path, name: str, alias: str):
    spec = importlib.util.spec_from_file_location(alias, root / "strategies" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[alias] = mod
    spec.loader.exec_module(mod)
    return mod


CAP = 100_000  # a call timed longer than this was preempted (the machine is shared): dropped, counted


@njit(inline="always")
def _add(tm, c, w, t):
    d = cycles() - t
    if d < CAP:
        tm[c, w] += d
    else:
        tm[3, w] += 1


@njit(cache=True, _nrt=False)
def null_draw(prm, obs, acts, n, rng):
    return 0


@njit(cache=True, _nrt=False)
def null_discard(prm, obs, rng):
    return 0


def build(old, new):
    o_draw, o_meld, o_disc = old.choose_draw, old.choose_meld, old.choose_discard
    n_draw, n_meld, n_disc = new.choose_draw, new.choose_meld, new.choose_discard

    @njit
    def timed_draw(sid, prm, o, acts, n, rng, tm, cnt, flip):
        t = cycles()
        null_draw(prm, o, acts, n, rng)
        _add(tm, 0, Z, t)
        if flip:
            t = cycles()
            a = o_draw(prm, o, acts, n, rng)
            _add(tm, 0, O, t)
            t = cycles()
            b = n_draw(prm, o, acts, n, rng)
            _add(tm, 0, N, t)
        else:
            t = cycles()
            b = n_draw(prm, o, acts, n, rng)
            _add(tm, 0, N, t)
            t = cycles()
            a = o_draw(prm, o, acts, n, rng)
            _add(tm, 0, O, t)
        cnt[0] += 1
        if a != b:
            cnt[3] += 1
        return b

    @njit
    def timed_meld(sid, prm, o, acts, n, rng, tm, cnt, flip):
        t = cycles()
        null_draw(prm, o, acts, n, rng)
        _add(tm, 1, Z, t)
        if flip:
            t = cycles()
            a = o_meld(prm, o, acts, n, rng)
            _add(tm, 1, O, t)
            t = cycles()
            b = n_meld(prm, o, acts, n, rng)
            _add(tm, 1, N, t)
        else:
            t = cycles()
            b = n_meld(prm, o, acts, n, rng)
            _add(tm, 1, N, t)
            t = cycles()
            a = o_meld(prm, o, acts, n, rng)
            _add(tm, 1, O, t)
        cnt[1] += 1
        if a != b:
            cnt[4] += 1
        return b

    @njit
    def timed_discard(sid, prm, o, rng, tm, cnt, flip):
        t = cycles()
        null_discard(prm, o, rng)
        _add(tm, 2, Z, t)
        if flip:
            t = cycles()
            a = o_disc(prm, o, rng)
            _add(tm, 2, O, t)
            t = cycles()
            b = n_disc(prm, o, rng)
            _add(tm, 2, N, t)
        else:
            t = cycles()
            b = n_disc(prm, o, rng)
            _add(tm, 2, N, t)
            t = cycles()
            a = o_disc(prm, o, rng)
            _add(tm, 2, O, t)
        cnt[2] += 1
        if a != b:
            cnt[5] += 1
        return b

    @njit
    def play_turn_t(st, rp, seat, sid, prm, rng, acts, pub, hidden, scr, acts2, tm, cnt):
        """:func:`tranca_sim.engine.deal.play_turn` (check off), every choice timed; plays ``new``'s answers."""
        side = D.side_of(rp, seat)
        flip = (st.sc[SC_TURN] & 1) == 0
        if st.ss[side, SS_INDIRECT_SEAT] == seat:
            st.ss[side, SS_INDIRECT_SEAT] = -1
        st.sc[SC_NO_DISCARD] = 0
        D.log_event(st, EV_TURN, seat, 0, 0)
        D.place_red3s(st, rp, seat)
        if rp[R_STOCK_OUT] != 0 and not D.morto_to_stock(st, rp, seat):
            st.sc[SC_OVER] = END_STOCK_OUT
            return
        n = D.list_draw_actions(st, rp, seat, acts)
        if rp[R_MELD_RUNS] != 0:
            n = D.list_run_captures(st, rp, seat, acts, n)
        if st.ss[side, SS_MELD_MIN] > 0 and D.opening_pending(st, rp, side):
            n = D.filter_draws(st, rp, seat, acts, n, scr, acts2)
        if n == 0:
            st.sc[SC_OVER] = END_STOCK_OUT
            return
        o = player_obs(st, rp, seat, pub, hidden)
        i = timed_draw(sid, prm, o, acts, n, rng, tm, cnt, flip)
        if i < 0 or i >= n:
            st.se[seat, SE_ILLEGAL] += 1
            i = 0
        a = acts[i]
        if act_type(a) == A_STOCK:
            D.draw_stock(st, seat)
            D.place_red3s(st, rp, seat)
            if rp[R_FIRST_REDRAW] != 0 and st.sc[SC_TURN] == 0:
                D._first_redraw(st, rp, seat, sid, prm, rng, pub, hidden)
        else:
            D.take_pile(st, rp, seat, act_type(a), act_x(a), act_y(a))
            if D.after_meld(st, rp, seat):
                return
        while True:
            n = D.list_meld_actions(st, rp, seat, acts)
            if rp[R_MELD_RUNS] != 0:
                n = D.list_run_actions(st, rp, seat, acts, n)
            if st.ss[side, SS_MELD_MIN] > 0 and D.opening_pending(st, rp, side):
                n = D.filter_melds(st, rp, seat, acts, n, scr, acts2)
            if n == 0:
                break
            o = player_obs(st, rp, seat, pub, hidden)
            i = timed_meld(sid, prm, o, acts, n, rng, tm, cnt, flip)
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
            if ty == A_RUN_NEW or ty == A_RUN_EXT or ty == A_RUN_SWAP:
                D.apply_run_action(st, rp, seat, ty, act_x(a), act_y(a))
            else:
                D.apply_meld_action(st, rp, seat, ty, act_x(a), act_y(a))
            if D.after_meld(st, rp, seat):
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
        o = player_obs(st, rp, seat, pub, hidden)
        k = timed_discard(sid, prm, o, rng, tm, cnt, flip)
        if not D.legal_discard(st, rp, seat, k):
            st.se[seat, SE_ILLEGAL] += 1
            for kk in range(N_KINDS):
                if D.legal_discard(st, rp, seat, kk):
                    k = kk
                    break
        D.discard(st, rp, seat, k)

    @njit
    def run_nb(rp, sids, prm, master_seed, count, out_side, out_deal, tm, cnt):
        pack_n = 104 + rp[R_N_JOKERS]
        n_seats = rp[D.R_N_SEATS]
        st = new_state_nb(rp[D.R_N_SIDES], n_seats)
        deck = np.zeros(pack_n, np.int16)
        srng = np.zeros(4, np.uint64)
        rngs = np.zeros((4, 4), np.uint64)
        acts = np.zeros(512, np.int32)
        pub = np.zeros(PUB_LEN, np.int32)
        hidden = np.zeros((rp[D.R_N_SIDES], N_KINDS), np.int16)
        scr = new_state_nb(rp[D.R_N_SIDES], n_seats)
        acts2 = np.zeros(512, np.int32)
        mscore = np.zeros(st.ss.shape[0], np.int64)
        max_turns = rp[R_MAX_TURNS]
        for d in range(count):
            seed_stream(srng, master_seed, d, STREAM_SHUFFLE)
            K.shuffle_deck(srng, pack_n, deck)
            for seat in range(4):
                seed_stream(rngs[seat], master_seed, d, STREAM_SEAT0 + seat)
            D.setup_deal(st, rp, deck, pack_n, d % n_seats)
            K.set_match_facts(st, rp, mscore, 0)
            while st.sc[SC_OVER] == 0:
                if st.sc[SC_TURN] >= max_turns:
                    st.sc[SC_OVER] = END_TURN_LIMIT
                    break
                seat = st.sc[SC_SEAT]
                play_turn_t(
                    st, rp, seat, sids[seat], prm[seat], rngs[seat], acts, pub, hidden, scr, acts2,
                    tm, cnt,
                )  # fmt: skip
                st.se[seat, SE_MELDED] |= st.se[seat, SE_MELDED_NOW]
                st.se[seat, SE_MELDED_NOW] = 0
                st.sc[SC_TURN] += 1
                st.sc[SC_SEAT] = seat + 1 if seat + 1 < n_seats else 0
            D.lay_red3s_at_end(st, rp)
            K.record(st, rp, out_side[d], out_deal[d])
        return st.sc[SC_FIRST_SEAT]

    return run_nb


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--old", type=Path, default=Path(__file__).resolve().parent.parent)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--pair", default="basic-basic")
    ap.add_argument("--strategy", default="basic")
    args = ap.parse_args()

    import importlib

    from tranca_sim.rules import get_preset

    rules = get_preset(args.preset)
    rp = rules.to_array()
    pair = tuple(args.pair.split("-"))
    sids, prm, specs = K._seat_arrays(pair, rules)
    plays = {args.strategy} | ({"tuned"} if args.strategy == "basic" else set())  # tuned plays basic
    if any(s.name not in plays for s in specs):
        ap.error(f"--pair {args.pair}: every seat must play --strategy {args.strategy}")
    new = importlib.import_module(f"tranca_sim.strategies.{args.strategy}")
    old = _load(args.old, args.strategy, f"_old_{args.strategy}")
    run_nb = build(old, new)
    n = args.deals
    out_side = np.zeros((n, rules.n_sides, S.OS_LEN), np.int32)
    out_deal = np.zeros((n, S.OD_LEN), np.int32)
    tm = np.zeros((4, 3), np.int64)  # row 3: dropped calls per way
    cnt = np.zeros(6, np.int64)
    t0 = time.perf_counter()
    run_nb(rp, sids, prm, np.uint64(1), 10, out_side[:10], out_deal[:10], tm, cnt)
    print(f"compiled in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    tm[:] = 0
    cnt[:] = 0
    c0 = time.process_time()
    run_nb(rp, sids, prm, np.uint64(1), n, out_side, out_deal, tm, cnt)
    cpu = time.process_time() - c0
    ref = K.simulate_chunk(rules, pair, 1, 0, n)
    got = K.columns_from_outputs(out_side, out_deal, 0)
    same = all(np.array_equal(ref[c], got[c]) for c in ref)
    print(f"{args.preset} {args.pair}, {n} deals, one thread, {cpu:.1f} CPU-s; same deals as simulate_chunk: "
          f"{same}; old = {args.old}")  # fmt: skip
    print(f"{'choice':8s} {'calls/deal':>10s} " + " ".join(f"{w + ' cyc/call':>16s}" for w in WAYS)
          + f" {'old cyc/deal':>12s} {'new cyc/deal':>12s} {'mismatches':>10s}")  # fmt: skip
    for c, name in enumerate(CHOICES):
        calls = max(cnt[c], 1)
        print(f"{name:8s} {cnt[c] / n:10.1f} " + " ".join(f"{tm[c, w] / calls:16,.0f}" for w in range(3))
              + f" {tm[c, O] / n:12,.0f} {tm[c, N] / n:12,.0f} {cnt[3 + c]:10d}")  # fmt: skip
    print(
        f"calls dropped as preempted (> {CAP:,} cycles): "
        + ", ".join(f"{w} {tm[3, i]}" for i, w in enumerate(WAYS))
    )
    tot_o = tm[:3, O].sum() / n
    tot_n = tm[:3, N].sum() / n
    print(f"all choices: old {tot_o:,.0f} cycles a deal, new {tot_n:,.0f} ({tot_o / max(tot_n, 1):.2f}x); "
          f"passing alone (null) {tm[:3, Z].sum() / n:,.0f}")  # fmt: skip
    return 0 if same and not cnt[3:].any() else 1


if __name__ == "__main__":
    raise SystemExit(main())
