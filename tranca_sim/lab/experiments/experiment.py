"""Run an experiment file: batches of deals per variant until its interval is narrow enough or
its budget is spent, run files in ``runs/``, ``experiment.json``, then the report.

>>> from tranca_sim.lab.experiments.experiment import run_experiment, load_experiment
>>> res = run_experiment("experiments/tranca-tips.toml", "reports/tranca-tips", deals=4000)  # doctest: +SKIP
>>> exp = load_experiment("reports/tranca-tips")                                              # doctest: +SKIP

**Stopping rule** (per variant): after every batch the runner looks at each
active variant's per-unit differences and computes the (1 - alpha)
asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and
Ramdas (2021), "Time-uniform central limit theory and asymptotic confidence
sequences" (the Gaussian-mixture boundary of Howard, Ramdas, McAuliffe and
Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence
sequences"; :func:`tranca_sim.lab.statistics.inference.cs_half_width`). A variant stops
when the half-width is at most ``stopping.half_width`` points per deal, or
when it has played its budget; the others go on. A confidence sequence
covers the true mean at all looks at once, so each variant's interval (the
running intersection over its looks) stays valid at its own data-dependent
stopping time, and its anytime-valid p-value may enter the Holm adjustment.
The mixture variance is fixed before any deal, from ``stopping.tune`` (deals
per variant where the interval is tightest; default the geometric mean of the
batch and the budget). Without ``half_width`` and ``[decision]`` (or with a budget of one batch)
the experiment is a fixed number of deals and the Student t interval is reported.

**Decisions** (``[decision]``): after every batch the sequential test of
:mod:`tranca_sim.lab.statistics.decision` looks at every active variant's units and deck outcomes (two
families, sequential Holm over the variants in each); a variant stops once both are decided (a
gain, a loss, or no effect as large as ``delta``: the futility stop) and, when ``half_width`` is
set too, its interval is narrow enough. The confidence sequence stays valid at that
data-dependent stop, so the interval beside the decision is still a 95% interval.

The output directory is built under a temporary name beside it, the report is
written into it, and only then is it renamed into place (``--force`` replaces
an existing one the same way), so an interrupted experiment or a failing
report leaves an existing directory whole.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import math
import shutil
import sys
import time
from pathlib import Path

import numpy as np

from ... import io as _io
from ... import stop_request
from ..._plural import plural
from ...outlock import locked_output
from ..output_dir import (
    Experiment,
    ExperimentError,
    RunRef,
    RunWriter,
    check_out_dir,
    check_run_meta,
    discard_output,
    load_experiment,
    publish_output,
    run_meta,
    swap_into_place,
)
from ..statistics.designs import (
    DEALS_PER_UNIT,
    UNIT,
    RunPlan,
    duplicate_units,
    fixed_opponent_units,
    plan_runs,
)
from ..statistics.inference import cs_rho2, sequential_interval
from ..statistics.rotation import rotation_units
from .looks import decide_look, decision_families, stop_reason
from .spec import SpecError, load_spec

#: roles of the runs shared by every variant: the fixed opponent's baseline run, the rotation's
#: all-baseline control table
_SHARED = ("baseline", "control")


# ---------------------------------------------------------------------------
# the runner
# ---------------------------------------------------------------------------
class _Variant:
    """Running state of one variant: its runs, per-unit differences, looks, stop reason."""

    def __init__(self, index: int, v: dict, plans: list[RunPlan]):
        self.index, self.v, self.plans = index, v, plans
        self.units: list[np.ndarray] = []
        self.outcomes: list[np.ndarray] = []
        self.n_units = 0
        self.deals = 0
        self.looks: list[int] = []
        self.stopped_by: str | None = None
        self.half_width = math.inf


@locked_output("out_dir", make_dirs=True)
def run_experiment(
    path,
    out_dir,
    deals: int | None = None,
    force: bool = False,
    threads: int | None = None,
    progress: bool = True,
    report: bool = True,
    *,
    processes: int | None = None,
    cluster: int | None = None,
    scheduler: str | None = None,
    on_written=None,
    say_compile: bool | None = None,
) -> dict:
    """Run an experiment file and write its output directory.

    Parameters
    ----------
    path : str or os.PathLike
        Experiment file (:mod:`tranca_sim.lab.experiments.spec`).
    out_dir : str or os.PathLike
        Output directory (LAB-CONTRACT.md): ``experiment.toml`` (a copy),
        ``experiment.json``, ``runs/*.parquet`` and the report; missing
        parent directories are created.
    deals : int, optional
        Cap on the deals per variant (a quick look).
    force : bool
        Replace an earlier experiment's ``out_dir`` (:func:`check_out_dir`; the entries an
        experiment does not write are kept).
    threads : int, optional
        numba threads (default all cores; with ``processes``, ``cluster`` or ``scheduler``: per
        worker, default 1).
    processes, cluster, scheduler : optional
        Where the runs' batches are played (:func:`tranca_sim.parallel.pool`): ``processes`` local
        worker processes, a Dask ``LocalCluster`` of ``cluster`` workers, or the existing Dask
        cluster of ``scheduler`` (an address); default this process.  Every batch is fixed by the
        seed, the strategies and its deal indices, so the runs' rows are the same wherever they
        are played.
    progress : bool
        One tqdm bar on stderr for all runs of the experiment.
    report : bool
        Write the report (``tranca_sim.lab.publish.reports.write_report``) into the new directory
        before it is renamed into place.
    on_written : callable, optional
        Called with the output directory (str) as soon as it is in place, before the workers
        are shut down (the command line then says an interrupt came after it was written).

    Returns
    -------
    dict
        ``dir``, ``spec`` (experiment.json), ``seconds`` (simulation and
        writing, after the engine is loaded), ``deals`` (all deals played, every run),
        ``deals_per_s``, ``threads``, ``load_seconds`` (the throw-away deal that compiles or
        loads the engine before the bar and the clock start; not counted), ``compiled`` (True
        when numba's disk cache held no engine), ``report`` (the report's return value, or a
        note why there is none).

    Raises
    ------
    SpecError
        For a bad experiment file (``PATH: FIELD: reason``).
    ExperimentError
        For an output directory that exists without ``force``, is a link or
        cannot be written, or when the report fails (an existing ``out_dir`` is then
        left as it was; a new one holds the runs, without report).
    tranca_sim.run.RunOptionError
        For a bad ``threads``, ``processes`` or ``cluster``, or both ``cluster`` and ``scheduler``.
    tranca_sim.parallel.ClusterError
        If the Dask cluster cannot be started or reached, or a worker runs another version.
    tranca_sim.io.RunFileError
        For an ``OSError`` while writing (disk full); nothing is left behind.
    tranca_sim.outlock.OutputBusyError
        If another live run is writing ``out_dir`` (:mod:`tranca_sim.outlock`).
    """
    from ... import parallel as _par
    from ...run import RunOptionError, check_where

    src = Path(path)
    spec = load_spec(src, deals_cap=deals)
    out = Path(out_dir)
    import numba

    if threads is not None and not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise RunOptionError(f"threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
    pooled = check_where(processes, cluster, scheduler)
    check_out_dir(out, force)
    from .strengths import is_strength_spec, run_strengths

    if is_strength_spec(spec):  # tips at several strengths, or blocks of fresh decks
        if pooled:
            raise RunOptionError(
                "an experiment with strength or blocks plays in this process: leave out --processes, "
                "--cluster and --scheduler (--threads sets its threads)"
            )
        return run_strengths(spec, src, out, threads, progress, say_compile, on_written)
    n_threads = threads if threads is not None else (1 if pooled else numba.get_num_threads())

    from tranca_sim.strategies import resolve

    from ...engine import simulate_chunk
    from ...rules import Rules

    rules = Rules(**spec["rules"])
    design = spec["design"]
    plans = plan_runs(
        design,
        [(v["label"], v["strategy"]) for v in spec["variants"]],
        spec["baseline"],
        spec["opponent"],
        nulls={v["label"] for v in spec["variants"] if v.get("null")},
    )
    variants = [
        _Variant(i, v, [p for p in plans if p.label == v["label"] and p.role not in _SHARED])
        for i, v in enumerate(spec["variants"])
    ]
    base_plan = next((p for p in plans if p.role in _SHARED), None)  # fixed opponent's or control table
    stop = spec["stopping"]
    per_unit = DEALS_PER_UNIT[design]  # deals of the variant per unit
    rho2 = cs_rho2(stop["tune"] / per_unit, stop["alpha"])
    judges = decision_families(spec)  # None, or the sequential Holm of the points and of the outcome
    batch_units, budget_units = spec["batch"] // per_unit, spec["budget"] // per_unit
    seed = spec["seed"]
    texts = {p.key: tuple(resolve(t).portable_text for t in p.sides) for p in plans}
    version = _io.package_version()
    env = _par.task_env(scheduler is None)
    rule_dict = dataclasses.asdict(rules)
    worker_threads = n_threads if pooled else None  # in this process: the threads set below

    def batches(workplace, jobs):
        """Play ``jobs`` (``(plan, first deal, count)``, at most one per run) on the pool and write
        each to its run file as it arrives; their columns by ``(plan key, first deal)``.  The bar
        moves as each batch finishes, the shared baseline's or control table's included."""
        tasks = [
            _par.ChunkTask(j, s0, n, rule_dict, texts[p.key], p.seed(seed), False, worker_threads, version, env)
            for j, (p, s0, n) in enumerate(jobs)
        ]
        got = {}
        for j, cols, _note in workplace.run(tasks, ordered=False):
            p, s0, n = jobs[j]
            writers[p.key].write(cols)
            got[p.key, s0] = cols
            bar.update(n)
        return got

    tmp = _io.temp_dir_path(out)
    writers: dict[str, RunWriter] = {}
    base_cols: list[dict] = []
    base_deals = 0
    from tqdm.auto import tqdm

    # every deal played: the variants' and the shared run's (the fixed opponent's or the control table)
    total = spec["budget"] * len(variants) + (budget_units if base_plan is not None else 0)
    from ...run import engine_cached, say_if_compiling

    compiled = not engine_cached()
    if progress if say_compile is None else say_compile:  # before the bar: one line, not a bar
        say_if_compiling(cached=not compiled)
    bar = None  # made after the engine is loaded: the compile is not in its rate or time left
    threads_before = numba.get_num_threads()
    if not pooled:
        numba.set_num_threads(n_threads)
    played = 0
    stack = contextlib.ExitStack()
    try:
        workplace = stack.enter_context(_par.pool(processes=processes, cluster=cluster, scheduler=scheduler))
        with _io.writing(out):
            out.parent.mkdir(parents=True, exist_ok=True)
            (tmp / "runs").mkdir(parents=True)
        for p in plans:
            specs = tuple(resolve(t, preset=spec["preset"]) for t in p.sides)
            meta = run_meta(p, specs, spec, n_threads)
            meta["master_seed"] = p.seed(seed)
            writers[p.key] = RunWriter(tmp / "runs" / f"{p.key}.parquet", meta)
        t_load = time.perf_counter()  # one throw-away deal compiles (first run) or loads the engine
        simulate_chunk(rules, (spec["baseline"], spec["baseline"]), master_seed=seed, start=0, count=1)
        if pooled:  # each worker loads the kernels once, from the disk cache this process just filled
            workplace.warm(
                _par.ChunkTask(0, 0, 1, rule_dict, texts[plans[0].key], seed, False, n_threads, version, env)
            )
        t0 = time.perf_counter()
        load_seconds = t0 - t_load
        bar = tqdm(
            total=total,
            unit="deal",
            unit_scale=True,
            disable=not progress,
            desc=f"{spec['name']}: {plural(len(variants), 'variant')}",
        )
        look = 0
        while any(v.stopped_by is None for v in variants):
            look += 1
            active = [v for v in variants if v.stopped_by is None]
            start = look - 1  # every active variant has played `look - 1` full batches
            start_unit = start * batch_units
            count = min(batch_units, budget_units - start_unit)
            # this look's batches: the shared baseline run's next deals, then each active variant's runs
            jobs = []
            if base_plan is not None and base_deals < start_unit + count:
                jobs.append((base_plan, base_deals, start_unit + count - base_deals))
            jobs += [(p, start_unit, count) for v in active for p in v.plans]
            played_cols = batches(workplace, jobs)
            played += sum(n for _, _, n in jobs)
            if base_plan is not None and base_deals < start_unit + count:
                base_cols.append(played_cols[base_plan.key, base_deals])
                base_deals = start_unit + count
            for v in active:
                got = {p.role: played_cols[p.key, start_unit] for p in v.plans}
                if design == "duplicate":
                    paired = duplicate_units(got["ab"], got["ba"])
                elif design == "rotation":
                    base = _slice_deals(base_cols, start_unit, count, 3)
                    paired = rotation_units(got["s0"], got["s1"], got["s2"], base)
                else:
                    base = _slice_deals(base_cols, start_unit, count)
                    paired = fixed_opponent_units(got["variant"], base)
                v.units.append(paired.units)
                if paired.outcomes is not None:
                    v.outcomes.append(paired.outcomes)
                v.n_units += len(paired.units)
                v.deals += paired.n_deals
                v.looks.append(v.n_units)
                if stop["sequential"]:
                    si = sequential_interval(np.concatenate(v.units), v.looks, rho2, stop["alpha"])
                    v.half_width = si["half_width"]
            if judges is not None:
                decide_look(judges, {v.index: v for v in active})
            for v in active:
                v.stopped_by = stop_reason(v, stop, judges)
                if v.stopped_by is None and v.n_units >= budget_units:
                    v.stopped_by = "budget"
            left = [v.half_width for v in variants if v.stopped_by is None]
            if len(left) < len(active):  # a variant stopped: its deals (and the shared run's) are not played
                bar.total = played + sum(spec["budget"] - v.deals for v in variants if v.stopped_by is None)
                bar.total += budget_units - base_deals if base_plan is not None and left else 0
                bar.refresh()
            if stop["sequential"] and left:
                what = "undecided" if judges is not None else f"widest +-{max(left):.1f} pts/deal"
                bar.set_postfix_str(f"{len(left)} running, {what}", refresh=False)
        seconds = time.perf_counter() - t0
        bar.close()  # the last deal is played: the bar is not left drawn while the report is built
        if progress and report:
            sys.stderr.write(f"{spec['name']}: building the report ...\n")  # one write: not split
            sys.stderr.flush()
        for w in writers.values():
            w.close()
        spec_out = _result_spec(spec, src, plans, variants, writers, seconds, played, n_threads, judges)
        with _io.writing(tmp / "experiment.json"):
            shutil.copyfile(src, tmp / "experiment.toml")
            (tmp / "experiment.json").write_text(json.dumps(spec_out, indent=2) + "\n", encoding="utf-8")
        report_note = None
        if report:  # written inside the new directory, so a failing report replaces nothing
            try:
                report_note = write_report_if_available(tmp, shown_dir=out)
            except (KeyboardInterrupt, SystemExit, _io.RunFileError):
                raise
            except Exception as e:
                if stop_request.requested():  # a library turned the interrupt into its own error
                    raise KeyboardInterrupt from e
                if out.exists():  # --force over a finished experiment: keep that one whole
                    raise ExperimentError(
                        f"the report of the new experiment failed ({type(e).__name__}: {e}); "
                        f"{str(out)!r} was left as it was"
                    ) from e
                with _io.writing(out):  # nothing to replace: keep the runs, say how to retry
                    swap_into_place(tmp, out)
                raise ExperimentError(
                    f"the runs are in {str(out)!r} but its report failed ({type(e).__name__}: {e}); "
                    f"'tranca-sim report {out}' writes it again"
                ) from e
        publish_output(tmp, out, on_written)
    except BaseException:
        discard_output(tmp, writers.values())
        raise
    finally:
        stack.close()  # the pool's workers (a LocalCluster is shut down)
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads_before)
    result = {
        "dir": str(out),
        "spec": spec_out,
        "seconds": seconds,
        "deals": played,
        "deals_per_s": played / seconds if seconds > 0 else math.inf,
        "threads": n_threads,
        "load_seconds": load_seconds,
        "compiled": compiled,
        "report": None,
    }
    result["report"] = report_note
    return result


def _slice_deals(chunks: list[dict], start: int, count: int, n_sides: int = 2) -> dict:
    """Deals ``start .. start+count-1`` of the shared run's chunks (deal-major columns, ``n_sides``
    rows a deal)."""
    from ..statistics.designs import DESIGN_COLUMNS

    cols = {c: np.concatenate([ch[c] for ch in chunks]) for c in DESIGN_COLUMNS}
    return {c: a[n_sides * start : n_sides * (start + count)] for c, a in cols.items()}


def _result_spec(spec, src, plans, variants, writers, seconds, played, n_threads, judges=None) -> dict:
    out = dict(spec)
    out["source"] = str(src)
    out["variants"] = [
        dict(v.v, deals=v.deals, units=v.n_units, looks=v.looks, stopped_by=v.stopped_by) for v in variants
    ]
    if judges is not None:  # what the runner decided (a report recomputes it from the runs: the same)
        for i, rec in enumerate(out["variants"]):
            rec["decision"] = {f: j.decisions[i].as_dict() for f, j in judges.items() if i in j.decisions}
    out["deals_played"] = {v.v["label"]: v.deals for v in variants}
    out["stopped_by"] = {v.v["label"]: v.stopped_by for v in variants}
    out["unit"] = UNIT[spec["design"]]
    out["runs"] = [
        {
            "label": p.label,
            "path": f"runs/{p.key}.parquet",
            "side_a": p.side_a,
            "side_b": p.side_b,
            **({"side_c": p.side_c} if p.side_c is not None else {}),
            "seed": p.seed(spec["seed"]),
            "role": p.role,
            "deals": writers[p.key].deals,
        }
        for p in plans
    ]
    out["deals_total"] = played
    out["seconds"] = round(seconds, 3)
    out["threads"] = n_threads
    out["version"] = _io.package_version()
    out["created"] = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    return out


def write_report_if_available(out, shown_dir=None) -> object:
    """Write the report of the experiment in ``out`` with ``tranca_sim.lab.publish.reports.write_report``
    (``shown_dir``: the directory the report names, default ``out``).

    Returns that function's result, or a one-line note (str) when the reports
    module is not part of this installation.
    """
    import importlib
    import importlib.util

    if importlib.util.find_spec("tranca_sim.lab.publish.reports") is None:
        return "no report: tranca_sim.lab.publish.reports is not installed yet (run 'tranca-sim report' later)"
    reports = importlib.import_module("tranca_sim.lab.publish.reports")
    return reports.write_report(out, shown_dir=shown_dir)


__all__ = [
    "Experiment",
    "ExperimentError",
    "RunRef",
    "SpecError",
    "check_run_meta",
    "load_experiment",
    "run_experiment",
    "write_report_if_available",
]
