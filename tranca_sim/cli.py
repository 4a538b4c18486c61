"""Command line: ``tranca-sim simulate | summarize | replay | check | experiment | report | tune | ladder | presets | strategies``.

Every user error (unknown preset, strategy or rule option, bad number, an
existing, special or unwritable output, an unreadable input) ends with one
line ``tranca-sim: error: ...`` on stderr naming the flag, the value and what
is allowed, and exit status 2, before any deal is simulated; so does an
``OSError`` while writing (disk full), after which no file is left.  An
interrupted run (Ctrl-C, SIGTERM, SIGHUP) exits with status 130, 143 or 129
and leaves no file.  ``simulate --check`` exits with status 1 when the
engine's invariant checks failed (the run file is written); ``check`` exits
with status 1 when a deal disagrees with the referee or any deal of the run
(or log file) ended at the turn limit.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import sys

PROG = "tranca-sim"

#: most deals of one run (same as :data:`tranca_sim.run.MAX_DEALS`, kept here so
#: parsing arguments imports nothing)
MAX_DEALS = 10**12


class Terminated(BaseException):
    """Raised by the SIGTERM/SIGHUP handler of :func:`main`, so a run unwinds (and removes its
    temporary file) like on Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _fail(message: str, status: int = 2):
    print(f"{PROG}: error: {message}", file=sys.stderr)
    raise SystemExit(status)


def _warn(message: str) -> None:
    print(f"{PROG}: warning: {message}", file=sys.stderr, flush=True)


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exception types that are a user's mistake (one line, exit 2), not a bug."""
    from .io import RunFileError
    from .lab.experiment import ExperimentError
    from .lab.ladder import LadderError
    from .lab.spec import SpecError
    from .lab.tune import TuneError
    from .parallel import ClusterError
    from .rules import RulesError
    from .run import RunOptionError

    errors: tuple[type[BaseException], ...] = (
        RulesError,
        RunFileError,
        RunOptionError,
        SpecError,
        ExperimentError,
        ClusterError,
        TuneError,
        LadderError,
    )
    try:
        from strategies import StrategyError

        errors += (StrategyError,)
    except ImportError:
        pass
    return errors


def _exists_message(e) -> str:
    return f"{e.path!r} already exists; use --force to overwrite it"


@contextlib.contextmanager
def _flag(flag: str, value: str | None = None):
    """A user error raised in the block becomes ``FLAG [VALUE]: message`` (exit 2), so every
    message names the flag it is about; an existing output says ``use --force``."""
    from .io import OutputExistsError

    try:
        yield
    except OutputExistsError as e:
        _fail(f"{flag} {_exists_message(e)}")
    except _user_errors() as e:
        msg = str(e)
        if msg.startswith(flag):
            _fail(msg)
        _fail(f"{flag} {value}: {msg}" if value is not None else f"{flag}: {msg}")


