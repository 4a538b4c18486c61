"""One simulation run: a run description checked, played in chunks and written as Parquet.

>>> from tranca_sim.run import RunDescription, run
>>> result = run(RunDescription("tranca", 10_000, 1, "basic", "random", "run.parquet", force=True))
>>> result["deals_per_s"]                      # doctest: +SKIP

:func:`tranca_sim.simulate.run_simulation` is the same run with the summary the command line
prints (the entry point of the Python API).  Every option is checked before the engine is
imported (:mod:`tranca_sim.run_checks`), so a typo fails at once; the chunks stream from
:func:`tranca_sim.engine.simulate_chunk` through :func:`tranca_sim.run_write.write_run` (or into a
dataset directory, :mod:`tranca_sim.dataset`), so memory does not grow with the number of deals.
A caller that wants to see the rows as they come (the summary does) passes an ``observer``
(:class:`ChunkObserver`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import os
import platform
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from . import dataset as _ds
from . import parallel as _par
from ._plural import plural
from .outlock import output_lock
from .output import atomic_output, check_output_path, writing
from .rules import Rules, get_preset
from .run_checks import (  # noqa: F401 - the run's option checks, long imported from here
    INT64_MAX,
    MAX_CHUNK,
    MAX_DEALS,
    NOT_OPTIONS,
    RunOptionError,
    check_int,
    check_log_path,
    check_where,
    coerce_rule_options,
    log_path_for,
    max_processes,
    parse_log_deals,
    parse_rule_args,
    strategy_meta,
)
from .run_format import package_version
from .run_write import run_constants, write_run

#: How long a first compile takes, as the messages say it: the engine without the search player
#: (the default, strategies/user.py) at numba's optimisation level 1 (tranca_sim/_cache.py), with
#: few levels above play_turn, took 45 s of CPU time on a nearly idle machine, the engine with the
#: search player 80 s (benchmarks/LOG.md "The first compile made smaller", compile_profile.py)
COMPILE_TIME = "about a minute, more on a busy machine"


@dataclasses.dataclass(frozen=True)
class RunDescription:
    """What a run plays and where it writes it: every field that fixes its rows and its output.

    The fields are the parameters of :func:`tranca_sim.simulate.run_simulation` of the same
    names (their meaning and limits are written there): the rule preset and its
    ``rule_options``, ``deals`` (or ``matches``), the master ``seed``, one strategy per side
    (``side_c`` at a three-player table), the output ``out`` (a run file, or a dataset directory:
    ``dataset``, ``resume``), ``force``, the ``chunk_size``, the invariant ``check``, the deals
    logged (``log_deals``), and where the chunks run (``threads``, ``processes``, ``cluster``,
    ``scheduler``).
    """

    preset: str
    deals: int | None
    seed: int
    side_a: str
    side_b: str
    out: Any  # str or os.PathLike
    force: bool = False
    threads: int | None = None
    chunk_size: int = 50_000
    rule_options: Mapping | None = None
    check: bool = False
    log_deals: Any = None  # int, str or sequence of int (parse_log_deals)
    processes: int | None = None
    cluster: int | None = None
    scheduler: str | None = None
    dataset: bool | None = None
    resume: bool = False
    matches: int | None = None
    side_c: str | None = None


class ChunkObserver(Protocol):
    """Sees a run's rows chunk by chunk in deal order, resumed chunks included (read back from
    their files): ``columns`` are the engine columns it reads, ``update`` takes one chunk's,
    ``result`` is merged into the run's result."""

    columns: tuple[str, ...]

    def update(self, cols: Mapping) -> None: ...

    def result(self) -> dict: ...


@dataclasses.dataclass
class _Plan:
    """A run description checked: the rules, the resolved strategies and the paths."""

    rules: Rules
    opts: dict
    specs: tuple
    units: int  # deals, or matches
    dataset: bool
    path: Path
    log_path: Path | None
    log_idx: list
    pool: Any  # processes, a cluster's size or its scheduler; None: this process
    n_threads: int
    worker_threads: int
    simulate: Callable  # the engine's simulate_chunk or simulate_match_chunk


