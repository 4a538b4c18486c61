"""Run an experiment file: batches of deals per variant until its interval is narrow enough or
its budget is spent, run files in ``runs/``, ``experiment.json``, then the report.

>>> from tranca_sim.lab.experiment import run_experiment, load_experiment
>>> res = run_experiment("experiments/tranca-tips.toml", "reports/tranca-tips", deals=4000)  # doctest: +SKIP
>>> exp = load_experiment("reports/tranca-tips")                                              # doctest: +SKIP

**Stopping rule** (per variant): after every batch the runner looks at each
active variant's per-unit differences and computes the (1 - alpha)
asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and
Ramdas (2021), "Time-uniform central limit theory and asymptotic confidence
sequences" (the Gaussian-mixture boundary of Howard, Ramdas, McAuliffe and
Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence
sequences"; :func:`tranca_sim.lab.inference.cs_half_width`). A variant stops
when the half-width is at most ``stopping.half_width`` points per deal, or
when it has played its budget; the others go on. A confidence sequence
covers the true mean at all looks at once, so each variant's interval (the
running intersection over its looks) stays valid at its own data-dependent
stopping time, and its anytime-valid p-value may enter the Holm adjustment.
The mixture variance is fixed before any deal, from ``stopping.tune`` (deals
per variant where the interval is tightest; default the geometric mean of the
batch and the budget). Without ``half_width`` (or with a budget of one batch)
the experiment is a fixed number of deals and the Student t interval is reported.

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
import os
import secrets
import shutil
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import io as _io
from .._plural import plural
from ..outlock import locked_output
from .designs import DEALS_PER_UNIT, UNIT, RunPlan, duplicate_units, fixed_opponent_units, plan_runs
from .inference import cs_rho2, sequential_interval
from .rotation import rotation_units
from .spec import SpecError, load_spec

#: roles of the runs shared by every variant: the fixed opponent's baseline run, the rotation's
#: all-baseline control table
_SHARED = ("baseline", "control")


class ExperimentError(ValueError):
    """A problem with an experiment's output directory or its files (one readable line)."""


@dataclass(frozen=True)
class RunRef:
    """One run file of an experiment: ``label`` (variant label or ``"baseline"``), ``path``,
    ``side_a``, ``side_b`` (strategy texts), ``seed``, ``role`` (see :class:`designs.RunPlan`),
    ``side_c`` (the third player's strategy text at a three-player table, else None), ``deals``
    (the deals experiment.json records for it; None in a record without them)."""

    label: str
    path: Path
    side_a: str
    side_b: str
    seed: int
    role: str
    side_c: str | None = None
    deals: int | None = None


@dataclass
class Experiment:
    """A finished experiment: ``spec`` (the dict of experiment.json), ``dir``, ``runs``."""

    spec: dict
    dir: Path
    runs: list[RunRef]


def load_experiment(out_dir) -> Experiment:
    """Read an experiment's output directory (``experiment.json`` and its run files).

    Every run file's ``tranca_sim`` metadata (its footer; the rows are verified by the readers)
    must agree with experiment.json's record of that run: :func:`check_run_meta`.

    Raises
    ------
    ExperimentError
        If the directory or ``experiment.json`` is missing or malformed, or a
        run file it names is missing, unreadable, has no ``tranca_sim`` metadata or metadata
        of another run (another preset, rules, strategy, seed, deal count, label or role).
    """
    d = Path(out_dir)
    p = d / "experiment.json"
    try:
        spec = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExperimentError(f"{str(d)!r} holds no experiment.json: not an experiment output") from None
    except (OSError, ValueError) as e:
        raise ExperimentError(f"cannot read {str(p)!r}: {e}") from None
    try:
        runs = [
            RunRef(
                r["label"],
                d / r["path"],
                r["side_a"],
                r["side_b"],
                int(r["seed"]),
                r["role"],
                r.get("side_c"),
                int(r["deals"]) if r.get("deals") is not None else None,
            )
            for r in spec["runs"]
        ]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ExperimentError(f"{str(p)!r} is malformed: {e!r}") from None
    for r in runs:
        if not r.path.is_file():
            raise ExperimentError(f"{str(p)!r} names the run file {str(r.path)!r}, which is missing")
    for r in runs:
        check_run_meta(spec, r)
    return Experiment(spec, d, runs)