def _check_rules(preset: str, items) -> dict:
    """``--preset`` and the ``--rule`` items checked as one rule set; returns the raw options
    (option name to string value). Each value is parsed alone, so a bad one is named alone, but
    the options are applied together and the combination validated once: an option may need
    another (card_values=003 needs n_jokers=0), whatever their order."""
    from .rules import get_preset
    from .run import coerce_rule_options, parse_rule_args

    with _flag("--preset"):
        rules = get_preset(preset)
    with _flag("--rule"):
        raw = parse_rule_args(items)
    opts = {}
    for key, value in raw.items():
        with _flag("--rule", f"{key}={value}"):
            opts.update(coerce_rule_options(rules, {key: value}))
    with _flag("--rule", " ".join(f"{k}={v}" for k, v in raw.items())):
        rules.replace(**opts) if opts else rules.validate()
    return raw


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump)."""

    def error(self, message):
        # "argument --deals: must be ..." -> "--deals must be ..." for the value checks below
        message = re.sub(r"^argument (-[-\w]+|[a-z]\w*): (must|takes) ", r"\1 \2 ", message)
        hint = f" (see '{self.prog} --help')"
        _fail(message + hint)


def _whole(text: str, too_big: str) -> int:
    """``int(text)``; a number too long to convert (over 4300 digits) gets the ``too_big`` message."""
    t = text.strip()
    try:
        return int(t)
    except ValueError:
        if t.lstrip("+-").isdigit():
            raise argparse.ArgumentTypeError(f"{too_big}, got a {len(t)}-digit number") from None
        raise argparse.ArgumentTypeError(f"takes a whole number, got {text!r}") from None


def _bounded(lo: int, hi: int | None, rng: str):
    def parse(text: str) -> int:
        v = _whole(text, f"must be {rng}")
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"must be {rng}, got {v}")
        return v

    return parse


_positive_int = _bounded(1, None, "at least 1")
_nonneg_int = _bounded(0, None, "0 or more")
_seed = _bounded(0, 2**63 - 1, "between 0 and 2**63 - 1")


def _deals(text: str) -> int:
    v = _whole(text, f"must be at most {MAX_DEALS}")
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {v}")
    if v > MAX_DEALS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_DEALS}, got {v}")
    return v


def _cluster(text: str) -> int:
    from .parallel import parse_cluster

    try:
        return parse_cluster(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e).removeprefix("--cluster ")) from None


def _where_args(p, what: str, extra: str = "") -> None:
    """``--processes | --cluster | --scheduler``: where ``what`` are played (:mod:`tranca_sim.parallel`)."""
    where = p.add_mutually_exclusive_group()
    where.add_argument(
        "--processes",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"run {what} on N local processes (at most the cores of this machine{extra})",
    )
    where.add_argument(
        "--cluster",
        type=_cluster,
        default=None,
        metavar="local[:N]",
        help=f"run {what} on a Dask LocalCluster of N workers (default 2) started for the run",
    )
    where.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help=f"run {what} on the existing Dask cluster of this scheduler, e.g. tcp://host:8786",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for docs and tests)."""
    from . import __version__

    p = _Parser(prog=PROG, description="Monte Carlo strategy lab for the card game Tranca.")
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    s = sub.add_parser("simulate", help="play deals and write them to a Parquet run file")
    s.add_argument(
        "--preset", default="tranca", help="rule preset (see 'tranca-sim presets'); default tranca"
    )
    s.add_argument(
        "--deals", type=_deals, default=None, help=f"number of deals, at most {MAX_DEALS}; default 100000"
    )
    s.add_argument(
        "--matches",
        type=_deals,
        default=None,
        help="play N matches instead of deals: each deal after deal to the preset's match_target "
        "(one row per match, deal and side; docs/schema.md); not with --deals",
    )
    s.add_argument("--seed", type=_seed, default=1, help="master seed; default 1")
    s.add_argument(
        "--side-a",
        default="basic",
        help="strategy of seats 0 and 2, e.g. basic, "
        "basic:wild_reserve=1 (see 'tranca-sim strategies') or your own file "
        "my_strats.py:NAME:p=v (docs/strategies.md); default basic",
    )
    s.add_argument("--side-b", default="random", help="strategy of seats 1 and 3; default random")
    s.add_argument(
        "--side-c",
        default=None,
        help="strategy of the third player (seat 2) at a three-player table (--preset tranca-3p); "
        "default: side B's. At a 2-player table (tranca-2p) --side-a is seat 0 and --side-b seat 1",
    )
    s.add_argument(
        "--out",
        default="tranca-run.parquet",
        help="output file; default tranca-run.parquet. A path ending in / (or a dataset already, "
        "or with --dataset) is a dataset directory: one Parquet file per chunk and manifest.json",
    )
    s.add_argument(
        "--dataset", action="store_true", help="write --out as a dataset directory even without a trailing /"
    )
    s.add_argument(
        "--resume",
        action="store_true",
        help="finish the interrupted dataset run at --out (give the run's other arguments again): "
        "chunks already written are kept, the rest simulated",
    )
    s.add_argument(
        "--force",
        action="store_true",
        help="overwrite an existing output file (never a link, directory, device, FIFO or socket)",
    )
    s.add_argument(
        "--threads",
        type=_positive_int,
        default=None,
        help="numba threads; default all cores (with --processes, --cluster or --scheduler: per worker, "
        "default 1)",
    )
    _where_args(s, "the chunks", "; no more than the chunks")
    s.add_argument(
        "--chunk-size",
        type=_positive_int,
        default=50_000,
        help="deals per chunk (Parquet row group); default 50000",
    )
    s.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a rule of the preset, e.g. --rule max_wilds=1 (repeatable; see docs/rules.md)",
    )
    s.add_argument("--check", action="store_true", help="run the engine's invariant checks (slower)")
    s.add_argument("--no-progress", action="store_true", help="no progress bar")
    s.add_argument(
        "--log-deals",
        default=None,
        metavar="K|I,J,...|sample:K",
        help="log every action of the first K deals, of the listed deals, or of K sampled deals "
        "(K at least 1) to the deal-log file beside --out: run.parquet -> run.log.jsonl "
        "(docs/log-format.md); --force replaces both files, and without --log-deals it removes "
        "an older run's log there",
    )

    m = sub.add_parser("summarize", help="print the summary of a run file")
    m.add_argument("path", help="a Parquet file or dataset directory written by 'tranca-sim simulate'")

    r = sub.add_parser("replay", help="play a deal of a run again and print it turn by turn")
    r.add_argument("path", help="a Parquet run file or dataset directory")
    r.add_argument(
        "--deal",
        type=_nonneg_int,
        required=True,
        help="deal index in the run; in a match run (with --match) the deal number in the match, 0-based",
    )
    r.add_argument("--match", type=_nonneg_int, default=None, help="match index, for a match run (--matches)")
    r.add_argument("--html", metavar="OUT", help="also draw the table at --turn as an HTML/SVG page")
    r.add_argument("--turn", type=_nonneg_int, default=None, help="turn to draw (default: the last)")
    r.add_argument("--force", action="store_true", help="overwrite an existing --html file")

    c = sub.add_parser("check", help="referee deals of a run (or a deal-log file) independently")
    c.add_argument("path", help="a Parquet run file or dataset directory, or a .jsonl deal-log file")
    c.add_argument(
        "--sample",
        type=_positive_int,
        default=200,
        help="deals of a run to check (at most the run's deals; a larger N checks every deal, "
        "with a warning); default 200",
    )
    c.add_argument("--no-progress", action="store_true", help="no progress bar")

    e = sub.add_parser(
        "experiment", help="run an experiment file: variants against a baseline, with a report"
    )
    e.add_argument("path", help="an experiment file, e.g. experiments/tranca-tips.toml")
    e.add_argument("--out", required=True, help="output directory, e.g. reports/tranca-tips/")
    e.add_argument(
        "--deals",
        type=_deals,
        default=None,
        help="cap on the deals per variant (a quick look); default the budget",
    )
    e.add_argument("--force", action="store_true", help="replace a non-empty output directory")
    e.add_argument(
        "--threads",
        type=_positive_int,
        default=None,
        help="numba threads; default all cores (with --processes, --cluster or --scheduler: per worker, "
        "default 1)",
    )
    _where_args(e, "the runs' batches")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    rp = sub.add_parser(
        "report",
        help="write report.md and the charts of an experiment directory from its Parquet files",
    )
    rp.add_argument("run_dir", metavar="RUN_DIR", help="a directory written by 'tranca-sim experiment'")

    tu = sub.add_parser(
        "tune",
        help="search a strategy's parameters for the most points a deal against an opponent, "
        "confirmed on fresh deals",
    )
    tu.add_argument(
        "strategy", metavar="STRATEGY", help="strategy to tune, e.g. basic (its values start the search)"
    )
    tu.add_argument("--preset", default="tranca", help="rule preset; default tranca")
    tu.add_argument("--vs", default="basic", metavar="OPPONENT", help="opponent of round 1; default basic")
    tu.add_argument(
        "--budget",
        type=_deals,
        required=True,
        metavar="DEALS",
        help="deals of the search over all rounds (selection and confirmations come on top)",
    )
    tu.add_argument("--out", required=True, metavar="DIR", help="output directory, e.g. reports/tune-tranca/")
    tu.add_argument(
        "--seed", type=_seed, default=1, help="master seed of every deal and of the optimiser; default 1"
    )
    tu.add_argument(
        "--rounds",
        type=_positive_int,
        default=3,
        help="most rounds: round 2 on tunes against round 1's winner ..."
        " (self-play), until a winner does not beat its opponent significantly; default 3",
    )
    tu.add_argument(
        "--params",
        default=None,
        metavar="P,Q,...",
        help="search only these parameters of the strategy's search space (default: all of it)",
    )
    tu.add_argument(
        "--trial-deals", type=_positive_int, default=4000, help="deals per candidate (even); default 4000"
    )
    tu.add_argument(
        "--select-top", type=_positive_int, default=8, help="candidates re-played in the selection; default 8"
    )
    tu.add_argument(
        "--select-deals",
        type=_positive_int,
        default=20_000,
        help="deals each in the selection; default 20000",
    )
    tu.add_argument(
        "--confirm-deals",
        type=_positive_int,
        default=40_000,
        help="deals of each confirmation run; default 40000",
    )
    tu.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a rule of the preset (repeatable)",
    )
    tu.add_argument("--force", action="store_true", help="replace a non-empty output directory")
    tu.add_argument("--threads", type=_positive_int, default=None, help="numba threads; default all cores")
    tu.add_argument("--no-progress", action="store_true", help="no progress bar")

    la = sub.add_parser(
        "ladder",
        help="round robin of strategies on duplicate deals, rated on one scale (Elo and points a deal)",
    )
    la.add_argument("--out", required=True, metavar="DIR", help="output directory, e.g. reports/ladder/")
    la.add_argument("--preset", default="tranca", help="rule preset; default tranca")
    la.add_argument(
        "--player",
        action="append",
        default=None,
        metavar="[LABEL=]STRATEGY",
        help="a player (repeatable; default random, passive, basic, tuned and search at a small and a "
        "large budget), e.g. --player 'no out=basic:go_out=0'",
    )
    la.add_argument(
        "--decks", type=_positive_int, default=20_000, help="decks a pair (each played twice); default 20000"
    )
    la.add_argument(
        "--search-decks",
        type=_positive_int,
        default=300,
        help="decks a pair with the search player (slow); default 300",
    )
    la.add_argument(
        "--seed", type=_seed, default=20261130, help="master seed of every pair; default 20261130"
    )
    la.add_argument(
        "--anchor",
        default="basic",
        metavar="LABEL",
        help="label of the player rated 0, one of the players' labels; default basic (the first player "
        "when basic does not play)",
    )
    la.add_argument("--bootstrap", type=_positive_int, default=2000, help="bootstrap resamples; default 2000")
    la.add_argument("--force", action="store_true", help="replace a non-empty output directory")
    la.add_argument("--threads", type=_positive_int, default=None, help="numba threads; default all cores")
    la.add_argument("--no-progress", action="store_true", help="no progress bar")

    sub.add_parser("presets", help="list the rule presets")
    st = sub.add_parser(
        "strategies", help="list the strategies and their parameters (and check your own strategy files)"
    )
    st.add_argument(
        "files",
        nargs="*",
        metavar="FILE.py",
        help="also check these strategy files against the contract and list them (docs/strategies.md)",
    )
    return p


