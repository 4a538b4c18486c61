"""A simulation run and its summary: the Python API's entry point, and the command line's ``simulate``.

>>> from tranca_sim.simulate import run_simulation
>>> result = run_simulation("tranca", 10_000, 1, "basic", "random", "run.parquet", force=True)
>>> result["summary"]["diff"]["mean"]          # doctest: +SKIP

The run itself is :func:`tranca_sim.run.run` over a :class:`~tranca_sim.run.RunDescription`; this
module adds the statistics of the lab (:class:`~tranca_sim.lab.statistics.stats.RunningSummary`, and
:class:`~tranca_sim.lab.statistics.matches.MatchSummary` for a match run) as it watches the chunks go by,
so the runs layer imports nothing of the lab.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .lab.statistics.matches import MATCH_SUMMARY_COLUMNS, MatchSummary
from .lab.statistics.stats import SUMMARY_COLUMNS, RunningSummary
from .run import RunDescription, run
from .run_format import CHUNK_COLUMNS

#: engine columns the running summary reads (a resumed chunk's are read back from its file)
_SUMMARY_KEYS = tuple(c for c in SUMMARY_COLUMNS if c in CHUNK_COLUMNS)


class RunSummaries:
    """The summary of a run's deals, and of its matches in a match run, kept chunk by chunk
    (a :class:`tranca_sim.run.ChunkObserver`)."""

    def __init__(self, specs: Sequence, matches: int | None):
        self.deals = RunningSummary(labels=[spec.label for spec in specs])
        self.matches = MatchSummary(n_sides=len(specs)) if matches is not None else None
        self.columns = _SUMMARY_KEYS + (MATCH_SUMMARY_COLUMNS if matches is not None else ())

    def update(self, cols: Mapping) -> None:
        self.deals.update(cols)
        if self.matches is not None:
            self.matches.update(cols)

    def result(self) -> dict:
        out = {"summary": self.deals.result()}
        if self.matches is not None:
            out["match_summary"] = self.matches.result()
        return out


def simulate(desc: RunDescription, **talk) -> dict:
    """:func:`tranca_sim.run.run` of ``desc`` with its summary (``talk``: ``progress``,
    ``say_compile``, ``warn``, ``on_written``, as :func:`run_simulation` takes them)."""
    return run(desc, observer=RunSummaries, **talk)


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
        ``match_summary`` (:class:`tranca_sim.lab.statistics.matches.MatchSummary`); ``deals`` is then the
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
        (:func:`tranca_sim.lab.statistics.stats.summarize` layout; a match run also has ``match_summary``)
        and ``diagnostics``:
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
    tranca_sim.strategies.StrategyError
        For an unknown strategy or parameter, or a user's strategy file that
        cannot be used (tranca_sim.strategies.user.load_file).
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
    desc = RunDescription(
        preset, deals, seed, side_a, side_b, out, force, threads, chunk_size, rule_options, check, log_deals,
        processes=processes, cluster=cluster, scheduler=scheduler, dataset=dataset, resume=resume,
        matches=matches, side_c=side_c,
    )  # fmt: skip
    return simulate(desc, progress=progress, say_compile=say_compile, warn=warn, on_written=on_written)