def run(
    desc: RunDescription,
    *,
    progress: bool = True,
    say_compile: bool | None = None,
    warn=None,
    on_written=None,
    observer: Callable[[Sequence, int | None], ChunkObserver] | None = None,
) -> dict:
    """Play the run ``desc`` describes and write it; :func:`tranca_sim.simulate.run_simulation`
    documents the options, the messages (``progress``, ``say_compile``, ``warn``,
    ``on_written``), the result and the errors.  ``observer(specs, matches)`` (optional) makes
    the :class:`ChunkObserver` that sees the rows; its ``result()`` joins the result."""
    with output_lock(desc.out) if desc.out is not None else contextlib.nullcontext():
        plan = _check(desc)
        meta = _run_meta(desc, plan)
        writer = None
        if plan.dataset:
            writer = _ds.DatasetWriter(plan.path, meta, force=desc.force, resume=desc.resume, warn=warn)
            meta = writer.meta
        watch = observer(plan.specs, desc.matches) if observer is not None else None
        done = set(writer.done) if writer is not None else set()
        chunks = _Chunks(desc, plan, _tasks(desc, plan, meta, done), done, writer, watch)
        kernel_name = "_simulate_matches_nb" if desc.matches is not None else "_simulate_nb"
        cached = engine_cached(kernel_name)
        if progress if say_compile is None else say_compile:  # a cached start loads unsaid
            say_if_compiling(kernel_name, cached)
        seconds, warmup = _play(desc, plan, meta, chunks, progress, on_written)
        return _result(desc, plan, meta, chunks, seconds, warmup, cached, watch)


def _check(desc: RunDescription) -> _Plan:
    """Every option checked, the strategies resolved and the output paths checked, in this order,
    before the engine is loaded (it is loaded last)."""
    deals, matches = desc.deals, desc.matches
    if matches is not None:
        if deals is not None:
            raise RunOptionError("give deals or matches, not both (a match plays as many deals as it takes)")
        check_int("matches", matches, 1)
        from .engine.match import MAX_MATCHES

        if matches > min(MAX_DEALS, MAX_MATCHES):
            raise RunOptionError(f"matches must be at most {min(MAX_DEALS, MAX_MATCHES)}, got {matches}")
        if desc.log_deals is not None:
            raise RunOptionError(
                "log_deals is not available with matches; replay a deal of a match instead "
                "(tranca-sim replay RUN --match M --deal D)"
            )
    else:
        check_int("deals", deals, 1)
        if deals > MAX_DEALS:
            raise RunOptionError(f"deals must be at most {MAX_DEALS}, got {deals}")
    check_int("seed", desc.seed, 0, INT64_MAX)
    check_int("chunk_size", desc.chunk_size, 1, MAX_CHUNK)
    rules = get_preset(desc.preset)
    opts = coerce_rule_options(rules, desc.rule_options)
    rules = rules.replace(**opts) if opts else rules.validate()
    specs = _strategies(desc, rules)
    out, resume = desc.out, desc.resume
    if (
        resume
        and not desc.dataset
        and not _ds.wants_dataset(out)
        and os.fspath(out).lower().endswith(".parquet")
    ):
        raise RunOptionError(
            f"resume finishes a dataset directory and {os.fspath(out)!r} is none (a .parquet run file is "
            "written whole); give a directory ending in / or dataset=True"
        )
    dataset = bool(desc.dataset or resume or _ds.wants_dataset(out))
    check_where(desc.processes, desc.cluster, desc.scheduler)
    pool = desc.processes if desc.processes is not None else (desc.cluster or desc.scheduler)
    log_idx = parse_log_deals(desc.log_deals, deals, desc.seed) if matches is None else []
    if dataset:
        path = Path(out)
        log_path = path / _ds.LOG_NAME if log_idx else None
    else:
        _ds.check_run_file_out(out)
        path = check_output_path(out, desc.force)
        log_path = check_log_path(path, bool(log_idx), desc.force)

    import numba

    if desc.threads is not None:
        check_int("threads", desc.threads, 1, numba.config.NUMBA_NUM_THREADS)
    from .engine import simulate_chunk, simulate_match_chunk

    return _Plan(
        rules=rules,
        opts=opts,
        specs=specs,
        units=matches if matches is not None else deals,
        dataset=dataset,
        path=path,
        log_path=log_path,
        log_idx=log_idx,
        pool=pool,
        n_threads=desc.threads if desc.threads is not None else numba.get_num_threads(),
        worker_threads=desc.threads if desc.threads is not None else 1,
        simulate=simulate_match_chunk if matches is not None else simulate_chunk,
    )