def _say_if_compiling(meta: dict | None) -> None:
    """Before the first replayed deal: say so on stderr when the deal player is not compiled yet.

    A run played with a user's strategy file loads that file first (checked unchanged;
    StrategyError otherwise): the engine of this process must be built with it."""
    from strategies import from_record

    from .run import COMPILE_TIME, engine_cached

    for entry in (meta or {}).get("strategies") or ():
        if isinstance(entry, dict) and entry.get("file"):
            from_record(entry)

    if not engine_cached("_play_stacked_nb"):
        print(f"compiling the deal player (once, {COMPILE_TIME}) ...", file=sys.stderr, flush=True)


def _check_threads(threads: int | None) -> None:
    """``--threads`` against the threads numba may use on this machine (checked before any work)."""
    if threads is not None:
        from numba import config

        most = config.NUMBA_NUM_THREADS
        if threads > most:
            _fail(f"--threads must be between 1 and {most} (the threads numba may use here), got {threads}")


def _n_deals(n: int) -> str:
    """``1 deal``, ``2 deals``."""
    return f"{n} deal{'s' * (n != 1)}"


def _check_processes(processes: int | None) -> None:
    """``--processes`` against the cores of this machine (more processes than cores only compete)."""
    if processes is not None:
        from .run import max_processes

        most = max_processes()
        if processes > most:
            _fail(f"--processes must be between 1 and {most} (the cores of this machine), got {processes}")