def _strategy_difference(found: str, expected: str) -> str:
    """How two canonical strategy texts (``name:k=v,...``) differ, briefly: the name, or the
    parameters whose values differ (``morto_rush=1, not 0``)."""
    fn, _, fr = str(found).rpartition(":") if "=" in str(found) else (str(found), "", "")
    en, _, er = str(expected).rpartition(":") if "=" in str(expected) else (str(expected), "", "")
    if fn != en:
        return f"{fn!r}, not {en!r}"
    fv = dict(kv.split("=", 1) for kv in fr.split(",") if "=" in kv)
    ev = dict(kv.split("=", 1) for kv in er.split(",") if "=" in kv)
    keys = dict.fromkeys([*ev, *fv])
    diff = [f"{k}={fv.get(k, '(none)')}, not {ev.get(k, '(none)')}" for k in keys if fv.get(k) != ev.get(k)]
    return f"{fn} with " + "; ".join(diff[:3]) + (f" (and {len(diff) - 3} more)" if len(diff) > 3 else "")


def check_run_meta(spec: dict, run: RunRef) -> None:
    """Check that the run file ``run.path`` is the run experiment.json (``spec``) records: its
    ``tranca_sim`` metadata (read from the footer) must name the experiment's preset, rules and
    rule options, the record's seed, deal count and strategy of each side, and (when recorded)
    the record's label and role.  A key the metadata or the record leaves out is not compared
    (files of older versions).

    Raises
    ------
    ExperimentError
        One line naming the file and the first differences (a buraco run copied over a tranca
        variant's, one variant's file under another's name, a file rewritten without its
        metadata by another tool).
    """
    where = f"run file {str(run.path)!r}"
    try:
        meta = _io.peek_meta(run.path)
    except _io.RunFileError as e:
        raise ExperimentError(str(e)) from None
    if meta is None:
        raise ExperimentError(
            f"{where} has no {_io.META_KEY!r} metadata: not a run written by 'tranca-sim experiment' "
            "(rewritten by another tool?); play the experiment again with --force"
        )
    diffs: list[str] = []

    def differs(what: str, found, expected) -> None:
        if found is not None and expected is not None and found != expected:
            diffs.append(f"{what} {found!r}, not {expected!r}")

    differs("preset", meta.get("preset"), spec.get("preset"))
    if meta.get("preset") == spec.get("preset") or meta.get("preset") is None:
        mr, sr = meta.get("rules"), spec.get("rules")
        if isinstance(mr, dict) and isinstance(sr, dict) and mr != sr:
            keys = [k for k in dict.fromkeys([*sr, *mr]) if mr.get(k) != sr.get(k)]
            diffs.append("rules differ in " + ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else ""))
        differs("rule options", meta.get("rule_options"), spec.get("rule_options"))
    differs("seed", meta.get("master_seed"), run.seed)
    differs("deals", meta.get("deals"), run.deals)
    sides = [run.side_a, run.side_b] + ([run.side_c] if run.side_c is not None else [])
    strategies = meta.get("strategies")
    if isinstance(strategies, list):
        if len(strategies) != len(sides):
            diffs.append(f"{len(strategies)} sides, not {len(sides)}")
        else:
            for name, s, text in zip("ABC", strategies, sides):
                found = s.get("text") if isinstance(s, dict) else None
                if found is not None and found != text:
                    diffs.append(f"side {name} plays {_strategy_difference(found, text)}")
    tag = meta.get("experiment")
    if isinstance(tag, dict):
        differs("experiment", tag.get("name"), spec.get("name"))
        differs("label", tag.get("label"), run.label)
        differs("role", tag.get("role"), run.role)
    if diffs:
        raise ExperimentError(
            f"{where} is not the run experiment.json records for {run.label!r} ({run.role}): its "
            + "; ".join(diffs[:4])
            + ("; ..." if len(diffs) > 4 else "")
            + " (a file copied from another run?)"
        )


