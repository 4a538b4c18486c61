"""Runs in chunks: deals/s in this process, on local processes and on a Dask LocalCluster,
and peak memory against the number of deals.

    .venv/bin/python benchmarks/bench_scale.py --deals 200000            # rates, three ways
    .venv/bin/python benchmarks/bench_scale.py --rss 1000000 3000000     # peak RSS, flat in N

Each measurement is a fresh process (``--one``) running ``run_simulation`` with a dataset
output (``--out DIR/``, one Parquet file per chunk), ``--pair`` (default basic vs basic), cached
kernels (a warm-up run fills numba's cache first).  Printed: commit, load average and free cores (:func:`free_cores`) before and after,
the end-to-end rate (deals/s with the Parquet files written, the engine's load excluded), the kernel
rate (deals over the busiest worker's seconds inside ``simulate_chunk``) and the parallel efficiency
(kernel rate over the workers' count times the first mode's kernel rate: run ``threads:1`` first),
each worker's chunks, its one load of the kernels and numba's compiles there, and the peak
resident memory of the run's process and of its largest worker.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def one(mode: str, deals: int, chunk: int, out: str, pair: str = "basic-basic") -> dict:
    from tranca_sim.simulate import run_simulation

    kw = {"threads": 2}
    if mode.startswith("processes"):
        kw = {"processes": int(mode.split(":")[1]), "threads": 1}
    elif mode.startswith("cluster"):
        kw = {"cluster": int(mode.split(":")[1]), "threads": 1}
    elif mode.startswith("threads"):
        kw = {"threads": int(mode.split(":")[1])}
    t0 = time.perf_counter()
    res = run_simulation(
        "tranca",
        deals,
        1,
        *pair.split("-"),
        out,
        chunk_size=chunk,
        progress=False,
        force=True,
        dataset=True,
        **kw,
    )
    wall = time.perf_counter() - t0
    return {
        "mode": mode,
        "deals": deals,
        "chunk_size": chunk,
        "pair": pair,
        "deals_per_s": res["deals_per_s"],
        "kernel_seconds": max(w.get("kernel_seconds", 0.0) for w in res["workers"].values()),
        "n_workers": len(res["workers"]),
        "seconds": res["seconds"],
        "wall_seconds": wall,
        "workers": res["workers"],
        "rss_self_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_children_max_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
    }


def run_one(mode: str, deals: int, chunk: int, out: str, pair: str = "basic-basic") -> dict:
    cmd = [sys.executable, __file__, "--one", mode, str(deals), str(chunk), out, pair]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def commit() -> str:
    r = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], check=False, capture_output=True, text=True
    )
    return r.stdout.strip() or "?"


def show(r: dict, base_kernel: float | None = None) -> float:
    """Print one measurement; returns its kernel rate (deals/s)."""
    ws = r["workers"]
    kernel = r["deals"] / r["kernel_seconds"] if r["kernel_seconds"] > 0 else float("nan")
    eff = ""
    if base_kernel:
        eff = (
            f", parallel efficiency {kernel / (base_kernel * r['n_workers']):.0%}"
            if "threads" not in r["mode"]
            else ""
        )
        if r["mode"].startswith("threads:"):
            n = int(r["mode"].split(":")[1])
            eff = f", parallel efficiency {kernel / (base_kernel * n):.0%}"
    loads = ", ".join(f"{w['chunks']} chunks / load {w['load_seconds']:.1f} s / compiles {w['cache_misses']}"
                      for w in ws.values())  # fmt: skip
    print(
        f"  {r['mode']:<12} {r['deals']:>10,} deals  end to end {r['deals_per_s']:>9,.0f} deals/s, "
        f"kernel {kernel:>9,.0f} deals/s{eff}  "
        f"({r['seconds']:.1f} s; process wall {r['wall_seconds']:.1f} s)  "
        f"peak RSS {r['rss_self_mib']:.0f} MiB, largest child {r['rss_children_max_mib']:.0f} MiB"
    )
    if len(ws) > 1 or not r["mode"].startswith("threads"):
        print(f"               workers: {loads}")
    return kernel


def free_cores() -> str:
    """How many cores this run can have right now: a small numba loop on one thread, then on two
    side by side; ``2.00`` when the second core is free, about ``1.0`` when another job holds one.
    The load average lags by minutes and counts sleeping I/O; this says what a run gets."""
    import threading

    from numba import njit

    @njit(nogil=True)
    def spin(n):
        x = 88172645463325252
        acc = 0
        for _ in range(n):
            x ^= (x << 13) & 0xFFFFFFFFFFFF
            x ^= x >> 7
            x ^= (x << 17) & 0xFFFFFFFFFFFF
            acc += x & 255
        return acc

    spin(10)

    def timed(k: int) -> float:
        ts = [threading.Thread(target=spin, args=(60_000_000,)) for _ in range(k)]
        t = time.perf_counter()
        for th in ts:
            th.start()
        for th in ts:
            th.join()
        return time.perf_counter() - t

    one_t, two_t = timed(1), timed(2)
    return f"{2 * one_t / two_t:.2f} of 2 cores free"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument(
        "--one", nargs=5, metavar=("MODE", "DEALS", "CHUNK", "OUT", "PAIR"), help=argparse.SUPPRESS
    )
    ap.add_argument("--pair", default="basic-basic", help="strategies of side A and B (default basic-basic)")
    ap.add_argument("--deals", type=int, default=200_000, help="deals of the rate comparison")
    ap.add_argument("--chunk-size", type=int, default=25_000)
    ap.add_argument("--modes", nargs="*", default=["threads:1", "threads:2", "processes:2", "cluster:2"])
    ap.add_argument("--rss", type=int, nargs="*", default=None, help="deal counts for the memory runs")
    a = ap.parse_args()
    if a.one:
        mode, deals, chunk, out, pair = a.one
        print(json.dumps(one(mode, int(deals), int(chunk), out, pair)))
        return
    tmp = Path(tempfile.mkdtemp(prefix="bench-scale-"))
    try:
        print(
            f"commit {commit()}, load average before {os.getloadavg()[0]:.1f}, cpus {os.cpu_count()}, "
            f"{free_cores()}"
        )
        run_one("threads:2", 2000, 1000, f"{tmp}/warm/")  # fills numba's cache: no compile below
        if a.rss:
            print("peak memory against deals (in-process, 2 threads, 50,000-deal chunks):")
            for n in a.rss:
                show(run_one("threads:2", n, 50_000, f"{tmp}/rss-{n}/", a.pair))
                shutil.rmtree(tmp / f"rss-{n}", ignore_errors=True)
        else:
            print(f"{a.deals:,} deals of {a.pair.replace('-', ' vs ')}, chunks of {a.chunk_size:,}:")
            base = None
            for m in a.modes:
                k = show(run_one(m, a.deals, a.chunk_size, f"{tmp}/{m.replace(':', '-')}/", a.pair), base)
                base = base or k
        print(f"load average after {os.getloadavg()[0]:.1f}, {free_cores()}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