def _check_simulate_args(a) -> None:
    """Every option of ``simulate`` checked before the engine is loaded, each error naming its flag."""
    from strategies import check_rules, resolve

    from .dataset import check_dataset_out, wants_dataset
    from .io import OutputExistsError, check_output_path
    from .rules import get_preset
    from .run import check_log_path, coerce_rule_options, parse_log_deals

    if a.matches is not None:
        if a.deals is not None:
            _fail(
                f"--matches {a.matches} --deals {a.deals}: give --matches N (whole matches, as many deals "
                "as each takes) or --deals N, not both"
            )
        if a.log_deals is not None:
            _fail(
                "--log-deals is not available with --matches; replay a deal of a match instead: "
                "tranca-sim replay RUN --match M --deal D"
            )
    elif a.deals is None:
        a.deals = 100_000
    raw = _check_rules(a.preset, a.rule)
    base = get_preset(a.preset)
    opts = coerce_rule_options(base, raw)
    rules = base.replace(**opts) if opts else base  # checked above: the table's sides for --side-c
    for flag, text in (("--side-a", a.side_a), ("--side-b", a.side_b), ("--side-c", a.side_c)):
        if text is None:
            continue
        with _flag(flag):
            check_rules([resolve(text)], rules)  # a strategy that cannot play this preset (search)
    if a.side_c is not None and rules.n_sides != 3:
        _fail(
            f"--side-c {a.side_c!r}: preset {a.preset} has {rules.n_sides} sides; --side-c is the third "
            "player of a three-player table (--preset tranca-3p)"
        )
    _check_threads(a.threads)
    _check_processes(a.processes)
    if not a.out.strip():
        _fail("--out: the output path is empty; give a run file NAME.parquet or a dataset directory DIR/")
    if a.resume and not a.dataset and not wants_dataset(a.out) and a.out.lower().endswith(".parquet"):
        _fail(
            f"--out {a.out!r} --resume: --resume finishes a dataset directory and {a.out!r} is none "
            "(a .parquet run file is written whole); use --out DIR/ or --dataset for a run that can "
            "be resumed"
        )
    if a.dataset or a.resume or wants_dataset(a.out):
        try:
            check_dataset_out(a.out, a.force, a.resume)
        except OutputExistsError:
            _fail(
                f"--out {a.out!r}: a dataset exists there; --resume finishes it (same arguments), "
                "--force replaces it"
            )
        except _user_errors() as e:
            _fail(f"--out: {e}")
        with _flag("--log-deals"):
            parse_log_deals(a.log_deals, a.deals, a.seed, name="--log-deals")
        return
    with _flag("--out"):
        check_output_path(a.out, a.force)
    if not a.out.lower().endswith(".parquet"):  # a run file is Parquet, whatever its name says
        _fail(
            f"--out {a.out!r}: a run file is written as Parquet, so its name ends in .parquet "
            "(a name ending in / writes a dataset directory)"
        )
    with _flag("--log-deals"):
        idx = parse_log_deals(a.log_deals, a.deals, a.seed, name="--log-deals")
    try:
        check_log_path(a.out, bool(idx), a.force)
    except OutputExistsError as e:
        _fail(
            f"--out {a.out!r}: the deal-log file {e.path!r} beside it already exists (from an earlier "
            "run); use --force to replace the run and its deal logs"
        )
    except _user_errors() as e:
        _fail(f"--out {a.out!r}: the deal-log file beside it: {e}")