def _strategies(desc: RunDescription, rules: Rules) -> tuple:
    """One resolved strategy per side (side C plays side B's unless given), checked against
    ``rules``."""
    from tranca_sim.strategies import check_rules, resolve

    if desc.side_c is not None and rules.n_sides != 3:
        raise RunOptionError(
            f"side_c: {rules.name} has {rules.n_sides} sides; a third strategy is for a three-player table "
            "(tranca-3p)"
        )
    specs = (resolve(desc.side_a, preset=desc.preset), resolve(desc.side_b, preset=desc.preset))
    if rules.n_sides == 3:
        specs += (resolve(desc.side_c, preset=desc.preset) if desc.side_c is not None else specs[1],)
    check_rules(specs, rules)
    return specs


def _run_meta(desc: RunDescription, plan: _Plan) -> dict:
    """The run metadata stored in the run file (or a dataset's manifest)."""
    import numba

    return {
        "preset": plan.rules.name,
        "rules": dataclasses.asdict(plan.rules),
        "rule_options": plan.opts,
        "master_seed": desc.seed,
        "deals": desc.deals,
        **({"matches": desc.matches} if desc.matches is not None else {}),
        "strategies": [strategy_meta(label, spec) for label, spec in zip("ABC", plan.specs)],
        "version": package_version(),
        "threads": plan.n_threads,
        "chunk_size": desc.chunk_size,
        "check": bool(desc.check),
        "log_deals": plan.log_idx,
        "log_file": plan.log_path.name if plan.log_idx else None,
        "processes": desc.processes,
        "cluster": desc.cluster if desc.cluster is not None else desc.scheduler,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numba": numba.__version__,
    }


def _tasks(desc: RunDescription, plan: _Plan, meta: dict, done: set) -> list:
    """The chunks still to simulate (a resume leaves out those ``done``)."""
    local = desc.scheduler is None
    return [
        _par.ChunkTask(
            i,
            s0,
            n,
            dataclasses.asdict(plan.rules),
            tuple(sp.portable_text for sp in plan.specs),  # a user's file by its absolute path
            desc.seed,
            bool(desc.check),
            None if plan.pool is None else plan.worker_threads,
            meta["version"],
            _par.task_env(local),
            desc.matches is not None,
        )
        for i, s0, n in _ds.chunk_plan(plan.units, desc.chunk_size)
        if i not in done
    ]


class _Chunks:
    """The chunks of a run as they come back: written to the dataset as each arrives, handed on in
    deal order (to the run file and the observer), counted (deals, diagnostics, workers)."""

    def __init__(self, desc: RunDescription, plan: _Plan, tasks: list, done: set, writer, watch):
        self.plan, self.tasks, self.done, self.writer, self.watch = plan, tasks, done, writer, watch
        self.order = _ds.chunk_plan(plan.units, desc.chunk_size)
        self.by_index = {t.index: t for t in tasks}
        self.matches = desc.matches is not None
        self.keys = tuple(watch.columns) if watch is not None else ("side",)
        self.ns = len(plan.specs)
        self.diagnostics = {"invariant_errors": 0, "meld_full": 0}
        self.illegal = [0] * self.ns
        self.n_deals = 0  # deals of the chunks, resumed ones included
        self.n_new_deals = 0  # deals simulated now
        self.workers: dict = {}
        self.info: dict = {}  # where the chunks ran (a Dask cluster's workers and dashboard)

    def noted(self, note: dict, chunks: int) -> None:
        w = self.workers.setdefault(
            f"{note['host']}:{note['pid']}", {"chunks": 0, "load_seconds": 0.0, "kernel_seconds": 0.0}
        )
        w["chunks"] += chunks
        w["load_seconds"] += note["load_seconds"]
        if chunks:  # not the warm-up deal
            w["kernel_seconds"] += note.get("kernel_seconds", 0.0)
        w["cache_misses"] = note["cache_misses"]

    def in_order(self, results, bar):
        """The chunks' columns in deal order (observer, single file), each dataset chunk written
        as soon as it arrives; resumed chunks are read back for the observer."""
        ns, waiting = self.ns, {}
        for i, _, _ in self.order:
            while i not in self.done and i not in waiting:
                j, cols, note = next(results)
                self.noted(note, 1)
                diag = {k: int(np.asarray(cols[k])[::ns].sum()) for k in self.diagnostics if k in cols}
                if "illegal_choices" in cols:  # per side
                    diag["illegal_choices"] = [
                        int(np.asarray(cols["illegal_choices"])[s::ns].sum()) for s in range(ns)
                    ]
                if self.writer is not None:
                    count = self.by_index[j].count if self.matches else None
                    self.writer.add(j, self.by_index[j].start, cols, diag, count=count)
                    cols = {k: cols[k] for k in self.keys if k in cols}
                waiting[j] = (cols, diag)
                bar.update(self.by_index[j].count)
            if i in waiting:
                cols, diag = waiting.pop(i)
                self.n_new_deals += len(np.asarray(cols["side"])) // ns
            else:  # written by an earlier, interrupted run
                t = self.writer.read_columns(i, self.keys)
                cols = {c: t.column(c).to_numpy() for c in t.column_names}
                diag = self.writer.done[i].get("diagnostics") or {}
            if self.watch is not None:
                self.watch.update(cols)
            self.n_deals += len(np.asarray(cols["side"])) // ns
            for key in self.diagnostics:  # per-deal counters, repeated on both rows of a deal
                self.diagnostics[key] += int(diag.get(key, 0))
            for side, k in enumerate(diag.get("illegal_choices") or (0,) * ns):
                self.illegal[side] += int(k)
            yield cols


