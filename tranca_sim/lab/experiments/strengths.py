"""Run an experiment file with ``strength`` or ``blocks`` (:mod:`.spec_strength`): every tip at
each strength (the player with the tip against the same player without it, duplicate deals), on
one or more blocks of fresh decks, decided by the sequential test and confirmed across blocks.

    tranca-sim experiment experiments/tranca-tips-strengths.toml --out reports/tranca-tips-strengths

**Order of play.** Block by block (block ``b`` deals from :func:`tranca_sim.lab.statistics.blocks.block_seed`);
inside a block every (tip, strength) cell plays a batch at each look, all on the same decks
``0, 1, ...`` (so the difference between two strengths is paired on the decks both played).
**Decisions**: the sequential test of :mod:`tranca_sim.lab.statistics.decision` on the deck's points and its
outcome, one family per block over every (tip, strength) cell (sequential Holm: both error rates
family-wise over the whole table of a block); a cell stops once both are decided (and its
confidence sequence is narrow enough, when ``[stopping] half_width`` is set) or its strength's
budget is spent.  Intervals: the 95% confidence sequence (valid at the data-dependent stop) when
the experiment is sequential, else Student t.  Output: ``experiment.json`` (``kind =
"strengths"``: every cell's figures), ``units.parquet`` (every deck's unit and outcome, the
report is recomputed from it), ``runs/`` (one run file per cell and way round), and the report of
:mod:`tranca_sim.lab.publish.strengths_report`.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import resource
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from ... import io as _io
from ..statistics.designs import RunPlan, duplicate_units, slug
from ..statistics.rotation import rotation_units

KIND = "strengths"


def is_strength_spec(spec: dict) -> bool:
    """Whether the experiment is played by this module (``strength`` given, or ``blocks`` > 1)."""
    return bool(spec.get("strength")) or int(spec.get("blocks") or 1) > 1


def strengths_of(spec: dict) -> list[dict]:
    """The strengths: the file's, or (``blocks`` without ``strength``) the baseline alone, each
    variant against the baseline as the experiment file gives it."""
    if spec.get("strength"):
        return spec["strength"]
    return [{"label": "as given", "strategy": spec["baseline"], "kind": "given", "budget": spec["budget"],
             "batch": spec["batch"]}]  # fmt: skip


def pairs_of(spec: dict, strength: dict) -> list[tuple[str, str, str]]:
    """``(label, with the tip, without it)`` of every variant at ``strength``."""
    from .spec_strength import pair_texts

    if strength["kind"] == "given":
        return [(v["label"], v["strategy"], spec["baseline"]) for v in spec["variants"]]
    return [(v["label"], *pair_texts(strength, v["tip"], v["without"], spec["preset"])) for v in spec["variants"]]


def roles_of(n_sides: int) -> tuple[str, ...]:
    """The runs of a cell: the duplicate design's ``ab`` and ``ba`` at two sides, the rotation's
    ``s0``, ``s1``, ``s2`` (the variant in seat 0, 1, 2) at three solo players."""
    return ("ab", "ba") if n_sides == 2 else ("s0", "s1", "s2")


def role_sides(role: str, on: str, off: str) -> tuple[str, ...]:
    """The strategy texts by side of a cell's run ``role`` (:func:`roles_of`)."""
    if role == "ab":
        return on, off
    if role == "ba":
        return off, on
    sides = [off] * 3
    sides[int(role[1:])] = on
    return tuple(sides)


