"""Cost and strength of the search player (strategies/pimc.py, ``search``) at two budgets.

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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--decks", type=int, default=200)
    ap.add_argument("--seed", type=int, default=31)
    ap.add_argument("--threads", type=int, default=numba.config.NUMBA_NUM_THREADS)
    ap.add_argument("--preset", default="tranca")
    args = ap.parse_args()
    numba.set_num_threads(args.threads)
    rules = get_preset(args.preset)
    n = args.decks
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
