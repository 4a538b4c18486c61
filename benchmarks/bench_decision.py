"""Benchmark: the sequential decision (tranca_sim.lab.statistics.decision) on a real null and a real tip.

Plays two pools of decks once (cached under ``.bench-cache/``):

* the **null**: ``basic`` against ``basic``, each deck's second way round dealt from a seed of its
  own (``null = true``, :func:`tranca_sim.lab.statistics.designs.null_seed`): the unit is half the difference
  of two independent plays, true mean exactly 0; the pool is centred on its own mean so that the
  resampled null is exactly 0 too;
* a **tip**: ``basic:<tip>`` against ``basic`` on duplicate decks (default ``black3_lock=1``).

Then replays the experiment runner's rule many times on decks drawn with replacement from a pool
(a look every ``--look`` decks, up to ``--budget`` decks): the two-sided GSPRT with Wald's
boundaries (one variant: Holm's first boundary is the single test's), and beside it the
estimate-only rule (the 95% confidence sequence of the lab, stopped at a half-width of
``--half-width`` points a deal, ``tune`` as the runner's default). It prints, for the null, the
false positives (a gain or a loss decided; should be at most alpha) and, at an effect of exactly
``delta`` (the null pool shifted by ``delta``) and on the tip's own pool, the power (a gain
decided; at least 1 - beta at ``delta``), the decks each rule took (median and mean) and the decks
saved. A family of ``--family`` null variants checks Holm's family-wise false positives.

    .venv/bin/python benchmarks/bench_decision.py [--delta 20] [--alpha 0.05] [--beta 0.05]
        [--tip black3_lock=1] [--pool 20000] [--reps 2000] [--look 200] [--budget 20000]

Figures: benchmarks/LOG.md.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def _pool(kind: str, tip: str, n: int, seed: int, threads: int) -> np.ndarray:
    """The per-deck units of the null or of the tip, ``n`` decks, cached."""
    cache = ROOT / ".bench-cache" / f"decision-{kind}-{tip if kind == 'tip' else 'basic'}-{n}-{seed}.npy"
    if cache.exists():
        return np.load(cache)
    import numba

    from tranca_sim.engine import simulate_chunk
    from tranca_sim.lab.statistics.designs import duplicate_units, null_seed
    from tranca_sim.rules import get_preset

    numba.set_num_threads(threads)
    rules = get_preset("tranca")
    if kind == "null":
        a = simulate_chunk(rules, ("basic", "basic"), seed, 0, n)
        b = simulate_chunk(rules, ("basic", "basic"), null_seed(seed, 1), 0, n)
        da = a["score"][0::2].astype(float) - a["score"][1::2]
        db = b["score"][0::2].astype(float) - b["score"][1::2]
        units = (da - db) / 2
    else:
        v = f"basic:{tip}"
        ab = simulate_chunk(rules, (v, "basic"), seed, 0, n)
        ba = simulate_chunk(rules, ("basic", v), seed, 0, n)
        units = duplicate_units(ab, ba).units
    cache.parent.mkdir(exist_ok=True)
    np.save(cache, units)
    return units


def _run_rules(pool, reps, look, budget, delta, alpha, beta, half_width, rng, shift=0.0):
    """Per replication: (verdict code of the GSPRT: +1 gain, -1 loss, 0 no effect, 2 undecided;
    decks it took; decks the estimate-only rule took; did the CS interval at the decision cover the
    truth)."""
    from tranca_sim.lab.statistics.decision import wald_bounds
    from tranca_sim.lab.statistics.inference import cs_half_width, cs_rho2

    lo, hi = wald_bounds(alpha, beta)
    looks = np.arange(look, budget + 1, look)
    rho2 = cs_rho2(np.sqrt(look * budget), 0.05)  # the runner's default tune, in decks
    out = np.empty((reps, 3))
    chunk = 100
    for r0 in range(0, reps, chunk):
        k = min(chunk, reps - r0)
        x = pool[rng.integers(0, len(pool), size=(k, budget))] + shift
        s1 = np.cumsum(x, axis=1)[:, looks - 1]
        s2 = np.cumsum(x * x, axis=1)[:, looks - 1]
        m = s1 / looks
        v = np.maximum(s2 / looks - m * m, 1e-12)
        llr = looks * delta * (2 * np.abs(m) - delta) / (2 * v)  # max of the two directions
        up, down = llr >= hi, llr <= lo
        first = np.where((up | down).any(axis=1), (up | down).argmax(axis=1), -1)
        rows = np.arange(k)
        verdict = np.where(first < 0, 2, np.where(up[rows, first], np.sign(m[rows, first]), 0))
        n_dec = np.where(first < 0, budget, looks[np.maximum(first, 0)])
        sd = np.sqrt(v * looks / np.maximum(looks - 1, 1))
        hw = cs_half_width(sd, looks[None, :], rho2, 0.05)
        met = hw <= half_width
        n_est = np.where(met.any(axis=1), looks[met.argmax(axis=1)], budget)
        out[r0 : r0 + k] = np.column_stack([verdict, n_dec, n_est])
    return out


def _family_fwer(pool, reps, look, budget, delta, alpha, beta, k, rng) -> float:
    """Share of families of ``k`` null variants (independent draws) with any false gain or loss
    under the sequential Holm procedure."""
    from tranca_sim.lab.statistics.decision import SequentialHolm

    bad = 0
    for _ in range(reps):
        proc = SequentialHolm(k, delta, alpha, beta)
        xs = pool[rng.integers(0, len(pool), size=(k, budget))]
        for n in range(look, budget + 1, look):
            live = {i: xs[i, :n] for i in range(k) if not (i in proc.decisions and proc.decisions[i].decided)}
            if not live:
                break
            proc.look({i: (*proc.statistic(x), n) for i, x in live.items()})
        bad += any(d.verdict in ("gain", "loss") for d in proc.decisions.values())
    return bad / reps


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0], allow_abbrev=False)
    ap.add_argument("--delta", type=float, default=20.0)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--beta", type=float, default=0.05)
    ap.add_argument("--tip", default="black3_lock=1")
    ap.add_argument("--pool", type=int, default=20000, help="decks played for each pool")
    ap.add_argument("--reps", type=int, default=2000)
    ap.add_argument("--family", type=int, default=4)
    ap.add_argument("--family-reps", type=int, default=400)
    ap.add_argument("--look", type=int, default=200, help="decks between looks")
    ap.add_argument("--budget", type=int, default=20000, help="most decks a replication plays")
    ap.add_argument("--half-width", type=float, default=5.0, help="the estimate-only rule's target")
    ap.add_argument("--seed", type=int, default=20261203)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args(argv)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"commit {commit.stdout.strip()}; delta {a.delta:g}, alpha {a.alpha:g}, beta {a.beta:g}; "
          f"look every {a.look} decks, budget {a.budget} decks; {a.reps} replications")  # fmt: skip
    t0 = time.perf_counter()
    null = _pool("null", a.tip, a.pool, a.seed, a.threads)
    tip = _pool("tip", a.tip, a.pool, a.seed, a.threads)
    print(f"pools: {len(null)} null decks (sd {null.std():.0f}, mean {null.mean():+.2f} before centring), "
          f"{len(tip)} decks of {a.tip} (sd {tip.std():.0f}, mean {tip.mean():+.2f} "
          f"+- {1.96 * tip.std() / np.sqrt(len(tip)):.2f}) in {time.perf_counter() - t0:.0f} s")  # fmt: skip
    null = null - null.mean()
    rng = np.random.default_rng(a.seed)
    cases = [
        ("null (true effect 0)", null, 0.0),
        (f"null shifted by +delta ({a.delta:+g})", null, a.delta),
        (f"tip {a.tip} (its pool, effect {tip.mean():+.1f})", tip, 0.0),
    ]
    for name, pool, shift in cases:
        res = _run_rules(pool, a.reps, a.look, a.budget, a.delta, a.alpha, a.beta, a.half_width, rng, shift)
        v, nd, ne = res[:, 0], res[:, 1], res[:, 2]
        se = lambda p: 1.96 * np.sqrt(p * (1 - p) / len(v))
        fp = np.mean(np.isin(v, (1, -1)))
        gain = np.mean(v == 1)
        print(
            f"{name}: gain {gain:.3f} (+-{se(gain):.3f}), loss {np.mean(v == -1):.3f}, any effect {fp:.3f} "
            f"(+-{se(fp):.3f}), no effect {np.mean(v == 0):.3f}, undecided {np.mean(v == 2):.3f}; decks to "
            f"decide: median {np.median(nd):.0f}, mean {nd.mean():.0f}; estimate-only (+-{a.half_width:g}): "
            f"median {np.median(ne):.0f}, mean {ne.mean():.0f}; saved {1 - nd.mean() / ne.mean():.0%} of the decks"
        )
    fw = _family_fwer(null, a.family_reps, a.look, a.budget, a.delta, a.alpha, a.beta, a.family, rng)
    print(f"family of {a.family} nulls, sequential Holm: any false gain or loss in {fw:.3f} of {a.family_reps} "
          f"families (+-{1.96 * np.sqrt(fw * (1 - fw) / a.family_reps):.3f})")  # fmt: skip
    print(f"total {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
