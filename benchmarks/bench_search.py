"""Cost and strength of the search player (strategies/pimc.py, ``search``) at two budgets.

``--decisions K`` also times single decisions directly: K positions (deal ``d`` of seed 3 played
``4 + 7d mod 28`` turns by the rollout policy, then the next seat's draw with the pile on offer,
or its discard after a stock draw and the policy's melds), each answered by the search player's
own functions (``choose_draw``/``choose_discard``) from Python, wall time per call with
``time.perf_counter_ns`` on one thread (a decision runs on one thread); the call overhead from
Python (about a microsecond) is included.

For each budget: deals/s of ``search`` against ``basic`` on duplicate deals (each deck played
twice, sides swapped; ``simulate_chunk``, kernels cached), the time per turn of the search
side and per searched decision (the run's time minus basic-vs-basic on the same decks, over
the search side's turns, and over its decisions: a draw and a discard a turn), and the score
difference search minus basic per deck with its 95% normal interval.

    .venv/bin/python benchmarks/bench_search.py --decks 200 --threads 2
"""

from __future__ import annotations

import argparse
import os
import subprocess
import time
from pathlib import Path

import numba
import numpy as np

from tranca_sim.strategies.user import include_search

include_search()  # before the engine loads: it is compiled without the search player otherwise
from tranca_sim.engine import simulate_chunk
from tranca_sim.rules import get_preset

BUDGETS = (("small", "search"), ("large", "search:worlds=32,turns=0"))


def _commit() -> str:
    root = Path(__file__).resolve().parents[1]
    try:
        return subprocess.run(
            ["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _pair(rules, a, b, seed, n):
    t = time.perf_counter()
    x = simulate_chunk(rules, (a, b), seed, 0, n)
    y = simulate_chunk(rules, (b, a), seed, 0, n)
    return time.perf_counter() - t, x, y


def _positions(rules, k: int):
    """Up to ``k`` discard and ``k`` searched-draw positions: lists of (obs, acts, n)."""
    from tranca_sim.engine.kernel import deck_of
    from tranca_sim.engine.melds import list_draw_actions
    from tranca_sim.engine.state import SC_OVER, SC_SEAT, SS_INDIRECT_SEAT, new_state
    from tranca_sim.engine.turn import place_red3s
    from tranca_sim.strategies.pimc_positions import observe, rollout_deal, to_discard
    from tranca_sim.strategies.pimc_search import POLICY_PRM

    rp = rules.to_array()
    prm = POLICY_PRM[0].copy()
    discards, draws = [], []
    d = 0
    while (len(discards) < k or len(draws) < k) and d < 50 * k:
        deck = np.array(deck_of(rules, 3, d), np.int16)
        st = new_state()
        rollout_deal(st, rp, deck, d % 4, prm, 4 + (7 * d) % 28)
        d += 1
        if st.sc[SC_OVER] != 0:
            continue
        me = int(st.sc[SC_SEAT])
        if len(draws) < k and st.ss[me & 1, SS_INDIRECT_SEAT] != me:
            st2 = st._replace(**{f: getattr(st, f).copy() for f in st._fields})
            place_red3s(st2, rp, me)
            acts = np.zeros(512, np.int32)
            n = list_draw_actions(st2, rp, me, acts)
            if n >= 2:
                draws.append((observe(st2, rp, me), acts, n))
        if len(discards) < k and to_discard(st, rp, prm):
            discards.append((observe(st, rp, me), None, 0))
    return discards, draws


def time_decisions(rules, k: int, budgets=BUDGETS) -> list[dict]:
    """Wall time of single searched decisions (see the module doc): per budget and kind, the
    count, median, mean and 90th percentile in microseconds."""
    from tranca_sim.strategies import pimc, resolve

    discards, draws = _positions(rules, k)
    out = []
    for label, text in budgets:
        prm = resolve(text).params
        pimc.choose_discard(prm, discards[0][0], np.array([1, 2, 3, 4], np.uint64))  # loaded before timing
        o, acts, n = draws[0]
        pimc.choose_draw(prm, o, acts, n, np.array([1, 2, 3, 4], np.uint64))
        for kind, pos in (("discard", discards), ("draw (pile on offer)", draws)):
            us = []
            for i, (o, acts, n) in enumerate(pos):
                rng = np.array([1, 2, 3, i], np.uint64)
                t = time.perf_counter_ns()
                if acts is None:
                    pimc.choose_discard(prm, o, rng)
                else:
                    pimc.choose_draw(prm, o, acts, n, rng)
                us.append((time.perf_counter_ns() - t) / 1000)
            us = np.array(us)
            out.append({"budget": label, "setting": text, "kind": kind, "n": len(us), "median": float(np.median(us)),
                        "mean": float(us.mean()), "p90": float(np.percentile(us, 90))})  # fmt: skip
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--decks", type=int, default=200)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--decisions", type=int, default=0, help="also time K single decisions of each kind")
    ap.add_argument("--only-decisions", action="store_true", help="skip the deals/s part")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    rules = get_preset(args.preset)
    n = args.decks
    if args.decisions:
        numba.set_num_threads(1)
        print(f"commit {_commit()}, single decisions on 1 thread, load average {os.getloadavg()[0]:.1f}")
        for r in time_decisions(rules, args.decisions):
            print(f"{r['budget']:5s} {r['setting']:28s} {r['kind']:21s} n={r['n']:4d}  median {r['median']:9.0f} us  "
                  f"mean {r['mean']:9.0f} us  p90 {r['p90']:9.0f} us")  # fmt: skip
        numba.set_num_threads(args.threads)
        if args.only_decisions:
            return
    _pair(rules, "search:worlds=1,turns=1", "basic", args.seed, 2)  # load the kernels
    print(f"commit {_commit()}, {args.threads} threads, preset {args.preset}, {n} decks (2 deals each), "
          f"load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    t_basic, _, _ = _pair(rules, "basic", "basic", args.seed, n)
    for label, spec in BUDGETS:
        dt, x, y = _pair(rules, spec, "basic", args.seed, n)
        sx, sy = x["score"].reshape(n, 2), y["score"].reshape(n, 2)
        d = ((sx[:, 0] - sx[:, 1]) + (sy[:, 1] - sy[:, 0])) / 2
        m, h = d.mean(), 1.96 * d.std(ddof=1) / np.sqrt(n)
        turns = (x["n_turns"][::2].sum() + y["n_turns"][::2].sum()) / 2  # the search side's turns
        per_turn = (dt - t_basic) * args.threads / turns * 1e6
        out = (x["went_out"].reshape(n, 2)[:, 0].mean() + y["went_out"].reshape(n, 2)[:, 1].mean()) / 2
        print(
            f"{label:5s} {spec:28s} {2 * n / dt:7.1f} deals/s  {per_turn:8.0f} us a turn "
            f"({per_turn / 2:7.0f} us a decision, CPU)  search - basic {m:+7.1f} [{m - h:+.1f}, {m + h:+.1f}]"
            f"  search goes out {out:.0%}"
        )


if __name__ == "__main__":
    main()