def _cmd_simulate(a) -> None:
    from . import dataset as _ds
    from .lab.stats import format_summary, turn_limit_warning
    from .run import parse_rule_args, run_simulation

    _check_simulate_args(a)
    a.dataset_out = a.dataset or a.resume or _ds.wants_dataset(a.out)
    res = run_simulation(
        a.preset,
        a.deals if a.matches is None else None,
        a.seed,
        a.side_a,
        a.side_b,
        a.out,
        force=a.force,
        threads=a.threads,
        chunk_size=a.chunk_size,
        rule_options=parse_rule_args(a.rule),
        check=a.check,
        progress=not a.no_progress,
        log_deals=a.log_deals,
        processes=a.processes,
        cluster=a.cluster,
        scheduler=a.scheduler,
        dataset=a.dataset,
        resume=a.resume,
        warn=_warn,
        matches=a.matches,
        side_c=a.side_c,
    )
    threads = f"{res['threads']} thread" + ("s" if res["threads"] != 1 else "")
    workers = res.get("workers") or {}
    if a.processes or a.cluster or a.scheduler:
        kind = "processes" if a.processes else "Dask workers"
        threads = f"{len(workers)} {kind}, {a.threads or 1} thread{'s' * ((a.threads or 1) != 1)} each"
    simulated = res.get("simulated", res["deals"])
    line = f"{_n_deals(simulated)} in {res['seconds']:.1f} s: {res['deals_per_s']:.0f} deals/s ({threads})"
    if res.get("resumed_chunks"):
        line = f"resumed: {_n_deals(res['deals'] - simulated)} were written before; " + line
    if simulated == 0:
        line = f"{res['path']} was complete: all {res['deals']} deals were written before, none simulated"
    if a.matches is not None:
        line = (
            f"{simulated} match{'es' * (simulated != 1)} in {res['seconds']:.1f} s: "
            f"{res['matches_per_s']:.1f} matches/s, {res['deals_per_s']:.0f} deals/s ({threads})"
        )
        if res.get("resumed_chunks"):
            line = f"resumed: {a.matches - simulated} matches were written before; " + line
    if res["warmup_seconds"] >= 1:
        how = "compiled" if res.get("compiled") else "loaded"
        line += f"; the engine was {how} first, in {res['warmup_seconds']:.1f} s (not counted)"
    a.written = res["path"]  # an interrupt from here on does not remove the run
    print(line)
    if workers and simulated and (a.processes or a.cluster or a.scheduler):
        loads = ", ".join(f"{w['load_seconds']:.1f}" for w in workers.values())
        misses = sum(w.get("cache_misses", 0) for w in workers.values())
        print(
            f"each worker loaded the engine once, before its first chunk ({loads} s, not counted); "
            f"numba compiled {misses} time{'s' * (misses != 1)} on the workers"
        )
    print(f"wrote {res['path']}")
    if res.get("log_path"):
        print(f"wrote {res['log_path']} ({len(res['meta']['log_deals'])} deal logs)")
    bad = {k: v for k, v in res["diagnostics"].items() if v}
    if bad:
        counts = ", ".join(f"{k}={v}" for k, v in bad.items())
        _warn(f"engine diagnostics not zero: {counts}")
    warning = turn_limit_warning(res["summary"])
    if warning:
        _warn(f"{res['path']}: {warning}")
    for side, n in zip(res["meta"]["strategies"], res.get("illegal_choices", ())):
        if n:
            _warn(
                f"side {side['side']} ({side['text']}) answered {n} times outside the legal choices; "
                "the engine played instead the first legal draw, stopped melding, or discarded the "
                "first legal card kind"
            )
    print(format_summary(res["summary"], title=_title(res["meta"])))
    if a.matches is not None:
        from .lab.matches import format_match_summary

        print(format_match_summary(res["match_summary"], side_labels(res["meta"]) or ("A", "B")))
    failed = res["diagnostics"].get("invariant_errors", 0)
    if failed:
        sys.stdout.flush()
        _fail(
            f"the engine's invariant checks failed {failed} times; the run file was written but is suspect",
            1,
        )


def _title(meta: dict) -> str:
    opts = meta.get("rule_options") or {}
    extra = "".join(f", {k}={v}" for k, v in opts.items())
    return (
        f"preset {meta.get('preset', '?')}{extra}; seed {meta.get('master_seed', '?')}; "
        f"tranca-sim {meta.get('version', '?')}"
    )


def _cmd_summarize(a) -> None:
    from .io import load_meta, load_run
    from .lab.stats import SUMMARY_COLUMNS, format_summary, summarize, turn_limit_warning

    meta = load_meta(a.path)
    df = load_run(a.path, columns=list(SUMMARY_COLUMNS))
    _check_pairable(a.path, meta, df)
    summary = summarize(df, labels=side_labels(meta))
    warning = turn_limit_warning(summary)
    if warning:
        _warn(f"{a.path}: {warning}")
    print(format_summary(summary, title=_title(meta)))
    if meta.get("matches"):
        from .lab.matches import MATCH_SUMMARY_COLUMNS, MatchSummary, format_match_summary

        acc = MatchSummary(n_sides=len(meta.get("strategies") or ()) or 2)
        acc.update(load_run(a.path, backend="pandas", columns=list(MATCH_SUMMARY_COLUMNS)))
        print(format_match_summary(acc.result(), side_labels(meta) or ("A", "B")))


def _check_pairable(path, meta: dict | None, df) -> None:
    """A run holds one row per side for every deal: a file without rows, or with a side missing
    or short of rows (an edited or partly copied file), cannot be paired and is refused."""
    sides = (meta or {}).get("strategies")
    n_sides = len(sides) if isinstance(sides, list) and len(sides) in (2, 3) else 2
    if df.height == 0:
        _fail(f"{path}: the run holds no deal")
    counts = {int(k): int(v) for k, v in df.group_by("side").len().iter_rows()}
    rows = [counts.get(i, 0) for i in range(n_sides)]
    if len(set(rows)) != 1 or set(counts) - set(range(n_sides)):
        got = ", ".join(f"side {chr(65 + i)} {r}" for i, r in enumerate(rows))
        _fail(
            f"{path}: rows that cannot be paired ({got} rows; a run has one row per side for every "
            "deal): a damaged or edited file? 'tranca-sim check' says more"
        )


def side_labels(meta: dict) -> list[str] | None:
    """Side A's and B's (and C's, tranca-3p) strategy as people name it (non-default parameters
    only), from run metadata; None when the metadata does not describe 2 or 3 sides (the rows then
    name them).
    A built-in is described against today's defaults; a user's strategy (not loaded here) by
    the label the run stored."""
    from strategies import builtin_names, describe

    sides = meta.get("strategies")
    if not (isinstance(sides, list) and len(sides) in (2, 3) and all(isinstance(x, dict) for x in sides)):
        return None
    builtin = set(builtin_names())
    try:
        return [
            str(x["label"])
            if x["name"] not in builtin and x.get("label")
            else describe(str(x["name"]), x["params"], x.get("param_names"), meta.get("preset"))
            for x in sides
        ]
    except (KeyError, TypeError, ValueError):
        return None