class _Control:
    """The rotation's all-baseline table of one block and player (``off`` in every seat), shared by
    its cells: played as far as the furthest cell asks, each cell paired on its own decks."""

    def __init__(self, key: str, off: str, writer):
        self.key, self.off, self.writer = key, off, writer
        self.chunks: list[dict] = []
        self.deals = 0

    def deals_for(self, rules, seed: int, start: int, count: int, simulate) -> tuple[dict, int]:
        """Its deals ``start .. start + count - 1`` (playing the missing ones), and how many it played."""
        from ..statistics.designs import DESIGN_COLUMNS

        played = max(0, start + count - self.deals)
        if played:
            cols = simulate(rules, (self.off,) * 3, seed, self.deals, played)
            self.writer.write(cols)
            self.chunks.append({c: np.asarray(cols[c]) for c in DESIGN_COLUMNS})
            self.deals += played
        cols = {c: np.concatenate([ch[c] for ch in self.chunks]) for c in self.chunks[0]}
        return {c: a[3 * start : 3 * (start + count)] for c, a in cols.items()}, played


class _Cell:
    """One (tip, strength) of one block: its runs, units and stop."""

    def __init__(self, index, block, strength, label, on, off, plan_key):
        self.index, self.block, self.strength = index, block, strength
        self.label, self.on, self.off, self.key = label, on, off, plan_key
        self.units: list[np.ndarray] = []
        self.outcomes: list[np.ndarray] = []
        self.n_units = 0
        self.deals = 0
        self.looks: list[int] = []
        self.stopped_by = None
        self.half_width = math.inf
        self.roles = roles_of(2)  # its runs (:func:`roles_of`)
        self.control: _Control | None = None  # the rotation's all-baseline table it is paired with


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def run_strengths(spec: dict, src, out, threads: int | None = None, progress: bool = True,
                  say_compile: bool | None = None, on_written=None) -> dict:  # fmt: skip
    """Play the experiment ``spec`` (:func:`.spec.load_spec`, read from ``src``) into ``out``
    (checked by the caller: :func:`.output_dir.check_out_dir`); returns what
    :func:`.experiment.run_experiment` returns (``kind``: ``"strengths"``)."""
    import numba
    from tqdm.auto import tqdm

    from ...engine import simulate_chunk
    from ...rules import Rules
    from ...run import engine_cached, say_if_compiling
    from ..output_dir import RunWriter, discard_output, publish_output
    from ..statistics.blocks import block_seed
    from ..statistics.inference import cs_rho2, sequential_interval
    from .looks import decide_look, stop_reason

    out, src = Path(out), Path(src)
    rules = Rules(**spec["rules"])
    n_sides = rules.n_sides  # 2: the duplicate design; 3 (three solo players): the rotation
    roles = roles_of(n_sides)
    strengths = strengths_of(spec)
    if any(s["kind"] == "search" for s in strengths):
        from tranca_sim.strategies.user import include_search

        include_search()
    n_threads = threads if threads is not None else numba.get_num_threads()
    threads_before = numba.get_num_threads()
    numba.set_num_threads(n_threads)
    stop = spec["stopping"]
    rho2 = {s["strategy"]: cs_rho2(_tune(s, spec) / n_sides, stop["alpha"]) for s in strengths}  # in decks
    pairs = {s["strategy"]: pairs_of(spec, s) for s in strengths}
    tmp = _io.temp_dir_path(out)
    writers: dict[str, RunWriter] = {}
    compiled = not engine_cached()
    if progress if say_compile is None else say_compile:
        say_if_compiling(cached=not compiled)
    total = spec["blocks"] * sum(s["budget"] * len(spec["variants"]) for s in strengths)
    bar = None
    cells: list[_Cell] = []
    blocks_out = []
    try:
        (tmp / "runs").mkdir(parents=True)
        t_load = time.perf_counter()
        simulate_chunk(rules, (spec["baseline"], spec["baseline"]), master_seed=spec["seed"], start=0, count=1)
        for s in strengths:  # the search player's kernels load (or compile) before the clock starts
            if s["kind"] == "search":
                simulate_chunk(rules, (s["strategy"], spec["baseline"]), master_seed=spec["seed"], start=0, count=1)
        t0, cpu0 = time.perf_counter(), _cpu()
        load_seconds = t0 - t_load
        bar = tqdm(total=total, unit="deal", unit_scale=True, disable=not progress, desc=spec["name"])
        played = 0
        for b in range(1, spec["blocks"] + 1):
            seed = block_seed(spec["seed"], spec["preset"], b)
            blocks_out.append({"block": b, "seed": seed})
            block_cells = []
            controls: dict[str, _Control] = {}  # the rotation's all-baseline tables, by player
            where = (tmp / "runs", spec, seed, b, n_threads)
            for s in strengths:
                for label, on, off in pairs[s["strategy"]]:
                    key = f"b{b}-{slug(s['label'])}-v{len(block_cells) + 1:02d}-{slug(label)}"
                    c = _Cell(len(block_cells), b, s, label, on, off, key)
                    c.roles = roles
                    block_cells.append(c)
                    for role in roles:
                        sides = role_sides(role, on, off)
                        plan = RunPlan(f"{key}.{role}", label, *sides[:2], role, *sides[2:])
                        writers[plan.key] = _open_run(plan, s["label"], *where)
                    if n_sides == 3 and off not in controls:
                        ck = f"b{b}-control-{len(controls) + 1:02d}"
                        plan = RunPlan(ck, "baseline", off, off, "control", off)
                        writers[ck] = _open_run(plan, s["label"], *where)
                        controls[off] = _Control(ck, off, writers[ck])
                    c.control = controls.get(off)
            judges = _families(spec, block_cells)
            look = 0
            while any(c.stopped_by is None for c in block_cells):
                look += 1
                active = [c for c in block_cells if c.stopped_by is None]
                for c in active:
                    start = c.n_units
                    count = min(c.strength["batch"] // n_sides, c.strength["budget"] // n_sides - start)
                    got = {}
                    for role in roles:
                        cols = simulate_chunk(rules, role_sides(role, c.on, c.off), seed, start, count)
                        writers[f"{c.key}.{role}"].write(cols)
                        got[role] = cols
                        bar.update(count)
                        played += count
                    if n_sides == 2:
                        paired = duplicate_units(got["ab"], got["ba"])
                    else:
                        base, extra = c.control.deals_for(rules, seed, start, count, simulate_chunk)
                        bar.update(extra)
                        played += extra
                        paired = rotation_units(got["s0"], got["s1"], got["s2"], base)
                    c.units.append(paired.units)
                    c.outcomes.append(paired.outcomes)
                    c.n_units += len(paired.units)
                    c.deals += paired.n_deals
                    c.looks.append(c.n_units)
                    if stop["sequential"]:
                        si = sequential_interval(np.concatenate(c.units), c.looks, rho2[c.strength["strategy"]],
                                                 stop["alpha"])  # fmt: skip
                        c.half_width = si["half_width"]
                if judges is not None:
                    decide_look(judges, {c.index: c for c in active})
                for c in active:
                    c.stopped_by = stop_reason(c, stop, judges)
                    if c.stopped_by is None and c.n_units >= c.strength["budget"] // n_sides:
                        c.stopped_by = "budget"
                left = [c for c in cells + block_cells if c.stopped_by is None]
                bar.total = played + sum(c.strength["budget"] - c.deals for c in left) + sum(
                    s["budget"] * len(spec["variants"]) for s in strengths) * (spec["blocks"] - b)  # fmt: skip
                bar.set_postfix_str(f"block {b}: {len(left)} running", refresh=True)
            for c in block_cells:
                c.decision = (
                    {f: j.decisions[c.index].as_dict() for f, j in judges.items() if c.index in j.decisions}
                    if judges is not None
                    else {}
                )
            cells += block_cells
        seconds, cpu = time.perf_counter() - t0, _cpu() - cpu0
        bar.close()
        for w in writers.values():
            w.close()
        _write_units(tmp / "units.parquet", cells)
        tips = {v["label"]: v.get("tip") for v in spec["variants"]}
        for c in cells:  # does the tip do what its text says, at this strength? (issue 22 item 1)
            c.check = _check(c, tips.get(c.label), tmp) if c.strength["kind"] != "given" else None
        record = _record(spec, src, strengths, blocks_out, cells, seconds, cpu, played, n_threads, rho2)
        shutil.copyfile(src, tmp / "experiment.toml")
        (tmp / "experiment.json").write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
        from ..publish.strengths_report import write_report

        write_report(tmp, shown_dir=out)
        publish_output(tmp, out, on_written)
    except BaseException:
        discard_output(tmp, writers.values())
        raise
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads_before)
    return {
        "kind": KIND,
        "dir": str(out),
        "spec": record,
        "seconds": seconds,
        "cpu_seconds": cpu,
        "deals": played,
        "deals_per_s": played / seconds if seconds > 0 else math.inf,
        "threads": n_threads,
        "load_seconds": load_seconds,
        "compiled": compiled,
        "report": None,
    }


