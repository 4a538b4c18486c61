"""What a user's own strategy costs: compile time of the engine with it, and the hot loop.

Usage::

    python benchmarks/bench_user_compile.py [--deals 100000] [--file examples/greedy.py]

Each measurement is a fresh process with its own cache directory (so the
machine's load shows in wall time; CPU time is the process's user + system
time):

1. built-ins only, empty cache: the ordinary first run;
2. the same cache, now with the user's file: only what depends on the
   strategy set compiles (the kernels with the user's module inlined, and
   the user's three functions);
3. the user's file again: everything loads from the cache;
4. deals/s of ``basic`` vs ``basic`` in a process whose engine has the
   user's file in its switch and in one with the built-ins only (same deals):
   does the larger switch slow the hot loop?
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

RUN = """
import json, resource, sys, time
t = time.perf_counter()
from tranca_sim.strategies import resolve
user = sys.argv[1]
specs = [resolve(user)] if user else []
from tranca_sim.engine import simulate_chunk
from tranca_sim.rules import get_preset
rules = get_preset("tranca")
simulate_chunk(rules, (specs[0] if specs else "basic", "basic"), 1, 0, 10)
first = time.perf_counter() - t
deals = int(sys.argv[2])
rate = None
if deals:
    simulate_chunk(rules, ("basic", "basic"), 1, 0, 1000)
    t = time.perf_counter()
    simulate_chunk(rules, ("basic", "basic"), 1, 0, deals)
    rate = deals / (time.perf_counter() - t)
ru = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"wall": first, "cpu": ru.ru_utime + ru.ru_stime, "rate": rate}))
"""


def run(cache: str, user: str, deals: int = 0) -> dict:
    env = dict(os.environ, TRANCA_SIM_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("TRANCA_SIM_USER_STRATEGIES", None)
    p = subprocess.run(
        [sys.executable, "-c", RUN, user, str(deals)], env=env, capture_output=True, text=True, check=True
    )
    return json.loads(p.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--file", default=str(ROOT / "examples" / "greedy.py"))
    args = ap.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_engine import _commit

    print(f"commit {_commit()}  cores {os.cpu_count()}  user file {args.file}")
    with tempfile.TemporaryDirectory() as cache:
        a = run(cache, "")
        print(f"1. built-ins only, empty cache:        {a['wall']:6.1f} s wall  {a['cpu']:6.1f} s CPU")
        b = run(cache, args.file)
        print(f"2. + the user's file (kernels again):  {b['wall']:6.1f} s wall  {b['cpu']:6.1f} s CPU")
        c = run(cache, args.file)
        print(f"3. the user's file, cached:            {c['wall']:6.1f} s wall  {c['cpu']:6.1f} s CPU")
        if args.deals:
            with_user = run(cache, args.file, args.deals)["rate"]
            builtin = run(cache, "", args.deals)["rate"]
            print(
                f"4. basic vs basic, {args.deals} deals: {builtin:,.0f} deals/s with the built-in switch, "
                f"{with_user:,.0f} deals/s with the user's file in the switch"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