def _readable_file(path) -> None:
    """Refuse (one line, exit 2) an input that is missing, not a regular file or unreadable;
    a FIFO or device would block or never end."""
    import stat

    try:
        st = os.stat(path)
    except OSError as e:
        _fail(f"cannot read {str(path)!r}: {os.strerror(e.errno) if e.errno else e}")
    if stat.S_ISDIR(st.st_mode):
        from .dataset import MANIFEST

        if os.path.exists(os.path.join(path, MANIFEST)):  # a dataset: verify_run checks the rest
            return
        _fail(f"{str(path)!r} is a directory without {MANIFEST} (not a tranca-sim dataset)")
    if not stat.S_ISREG(st.st_mode):
        _fail(f"{str(path)!r} is not a regular file")


def _cmd_replay(a) -> None:
    from .io import atomic_output, check_output_path, verify_run, writing

    _readable_file(a.path)
    if a.turn is not None and not a.html:
        _fail("--turn chooses the turn drawn by --html; give --html OUT.html too")
    meta = verify_run(a.path) or {}  # the same check as summarize and check
    deals = meta.get("deals")
    deal = a.deal
    if meta.get("matches"):
        deal = _match_deal(a, meta)
    elif a.match is not None:
        _fail(f"--match {a.match}: {a.path} is not a match run (simulate --matches); give --deal I alone")
    elif isinstance(deals, int) and not a.deal < deals:
        _fail(f"--deal {a.deal} is not a deal of {a.path}: its deals are 0 to {deals - 1}")
    if a.html:  # checked before the deal is replayed
        with _flag("--html"):
            check_output_path(a.html, a.force)

    from .replay import format_deal, regenerate, table_html

    _say_if_compiling(meta)
    try:
        log = regenerate(a.path, deal)
    except _user_errors():
        raise
    except ValueError as e:
        _fail(f"--deal {a.deal}: {e}")
    page = None
    if a.html:  # drawn before anything is printed, so a bad --turn stops at once
        n_turns = sum(1 for x in log["actions"] if x["act"] == "turn")
        turn = n_turns - 1 if a.turn is None else a.turn
        if not 0 <= turn < n_turns:
            _fail(f"--turn {turn} is not a turn of deal {a.deal}: its turns are 0 to {n_turns - 1}")
        page = table_html(log, turn)
    print(format_deal(log))
    if page is not None:
        with _flag("--html"), atomic_output(a.html, a.force) as tmp, writing(a.html):
            tmp.write_text(page, encoding="utf-8")
        print(f"wrote {a.html} (the table after turn {turn})")


def _match_deal(a, meta: dict) -> int:
    """The deal key (``deal_index``) of ``--match M --deal D`` in a match run, both checked."""
    from .engine.match import deal_key
    from .io import load_run

    n = int(meta["matches"])
    if a.match is None:
        _fail(f"{a.path} is a match run: give --match M (0 to {n - 1}) and --deal D (the deal in the match)")
    if not a.match < n:
        _fail(f"--match {a.match} is not a match of {a.path}: its matches are 0 to {n - 1}")
    df = load_run(a.path, backend="pandas", columns=["match_index", "match_deals"])
    k = int(df.loc[df["match_index"] == a.match, "match_deals"].iloc[0])
    if not a.deal < k:
        _fail(f"--deal {a.deal} is not a deal of match {a.match}: its deals are 0 to {k - 1}")
    return deal_key(a.match, a.deal)


def _cmd_check(a) -> None:
    from . import referee
    from .check import check_run, log_turn_limits

    _readable_file(a.path)
    if str(a.path).endswith(".jsonl"):
        try:
            verdicts = list(referee.check_file(a.path))
        except OSError as e:
            _fail(f"cannot read {str(a.path)!r}: {os.strerror(e.errno) if e.errno else e}")
        source = a.path
        limited = log_turn_limits(a.path)
        where = "of the log file"
    else:
        from .io import verify_run

        meta = verify_run(a.path)  # a damaged file is refused before anything is said
        if not a.no_progress:
            _say_if_compiling(meta)
        verdicts, source, limited = check_run(a.path, a.sample, not a.no_progress, warn=_warn)
        where = "of the run"
    agreed, total, bad = referee.summary(verdicts)
    if total == 0:
        _fail(f"{a.path} holds no deals to check")
    for v in bad[:10]:
        print(f"DISAGREE {v}")
    if len(bad) > 10:
        print(f"... and {len(bad) - 10} more disagreements")
    print(f"{agreed} of {total} deals agreed with the referee ({source})")
    if limited:
        n = len(limited)
        shown = ", ".join(str(i) for i in limited[:10]) + (", ..." if n > 10 else "")
        print(
            f"TURN LIMIT: {n} deal{'s' * (n != 1)} {where} ended at the turn limit, not by a rule "
            f"(deal{'s' * (n != 1)} {shown}); such a deal is not an outcome of play"
        )
    if bad or limited:
        raise SystemExit(1)


