"""Share of deals in which a side goes out (bater), for every preset, one pairing.

Usage::

    python benchmarks/going_out.py [--deals 5000] [--seed 1] [--pair basic basic] [--preset P ...]

Plays deals ``0 .. N-1`` of seed ``--seed`` with ``simulate_chunk`` for every preset of
:data:`tranca_sim.rules.PRESETS` (or those named) and prints, per preset: deals, the share that
ended with a side going out with its 95% Wilson interval, the shares that ended with the stock out
(decision 14; with ``stock_out=1`` after the untaken mortos became the stock, E22/E23) and at the
turn limit (a safety net that must stay at 0), the share of deals in which at least one morto
became the stock, and the mean number of turns.  Issue 8 ("Proof"): ``basic`` goes out in most
deals of every preset.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--pair", nargs=2, default=("basic", "basic"), metavar=("A", "B"))
    ap.add_argument("--preset", nargs="*", default=None)
    args = ap.parse_args()

    import numpy as np
    from statsmodels.stats.proportion import proportion_confint

    from tranca_sim.engine import simulate_chunk
    from tranca_sim.engine.state import END_REASONS
    from tranca_sim.rules import PRESETS

    names = args.preset or list(PRESETS)
    print(f"{args.pair[0]} vs {args.pair[1]}, seed {args.seed}, {args.deals} deals each")
    print(
        "| preset | deals | went out [95% CI] | stock out | turn limit | a morto became the stock | turns |"
    )
    print("|---|---|---|---|---|---|---|")
    for name in names:
        rules = PRESETS[name]
        ns = rules.n_sides
        cols = simulate_chunk(rules, tuple(args.pair[:2]), args.seed, 0, args.deals)
        n = args.deals
        reason = cols["end_reason"][::ns]
        code = {r: i for i, r in enumerate(END_REASONS)}
        out = int((reason == code["went_out"]).sum())
        stock = int((reason == code["stock_out"]).sum())
        limit = int((reason == code["turn_limit"]).sum())
        ms = cols["morto_stock"].reshape(n, ns).any(axis=1).sum()
        lo, hi = proportion_confint(out, n, method="wilson")
        turns = float(np.mean(cols["n_turns"][::ns]))
        print(
            f"| `{name}` | {n} | {100 * out / n:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}] | "
            f"{100 * stock / n:.1f}% | {limit} | {100 * ms / n:.1f}% | {turns:.1f} |",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
