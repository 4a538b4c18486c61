"""Benchmark: the full Tranca tip table (duplicate design) run to its half-width target.

Runs ``experiments/tranca-tips.toml`` (every tip of the rule guides against
``basic``, duplicate deals, each variant stopped when its confidence
sequence is at most ``stopping.half_width`` points per deal wide on each
side) into a temporary directory, then builds the tip table from the run
files, and prints: the commit, numba's threads, the machine's load before and
after, the wall time of the simulation (kernels already loaded) and of the
table, deals and deals/s, the peak resident memory, and the table itself.

    .venv/bin/python benchmarks/bench_tips.py [--experiment experiments/tranca-tips.toml] [--threads 2]

The figures measured on the project's machine are in benchmarks/README.md.
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


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--untracked-files=no"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        return out + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--experiment", default=str(ROOT / "experiments" / "tranca-tips.toml"))
    ap.add_argument("--threads", type=int, default=None, help="numba threads (default all cores)")
    ap.add_argument("--keep", metavar="DIR", help="write the output here instead of a temporary directory")
    a = ap.parse_args()

    import numba

    from tranca_sim.engine import simulate_chunk
    from tranca_sim.lab.experiments.experiment import load_experiment, run_experiment
    from tranca_sim.lab.experiments.spec import load_spec
    from tranca_sim.lab.publish.tables import comparison_table
    from tranca_sim.lab.publish.table_text import format_table
    from tranca_sim.rules import Rules

    spec = load_spec(a.experiment)
    t0 = time.perf_counter()
    simulate_chunk(
        Rules(**spec["rules"]), (spec["baseline"], spec["baseline"]), master_seed=1, start=0, count=1
    )
    load_s = time.perf_counter() - t0
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(a.keep) if a.keep else Path(tmp) / "out"
        t0 = time.perf_counter()
        res = run_experiment(a.experiment, out, force=True, threads=a.threads, progress=False, report=False)
        run_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        table = comparison_table(load_experiment(out))
        table_s = time.perf_counter() - t0
    load_after = os.getloadavg()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux
    s = res["spec"]
    print(f"commit {_commit()}, numba {numba.__version__}, threads {res['threads']}, {os.cpu_count()} cores")
    print(f"load average before {load_before[0]:.2f}, after {load_after[0]:.2f} (1 min)")
    print(f"engine load (cached kernels): {load_s:.1f} s")
    print(
        f"{len(s['variants'])} variants, design {s['design']}, target +-{s['stopping']['half_width']} pts/deal, "
        f"batch {s['batch']}, budget {s['budget']} deals per variant"
    )
    print(
        f"simulation + run files: {run_s:.1f} s for {res['deals']} deals = {res['deals'] / run_s:.0f} deals/s; "
        f"tip table: {table_s:.1f} s; total {run_s + table_s:.1f} s"
    )
    stopped = s["stopped_by"]
    print(
        f"stopped by half-width: {sum(v == 'half-width' for v in stopped.values())} of {len(stopped)}; "
        f"deals per variant {min(s['deals_played'].values())}..{max(s['deals_played'].values())}"
    )
    print(f"peak resident memory: {rss:.0f} MiB")
    print(format_table(table, s))
    return 0


if __name__ == "__main__":
    sys.exit(main())