def _open_run(plan: RunPlan, strength: str, runs: Path, spec: dict, seed: int, block: int, threads: int):
    """The writer of one run of a block: its metadata say the block's seed, the block and the strength."""
    from tranca_sim.strategies import resolve

    from ..output_dir import RunWriter, run_meta

    specs = tuple(resolve(t, preset=spec["preset"]) for t in plan.sides)
    meta = run_meta(plan, specs, spec, threads)
    meta["master_seed"] = seed
    meta["experiment"].update(block=block, strength=strength)
    return RunWriter(runs / f"{plan.key}.parquet", meta)


def _tune(strength: dict, spec: dict) -> float:
    """Deals where a strength's confidence sequence is tightest, fixed before any deal: the
    experiment's ``tune``, or for a strength with a budget of its own the geometric mean of its
    batch and budget (a slow player stopped at a few hundred decks would otherwise carry an
    interval tuned for the fast players' tens of thousands)."""
    if strength["budget"] == spec["budget"] and strength["batch"] == spec["batch"]:
        return spec["stopping"]["tune"]
    return math.sqrt(strength["batch"] * strength["budget"])


def _families(spec: dict, cells: list) -> dict | None:
    """The two families of a block's sequential Holm procedure over its cells; a cell whose
    strength names its own ``delta`` (a slow player's table) is tested at that effect, its deck
    outcome at ``delta_outcome`` scaled alike."""
    from ..statistics.decision import SequentialHolm

    d = spec.get("decision")
    if not d:
        return None
    k, m = len(cells), d.get("min_decks", 0)
    own = {c.index: c.strength.get("delta") or d["delta"] for c in cells}
    return {
        "points": SequentialHolm(k, d["delta"], d["alpha"], d["beta"], 0.0, deltas=own, min_units=m),
        "outcome": SequentialHolm(k, d["delta_outcome"], d["alpha"], d["beta"], 0.5, min_units=m,
                                  deltas={i: d["delta_outcome"] * x / d["delta"] for i, x in own.items()}),
    }  # fmt: skip