# ---------------------------------------------------------------------------
# writing run files batch by batch
# ---------------------------------------------------------------------------
class _RunWriter:
    """A run file written batch by batch (one Parquet row group each), metadata added on close."""

    def __init__(self, path: Path, meta: dict):
        import pyarrow.parquet as pq

        self.path, self.meta, self.deals = path, meta, 0
        self.errors, self.illegal = 0, [0] * (len(meta.get("strategies") or ()) or 2)
        with _io.writing(path):
            self._w = pq.ParquetWriter(path, _io.ARROW_SCHEMA, compression="zstd", write_page_checksum=True)

    def write(self, cols: dict) -> None:
        with _io.writing(self.path):
            self._w.write_table(_io.chunk_table(cols, self.meta))
        self.deals += len(cols["side"]) // 2
        if "invariant_errors" in cols and "deal_index" in cols:  # per deal, repeated on its rows
            _, first = np.unique(np.asarray(cols["deal_index"]), return_index=True)
            self.errors += int(np.asarray(cols["invariant_errors"])[first].sum())
        if "illegal_choices" in cols:  # per side
            side, n = np.asarray(cols["side"]), np.asarray(cols["illegal_choices"])
            for s in range(len(self.illegal)):
                self.illegal[s] += int(n[side == s].sum())

    def close(self) -> None:
        meta = dict(
            self.meta,
            deals=self.deals,
            diagnostics={"invariant_errors": self.errors, "illegal_choices": self.illegal},
        )
        with _io.writing(self.path):
            self._w.add_key_value_metadata({_io.META_KEY: json.dumps(meta, sort_keys=True)})
            self._w.close()

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._w.close()


def _run_meta(plan: RunPlan, specs, spec: dict, threads: int) -> dict:
    import numba

    from ..run import strategy_meta

    return {
        "preset": spec["preset"],
        "rules": spec["rules"],
        "rule_options": spec["rule_options"],
        "master_seed": spec["seed"],
        "deals": 0,
        "strategies": [strategy_meta(side, s) for side, s in zip("ABC", specs)],
        "version": _io.package_version(),
        "threads": threads,
        "check": False,
        "log_deals": [],
        "log_file": None,
        "experiment": {"name": spec["name"], "label": plan.label, "role": plan.role},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "numba": numba.__version__,
    }


def _charts(*names: str) -> tuple[str, ...]:
    return tuple(f"{n}.{ext}" for n in names for ext in ("png", "svg"))


#: the output directories ``--force`` may replace, by command: the files that mark an earlier
#: output of that command (all of them must be there) and every name the command writes.
#: Other entries of an earlier output (a hand-written ``notes.md``) are kept: moved into the new one.
OUTPUT_KINDS: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "experiment": (
        ("experiment.json",),
        frozenset(
            ("experiment.json", "experiment.toml", "report.md", "runs")
            + _charts("tip_effects", "score_distribution", "sweep", "morto_turn", "deal_endings", "red3")
        ),
    ),
    "tune": (
        ("params.toml", "report.md"),
        frozenset(("trials.parquet", "params.toml", "report.md") + _charts("trace")),
    ),
    "ladder": (
        ("ladder.json",),
        frozenset(
            ("ladder.json", "ratings.csv", "ratings.md", "pairs.csv", "units.parquet", "report.md", "runs")
            + _charts("ladder")
        ),
    ),
}

#: temporaries of a running or interrupted command (io.temp_dir_path, the write probe), never foreign
_OURS = (".tmp-tranca-", ".probe-tranca-")


def _entries(d: Path) -> list[str]:
    return sorted(x.name for x in d.iterdir() if not x.name.startswith(_OURS))


def kept_entries(out: Path, kind: str) -> list[str]:
    """The entries of the earlier output ``out`` that the command ``kind`` does not write (they are
    moved into the new output when ``--force`` replaces it)."""
    names = OUTPUT_KINDS[kind][1]
    return [n for n in _entries(out) if n not in names] if out.is_dir() else []


