"""Where the first run's compile time goes: numba's compile events per function.

Usage::

    python benchmarks/compile_profile.py [--top 25] [--preset tranca] [--pair basic-basic]

The engine built is the one the pair needs (``--pair search-basic``: the engine with the search
player; strategies/user.py), at the optimisation level the package sets (tranca_sim/_cache.py).
Plays one deal with ``simulate_chunk`` in this process with an EMPTY numba cache (it refuses a
``TRANCA_SIM_CACHE_DIR`` that already holds files: point it at a fresh directory), recording
numba's ``numba:compile`` events (:mod:`numba.core.event`).  Each njit function compiled on the way
is one event with a start and an end; nested events are the callees compiled while the caller
was being typed.  Prints, per function, the time inside its own compile excluding its callees'
compiles (self) and including them (total), the whole wall and CPU time of the first call, and
the size of each function's cache file (machine code plus what it links: an inlined callee is
copied into every caller, so the sizes show where inlining multiplies code), and the functions
compiled for more than one signature (argument types: each signature is one more compile).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def _search() -> bool:
    try:
        from tranca_sim.strategies.user import search_wanted
    except ImportError:  # a checkout from before the lean engine: the search player always in
        return True
    return search_wanted()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--pair", default="basic-basic")
    args = ap.parse_args()

    cache = os.environ.get("TRANCA_SIM_CACHE_DIR")
    if not cache or (Path(cache).exists() and any(Path(cache).rglob("*.nbi"))):
        print(
            "set TRANCA_SIM_CACHE_DIR to an empty directory (the compile must not hit a cache)",
            file=sys.stderr,
        )
        return 2

    w0, c0 = time.perf_counter(), time.process_time()
    import tranca_sim  # first: it sets numba's optimisation level (NUMBA_OPT) before numba loads

    # isort: split
    from numba.core import config, event

    from tranca_sim.strategies import resolve

    for name in args.pair.split("-"):  # named before the engine loads: search compiles in if named
        resolve(name)
    from tranca_sim import engine
    from tranca_sim.rules import get_preset

    rules = get_preset(args.preset)
    w_imp, c_imp = time.perf_counter() - w0, time.process_time() - c0
    with event.install_recorder("numba:compile") as rec:
        w1, c1 = time.perf_counter(), time.process_time()
        engine.simulate_chunk(rules, tuple(args.pair.split("-")), 1, 0, 1)
        wall, cpu = time.perf_counter() - w1, time.process_time() - c1

    total: dict[str, float] = defaultdict(float)
    self_t: dict[str, float] = defaultdict(float)
    stack: list[list] = []  # [name, start, child time]
    for ts, ev in rec.buffer:
        disp = ev.data.get("dispatcher")
        name = getattr(getattr(disp, "py_func", None), "__qualname__", str(disp))
        mod = getattr(getattr(disp, "py_func", None), "__module__", "")
        name = f"{mod.rsplit('.', 1)[-1]}.{name}"
        if ev.is_start:
            stack.append([name, ts, 0.0])
        elif ev.is_end and stack:
            nm, t0, child = stack.pop()
            dt = ts - t0
            total[nm] += dt
            self_t[nm] += dt - child
            if stack:
                stack[-1][2] += dt
    sizes: dict[str, int] = defaultdict(int)
    for f in Path(cache).rglob("*.nbc"):
        sizes[f.name.split("-")[0]] += f.stat().st_size
    print(f"import {w_imp:.1f} s wall ({c_imp:.1f} s CPU); first call (compile + 1 deal): "
          f"{wall:.1f} s wall, {cpu:.1f} s CPU; {len(total)} functions compiled; "
          f"load average {os.getloadavg()[0]:.1f}; numba optimisation level {int(config.OPT)}; "
          f"engine {'with' if _search() else 'without'} the search player; {tranca_sim.NUMBA_CACHE_DIR}")  # fmt: skip
    print(f"{'function':44s} {'self s':>8s} {'total s':>8s} {'cache KiB':>10s}")
    for nm in sorted(self_t, key=self_t.get, reverse=True)[: args.top]:
        print(f"{nm:44s} {self_t[nm]:8.2f} {total[nm]:8.2f} {sizes.get(nm, 0) / 1024:10.0f}")
    print(
        f"sum of self times {sum(self_t.values()):.1f} s; cache files {sum(sizes.values()) / 2**20:.1f} MiB"
    )
    _twice()
    return 0


def _twice() -> None:
    """Print the functions compiled for more than one signature in this run (each signature is a
    compile of its own), with the argument positions whose types differ."""
    import gc

    from numba.core.registry import CPUDispatcher

    found = 0
    for d in gc.get_objects():
        if isinstance(d, CPUDispatcher) and len(d.signatures) > 1:
            found += 1
            sigs = d.signatures
            differ = [i for i in range(len(sigs[0])) if len({str(s[i]) for s in sigs}) > 1]
            name = f"{d.py_func.__module__.rsplit('.', 1)[-1]}.{d.py_func.__qualname__}"
            print(f"compiled {len(sigs)} times: {name}, argument types differ at {differ}: "
                  + "; ".join(", ".join(str(s[i]) for i in differ) for s in sigs))  # fmt: skip
    if not found:
        print("no function compiled for more than one signature")


if __name__ == "__main__":
    raise SystemExit(main())
