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

By source line: compile with ``NUMBA_DEBUGINFO=1`` and ``--save-objects DIR`` (each library's
object code and a table of its symbols' run-time addresses), then ``--lines DIR perf.data`` reads
the samples (``perf script``) and maps each one in numba's code to its source line through the
object's line table (``addr2line -i``: the innermost line, and with ``--outer`` the chain of
inlined callers)::

    NUMBA_DEBUGINFO=1 perf record -e cpu-clock -F 4000 -o perf.data \
        python benchmarks/perf_kernel.py --preset buraco --deals 60000 --save-objects /tmp/objs
    python benchmarks/perf_kernel.py --lines /tmp/objs perf.data
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


def write_perf_map(path: str | None = None, save: str | None = None) -> int:
    """Write the perf map of every numba library compiled in this process; return the symbols.
    ``save``: a directory that receives each library's object code (``lib<i>.o``) and
    ``symbols.tsv`` (run-time address, symbol, object file, the symbol's address in the object)."""
    from numba.core.registry import CPUDispatcher

    addrs: dict[int, str] = {}
    rows: list[str] = []
    n_obj = 0
    if save:
        os.makedirs(save, exist_ok=True)
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
                if save:
                    obj_path = os.path.join(save, f"lib{n_obj}.o")
                    n_obj += 1
                with open(obj_path, "wb") as f:
                    f.write(obj)
                out = subprocess.run(
                    ["nm", "--defined-only", obj_path], check=True, capture_output=True, text=True
                ).stdout
                # the code is one section: every function of the object (also the weak copies of
                # the functions linked in, which the engine does not export) lies at the address
                # of an exported one plus the difference of their offsets in the object
                funcs = [p for p in (ln.split() for ln in out.splitlines()) if len(p) == 3 and p[1] in "tTwW"]
                base = None
                for off, kind, name in funcs:
                    # an exported (T) symbol: a weak one may resolve to another library's copy
                    a = lib._codegen._engine.get_function_address(name) if kind == "T" else 0
                    if a:
                        base = a - int(off, 16)
                        break
                if base is None:
                    continue
                for off, _, name in funcs:
                    a = base + int(off, 16)
                    addrs[a] = name
                    rows.append(f"{a:x}\t{name}\t{obj_path}\t{off}\n")
    if save:
        with open(os.path.join(save, "symbols.tsv"), "w") as f:
            f.writelines(rows)
    items = sorted(addrs.items())
    with open(path or f"/tmp/perf-{os.getpid()}.map", "w") as f:
        for i, (a, name) in enumerate(items):
            size = items[i + 1][0] - a if i + 1 < len(items) else 65536
            f.write(f"{a:x} {min(size, 4 << 20):x} {name}\n")
    return len(items)


def lines_report(save: str, perf_data: str, outer: bool, top: int) -> None:
    """Print the samples of numba's code by source line (see the module docstring)."""
    import bisect
    from collections import Counter

    syms = []
    for line in open(os.path.join(save, "symbols.tsv")):
        a, name, obj, off = line.rstrip("\n").split("\t")
        syms.append((int(a, 16), name, obj, int(off, 16)))
    syms.sort()
    starts = [s[0] for s in syms]
    out = subprocess.run(
        ["perf", "script", "-i", perf_data, "-F", "ip,dso"], check=True, capture_output=True, text=True
    ).stdout
    by_obj: dict[str, Counter] = {}
    total = 0
    for line in out.splitlines():
        parts = line.split()
        if len(parts) != 2 or "/perf-" not in parts[1]:
            continue  # not numba's code (the perf map's entries)
        ip = int(parts[0], 16)
        i = bisect.bisect_right(starts, ip) - 1
        if i < 0 or ip - syms[i][0] > (4 << 20):
            continue
        total += 1
        by_obj.setdefault(syms[i][2], Counter())[ip - syms[i][0] + syms[i][3]] += 1
    lines: Counter = Counter()
    funcs: Counter = Counter()
    for obj, cnt in by_obj.items():
        addrs = list(cnt)
        res = subprocess.run(
            ["addr2line", "-e", obj, "-a", "-i", "-f"],  # -a: each answer starts with its address
            input="\n".join(f"{a:x}" for a in addrs), check=True, capture_output=True, text=True,
        ).stdout.splitlines()
        chains: dict[int, list[str]] = {}
        cur: list[str] = []
        j = 0
        while j < len(res):
            if res[j].startswith("0x"):
                cur = chains.setdefault(int(res[j], 16), [])
                j += 1
                continue
            fn, loc = res[j], res[j + 1] if j + 1 < len(res) else "?"
            j += 2
            cur.append(f"{os.path.basename(loc.split(' ')[0])} {fn[:70]}")
        for a in addrs:
            chain = chains.get(a) or ["? ?"]
            n = cnt[a]
            lines[" <- ".join(chain[:4]) if outer else chain[0]] += n
            funcs[chain[-1].split(" ", 1)[1]] += n
    print(f"{total} samples in numba's code")
    print("by outermost function:")
    for k, n in funcs.most_common(15):
        print(f"  {n:7d} {100 * n / total:5.1f}%  {k}")
    print("by source line:")
    for k, n in lines.most_common(top):
        print(f"  {n:7d} {100 * n / total:5.1f}%  {k}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--lines":
        lp = argparse.ArgumentParser(allow_abbrev=False)
        lp.add_argument("--lines", nargs=2, metavar=("DIR", "PERF_DATA"))
        lp.add_argument("--outer", action="store_true")
        lp.add_argument("--top", type=int, default=60)
        la = lp.parse_args()
        lines_report(la.lines[0], la.lines[1], la.outer, la.top)
        return
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--deals", type=int, default=300_000)
    ap.add_argument("--preset", default="tranca")
    ap.add_argument("--pair", default="basic-basic")
    ap.add_argument("--cache", default=None, help="an empty cache directory (default: a temporary one)")
    ap.add_argument("--save-objects", default=None, metavar="DIR", help="keep the object code (see --lines)")
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
    print(f"{write_perf_map(save=args.save_objects)} symbols in /tmp/perf-{os.getpid()}.map", flush=True)


if __name__ == "__main__":
    main()