def check_out_dir(out: Path, force: bool, kind: str = "experiment") -> None:
    """Check before any deal is played that the command ``kind`` (``"experiment"``, ``"tune"``,
    ``"ladder"``) can write its output directory ``out``.

    ``force`` replaces only an empty directory or an earlier output of the same command (one
    holding the files of :data:`OUTPUT_KINDS`, e.g. ``experiment.json``), never another
    directory (``--out reports/ --force`` would have removed every report in it).

    Raises
    ------
    ExperimentError
        If ``out`` is a symbolic link, ``.`` or ``..``, or not a directory, is a non-empty
        directory without ``force``, is a non-empty directory that is not an earlier output of
        ``kind`` (the message names a few of its entries), or its nearest existing ancestor
        (missing parents are created later) is not a directory or accepts no new directory
        (tested by creating and removing a probe directory).
    """
    if out.is_symlink():
        raise ExperimentError(f"output directory {str(out)!r} is a symbolic link; give its real path")
    if out.name in ("", ".", ".."):  # rename(2) cannot move it into place ('Device or resource busy')
        raise ExperimentError(
            f"output directory {str(out)!r} cannot be replaced (the current directory or its parent); "
            "give a new directory's name, e.g. --out results/NAME"
        )
    if out.exists():
        if not out.is_dir():
            raise ExperimentError(f"output path {str(out)!r} exists and is not a directory")
        entries = _entries(out)
        if entries and not force:
            raise ExperimentError(f"output directory {str(out)!r} is not empty; use --force to replace it")
        marks, _ = OUTPUT_KINDS[kind]
        if entries and not all((out / m).is_file() for m in marks):
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise ExperimentError(
                f"output directory {str(out)!r} holds files that are not an earlier {kind} output "
                f"(no {' and '.join(marks)}; it holds {shown}): --force replaces only those; "
                "give an empty or new directory"
            )
    parent = out.parent
    while not parent.exists() and parent != parent.parent:  # missing parents are created later
        parent = parent.parent
    if not parent.is_dir():
        raise ExperimentError(f"cannot write {str(out)!r}: {str(parent)!r} is not a directory")
    probe = parent / f".probe-tranca-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        os.mkdir(probe)
        os.rmdir(probe)
    except OSError as e:
        why = os.strerror(e.errno) if e.errno else str(e)
        raise ExperimentError(
            f"cannot write {str(out)!r}: no directory can be created in {str(parent)!r} ({why})"
        ) from None


def _swap_into_place(tmp: Path, out: Path, kind: str = "experiment") -> None:
    """Rename the finished ``tmp`` to ``out``; an earlier output there is replaced, the entries
    the command ``kind`` does not write (:func:`kept_entries`: a hand-written ``notes.md``) moved
    into the new one first."""
    old, kept = None, []
    if out.exists():
        kept = [n for n in kept_entries(out, kind) if not (tmp / n).exists()]
        old = _io.temp_dir_path(out, "old")
        os.replace(out, old)
    try:
        os.replace(tmp, out)
    except OSError:
        if old is not None:
            os.replace(old, out)
        raise
    if old is None:
        return
    try:
        for name in kept:
            os.replace(old / name, out / name)
    except OSError:  # never reached on one file system; the earlier output stays beside the new one
        return
    shutil.rmtree(old, ignore_errors=True)


