"""Does a tip's value depend on the strength of the player who follows it?

    python -m tranca_sim.lab.ladder.tip_strength --out reports/tips-vs-strength --decks 50000 --search-decks 600

For each tip (the rule guides' advice as a parameter of ``basic``, :data:`tranca_sim.strategies.basic.TIPS`)
and each follower (``basic``; ``tuned``, the parameters ``tranca-sim tune`` found) the tip is
switched on (the guide's setting, the same values for both followers) and off (``basic``'s
default), everything else as the follower plays, and measured two ways:

``self-play``
    The follower with the tip against the same follower without it, duplicate deals (each deck
    twice, sides swapped); the unit is the deck and its value the mean of its two score
    differences (on minus off), points a deal (:func:`tranca_sim.lab.statistics.designs.duplicate_units`).
``vs search``
    Each of the two (tip on, tip off) against the search player (``search``, small budget) on
    the same duplicate decks; the unit is the deck and its value the on-player's margin over
    the search player minus the off-player's margin on that deck. So: how much more the tip
    gains when the opponents play strongly. The search player itself does not follow the tip:
    it chooses its draws and discards by rollouts, not by the tip's rule, so "search + tip" is
    not the same tip; the tip's value against strong opponents is the question a reader of a
    rule guide can act on.

``tuned`` already follows some tips (its file, ``strategies/tuned/tranca.toml``: black3_lock=1,
clean_patience=3, morto_stock=40 with morto_melds=2): "tuned with the tip" is tuned with the
guide's setting, "tuned without" tuned with ``basic``'s default, so for the black-3 lock the
on-player is tuned itself and the effect is tuned against tuned-with-the-lock-off.

Statistics: each effect with its 95% Student t interval over decks and a two-sided p-value,
Holm's correction over the whole effect table; per tip the difference of effects (tuned minus
basic in self-play; vs search minus self-play per follower) with a 95% normal interval that
accounts for the shared decks, Holm over the differences.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path

import numpy as np

#: (label, tip-on parameters, tip-off parameters, source and meaning) -- values of basic.TIPS
TIPS = (
    (
        "morto timing",
        {"morto_stock": 20, "morto_melds": 0, "morto_rush": 0},
        {"morto_stock": 108, "morto_melds": 0, "morto_rush": 0},
        "000 tip 1 (late): hold the morto until the stock has 20 cards or fewer",
    ),
    (
        "black-3 lock",
        {"black3_lock": 1},
        {"black3_lock": 0},
        "000 tip 2: discard a black 3 when the other discard would feed an opposing meld",
    ),
    (
        "clean-canasta patience",
        {"clean_patience": 2},
        {"clean_patience": 0},
        "000 tip 3: wait 2 side turns for a natural before dirtying a clean 5-6 card meld",
    ),
)
FOLLOWERS = ("basic", "tuned")
SEARCH = "search:worlds=8,turns=12"
SETTINGS = ("self-play", "vs search")


def strategy_text(follower: str, params: dict, preset: str = "tranca") -> str:
    """``follower`` with ``params``; the follower's own text when they are its own values."""
    from tranca_sim.strategies import resolve

    own = resolve(follower, preset=preset)
    names = list(own.param_names)
    if all(own.params[names.index(k)] == v for k, v in params.items()):
        return follower
    return follower + ":" + ",".join(f"{k}={v:g}" for k, v in params.items())


class _Runs:
    """Duplicate pairs played once each (cached by their two strategy texts and deck count);
    run files under ``dir/runs`` for ``tranca-sim replay``."""

    def __init__(self, out: Path, rules, preset: str, seed: int):
        self.out, self.rules, self.preset, self.seed = out, rules, preset, seed
        self.cache: dict = {}
        self.files: dict = {}
        self.deals = 0

    def units(self, a: str, b: str, n: int, bar) -> np.ndarray:
        """Per-deck ``a`` minus ``b`` (points a deal) on decks ``0 .. n-1``."""
        if (a, b, n) in self.cache:
            return self.cache[(a, b, n)]
        import numba

        from tranca_sim.strategies import resolve

        from ...engine import simulate_chunk
        from ..output_dir import RunWriter, run_meta
        from ..statistics.designs import duplicate_units
        from .ladder import _Plan

        got = {}
        k = len(self.files)
        for role, sides in (("ab", (a, b)), ("ba", (b, a))):
            path = self.out / "runs" / f"{k:02d}.{role}.parquet"
            spec = {"name": "tips-vs-strength", "preset": self.preset, "seed": self.seed}
            spec["rules"], spec["rule_options"] = _rules_dict(self.rules), {}
            specs = tuple(resolve(s, preset=self.preset) for s in sides)
            w = RunWriter(path, run_meta(_Plan(f"{a} vs {b}", role), specs, spec, numba.get_num_threads()))
            parts = []
            step = 50 if "search" in a + b else 10_000
            for start in range(0, n, step):
                cnt = min(step, n - start)
                cols = simulate_chunk(self.rules, sides, self.seed, start, cnt)
                w.write(cols)
                parts.append({c: cols[c] for c in ("deal_index", "side", "score", "won", "went_out")})
                bar.update(cnt)
                self.deals += cnt
            w.close()
            got[role] = {c: np.concatenate([p[c] for p in parts]) for c in parts[0]}
            self.files[(a, b, n, role)] = str(path.relative_to(self.out))
        u = duplicate_units(got["ab"], got["ba"]).units
        self.cache[(a, b, n)] = u
        return u