def _check(c: _Cell, tip: dict | None, tmp: Path) -> dict | None:
    """The tip's manipulation check (:mod:`tranca_sim.lab.statistics.checks`, ``tranca_sim.strategies.basic.CHECKS``) on
    this cell's runs, the player with the tip against the same player without it: ``verdict``
    (``passes``, ``no change``, ``FAILS``) and the check ``rows``; None when the tip declares none."""
    try:
        from ..statistics import checks
    except ImportError:  # the checks module is not part of this installation
        return None
    if not tip:
        return None
    text = "basic:" + ",".join(f"{k}={x:g}" for k, x in tip.items())  # the tip, as its checks are declared
    cols = checks.columns_needed(text)
    if not cols:
        return None
    from ...io import load_run

    need = sorted(set(cols) | {"deal_index", "side"})

    def load(role):
        df = load_run(tmp / "runs" / f"{c.key}.{role}.parquet", columns=need).sort(["deal_index", "side"])
        return {k: df[k].to_numpy() for k in need}

    rows = checks.evaluate(text, c.label, checks.duplicate_pairs(load("ab"), load("ba")))
    found = {r["verdict"] for r in rows}
    verdict = "FAILS" if found & {"FAILS", "no data"} else "no change" if "no change" in found else "passes"
    return {"verdict": verdict, "rows": rows}


