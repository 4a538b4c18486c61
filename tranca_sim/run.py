"""One simulation run from Python: validate, simulate in chunks, write Parquet, summarise.

>>> from tranca_sim.run import run_simulation
>>> result = run_simulation("tranca", 10_000, 1, "basic", "random", "run.parquet", force=True)
>>> result["summary"]["diff"]["mean"]          # doctest: +SKIP

Every option is checked before the engine is imported, so a typo fails at
once; the chunks stream from :func:`tranca_sim.engine.simulate_chunk`
through :func:`tranca_sim.io.write_run`, so memory does not grow with the
number of deals.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import os
import platform
import stat
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from . import dataset as _ds
from . import io as _io
from . import parallel as _par
from ._plural import plural
from .lab.stats import SUMMARY_COLUMNS, RunningSummary
from .outlock import locked_output
from .rules import Rules, RulesError, get_preset

#: engine columns the running summary reads (a resumed chunk's are read back from its file)
_SUMMARY_KEYS = tuple(c for c in SUMMARY_COLUMNS if c in _io.CHUNK_COLUMNS)

#: rule fields that are labels, not options
NOT_OPTIONS = ("name", "description")

INT64_MAX = 2**63 - 1

#: most deals one run may have (10**12: about 12 days of simulation even at a million deals/s)
MAX_DEALS = 10**12
#: most deals (or matches) of one chunk: a chunk's outputs are held in memory before they are written
MAX_CHUNK = 10**7


class RunOptionError(ValueError):
    """A bad run option (deal count, seed, threads, chunk size)."""


def _parse_bool(key: str, text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1", "yes", "on"):
        return True
    if t in ("false", "0", "no", "off"):
        return False
    raise RulesError(f"rule option {key} takes true/false (or 1/0), got {text!r}")


def coerce_rule_options(base: Rules, options: Mapping | None) -> dict:
    """Rule options with string values converted to the types of ``base``'s fields.

    Parameters
    ----------
    base : Rules
        The preset the options change.
    options : mapping of str to str, bool or int, optional
        Option name to value; strings are parsed (bool: ``true/false/1/0/yes/no/on/off``;
        int: a decimal integer), the integers 0 and 1 are accepted for a switch (as on the
        command line), other values are passed through and checked by :meth:`Rules.replace`.

    Returns
    -------
    dict
        Typed options for :meth:`Rules.replace`.

    Raises
    ------
    RulesError
        For an unknown option name, ``name``/``description``, or a value that
        does not parse as the option's type.
    """
    fields = {f.name for f in dataclasses.fields(base)} - set(NOT_OPTIONS)
    out = {}
    for key, value in (options or {}).items():
        if key not in fields:
            raise RulesError(f"unknown rule option {key!r}; known: {', '.join(sorted(fields))}")
        current = getattr(base, key)
        if isinstance(current, bool) and type(value) is int and value in (0, 1):
            out[key] = bool(value)  # TOML ``lock_by_wild = 1`` as the CLI's ``lock_by_wild=1``
        elif not isinstance(value, str):
            out[key] = value
        elif isinstance(current, bool):
            out[key] = _parse_bool(key, value)
        elif isinstance(current, int):
            try:
                out[key] = int(value.strip())
            except ValueError:
                raise RulesError(f"rule option {key} takes an integer, got {value!r}") from None
        else:
            out[key] = value
    return out


def parse_rule_args(items) -> dict:
    """``["key=value", ...]`` (the CLI's ``--rule``) to a dict of strings.

    Raises
    ------
    RulesError
        For an item without ``=`` or with an empty key, or one option given twice with
        different values (the last one silently winning would hide a typo).
    """
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesError(f"--rule takes OPTION=VALUE, got {item!r}")
        key = key.strip()
        if key in out and out[key] != value.strip():
            raise RulesError(
                f"--rule {key} given twice ({key}={out[key]} and {key}={value.strip()}); give it once"
            )
        out[key] = value.strip()
    return out


#: How long a first compile takes, as the messages say it: the engine without the search player
#: (the default, strategies/user.py) at numba's optimisation level 1 (tranca_sim/_cache.py), with
#: few levels above play_turn, took 45 s of CPU time on a nearly idle machine, the engine with the
#: search player 80 s (benchmarks/README.md "The first compile made smaller", compile_profile.py)
COMPILE_TIME = "about a minute, more on a busy machine"


def strategy_meta(side: str, spec) -> dict:
    """The run metadata entry of one side's strategy (``side`` "A" or "B"): name, text, label,
    id, parameters, and a user strategy's file and sha256, to find it again (replay, check)."""
    return {
        "side": side,
        "name": spec.name,
        "text": spec.text,
        "label": spec.label,
        "sid": int(spec.sid),
        "param_names": list(spec.param_names),
        "params": [float(x) for x in spec.params[: len(spec.param_names)]],
        **spec.origin,
    }


def max_processes() -> int:
    """The most local worker processes a run may start (``processes`` or a LocalCluster's
    ``cluster``): the cores ``os.cpu_count()`` reports (at least 1).  CPU-bound chunks gain nothing
    from more processes than cores."""
    from .parallel import max_local_workers

    return max_local_workers()


def check_where(processes: int | None, cluster: int | None, scheduler: str | None) -> bool:
    """Check where a run's chunks are to be played (:func:`tranca_sim.parallel.pool`); True when
    on workers (processes or Dask), False in this process.

    Raises
    ------
    RunOptionError
        For ``processes`` or ``cluster`` outside 1 .. the cores, or more than one
        of them with ``scheduler``.
    """
    if processes is not None:
        _check_int("processes", processes, 1, max_processes())
    if cluster is not None:
        _check_int("cluster", cluster, 1, max_processes())
    if sum(x is not None for x in (processes, cluster, scheduler)) > 1:
        raise RunOptionError(
            "give one of processes, cluster (a LocalCluster) or scheduler (an existing cluster)"
        )
    return processes is not None or cluster is not None or scheduler is not None


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RunOptionError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
        raise RunOptionError(f"{name} must be {rng}, got {value}")
    return value


def log_path_for(out) -> Path:
    """Where the deal logs of run file ``out`` go, beside it: the ``.parquet`` suffix replaced by
    ``.log.jsonl`` (``run.parquet`` -> ``run.log.jsonl``); any other name gets ``.log.jsonl``
    appended (``run.pq`` -> ``run.pq.log.jsonl``)."""
    p = Path(out)
    return p.with_name((p.stem if p.suffix == ".parquet" else p.name) + ".log.jsonl")


def parse_log_deals(spec, deals: int, seed: int, name: str = "log_deals") -> list[int]:
    """The deal indices to log, sorted.

    ``spec`` is ``None`` (none), an int or ``"K"`` (the first K deals),
    ``"I,J,..."`` or a sequence of ints (those deals), or ``"sample:K"`` (K
    distinct deals drawn with the run's seed); ``K`` is 1 to ``deals``.
    ``name`` is how errors call the option (the CLI passes ``--log-deals``).

    Raises
    ------
    RunOptionError
        For a malformed or empty spec, a count outside 1..``deals`` or an index
        outside the run.
    """
    if spec is None:
        return []
    form = "K (the first K deals), I,J,... (those deals) or sample:K (K deals drawn with the seed)"
    if isinstance(spec, bool):
        raise RunOptionError(f"{name} takes {form}, got {spec!r}")
    if isinstance(spec, int):
        spec = str(spec)
    if isinstance(spec, str):
        text = spec.strip()
        sample = text.startswith("sample:")
        try:
            if sample or "," not in text:
                k = int(text.split(":", 1)[1] if sample else text)
            else:
                idx = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise RunOptionError(f"{name} takes {form}, got {spec!r}") from None
        if sample or "," not in text:
            if not 1 <= k <= deals:
                raise RunOptionError(
                    f"{name} {text}: the count must be from 1 to {deals} (the run's deals), got {k}"
                )
            if not sample:
                return list(range(k))
            rng = np.random.default_rng(seed)
            return sorted(int(i) for i in rng.choice(deals, size=k, replace=False))
    else:
        try:
            idx = [int(x) for x in spec]
        except (TypeError, ValueError):
            raise RunOptionError(f"{name} takes {form}, got {spec!r}") from None
    if not idx:
        raise RunOptionError(f"{name} {spec!r} names no deal; give {form}")
    bad = [i for i in idx if not 0 <= i < deals]
    if bad:
        shown = spec if isinstance(spec, str) else ",".join(str(i) for i in idx)
        raise RunOptionError(f"{name} {shown}: deal {bad[0]} is not in the run (deals 0..{deals - 1})")
    return sorted(set(idx))


def check_log_path(out, logging: bool, force: bool) -> Path | None:
    """Check the deal-log file beside run file ``out`` (:func:`log_path_for`) before a run.

    The log belongs to the run beside it: it is written when ``logging``;
    either way an existing one is replaced (``logging``) or removed (not
    ``logging``) when the run is written with ``force``, so a new run never
    sits beside an older run's logs.

    Returns
    -------
    pathlib.Path or None
        The log path when it is to be written or removed, else None.

    Raises
    ------
    tranca_sim.io.OutputExistsError
        If the log file exists and ``force`` is false.
    tranca_sim.io.RunFileError
        If the log path is a link, directory or special file, or cannot be written.
    """
    lp = log_path_for(out)
    if not logging:  # only an older run's log (a regular file) matters
        try:
            st = os.lstat(lp)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
    try:
        _io.check_output_path(lp, force)
    except _io.OutputExistsError:
        raise _io.OutputExistsError(
            f"deal-log file {str(lp)!r} beside the run file already exists (from an earlier run); "
            "pass force=True to replace the run and its deal logs",
            lp,
        ) from None
    return lp


@locked_output("out")
def run_simulation(
    preset: str,
    deals: int | None,
    seed: int,
    side_a: str,
    side_b: str,
    out,
    force: bool = False,
    threads: int | None = None,
    chunk_size: int = 50_000,
    rule_options: Mapping | None = None,
    check: bool = False,
    progress: bool = True,
    log_deals=None,
    *,
    processes: int | None = None,
    cluster: int | None = None,
    scheduler: str | None = None,
    dataset: bool | None = None,
    resume: bool = False,
    warn=None,
    matches: int | None = None,
    side_c: str | None = None,
    on_written=None,
    say_compile: bool | None = None,
) -> dict:
    """Simulate ``deals`` deals and write them to a run file or a dataset directory.

    The run is cut into chunks of ``chunk_size`` deals, each fixed by the seed, the rules,
    the strategies and its deal indices (:mod:`tranca_sim.parallel`), so the rows are the
    same whether the chunks run in this process (default), on ``processes`` local worker
    processes or on a Dask cluster (``cluster`` local workers, or ``scheduler``).

    Parameters
    ----------
    preset : str
        Rule preset name (``tranca-sim presets``).
    deals : int
        Number of deals, 1 .. :data:`MAX_DEALS` (10**12); the file gets ``n_sides * deals`` rows
        (2 a deal, 3 in ``tranca-3p``).
    seed : int
        Master seed, 0 .. 2**63 - 1; ``(seed, deal_index)`` fixes a deal.
    side_a, side_b : str
        Strategy specs, e.g. ``"basic"``, ``"basic:wild_reserve=1"`` or a
        user's file ``"my_strats.py:greedy:min_meld=2"`` (docs/strategies.md).
    side_c : str, optional
        The third player's strategy at a three-player table (``tranca-3p``);
        default: side B's.  Refused for a rule set with two sides.
    on_written : callable, optional
        Called with the output path (str) once the run file or the finished dataset and the
        deal logs are in place (the command line then says an interrupt came after writing it).
    out : str or os.PathLike
        Output Parquet file, or a dataset directory (:mod:`tranca_sim.dataset`: one file per
        chunk and ``manifest.json``) when ``dataset`` is true, ``resume`` is given, or ``out``
        ends with ``/`` or is a dataset already (:func:`tranca_sim.dataset.wants_dataset`).
    force : bool
        Replace an existing ``out`` and the deal-log file beside it
        (:func:`check_log_path`): replaced by this run's logs, or removed when
        this run logs none.  Without ``force`` an existing ``out`` or deal-log
        file is an error before anything is simulated.
    threads : int, optional
        numba threads (default: numba's default, all cores); with ``processes``,
        ``cluster`` or ``scheduler``: numba threads of each worker (default 1).
    chunk_size : int
        Deals simulated and written per chunk (one Parquet row group).
    rule_options : mapping, optional
        Changes to the preset (see :func:`coerce_rule_options`).
    check : bool
        Run the engine's invariant checks (slower).
    progress : bool
        On stderr: the line ``compiling the engine (once, <COMPILE_TIME>) ...`` (``the engine with
        the search player`` when a side plays ``search``: it is built and cached apart)
        when numba's cache holds no kernels yet (:func:`engine_cached`), then
        tqdm bars for the deal logs and for the deals; the deals' bar starts
        after the compile, so its rate and time left are the deals' alone.
        ``say_compile`` decides the compile line apart (None: as ``progress``; the CLI says
        it even with ``--no-progress``: one line, not a bar, before a silent wait).
    log_deals : int, str or sequence of int, optional
        Deals whose every action is logged (:func:`parse_log_deals`) to the
        file :func:`log_path_for` names beside the run (``run.parquet`` ->
        ``run.log.jsonl``; docs/log-format.md); a dataset keeps them inside, in
        ``deals.log.jsonl``.
    processes : int, optional
        Run the chunks on this many local worker processes (joblib, loky): 1 to
        :func:`max_processes` (the cores; RunOptionError otherwise); no more workers
        are started than there are chunks to run.
    cluster : int, optional
        Start a Dask ``LocalCluster`` of this many single-threaded workers for the run.
    scheduler : str, optional
        Run the chunks on the existing Dask cluster of this scheduler (``tcp://host:8786``);
        its workers need this version of tranca-sim (and a user strategy's file at the same path).
    dataset : bool, optional
        Write a dataset directory even when ``out`` does not end with ``/``.
    resume : bool
        Finish the interrupted dataset run at ``out``: chunks already written (whole, checked
        against the manifest) are kept, the rest simulated; a damaged chunk is simulated
        again (``warn`` is told).  A dataset of another run is refused
        (:class:`tranca_sim.dataset.DatasetMismatchError`).  No dataset at ``out``: a new run.
    warn : callable, optional
        Called with one sentence per damaged chunk a resume simulates again.
    matches : int, optional
        Play this many matches instead of ``deals`` deals (give ``deals=None``): each match is
        played deal after deal to ``match_target`` (:mod:`tranca_sim.engine.match`, VARIANTS
        decision 15); the rows are one per (match, deal, side) with the match columns
        (docs/schema.md), ``chunk_size`` counts matches, and the result has ``matches`` and a
        ``match_summary`` (:class:`tranca_sim.lab.matches.MatchSummary`); ``deals`` is then the
        number of deals the matches took.  Deal logs (``log_deals``) are not written for a match
        run (replay a match deal instead: ``tranca-sim replay RUN --match M --deal D``).

    Returns
    -------
    dict
        ``path`` (str), ``deals``, ``seconds`` (wall time of simulation and
        writing, without the compile and the deal logs), ``deals_per_s``,
        ``simulated`` (deals simulated now: fewer on a resume), ``resumed_chunks``,
        ``threads``, ``processes``, ``cluster`` (Dask workers), ``dashboard``,
        ``workers`` (per ``host:pid``: ``chunks``, ``load_seconds``, numba
        ``cache_misses``: each worker loads the kernels once), ``warmup_seconds`` (one throw-away deal before the timing:
        numba compilation on a first run, loading the cached kernels
        afterwards), ``compiled`` (True when no cached kernels were found),
        ``log_path`` (str or None), ``meta`` (the stored run metadata), ``summary``
        (:func:`tranca_sim.lab.stats.summarize` layout) and ``diagnostics``:
        totals over deals of the engine's ``invariant_errors`` (counted with
        ``check``) and ``meld_full`` (refused melds), 0 in a sound run; these
        two columns are not written to the file; ``illegal_choices``
        ``[side A, side B]``: answers of each side's strategy outside the
        legal choices, each replaced by the first legal choice (0 for the
        built-in strategies; a user's strategy may have bugs).

    Raises
    ------
    RunOptionError
        For a bad ``deals``, ``seed``, ``threads`` or ``chunk_size``.
    tranca_sim.rules.RulesError
        For an unknown preset or a bad rule option.
    strategies.StrategyError
        For an unknown strategy or parameter, or a user's strategy file that
        cannot be used (strategies.user.load_file).
    tranca_sim.io.OutputExistsError
        If ``out`` or the deal-log file beside it exists without ``force``.
    tranca_sim.outlock.OutputBusyError
        If another live run is writing ``out`` (:mod:`tranca_sim.outlock`; held for the call).
    tranca_sim.io.RunFileError
        If ``out`` (or the log file) is a symbolic link or not a regular file,
        or its directory cannot be written; also,
        after simulating, for an ``OSError`` while writing (disk full):
        ``cannot write PATH: reason``.

    All of these but the last are raised before any deal is simulated; on
    any later error or interrupt no file is left at ``out`` or the log path
    (the deal logs are written to a temporary file first and renamed only
    after the run file).
    """
    if matches is not None:
        if deals is not None:
            raise RunOptionError("give deals or matches, not both (a match plays as many deals as it takes)")
        _check_int("matches", matches, 1)
        from .engine.match import MAX_MATCHES

        if matches > min(MAX_DEALS, MAX_MATCHES):
            raise RunOptionError(f"matches must be at most {min(MAX_DEALS, MAX_MATCHES)}, got {matches}")
        if log_deals is not None:
            raise RunOptionError(
                "log_deals is not available with matches; replay a deal of a match instead "
                "(tranca-sim replay RUN --match M --deal D)"
            )
    else:
        _check_int("deals", deals, 1)
        if deals > MAX_DEALS:
            raise RunOptionError(f"deals must be at most {MAX_DEALS}, got {deals}")
    units = matches if matches is not None else deals
    _check_int("seed", seed, 0, INT64_MAX)
    _check_int("chunk_size", chunk_size, 1, MAX_CHUNK)
    rules = get_preset(preset)
    opts = coerce_rule_options(rules, rule_options)
    rules = rules.replace(**opts) if opts else rules.validate()

    from strategies import check_rules, resolve

    if side_c is not None and rules.n_sides != 3:
        raise RunOptionError(
            f"side_c: {rules.name} has {rules.n_sides} sides; a third strategy is for a three-player table "
            "(tranca-3p)"
        )
    specs = (resolve(side_a, preset=preset), resolve(side_b, preset=preset))
    if rules.n_sides == 3:
        specs += (resolve(side_c, preset=preset) if side_c is not None else specs[1],)
    ns = len(specs)
    check_rules(specs, rules)
    if resume and not dataset and not _ds.wants_dataset(out) and os.fspath(out).lower().endswith(".parquet"):
        raise RunOptionError(
            f"resume finishes a dataset directory and {os.fspath(out)!r} is none (a .parquet run file is "
            "written whole); give a directory ending in / or dataset=True"
        )
    dataset = bool(dataset or resume or _ds.wants_dataset(out))
    check_where(processes, cluster, scheduler)
    pool = processes if processes is not None else (cluster or scheduler)
    log_idx = parse_log_deals(log_deals, deals, seed) if matches is None else []
    if dataset:
        path = Path(out)
        log_path = path / _ds.LOG_NAME if log_idx else None
    else:
        _ds.check_run_file_out(out)
        path = _io.check_output_path(out, force)
        log_path = check_log_path(path, bool(log_idx), force)

    import numba

    if threads is not None:
        _check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
    worker_threads = threads if threads is not None else 1
    n_threads = threads if threads is not None else numba.get_num_threads()

    from .engine import simulate_chunk, simulate_match_chunk

    meta = {
        "preset": rules.name,
        "rules": dataclasses.asdict(rules),
        "rule_options": opts,
        "master_seed": seed,
        "deals": deals,
        **({"matches": matches} if matches is not None else {}),
        "strategies": [strategy_meta(label, spec) for label, spec in zip("ABC", specs)],
        "version": _io.package_version(),
        "threads": n_threads,
        "chunk_size": chunk_size,
        "check": bool(check),
        "log_deals": log_idx,
        "log_file": log_path.name if log_idx else None,
        "processes": processes,
        "cluster": cluster if cluster is not None else scheduler,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numba": numba.__version__,
    }
    if dataset:
        writer = _ds.DatasetWriter(path, meta, force=force, resume=resume, warn=warn)
        meta = writer.meta
    diagnostics = {"invariant_errors": 0, "meld_full": 0}
    illegal = [0] * ns
    acc = RunningSummary(labels=[spec.label for spec in specs])
    from .lab.matches import MATCH_SUMMARY_COLUMNS, MatchSummary

    macc = MatchSummary(n_sides=ns) if matches is not None else None
    summary_keys = _SUMMARY_KEYS + (MATCH_SUMMARY_COLUMNS if matches is not None else ())
    n_deals = 0  # deals of the chunks, resumed ones included
    n_new_deals = 0  # deals simulated now
    plan = _ds.chunk_plan(units, chunk_size)
    done = set(writer.done) if dataset else set()
    local = scheduler is None
    tasks = [
        _par.ChunkTask(
            i,
            s0,
            n,
            dataclasses.asdict(rules),
            tuple(sp.portable_text for sp in specs),  # a user's file by its absolute path
            seed,
            bool(check),
            None if pool is None else worker_threads,
            meta["version"],
            _par.task_env(local),
            matches is not None,
        )
        for i, s0, n in plan
        if i not in done
    ]
    workers: dict = {}
    info: dict = {}

    from tqdm.auto import tqdm

    bar = None

    def noted(note: dict, chunks: int) -> None:
        w = workers.setdefault(
            f"{note['host']}:{note['pid']}", {"chunks": 0, "load_seconds": 0.0, "kernel_seconds": 0.0}
        )
        w["chunks"] += chunks
        w["load_seconds"] += note["load_seconds"]
        if chunks:  # not the warm-up deal
            w["kernel_seconds"] += note.get("kernel_seconds", 0.0)
        w["cache_misses"] = note["cache_misses"]

    def finished(results):
        """The chunks' columns in deal order (summary, single file), each dataset chunk written
        as soon as it arrives; resumed chunks are read back for the summary."""
        waiting: dict = {}
        for i, _, _ in plan:
            while i not in done and i not in waiting:
                j, cols, note = next(results)
                noted(note, 1)
                diag = {k: int(np.asarray(cols[k])[::ns].sum()) for k in diagnostics if k in cols}
                if "illegal_choices" in cols:  # per side
                    diag["illegal_choices"] = [
                        int(np.asarray(cols["illegal_choices"])[s::ns].sum()) for s in range(ns)
                    ]
                if dataset:
                    count = tasks_by_index[j].count if matches is not None else None
                    writer.add(j, tasks_by_index[j].start, cols, diag, count=count)
                    cols = {k: cols[k] for k in summary_keys if k in cols}
                waiting[j] = (cols, diag)
                bar.update(tasks_by_index[j].count)
            if i in waiting:
                cols, diag = waiting.pop(i)
                nonlocal n_new_deals
                n_new_deals += len(np.asarray(cols["side"])) // ns
            else:  # written by an earlier, interrupted run
                t = writer.read_columns(i, summary_keys)
                cols = {c: t.column(c).to_numpy() for c in t.column_names}
                diag = writer.done[i].get("diagnostics") or {}
            acc.update(cols)
            if macc is not None:
                macc.update(cols)
            nonlocal n_deals
            n_deals += len(np.asarray(cols["side"])) // ns
            for key in diagnostics:  # per-deal counters, repeated on both rows of a deal
                diagnostics[key] += int(diag.get(key, 0))
            for side, k in enumerate(diag.get("illegal_choices") or (0,) * ns):
                illegal[side] += int(k)
            yield cols

    tasks_by_index = {t.index: t for t in tasks}
    kernel_name = "_simulate_matches_nb" if matches is not None else "_simulate_nb"
    cached = engine_cached(kernel_name)
    if progress if say_compile is None else say_compile:  # a cached start loads unsaid
        say_if_compiling(kernel_name, cached)
    threads_before = numba.get_num_threads()
    numba.set_num_threads(n_threads)  # restored below: a Python caller's later runs are not affected
    try:
        t0 = time.perf_counter()
        # one throw-away deal compiles (first run) or loads the cached kernels, so `seconds` is simulation
        # only; workers on this machine then load them from numba's disk cache instead of compiling
        (simulate_match_chunk if matches is not None else simulate_chunk)(
            rules, specs, master_seed=seed, start=0, count=1, check=check
        )
        _io._run_constants(meta)  # checks meta; pyarrow's first array imports pandas (~0.6 s), not a deal
        warmup = time.perf_counter() - t0
        with contextlib.ExitStack() as stack:
            if log_idx and not (dataset and resume and log_path.exists()):
                # logs to a temporary file first, renamed after the run file (or removed)
                from .engine.log import dump_logs, play_logged

                log_tmp = stack.enter_context(_io.atomic_output(log_path, force or dataset))
                logs = (play_logged(rules, specs, seed, i) for i in log_idx)
                with (
                    tqdm(
                        logs, total=len(log_idx), unit="deal", disable=not progress, desc="logging deals"
                    ) as it,
                    _io.writing(log_path),
                    open(log_tmp, "w", encoding="utf-8") as f,
                ):
                    dump_logs(f, it)
            workplace = stack.enter_context(
                _par.pool(
                    # no more workers than chunks to run: an idle worker only costs its start
                    processes=None if processes is None else max(1, min(processes, len(tasks))),
                    cluster=None if scheduler else cluster,
                    scheduler=scheduler,
                    info=info,
                )
            )
            if tasks and pool is not None:  # each worker loads the kernels now, once, outside the timing
                for note in workplace.warm(tasks[0]):
                    noted(note, 0)
            # one bar over every chunk, started after the compile, the logs and the workers' start:
            # its rate and time left are the deals' alone (on processes and Dask it moves as chunks finish)
            where = _where(processes, cluster, scheduler)
            bar = tqdm(
                total=units,
                unit="deal" if matches is None else "match",
                unit_scale=True,
                disable=not progress,
                desc="simulating" + (f" ({where})" if where else ""),
            )
            bar.update(sum(c for i, _, c in plan if i in done))
            bar.unpause()
            t0 = time.perf_counter()
            results = workplace.run(tasks, ordered=not dataset)
            if dataset:
                for _ in finished(results):
                    pass
                writer.finish()
            else:
                _io.write_run(
                    path,
                    finished(results),
                    run_meta=meta,
                    force=force,
                    final_meta=lambda: {"diagnostics": {**diagnostics, "illegal_choices": list(illegal)}},
                )
            seconds = time.perf_counter() - t0
            bar.close()  # the last deal is in: not drawn on while the workers shut down
            if log_path is not None and not log_idx:  # an older run's logs do not stay beside the new run
                with _io.writing(log_path):
                    os.unlink(log_path)
        # the workers are shut down and the deal logs renamed into place: the run is written
        if on_written is not None:
            on_written(str(path))
    finally:
        if bar is not None:
            bar.close()
        numba.set_num_threads(threads_before)
    simulated = sum(t.count for t in tasks)
    extra = {}
    if matches is not None:
        extra = {"matches": matches, "match_summary": macc.result()}
        extra["matches_per_s"] = simulated / seconds if seconds > 0 else float("inf")
    return {
        **extra,
        "path": str(path),
        "log_path": str(log_path) if log_idx else None,
        "deals": deals if matches is None else n_deals,
        "simulated": simulated,
        "resumed_chunks": len(done),
        "seconds": seconds,
        "deals_per_s": (simulated if matches is None else n_new_deals) / seconds
        if seconds > 0
        else float("inf"),
        "threads": n_threads,
        "processes": processes,
        "cluster": info.get("workers") if pool is not None and processes is None else None,
        "dashboard": info.get("dashboard"),
        "workers": workers,
        "warmup_seconds": warmup,
        "compiled": not cached,
        "meta": meta,
        "summary": acc.result(),
        "diagnostics": diagnostics,
        "illegal_choices": illegal,
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
    from strategies.user import search_wanted

    which = "the engine with the search player" if search_wanted() else "the engine"
    print(f"compiling {which} (once, {COMPILE_TIME}) ...", file=sys.stderr, flush=True)
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
        magic = disp.targetctx.codegen().magic_tuple()
        return any(key[1] == magic for key in disp._cache._cache_file._load_index())
    except Exception:  # noqa: BLE001 - a guess for a message, never a failure
        return False