def _rules_dict(rules) -> dict:
    import dataclasses

    return dataclasses.asdict(rules)


def diff_interval(x: np.ndarray, y: np.ndarray) -> dict:
    """Mean of ``y`` minus mean of ``x`` where both are per-deck values on decks ``0..len-1``
    (the shorter one a prefix of the longer one's decks): estimate, 95% normal interval and
    two-sided p-value. ``Var = var(x)/n_x + var(y)/n_y - 2 cov(x[:m], y[:m]) m / (n_x n_y)``,
    ``m`` the shared decks."""
    from scipy.stats import norm

    nx, ny = len(x), len(y)
    m = min(nx, ny)
    cov = float(np.cov(x[:m], y[:m], ddof=1)[0, 1]) if m >= 2 else 0.0
    var = float(np.var(x, ddof=1)) / nx + float(np.var(y, ddof=1)) / ny - 2 * cov * m / (nx * ny)
    d = float(np.mean(y) - np.mean(x))
    se = math.sqrt(max(var, 0.0))
    p = float(2 * norm.sf(abs(d) / se)) if se > 0 else (1.0 if d == 0 else 0.0)
    return {"diff": d, "lo": d - 1.96 * se, "hi": d + 1.96 * se, "se": se, "p_value": p}


def run(
    out, decks: int, search_decks: int, seed: int = 20261130, preset: str = "tranca", progress=True
) -> dict:
    """Play every comparison and write ``out`` (``results.json``, ``effects.csv``,
    ``differences.csv``, ``tips_strength.png/.svg``, ``report.md``; ``runs/`` for replays)."""
    from tqdm.auto import tqdm

    from ...rules import get_preset
    from ..statistics.inference import holm, t_test

    if search_decks > 0:  # before the first (self-play) run loads the engine
        from tranca_sim.strategies.user import include_search

        include_search()
    rules = get_preset(preset)
    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    runs = _Runs(out, rules, preset, seed)
    total = 2 * (len(TIPS) * len(FOLLOWERS) * decks + (1 + len(TIPS) + 2 * len(TIPS)) * search_decks)  # about
    bar = tqdm(total=total, unit="deal", unit_scale=True, disable=not progress)
    t0 = time.perf_counter()
    effects, per_deck = [], {}
    for tip, on, off, note in TIPS:
        for f in FOLLOWERS:
            a, b = strategy_text(f, on, preset), strategy_text(f, off, preset)
            bar.set_description(f"{tip}, {f}")
            u_self = runs.units(a, b, decks, bar)
            u_on = runs.units(a, SEARCH, search_decks, bar)
            u_off = runs.units(b, SEARCH, search_decks, bar)
            for setting, u in (("self-play", u_self), ("vs search", u_on - u_off)):
                t = t_test(u)
                per_deck[(tip, f, setting)] = u
                effects.append(
                    {
                        "tip": tip,
                        "follower": f,
                        "setting": setting,
                        "on": a,
                        "off": b,
                        "opponent": b if setting == "self-play" else SEARCH,
                        "decks": len(u),
                        "mean": t["mean"],
                        "lo": t["lo"],
                        "hi": t["hi"],
                        "sd": t["sd"],
                        "p_value": t["p_value"],
                        "note": note,
                    }
                )
    bar.close()
    ph = holm([e["p_value"] for e in effects])
    for e, p in zip(effects, ph):
        e["p_holm"] = float(p)
        e["holm_significant"] = bool(p <= 0.05)
    diffs = []
    for tip, *_ in TIPS:
        comps = [
            ("tuned minus basic, self-play", (tip, "basic", "self-play"), (tip, "tuned", "self-play")),
            ("vs search minus self-play, basic", (tip, "basic", "self-play"), (tip, "basic", "vs search")),
            ("vs search minus self-play, tuned", (tip, "tuned", "self-play"), (tip, "tuned", "vs search")),
            ("tuned minus basic, vs search", (tip, "basic", "vs search"), (tip, "tuned", "vs search")),
        ]
        for what, kx, ky in comps:
            diffs.append({"tip": tip, "comparison": what, **diff_interval(per_deck[kx], per_deck[ky])})
    ph = holm([d["p_value"] for d in diffs])
    for d, p in zip(diffs, ph):
        d["p_holm"] = float(p)
        d["holm_significant"] = bool(p <= 0.05)
    result = {
        "preset": preset,
        "seed": seed,
        "decks": decks,
        "search_decks": search_decks,
        "search": SEARCH,
        "deals": runs.deals,
        "seconds": time.perf_counter() - t0,
        "effects": effects,
        "differences": diffs,
        "runs": {" | ".join(map(str, k)): v for k, v in runs.files.items()},
    }
    from .tip_strength_report import write_outputs

    write_outputs(out, result)
    return result


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], allow_abbrev=False)
    ap.add_argument("--out", required=True)
    ap.add_argument("--decks", type=int, default=50_000, help="decks of each self-play comparison")
    ap.add_argument("--search-decks", type=int, default=600, help="decks of each run against search")
    ap.add_argument("--seed", type=int, default=20261130)
    ap.add_argument("--report-only", action="store_true", help="rewrite the report from results.json")
    args = ap.parse_args(argv)
    if args.report_only:
        from .tip_strength_report import write_outputs

        write_outputs(Path(args.out), json.loads((Path(args.out) / "results.json").read_text()))
        return
    res = run(args.out, args.decks, args.search_decks, args.seed)
    print(f"{res['deals']} deals in {res['seconds']:.0f} s; wrote {args.out}")


if __name__ == "__main__":
    main()