def _play(desc: RunDescription, plan: _Plan, meta: dict, chunks: _Chunks, progress: bool, on_written):
    """Load the engine, write the deal logs, play the chunks and write them; returns the seconds
    of simulating and writing, and of the warm-up before them."""
    import numba
    from tqdm.auto import tqdm

    bar = None
    threads_before = numba.get_num_threads()
    numba.set_num_threads(plan.n_threads)  # restored below: a Python caller's later runs are not affected
    try:
        t0 = time.perf_counter()
        # one throw-away deal compiles (first run) or loads the cached kernels, so `seconds` is simulation
        # only; workers on this machine then load them from numba's disk cache instead of compiling
        plan.simulate(plan.rules, plan.specs, master_seed=desc.seed, start=0, count=1, check=desc.check)
        run_constants(meta)  # checks meta; pyarrow's first array imports pandas (~0.6 s), not a deal
        warmup = time.perf_counter() - t0
        with contextlib.ExitStack() as stack:
            log_path = plan.log_path
            if plan.log_idx and not (plan.dataset and desc.resume and log_path.exists()):
                _write_logs(stack, desc, plan, progress)
            tasks = chunks.tasks
            workplace = stack.enter_context(
                _par.pool(
                    # no more workers than chunks to run: an idle worker only costs its start
                    processes=None if desc.processes is None else max(1, min(desc.processes, len(tasks))),
                    cluster=None if desc.scheduler else desc.cluster,
                    scheduler=desc.scheduler,
                    info=chunks.info,
                )
            )
            if tasks and plan.pool is not None:  # each worker loads the kernels now, once, outside the timing
                for note in workplace.warm(tasks[0]):
                    chunks.noted(note, 0)
            # one bar over every chunk, started after the compile, the logs and the workers' start:
            # its rate and time left are the deals' alone (on processes and Dask it moves as chunks finish)
            where = _where(desc.processes, desc.cluster, desc.scheduler)
            bar = tqdm(
                total=plan.units,
                unit="deal" if desc.matches is None else "match",
                unit_scale=True,
                disable=not progress,
                desc="simulating" + (f" ({where})" if where else ""),
            )
            bar.update(sum(c for i, _, c in chunks.order if i in chunks.done))
            bar.unpause()
            t0 = time.perf_counter()
            results = workplace.run(tasks, ordered=not plan.dataset)
            if plan.dataset:
                for _ in chunks.in_order(results, bar):
                    pass
                chunks.writer.finish()
            else:
                write_run(
                    plan.path,
                    chunks.in_order(results, bar),
                    run_meta=meta,
                    force=desc.force,
                    final_meta=lambda: {
                        "diagnostics": {**chunks.diagnostics, "illegal_choices": list(chunks.illegal)}
                    },
                )
            seconds = time.perf_counter() - t0
            bar.close()  # the last deal is in: not drawn on while the workers shut down
            # an older run's logs do not stay beside the new run
            if log_path is not None and not plan.log_idx:
                with writing(log_path):
                    os.unlink(log_path)
        # the workers are shut down and the deal logs renamed into place: the run is written
        if on_written is not None:
            on_written(str(plan.path))
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads_before)
    return seconds, warmup


