"""The real kernel under ``perf``: plays deals on one thread and writes a perf map of numba's code.

Usage::

    perf record -e cpu-clock -F 4000 -o perf.data python benchmarks/perf_kernel.py --deals 300000
    perf report -i perf.data --stdio --sort dso,sym | grep JIT

``profile_engine.py`` times a copy of the turn with cycle counters, which changes what the compiler
inlines; this samples the engine itself.  numba's machine code has no symbols perf can read, so
after the run the process writes ``/tmp/perf-<pid>.map`` (perf's map for code generated at run
time): every function symbol of every compiled library, from the library's object code (its
``nm`` listing) and its address in numba's execution engine.  The object code exists only for
code compiled in this process, so the kernels are compiled afresh in a temporary cache directory
(about 45 s) unless ``--cache DIR`` names an empty one to keep.  Each map entry runs to the next
symbol's address (sizes are not in the listing).  Needs ``nm`` (binutils).
"""

from __future__ import annotations

import argparse
import gc
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def write_perf_map(path: str | None = None) -> int:
    """Write the perf map of every numba library compiled in this process; return the symbols."""
    from numba.core.registry import CPUDispatcher

    addrs: dict[int, str] = {}
    with tempfile.TemporaryDirectory() as tmp:
        obj_path = os.path.join(tmp, "lib.o")
        for o in gc.get_objects():
            if not isinstance(o, CPUDispatcher):
                continue
            for cres in o.overloads.values():
                lib = cres.library
                try:
                    obj = lib._get_compiled_object()
                except RuntimeError:
                    continue  # loaded from the cache: no object code in this process
                with open(obj_path, "wb") as f:
                    f.write(obj)
                out = subprocess.run(
                    ["nm", "--defined-only", obj_path], check=True, capture_output=True, text=True
                ).stdout
                for line in out.splitlines():
                    parts = line.split()
                    if len(parts) == 3 and parts[1] in "tT":
                        a = lib._codegen._engine.get_function_address(parts[2])
                        if a:
                            addrs[a] = parts[2]
    items = sorted(addrs.items())
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for i, (a, name) in enumerate(items):
            size = items[i + 1][0] - a if i + 1 < len(items) else 65536
            f.write(f"{a:x} {min(size, 4 << 20):x} {name}\n")
    return len(items)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--deals", type=int, default=300_000)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--pair", default="basic-basic")
    ap.add_argument("--cache", default=None, help="an empty cache directory (default: a temporary one)")
    args = ap.parse_args()
    os.environ["TRANCA_SIM_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="perf-kernel-")
    os.environ["NUMBA_NUM_THREADS"] = "1"
    from tranca_sim.engine import simulate_chunk
    from tranca_sim.rules import get_preset

    rules = get_preset(args.preset)
    pair = tuple(args.pair.split("-"))
    t = time.process_time()
    simulate_chunk(rules, pair, 7, 0, 64)
    print(f"compiled in {time.process_time() - t:.1f} s CPU", flush=True)
    t = time.process_time()
    simulate_chunk(rules, pair, 1, 0, args.deals)
    t = time.process_time() - t
    print(
        f"{args.preset} {args.pair}: {args.deals:,} deals, {args.deals / t:,.0f} deals per CPU-second",
        flush=True,
    )
    print(f"{write_perf_map()} symbols in /tmp/perf-{os.getpid()}.map", flush=True)


if __name__ == "__main__":
    main()
