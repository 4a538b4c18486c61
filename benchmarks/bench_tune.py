"""Time ``tranca-sim tune`` to a confirmed result (issue 10: a 7-parameter strategy in under 30
minutes on 2 cores).

    .venv/bin/python benchmarks/bench_tune.py --out /tmp/bench-tune [--budget 3000000] [--rounds 3]

Tunes ``basic`` against ``basic`` in ``tranca`` over 7 of its parameters (PARAMS below) with the
CLI's defaults otherwise, and prints the commit, numba threads, CPUs, the 1-minute load average
before and after (the machine may be shared: compare deals per second with the load), the wall
time of the whole tuning (engine load included, compile excluded: the kernels are loaded once
before the clock starts), the deals played and the peak resident memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import time
from pathlib import Path

PARAMS = (
    "take_pile_min",
    "black3_lock",
    "safe_discard",
    "partner",
    "endgame_lay",
    "keep_clean",
    "morto_stock",
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--out", required=True)
    ap.add_argument("--budget", type=int, default=3_000_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()

    import numba

    from tranca_sim.engine import simulate_chunk
    from tranca_sim.lab.tuning.tune import TuneConfig, run_tune
    from tranca_sim.rules import get_preset

    simulate_chunk(get_preset("tranca"), ("basic", "basic"), master_seed=1, start=0, count=2)  # compile/load
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    cmd = (
        f"tranca-sim tune basic --preset tranca --vs basic --budget {a.budget} --rounds {a.rounds} "
        f"--seed {a.seed} --params {','.join(PARAMS)} --out {a.out} --force"
    )
    res = run_tune(
        TuneConfig(
            "basic",
            "tranca",
            "basic",
            budget=a.budget,
            out=Path(a.out),
            rounds=a.rounds,
            only=PARAMS,
            seed=a.seed,
            force=True,
            progress=False,
            command=cmd,
        )
    )
    wall = time.perf_counter() - t0
    f = res["final"]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"commit {commit}; numba threads {numba.get_num_threads()}; CPUs {os.cpu_count()}")
    print(f"load average (1 min): {load0:.1f} before, {os.getloadavg()[0]:.1f} after")
    print(f"parameters searched: {len(res['space'])} ({', '.join(p.name for p in res['space'])})")
    print(
        f"wall time {wall:.0f} s ({wall / 60:.1f} min); {res['deals']:,} deals, "
        f"{res['deals_per_s']:,.0f} deals/s; rounds {len(res['rounds'])}; peak memory {peak:.0f} MiB"
    )
    print(
        f"tuned: {res['champion_label']}: {f['mean']:+.1f} [{f['lo']:+.1f}, {f['hi']:+.1f}] points a deal "
        f"vs basic on {f['decks']:,} fresh decks"
    )


if __name__ == "__main__":
    main()