def _cmd_experiment(a) -> None:
    from pathlib import Path

    from .lab.experiment import check_out_dir, load_experiment, run_experiment
    from .lab.spec import load_spec
    from .lab.tables import comparison_table, format_table

    _check_threads(a.threads)
    _check_processes(a.processes)
    load_spec(a.path, deals_cap=a.deals)  # the experiment file first, then --out
    with _flag("--out"):
        check_out_dir(Path(a.out), a.force)

    res = run_experiment(  # the report is written before the directory is renamed into place
        a.path,
        a.out,
        deals=a.deals,
        force=a.force,
        threads=a.threads,
        progress=not a.no_progress,
        processes=a.processes,
        cluster=a.cluster,
        scheduler=a.scheduler,
    )
    a.written = res["dir"]  # an interrupt from here on (the table) does not remove the output
    spec = res["spec"]
    threads = f"{res['threads']} thread" + ("s" if res["threads"] != 1 else "")
    if a.processes or a.cluster or a.scheduler:
        kind = f"{a.processes} processes" if a.processes else "Dask workers"
        threads = f"{kind}, {threads} each"
    print(
        f"{_n_deals(res['deals'])} in {res['seconds']:.1f} s: {res['deals_per_s']:.0f} deals/s ({threads}); "
        f"wrote {res['dir']}"
    )
    print(f"{spec['title']} (preset {spec['preset']}, seed {spec['seed']}, tranca-sim {spec['version']})")
    print(format_table(comparison_table(load_experiment(res["dir"])), spec))
    stopped = spec["stopped_by"]
    n_hw = sum(1 for s in stopped.values() if s == "half-width")
    if spec["stopping"]["sequential"]:
        n_budget = len(stopped) - n_hw
        print(
            f"stopping: {n_hw} of {len(stopped)} variants reached the half-width target "
            f"+-{spec['stopping']['half_width']:g} pts/deal"
            + (f"; {n_budget} spent the budget of {spec['budget']} deals first" if n_budget else "")
        )
    rep = res["report"]
    if isinstance(rep, str):
        print(rep)


def _cmd_report(a) -> None:
    from .lab.reports import ReportError, write_report

    try:
        written = write_report(a.run_dir)
    except ReportError as e:
        _fail(str(e))
    except _user_errors():
        raise
    except Exception as e:  # noqa: BLE001 (a bug in the report code: one line, not a traceback)
        _fail(f"the report of {a.run_dir} failed ({type(e).__name__}: {e})", 1)
    charts = sum(1 for p in written if p.suffix == ".png")
    print(f"wrote {written[-1]} and {charts} charts (PNG and SVG) in {a.run_dir}")


def _cmd_tune(a) -> None:
    from pathlib import Path

    from .lab.experiment import check_out_dir
    from .lab.tune import TuneConfig, check_config, command_line, run_tune

    _check_threads(a.threads)
    from strategies import resolve

    # the user's words checked in the order they are typed: what to tune, against whom, on which
    # rules, then the numbers (check_config)
    with _flag("STRATEGY", a.strategy):
        resolve(a.strategy)
    with _flag("--vs", a.vs):
        resolve(a.vs)
    rules = _check_rules(a.preset, a.rule)
    only = None
    if a.params is not None:
        only = tuple(x.strip() for x in a.params.split(",") if x.strip())
        if not only:
            _fail(f"--params {a.params!r}: give parameter names separated by commas")
    cfg = TuneConfig(
        strategy=a.strategy,
        preset=a.preset,
        opponent=a.vs,
        budget=a.budget,
        out=a.out,
        rules=rules,
        trial_deals=a.trial_deals,
        select_top=a.select_top,
        select_deals=a.select_deals,
        confirm_deals=a.confirm_deals,
        rounds=a.rounds,
        only=only,
        seed=a.seed,
        threads=a.threads,
        force=a.force,
        progress=not a.no_progress,
        command=command_line(),
    )
    with _flag("--params" if only else "STRATEGY", a.params if only else a.strategy):
        from strategies.search import search_space

        search_space(a.strategy, None, only)
    check_config(cfg)
    with _flag("--out"):
        check_out_dir(Path(a.out), a.force)
    res = run_tune(cfg)
    a.written = res["dir"]
    f = res["final"]
    for rd in res["rounds"]:
        c = rd["confirmation"]
        print(
            f"round {rd['round']} vs {rd['opponent_label']}: {rd['played']} candidates; winner {rd['winner_label']}: "
            f"search {rd['search_mean']:+.1f}, selection {rd['selection_mean']:+.1f}, confirmed "
            f"{c['mean']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}] (p {c['p_greater']:.2g}, "
            f"{'beats it' if rd['beats_opponent'] else 'not significant: stop'})"
        )
    print(
        f"tuned: {res['champion_label']}\n"
        f"vs {res['opponent_label']} on {f['decks']} fresh decks ({f['deals']} deals): {f['mean']:+.1f} points a deal, "
        f"95% CI [{f['lo']:+.1f}, {f['hi']:+.1f}]"
    )
    print(
        f"{_n_deals(res['deals'])} in {res['seconds']:.0f} s ({res['seconds'] / 60:.1f} min): "
        f"{res['deals_per_s']:.0f} deals/s ({res['threads']} threads); wrote {res['dir']}"
    )


def _cmd_ladder(a) -> None:
    from .lab.ladder import run_ladder
    from .lab.ladder_report import ratings_markdown
    from .lab.tune import command_line

    _check_threads(a.threads)
    with _flag("--preset", a.preset):
        from .rules import get_preset

        get_preset(a.preset)
    with _flag("--out"):
        from pathlib import Path

        from .lab.experiment import check_out_dir

        check_out_dir(Path(a.out), a.force)
    players = a.player if a.player else None  # None: DEFAULT_PLAYERS
    res = run_ladder(
        a.out,
        preset=a.preset,
        players=players,
        decks=a.decks,
        slow_decks=min(a.search_decks, a.decks),
        seed=a.seed,
        anchor=a.anchor,
        bootstrap=a.bootstrap,
        threads=a.threads,
        force=a.force,
        progress=not a.no_progress,
        command=command_line(),
    )
    a.written = res["dir"]
    print(ratings_markdown(res["result"]), end="")
    print(
        f"{_n_deals(res['deals'])} in {res['seconds']:.0f} s: {res['deals'] / max(res['seconds'], 1e-9):.0f} deals/s "
        f"({res['result']['threads']} threads); wrote {res['dir']}"
    )


