"""Old vs new engine on the same deals, interleaved: the speed ratio on a shared machine.

Usage::

    python benchmarks/bench_ab.py OLD_ROOT NEW_ROOT [--deals 20000] [--rounds 3] [--threads 1]
                                  [--preset tranca] [--pair basic-basic]
                                  [--old-env NAME=VALUE ...] [--new-env NAME=VALUE ...]

``--old-env NAME=VALUE`` / ``--new-env NAME=VALUE`` (repeatable) set environment variables for one
build's processes (the same checkout twice with ``NUMBA_OPT=3`` and ``NUMBA_OPT=1``, in two copies so
each has its own cache).  ``OLD_ROOT`` and ``NEW_ROOT`` are two checkouts of the package (e.g. ``git archive main`` into a
temporary directory, and a worktree).  Each round runs one fresh process per build, alternating
(old, new, new, old, ...), each with its own numba cache directory (``ROOT/.bench-cache``, filled by a
warm-up run first), and times ``simulate_chunk`` of the same deals: the wall time and the process CPU
time.  On a machine shared with other jobs the CPU time and the old/new ratio within one run are the
figures to compare, not absolute rates across runs.  Also checks that both builds return identical
columns for these deals.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import hashlib, json, sys, time
import numpy as np
from tranca_sim.engine import simulate_chunk
from tranca_sim.rules import get_preset
preset, a, b, deals = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
rules = get_preset(preset)
simulate_chunk(rules, (a, b), 7, 0, 64)
w, c = time.perf_counter(), time.process_time()
cols = simulate_chunk(rules, (a, b), 1, 0, deals)
w, c = time.perf_counter() - w, time.process_time() - c
h = hashlib.sha256()
for k in sorted(cols):
    h.update(k.encode()); h.update(np.ascontiguousarray(cols[k]).tobytes())
print(json.dumps({"wall": w, "cpu": c, "digest": h.hexdigest()}))
"""


def run(root: Path, args, warm: bool = False, extra_env=()) -> dict:
    env = dict(
        os.environ,
        **dict(x.split("=", 1) for x in extra_env),
        PYTHONPATH=str(root),
        TRANCA_SIM_CACHE_DIR=str(root / ".bench-cache"),
        NUMBA_NUM_THREADS=str(args.threads),
    )
    a, b = args.pair.split("-")
    deals = 64 if warm else args.deals
    out = subprocess.run(
        [sys.executable, "-c", CHILD, args.preset, a, b, str(deals)],
        env=env, cwd=root, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("old", type=Path)
    ap.add_argument("new", type=Path)
    ap.add_argument("--deals", type=int, default=20_000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--pair", default="basic-basic")
    ap.add_argument(
        "--old-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the old build's processes (e.g. NUMBA_OPT=3)",
    )
    ap.add_argument(
        "--new-env",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an environment variable for the new build's processes",
    )
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    envs = {"old": args.old_env, "new": args.new_env}
    for name in ("old", "new"):
        run(getattr(args, name), args, warm=True, extra_env=envs[name])
    res: dict[str, list[dict]] = {"old": [], "new": []}
    for r in range(args.rounds):
        order = ("old", "new") if r % 2 == 0 else ("new", "old")
        for name in order:
            res[name].append(run(getattr(args, name), args, extra_env=envs[name]))
    for name in ("old", "new"):
        rs = res[name]
        print(
            f"{name}: wall " + " ".join(f"{x['wall']:.2f}" for x in rs)
            + "  cpu " + " ".join(f"{x['cpu']:.2f}" for x in rs)
            + f"  best {args.deals / min(x['wall'] for x in rs):,.0f} deals/s wall,"
            f" {args.deals / min(x['cpu'] for x in rs):,.0f} deals/CPU-s"
        )  # fmt: skip
    same = {x["digest"] for x in res["old"] + res["new"]}
    ratio_cpu = min(x["cpu"] for x in res["old"]) / min(x["cpu"] for x in res["new"])
    ratio_wall = min(x["wall"] for x in res["old"]) / min(x["wall"] for x in res["new"])
    print(
        f"speed-up new/old: {ratio_cpu:.2f}x CPU, {ratio_wall:.2f}x wall; identical columns: {len(same) == 1}"
    )
    print(f"load average after: {os.getloadavg()}")
    return 0 if len(same) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
