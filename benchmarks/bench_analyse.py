"""Benchmark: the position analyser (``tranca-sim analyse``): time a decision, accuracy, calibration.

Positions are the decisions (draw, meld, discard) of deals of ``basic`` against ``basic``
(``tranca``, seed ``--seed``), one position a deal at a turn drawn at random, each seen by the seat
to move (:mod:`tranca_sim.position_log`).  Three measures:

* **time**: ``analyse`` with ``--time T`` (default 1 s): the seconds and worlds it took, and how
  often the best choice was separated before the time was up;
* **accuracy**: against a reference analysis of the same position on ``--ref-worlds`` other
  worlds (another seed): how often the short analysis picked the reference's best choice, and the
  points its pick loses by the reference (regret, mean and 95% interval); the half-width of the
  best choice's 95% interval in points;
* **calibration**: the analyser (rollouts by ``basic``, as the deals were played) predicts the
  probability that the seat's side wins the deal after the choice ``basic`` actually played;
  against what happened in the deal, by tenths of predicted probability (a reliability table),
  with the mean predicted minus the observed rate and the Brier score.

    .venv/bin/python benchmarks/bench_analyse.py [--positions 60] [--time 1] [--ref-worlds 2000]
        [--calib 400] [--calib-worlds 64] [--seed 20261202] [--threads 2]

Figures: benchmarks/README.md ("The position analyser").
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def positions(n: int, seed: int, phases=("draw", "meld", "discard")):
    """``n`` decisions, one a deal, each with its log and the side's deal result (1 won, 0.5 tie)."""
    from tranca_sim.engine.log import play_logged
    from tranca_sim.position_log import decisions
    from tranca_sim.rules import get_preset

    rules = get_preset("tranca")
    rng = random.Random(seed)
    out = []
    deal = 0
    while len(out) < n:
        log = play_logged(rules, ["basic", "basic"], seed, deal)
        deal += 1
        ds = [d for d in decisions(log) if d.phase in phases]
        if not ds:
            continue
        d = rng.choice(ds)
        res = log["result"]
        side = "AB"[d.seat % 2]
        mine, theirs = res[side]["score"], res["BA"[d.seat % 2]]["score"]
        out.append((d, 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0))
    return out


def bench_time_accuracy(ps, seconds: float, ref_worlds: int, threads: int) -> None:
    from tranca_sim.analyse import analyse, play_out

    secs, worlds, sep, agree, regret, half, n_choice = [], [], 0, 0, [], [], []
    for d, _ in ps:
        pos = d.position
        t = time.perf_counter()
        a = analyse(pos, seconds=seconds, key=1, threads=threads)
        secs.append(time.perf_counter() - t)
        worlds.append(a.worlds)
        n_choice.append(len(a.codes))
        sep += a.stopped in ("separated", "one choice")
        best = a.choices[0]
        half.append((best.points_ci[1] - best.points_ci[0]) / 2)
        ref = play_out(pos, a.codes, ref_worlds, w0=0, key=99, threads=threads)[:, :, 0].mean(axis=0)
        pick = a.codes.index(best.code)
        agree += int(np.argmax(ref)) == pick or ref[pick] == ref.max()
        regret.append(float(ref.max() - ref[pick]))
    n = len(ps)
    r = np.array(regret)
    print(f"positions: {n} (draw, meld and discard decisions of basic vs basic, tranca), --time {seconds}, "
          f"{threads} threads")
    print(f"choices a decision: median {np.median(n_choice):.0f}, max {max(n_choice)}")
    print(
        f"seconds a decision: median {np.median(secs):.2f}, 90th percentile {np.percentile(secs, 90):.2f}, "
        f"max {max(secs):.2f}; worlds: median {np.median(worlds):.0f}"
    )
    print(f"stopped separated (or one choice) before the time: {sep} of {n}")
    print(f"best choice's 95% half-width: median {np.median(half):.1f} points, 90th percentile {np.percentile(half, 90):.1f}")
    se = r.std(ddof=1) / math.sqrt(n) if n > 1 else 0.0
    print(
        f"agrees with the reference ({ref_worlds} other worlds): {agree} of {n}; regret by the reference: "
        f"mean {r.mean():.2f} [{r.mean() - 1.96 * se:.2f}, {r.mean() + 1.96 * se:.2f}] points, max {r.max():.1f}"
    )


def bench_calibration(ps, worlds: int) -> None:
    from tranca_sim.analyse import play_out, win_share
    from tranca_sim.describe import played_choice
    from tranca_sim.position_state import legal_choices, to_state

    pred, got = [], []
    for d, won in ps:
        pos = d.position
        st = to_state(pos)
        codes = [int(c) for c in legal_choices(pos, st)]
        i = played_choice(pos, st, codes, d.played, d.after)
        if i is None:
            continue
        res = play_out(pos, [codes[i]], worlds, key=7, policy="basic", st=st)
        pred.append(float(win_share(res[:, 0, 0]).mean()))
        got.append(won)
    p, y = np.array(pred), np.array(got)
    print(f"calibration: {len(p)} positions, {worlds} worlds each, rollouts by basic (the deals' players)")
    print("predicted  positions  mean predicted  observed [95%]")
    for lo in np.arange(0, 1, 0.1):
        m = (p >= lo) & ((p < lo + 0.1) if lo < 0.85 else (p <= 1))
        k = int(m.sum())
        if not k:
            continue
        obs = y[m].mean()
        h = 1.96 * math.sqrt(max(obs * (1 - obs), 1e-9) / k)
        print(f"{lo:.1f}-{lo + 0.1:.1f}    {k:9d}  {p[m].mean():14.3f}  {obs:.3f} [{obs - h:.3f}, {obs + h:.3f}]")
    gap = p.mean() - y.mean()
    se = (p - y).std(ddof=1) / math.sqrt(len(p))
    print(f"mean predicted - observed: {gap:+.3f} [{gap - 1.96 * se:+.3f}, {gap + 1.96 * se:+.3f}]; "
          f"Brier {np.mean((p - y) ** 2):.3f} (0.25 for always 0.5)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--positions", type=int, default=60)
    ap.add_argument("--time", type=float, default=1.0)
    ap.add_argument("--ref-worlds", type=int, default=2000)
    ap.add_argument("--calib", type=int, default=400)
    ap.add_argument("--calib-worlds", type=int, default=64)
    ap.add_argument("--seed", type=int, default=20261202)
    ap.add_argument("--threads", type=int, default=2)
    a = ap.parse_args()
    if a.positions:
        bench_time_accuracy(positions(a.positions, a.seed), a.time, a.ref_worlds, a.threads)
    if a.calib:
        bench_calibration(positions(a.calib, a.seed + 1), a.calib_worlds)


if __name__ == "__main__":
    main()