def _cmd_presets(a) -> None:
    from .rules import PLANNED_PRESETS, PRESET_SOURCES, PRESETS, differences

    def text(v) -> str:
        return str(v).lower() if isinstance(v, bool) else str(v)

    for name, rules in PRESETS.items():
        print(f"{name}  (source: {PRESET_SOURCES.get(name, 'not recorded')})")
        print(f"    {rules.description}")
        diff = differences(rules)
        if name != "tranca":
            opts = " ".join(f"{k}={text(v)}" for k, v in diff) or "none"
            print(f"    differs from tranca: {opts}")
    if PLANNED_PRESETS:
        print(f"\nplanned (not played yet): {', '.join(PLANNED_PRESETS)}")
    print("any option can be changed with --rule OPTION=VALUE (docs/rules.md section 2)")


def _cmd_strategies(a) -> None:
    from strategies import StrategyError, list_strategies, params_of, strategy_params, user

    listed = [(name, doc, strategy_params(name)) for name, doc, _, _ in list_strategies(installed=False)]
    builtin = {name for name, _, _ in listed}
    for name in sorted(set(user.entry_points()) - builtin):  # installed strategy packages
        try:
            mod, _ = user.load_entry_point(name, register=False)
            listed.append((name, f"{mod.DOC} (installed)", params_of(mod)))
        except StrategyError as e:
            listed.append((name, f"cannot be used: {e}", []))
    for path in getattr(a, "files", None) or ():
        mod = user.check_file(path)  # StrategyError: one line, exit 2
        listed.append((f"{path}:{mod.NAME}", f"{mod.DOC} (your file)", params_of(mod)))
    for name, doc, params in listed:
        first = (doc or "").strip().splitlines()
        print(f"{name}: {first[0] if first else ''}")
        if not params:
            print("    parameters: none")
            continue
        print("    parameters (default; allowed values):")
        for p, default, pdoc, lo, hi, kind in params:
            if kind == "switch":
                allowed = "switch: 0 off, 1 on"
            else:
                allowed = f"{'whole number' if kind == 'int' else 'number'} {_fmt_num(lo)} to {_fmt_num(hi)}"
            print(f"      {p}={_fmt_num(default)}  ({allowed}) {pdoc}")


def _fmt_num(v) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


def _terminate(signum, frame):
    raise Terminated(signum)


def main(argv=None) -> int:
    """Entry point of the ``tranca-sim`` console script.

    Parameters
    ----------
    argv : list of str, optional
        Arguments without the program name (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success.

    Raises
    ------
    SystemExit
        Status 2 after printing ``tranca-sim: error: ...`` for a user error
        or a failed write; 1 when ``simulate --check`` found invariant
        errors; 130 on Ctrl-C, 143 on SIGTERM, 129 on SIGHUP (the handlers
        are installed for the call and restored after it, when called from
        the main thread; a signal the caller ignores, as under ``nohup``,
        stays ignored).
    """
    state = {"args": None}
    previous = {}
    try:
        for sig in _SIGNALS:
            try:
                if signal.getsignal(sig) is not signal.SIG_IGN:  # `nohup tranca-sim ...` keeps running
                    previous[sig] = signal.signal(sig, _terminate)
            except ValueError:  # not the main thread: leave the handlers alone
                break
        return _main(argv, state)
    except KeyboardInterrupt:
        _fail(_stopped("interrupted", state), 130)
    except Terminated as t:
        _fail(_stopped("terminated", state), 128 + t.signum)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _stopped(what: str, state: dict) -> str:
    args = state["args"]
    if args is not None and args.command in ("experiment", "tune", "ladder"):
        if getattr(args, "written", None):
            return f"{what} after writing {args.written}"
        return f"{what}; {args.out} was not written (an existing one is left as it was)"
    if args is None or args.command != "simulate":
        return what
    written = getattr(args, "written", None)
    if written:
        return f"{what} after writing {written}"
    if getattr(args, "dataset_out", False):
        return (
            f"{what}; the chunks written so far are kept in {args.out}: run the same command with "
            "--resume to finish it"
        )
    return f"{what}; no output file was written"


def _main(argv, state: dict) -> int:
    args = build_parser().parse_args(argv)  # before the heavier imports: --version and typos are quick
    state["args"] = args

    from .io import OutputExistsError

    errors = _user_errors()
    import warnings

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if category.__name__ == "TunedFallbackWarning":  # one readable line, not a source location
            _warn(str(message))
        else:
            shown(message, category, filename, lineno, file, line)

    warnings.showwarning = show
    command = {
        "simulate": _cmd_simulate,
        "summarize": _cmd_summarize,
        "replay": _cmd_replay,
        "check": _cmd_check,
        "experiment": _cmd_experiment,
        "report": _cmd_report,
        "tune": _cmd_tune,
        "ladder": _cmd_ladder,
        "presets": _cmd_presets,
        "strategies": _cmd_strategies,
    }[args.command]
    try:
        command(args)
    except OutputExistsError as e:
        _fail(_exists_message(e))
    except errors as e:
        _fail(str(e))
    except BrokenPipeError:  # e.g. `tranca-sim strategies | head -1`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        warnings.showwarning = shown
    return 0


if __name__ == "__main__":
    sys.exit(main())