# ---------------------------------------------------------------------------
# the runner
# ---------------------------------------------------------------------------
class _Variant:
    """Running state of one variant: its runs, per-unit differences, looks, stop reason."""

    def __init__(self, index: int, v: dict, plans: list[RunPlan]):
        self.index, self.v, self.plans = index, v, plans
        self.units: list[np.ndarray] = []
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
        Experiment file (:mod:`tranca_sim.lab.spec`).
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
        Write the report (``tranca_sim.lab.reports.write_report``) into the new directory
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
    from .. import parallel as _par
    from ..run import RunOptionError, check_where

    src = Path(path)
    spec = load_spec(src, deals_cap=deals)
    out = Path(out_dir)
    import numba

    if threads is not None and not 1 <= threads <= numba.config.NUMBA_NUM_THREADS:
        raise RunOptionError(f"threads must be between 1 and {numba.config.NUMBA_NUM_THREADS}, got {threads}")
    pooled = check_where(processes, cluster, scheduler)
    check_out_dir(out, force)
    n_threads = threads if threads is not None else (1 if pooled else numba.get_num_threads())

    from strategies import resolve

    from ..engine import simulate_chunk
    from ..rules import Rules

    rules = Rules(**spec["rules"])
    design = spec["design"]
    plans = plan_runs(
        design, [(v["label"], v["strategy"]) for v in spec["variants"]], spec["baseline"], spec["opponent"]
    )
    variants = [
        _Variant(i, v, [p for p in plans if p.label == v["label"] and p.role not in _SHARED])
        for i, v in enumerate(spec["variants"])
    ]
    base_plan = next((p for p in plans if p.role in _SHARED), None)  # fixed opponent's or control table
    stop = spec["stopping"]
    per_unit = DEALS_PER_UNIT[design]  # deals of the variant per unit
    rho2 = cs_rho2(stop["tune"] / per_unit, stop["alpha"])
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
            _par.ChunkTask(j, s0, n, rule_dict, texts[p.key], seed, False, worker_threads, version, env)
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
    writers: dict[str, _RunWriter] = {}
    base_cols: list[dict] = []
    base_deals = 0
    from tqdm.auto import tqdm

    # every deal played: the variants' and the shared run's (the fixed opponent's or the control table)
    total = spec["budget"] * len(variants) + (budget_units if base_plan is not None else 0)
    from ..run import engine_cached, say_if_compiling

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
            meta = _run_meta(p, specs, spec, n_threads)
            writers[p.key] = _RunWriter(tmp / "runs" / f"{p.key}.parquet", meta)
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
                v.n_units += len(paired.units)
                v.deals += paired.n_deals
                v.looks.append(v.n_units)
                if stop["sequential"]:
                    si = sequential_interval(np.concatenate(v.units), v.looks, rho2, stop["alpha"])
                    v.half_width = si["half_width"]
                    if v.half_width <= stop["half_width"]:
                        v.stopped_by = "half-width"
                if v.stopped_by is None and v.n_units >= budget_units:
                    v.stopped_by = "budget"
            left = [v.half_width for v in variants if v.stopped_by is None]
            if len(left) < len(active):  # a variant stopped: its deals (and the shared run's) are not played
                bar.total = played + sum(spec["budget"] - v.deals for v in variants if v.stopped_by is None)
                bar.total += budget_units - base_deals if base_plan is not None and left else 0
                bar.refresh()
            if stop["sequential"] and left:
                bar.set_postfix_str(f"{len(left)} running, widest +-{max(left):.1f} pts/deal", refresh=False)
        seconds = time.perf_counter() - t0
        bar.close()  # the last deal is played: the bar is not left drawn while the report is built
        if progress and report:
            print(f"{spec['name']}: building the report ...", file=sys.stderr, flush=True)
        for w in writers.values():
            w.close()
        spec_out = _result_spec(spec, src, plans, variants, writers, seconds, played, n_threads)
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
                if out.exists():  # --force over a finished experiment: keep that one whole
                    raise ExperimentError(
                        f"the report of the new experiment failed ({type(e).__name__}: {e}); "
                        f"{str(out)!r} was left as it was"
                    ) from e
                with _io.writing(out):  # nothing to replace: keep the runs, say how to retry
                    _swap_into_place(tmp, out)
                raise ExperimentError(
                    f"the runs are in {str(out)!r} but its report failed ({type(e).__name__}: {e}); "
                    f"'tranca-sim report {out}' writes it again"
                ) from e
        with _io.writing(out):
            _swap_into_place(tmp, out)
        if on_written is not None:
            on_written(str(out))
    except BaseException:
        for w in writers.values():
            w.abort()
        shutil.rmtree(tmp, ignore_errors=True)
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
    from .designs import DESIGN_COLUMNS

    cols = {c: np.concatenate([ch[c] for ch in chunks]) for c in DESIGN_COLUMNS}
    return {c: a[n_sides * start : n_sides * (start + count)] for c, a in cols.items()}


def _result_spec(spec, src, plans, variants, writers, seconds, played, n_threads) -> dict:
    out = dict(spec)
    out["source"] = str(src)
    out["variants"] = [
        dict(v.v, deals=v.deals, units=v.n_units, looks=v.looks, stopped_by=v.stopped_by) for v in variants
    ]
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
            "seed": spec["seed"],
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
    """Write the report of the experiment in ``out`` with ``tranca_sim.lab.reports.write_report``
    (``shown_dir``: the directory the report names, default ``out``).

    Returns that function's result, or a one-line note (str) when the reports
    module is not part of this installation.
    """
    import importlib
    import importlib.util

    if importlib.util.find_spec(__package__ + ".reports") is None:
        return "no report: tranca_sim.lab.reports is not installed yet (run 'tranca-sim report' later)"
    reports = importlib.import_module(__package__ + ".reports")
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