def _write_logs(stack: contextlib.ExitStack, desc: RunDescription, plan: _Plan, progress: bool) -> None:
    """The deal logs, to a temporary file first, renamed after the run file (or removed)."""
    from tqdm.auto import tqdm

    from .engine.log import dump_logs, play_logged

    log_path = plan.log_path
    log_tmp = stack.enter_context(atomic_output(log_path, desc.force or plan.dataset))
    logs = (play_logged(plan.rules, plan.specs, desc.seed, i) for i in plan.log_idx)
    with (
        tqdm(logs, total=len(plan.log_idx), unit="deal", disable=not progress, desc="logging deals") as it,
        writing(log_path),
        open(log_tmp, "w", encoding="utf-8") as f,
    ):
        dump_logs(f, it)


def _result(desc, plan: _Plan, meta: dict, chunks: _Chunks, seconds, warmup, cached, watch) -> dict:
    simulated = sum(t.count for t in chunks.tasks)
    info = chunks.info
    extra = {}
    if desc.matches is not None:
        extra = {"matches": desc.matches}
        extra["matches_per_s"] = simulated / seconds if seconds > 0 else float("inf")
    return {
        **extra,
        "path": str(plan.path),
        "log_path": str(plan.log_path) if plan.log_idx else None,
        "deals": desc.deals if desc.matches is None else chunks.n_deals,
        "simulated": simulated,
        "resumed_chunks": len(chunks.done),
        "seconds": seconds,
        "deals_per_s": (simulated if desc.matches is None else chunks.n_new_deals) / seconds
        if seconds > 0
        else float("inf"),
        "threads": plan.n_threads,
        "processes": desc.processes,
        "cluster": info.get("workers") if plan.pool is not None and desc.processes is None else None,
        "dashboard": info.get("dashboard"),
        "workers": chunks.workers,
        "warmup_seconds": warmup,
        "compiled": not cached,
        "meta": meta,
        **(watch.result() if watch is not None else {}),
        "diagnostics": chunks.diagnostics,
        "illegal_choices": chunks.illegal,
    }


def _where(processes, cluster, scheduler) -> str:
    if scheduler is not None:
        return f"Dask scheduler {scheduler}"
    if cluster is not None:
        return f"Dask LocalCluster of {plural(cluster, 'worker')}"
    if processes is not None and processes > 1:
        return f"{processes} processes"
    return ""


def say_if_compiling(kernel_name: str = "_simulate_nb", cached: bool | None = None) -> bool:
    """Say on stderr, in one line, that the engine is being compiled when numba's disk cache holds
    no ``kernel_name`` for this machine (:func:`engine_cached`): ``compiling the engine (once,
    <COMPILE_TIME>) ...`` (``the engine with the search player`` when this process's engine has
    it). Call it after the strategies are resolved and before the first deal; returns whether it
    said so. Every command that plays deals says it (with ``--no-progress`` too). ``cached``: the
    answer of :func:`engine_cached` when the caller has it already."""
    if engine_cached(kernel_name) if cached is None else cached:
        return False
    from tranca_sim.strategies.user import search_wanted

    which = "the engine with the search player" if search_wanted() else "the engine"
    # one write (not print's two): an interrupt cannot leave the line without its newline
    sys.stderr.write(f"compiling {which} (once, {COMPILE_TIME}) ...\n")
    sys.stderr.flush()
    return True


def engine_cached(kernel_name: str = "_simulate_nb") -> bool:
    """Whether numba's disk cache holds a kernel of :mod:`tranca_sim.engine.kernel` or
    :mod:`tranca_sim.engine.match` for this machine (the batch kernel by default;
    ``"_play_stacked_nb"`` plays one logged deal for replay and check, ``"_simulate_matches_nb"``
    plays matches), so it is loaded instead of compiled (:data:`COMPILE_TIME`).  Reads numba's
    cache index (not a public numba API): any surprise there answers False."""
    try:
        from .engine import kernel, match

        disp = getattr(match if kernel_name == "_simulate_matches_nb" else kernel, kernel_name)
    except Exception:  # noqa: BLE001 - a guess for a message, never a failure
        return False
    return kernel_cached(disp)


def kernel_cached(disp) -> bool:
    """Whether numba's disk cache holds the ``cache=True`` kernel ``disp`` (a numba dispatcher)
    for this machine (as :func:`engine_cached`; the analyser asks about its own kernel)."""
    try:
        magic = disp.targetctx.codegen().magic_tuple()
        return any(key[1] == magic for key in disp._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - a guess for a message, never a failure
        return False
