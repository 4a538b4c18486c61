"""Match benchmark: matches per second, deals per match, the longest match, per preset and target.

Usage::

    python benchmarks/bench_matches.py [--matches 3000] [--pair basic-basic] [--threads 1,2]

For each preset (its own match target) and for ``tranca`` at every target of the seeds
(1500 / 3000 / 4000 / 5000), with and without 004's minimum first meld (``first_meld_min=75``),
prints matches/s and deals/s (wall time and per CPU-second of the process, the fair measure on a
shared machine), the mean deals per match, the longest match and the undecided matches (the
``max_match_deals`` safety net), and beside it the plain-deal speed of the same preset.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _commit() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        )
        return rev.stdout.strip()
    except OSError:
        return "unknown"


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--matches", type=int, default=3000)
    ap.add_argument("--pair", default="basic-basic")
    ap.add_argument("--threads", default="2")
    args = ap.parse_args()

    import numba
    import numpy as np

    from tranca_sim.engine import simulate_chunk, simulate_match_chunk
    from tranca_sim.rules import PRESETS, get_preset

    strats = tuple(args.pair.split("-"))
    cases = [(name, {}) for name in PRESETS]
    cases += [("tranca", {"match_target": t}) for t in (1500, 4000, 5000)]
    cases += [(name, {"first_meld_min": 75}) for name in PRESETS]
    print(f"commit {_commit()}, numba {numba.__version__}, {args.pair}, {args.matches} matches a case")
    print(
        "| preset | options | target | threads | matches/s | deals/s | deals/CPU-s | plain deals/CPU-s "
        "| deals per match | longest | undecided | A wins |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for threads in (int(t) for t in args.threads.split(",")):
        numba.set_num_threads(threads)
        for name, opts in cases:
            rules = get_preset(name).replace(**opts) if opts else get_preset(name)
            simulate_match_chunk(rules, strats, 1, 0, 2)  # compile / load
            cols, wall, cpu = _timed(lambda r=rules: simulate_match_chunk(r, strats, 1, 0, args.matches))
            first = (cols["deal_in_match"] == 0) & (cols["side"] == 0)
            deals = cols["match_deals"][first]
            n = int(deals.sum())
            _, _, pcpu = _timed(lambda r=rules, k=n: simulate_chunk(r, strats, 1, 0, k))
            win = cols["match_winner"][first]
            opt = ",".join(f"{k}={v}" for k, v in opts.items()) or "-"
            print(
                f"| {name} | {opt} | {rules.match_target} | {threads} | {args.matches / wall:,.0f} "
                f"| {n / wall:,.0f} | {n / cpu:,.0f} | {n / pcpu:,.0f} | {np.mean(deals):.2f} | {deals.max()} "
                f"| {(win < 0).sum()} | {100 * (win == 0).mean():.1f}% |"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
