"""Engine benchmark: deals per second, peak memory, first-run compile time.

Usage::

    python benchmarks/bench_engine.py [--deals 200000] [--pairs basic-basic,random-random] [--no-compile]
                                      [--preset tranca | --preset buraco,tranca-br | --preset all]

Prints the commit, the thread counts, deals/s for each strategy pairing at 1
and 2 threads (same deals, so the ratio is what to compare on a noisy
machine), the peak resident memory of the process, and the first-run compile
time (a fresh process with an empty numba cache) and the cached start time.
With several presets (a comma list, or ``all`` for every played preset) it
ends with one table: deals/s of each preset and pairing at 1 and 2 threads,
and each preset's speed as a share of ``tranca``'s (issue 8: within 2x).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

STARTUP = (
    "import time; t = time.perf_counter();"
    "from tranca_sim.engine import simulate_chunk; from tranca_sim.rules import get_preset;"
    "simulate_chunk(get_preset('tranca'), ('basic', 'basic'), 1, 0, 10);"
    "print(time.perf_counter() - t)"
)


def _commit() -> str:
    try:
        rev = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True, check=False
        )
        dirty = subprocess.run(
            ["git", "status", "--porcelain"], cwd=ROOT, capture_output=True, text=True, check=False
        )
        return rev.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")
    except OSError:
        return "unknown"


def _startup_seconds(cache_dir: str) -> float:
    env = dict(os.environ, TRANCA_SIM_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", STARTUP], env=env, capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=200_000)
    ap.add_argument("--pairs", default="basic-basic,random-random")
    ap.add_argument("--no-compile", action="store_true", help="skip the first-run compile measurement")
    ap.add_argument(
        "--preset",
        default="tranca",
        help="rule preset(s) to play: a name, a comma list, or all (default tranca)",
    )
    args = ap.parse_args()

    import numba

    print(
        f"commit {_commit()}  numba {numba.__version__}  cores {os.cpu_count()}  "
        f"max threads {numba.config.NUMBA_NUM_THREADS}  load average {os.getloadavg()[0]:.2f}"
    )
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as tmp:
            first = _startup_seconds(tmp)
            second = _startup_seconds(tmp)
        print(f"first run (empty cache, compile): {first:.1f} s   second run (cached): {second:.2f} s")

    from tranca_sim.engine import simulate_chunk
    from tranca_sim.rules import PRESETS, get_preset

    names = list(PRESETS) if args.preset == "all" else args.preset.split(",")
    max_threads = min(2, numba.config.NUMBA_NUM_THREADS)
    table = []  # (preset, pair, {threads: deals/s}, went-out share, mean turns)
    for name in names:
        rules = get_preset(name)
        print(f"preset {rules.name}")
        simulate_chunk(rules, ("basic", "basic"), 1, 0, 100)  # load / compile
        for pair in args.pairs.split(","):
            a, b = pair.split("-")
            rates = {}
            turns = 0.0
            for threads in sorted({1, max_threads}):
                numba.set_num_threads(threads)
                t = time.perf_counter()
                c = simulate_chunk(rules, (a, b), 12345, 0, args.deals)
                dt = time.perf_counter() - t
                rates[threads] = args.deals / dt
                out = (c["end_reason"][::2] == 1).mean()
                turns = c["n_turns"][::2].mean()
                print(
                    f"{a} vs {b}: {args.deals} deals, {threads} thread(s): {rates[threads]:,.0f} deals/s  "
                    f"({dt:.2f} s; went out {out:.1%}, mean turns {c['n_turns'][::2].mean():.1f})"
                )
            if len(rates) == 2:
                print(f"  speed-up 2 threads / 1 thread: {rates[max_threads] / rates[1]:.2f}x")
            table.append((name, pair, rates, out, turns))
    if len(names) > 1:
        base = {pair: r for name, pair, r, _, _ in table if name == "tranca"}
        m = max_threads
        print(
            f"\n| preset | pairing | 1 thread deals/s | {m} threads deals/s | vs tranca, 1 thread "
            f"| vs tranca, {m} threads | went out | mean turns |"
        )
        print("|---|---|---|---|---|---|---|---|")
        for name, pair, r, out, turns in table:
            rel1 = f"{r[1] / base[pair][1]:.2f}" if pair in base else "-"
            relm = f"{r[m] / base[pair][m]:.2f}" if pair in base else "-"
            print(
                f"| {name} | {pair} | {r[1]:,.0f} | {r[m]:,.0f} | {rel1} | {relm} | {out:.1%} | {turns:.1f} |"
            )
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak resident memory: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