def _write_units(path: Path, cells: list[_Cell]) -> None:
    import polars as pl

    frames = []
    for c in cells:
        u = np.concatenate(c.units) if c.units else np.zeros(0)
        o = np.concatenate(c.outcomes) if c.outcomes else np.zeros(0)
        frames.append(
            pl.DataFrame(
                {
                    "block": np.full(len(u), c.block, np.int32),
                    "strength": [c.strength["label"]] * len(u),
                    "label": [c.label] * len(u),
                    "deck": np.arange(len(u), dtype=np.int64),
                    "unit": u.astype(np.float64),
                    "outcome": o.astype(np.float64),
                }
            )
        )
    pl.concat(frames).write_parquet(path, compression="zstd")


def _cell_figures(c: _Cell, spec: dict, rho2: dict) -> dict:
    from ..statistics.decision import effect_size
    from ..statistics.inference import sequential_interval, t_test

    u = np.concatenate(c.units)
    alpha = spec["stopping"]["alpha"]
    split = alpha / spec["blocks"]  # each block's share of alpha for the figure the blocks publish
    if spec["stopping"]["sequential"]:
        si = sequential_interval(u, c.looks, rho2[c.strength["strategy"]], alpha)
        lo, hi, p = si["lo"], si["hi"], si["p_value"]
        sb = sequential_interval(u, c.looks, rho2[c.strength["strategy"]], split)
        lo_b, hi_b = sb["lo"], sb["hi"]
        method = "confidence sequence"
    else:
        t = t_test(u)
        lo, hi, p, method = t["lo"], t["hi"], t["p_value"], "Student t"
        tb = t_test(u, level=1 - split)
        lo_b, hi_b = tb["lo"], tb["hi"]
    sd = float(np.std(u, ddof=1)) if len(u) > 1 else math.nan
    return {
        "block": c.block,
        "strength": c.strength["label"],
        "label": c.label,
        "on": c.on,
        "off": c.off,
        "decks": int(c.n_units),
        "deals": int(c.deals),
        "mean": float(np.mean(u)),
        "se": sd / math.sqrt(len(u)) if len(u) > 1 else math.nan,
        "lo": float(lo),
        "hi": float(hi),
        "lo_split": float(lo_b),  # the interval at alpha / blocks, for the published figure
        "hi_split": float(hi_b),
        "p_value": float(p),
        "interval": method,
        "effect_size": float(effect_size(u)),
        "deck_score": float(np.mean(np.concatenate(c.outcomes))),
        "decision": c.decision,
        "check": getattr(c, "check", None),
        "stopped_by": c.stopped_by,
        "looks": c.looks,
        "runs": [f"runs/{c.key}.{role}.parquet" for role in c.roles]
        + ([f"runs/{c.control.key}.parquet"] if c.control is not None else []),
    }


def _record(spec, src, strengths, blocks, cells, seconds, cpu, played, n_threads, rho2) -> dict:
    out = dict(spec)
    out.update(
        kind=KIND,
        source=str(src),
        strength=strengths,
        block_seeds=blocks,
        cells=[_cell_figures(c, spec, rho2) for c in cells],
        unit="deck",
        deals_total=played,
        seconds=round(seconds, 3),
        cpu_seconds=round(cpu, 3),
        load_average=[round(x, 2) for x in os.getloadavg()],
        cpu_count=os.cpu_count(),
        threads=n_threads,
        version=_io.package_version(),
        created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        command=" ".join(["tranca-sim", "experiment", *sys.argv[2:]]) if "experiment" in sys.argv[1:2] else None,
    )
    return out
