"""Command line: ``tranca-sim simulate | summarize | replay | check | experiment | report | tune | ladder | presets | strategies``.

Every user error (unknown preset, strategy or rule option, bad number, an
existing, special or unwritable output, an unreadable input) ends with one
line ``tranca-sim: error: ...`` on stderr naming the flag, the value and what
is allowed, and exit status 2, before any deal is simulated; so does an
``OSError`` while writing (disk full), after which no file is left.  An
interrupted run (Ctrl-C, SIGTERM, SIGHUP) exits with status 130, 143 or 129
and leaves no file, also while a user strategy loops forever.  ``simulate
--check`` exits with status 1 when the engine's invariant checks failed (the
run file is written); ``check`` exits with status 1 when a deal disagrees
with the referee or any deal of the run (or log file) ended at the turn limit.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys

from .cli_signals import Stop, early_stop, exit_finished, exit_stopped, late_stop

early_stop()  # the console script: a signal while it loads says its line too (cli_signals)

from ._plural import plural
from .cli_analyse import COMMANDS as ANALYSE_COMMANDS
from .cli_atlas import cmd_atlas as _cmd_atlas
from .cli_common import (
    PROG,
    Terminated,
    _check_processes,
    _check_rules,
    _check_threads,
    _console,
    _exists_message,
    _fail,
    _flag,
    _lock_out,
    _n_deals,
    _refuse_unbound,
    _stopped,
    _user_errors,
    _warn,
)
from .cli_lab import _cmd_experiment, _cmd_ladder, _cmd_report, _cmd_tune, _written
from .cli_parser import build_parser, unknown_arguments
from .cli_runs import _cmd_check, _cmd_replay, _cmd_summarize, _title, side_labels


def _check_simulate_args(a) -> None:
    """Every option of ``simulate`` checked before the engine is loaded, each error naming its flag."""
    from tranca_sim.strategies import check_rules, resolve

    from .dataset import check_dataset_out, check_run_file_out, wants_dataset
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
    _refuse_unbound(a.preset, raw, "matches" if a.matches is not None else "deals")
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
    _check_processes(a.processes, a.cluster)
    if not a.out.strip():
        _fail("--out: the output path is empty; give a run file NAME.parquet or a dataset directory DIR/")
    _lock_out(a, a.out)  # another live run writing it is named first
    if a.resume and not a.dataset and not wants_dataset(a.out) and a.out.lower().endswith(".parquet"):
        _fail(
            f"--out {a.out!r} --resume: --resume finishes a dataset directory and {a.out!r} is none "
            "(a .parquet run file is written whole); use --out DIR/ or --dataset for a run that can "
            "be resumed"
        )
    if a.resume and a.force:  # one or the other: --force was ignored without a word on a finished dataset
        _fail(
            f"--resume --force: give one of them: --resume finishes the dataset at {a.out!r} "
            "(same arguments), --force replaces it"
        )
    if a.dataset or a.resume or wants_dataset(a.out):
        name = a.out.rstrip("/" + os.sep)
        if name.lower().endswith(".parquet") and not wants_dataset(a.out) and not os.path.isdir(name):
            _fail(
                f"--out {a.out!r} --dataset: a dataset is a directory, and {name!r} is named like a "
                f"run file; give it a directory's name (e.g. --out {name[: -len('.parquet')] or 'DIR'}/), "
                "or leave out --dataset to write one run file"
            )
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
        check_run_file_out(a.out)  # before "use --force": --force would damage the dataset
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
    from .lab.statistics.stats import format_summary, turn_limit_warning
    from .run import RunDescription, parse_rule_args
    from .simulate import simulate

    _check_simulate_args(a)
    a.dataset_out = a.dataset or a.resume or _ds.wants_dataset(a.out)
    desc = RunDescription(
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
        log_deals=a.log_deals,
        processes=a.processes,
        cluster=a.cluster,
        scheduler=a.scheduler,
        dataset=a.dataset,
        resume=a.resume,
        matches=a.matches,
        side_c=a.side_c,
    )
    res = simulate(
        desc,
        progress=not a.no_progress,
        warn=_warn,
        on_written=_written(a),
        say_compile=True,  # one line, not a bar: said with --no-progress too
    )
    threads = f"{res['threads']} thread" + ("s" if res["threads"] != 1 else "")
    workers = res.get("workers") or {}
    if a.processes or a.cluster or a.scheduler:
        kind = ("process", "processes") if a.processes else ("Dask worker", "Dask workers")
        threads = f"{plural(len(workers), *kind)}, {plural(a.threads or 1, 'thread')} each"
    simulated = res.get("simulated", res["deals"])
    line = f"{_n_deals(simulated)} in {res['seconds']:.1f} s: {res['deals_per_s']:.0f} deals/s ({threads})"
    if res.get("resumed_chunks"):
        line = f"resumed: {_n_deals(res['deals'] - simulated)} were written before; " + line
    if simulated == 0:
        line = f"{res['path']} was complete: all {_n_deals(res['deals'])} were written before, none simulated"
    if a.matches is not None:
        line = (
            f"{simulated} match{'es' * (simulated != 1)} in {res['seconds']:.1f} s: "
            f"{res['matches_per_s']:.1f} matches/s, {res['deals_per_s']:.0f} deals/s ({threads})"
        )
        if res.get("resumed_chunks"):
            line = (
                f"resumed: {plural(a.matches - simulated, 'match', 'matches')} were written before; " + line
            )
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
                f"side {side['side']} ({side['text']}) answered {plural(n, 'time')} outside the legal choices; "
                "the engine played instead the first legal draw, stopped melding, or discarded the "
                "first legal card kind"
            )
    print(format_summary(res["summary"], title=_title(res["meta"])))
    if a.matches is not None:
        from .lab.statistics.matches import format_match_summary

        print(format_match_summary(res["match_summary"], side_labels(res["meta"]) or ("A", "B")))
    failed = res["diagnostics"].get("invariant_errors", 0)
    if a.check and not failed:
        print(_checks_passed(res["deals"], res["path"]))
    if failed:
        sys.stdout.flush()
        _fail(
            f"the engine's invariant checks failed {plural(failed, 'time')}; the run file was written but is suspect",
            1,
        )


def _checks_passed(deals: int, path: str) -> str:
    """The one line of a passing ``simulate --check``: what was checked, over how many deals."""
    which = "the 1 deal" if deals == 1 else f"all {deals} deals"
    return (
        f"--check: {which} passed the engine's invariant checks after every action (every card in "
        "exactly one place, every meld on the table legal, no first meld below the minimum, no "
        f"player left without a move while the stock had cards); to referee deals against the "
        f"rules independently: tranca-sim check {path}"
    )


_SOURCES = {
    "000": "'How to Play Tranca' (English)",
    "002": "'Reglas del Juego Tranca' (Spanish)",
    "003": "Tranca conventions of Sao Paulo (Portuguese)",
    "004": "Buraco rules (English)",
}


def _plain_source(text: str) -> str:
    """A preset's source as a reader knows it: the rule text's name and the passage, without the
    project's file names and decision numbers (``000_95ec....txt ...; VARIANTS Presets``)."""
    import re

    first = text.split(";")[0].strip()
    m = re.match(r"(\d{3})_[0-9a-f]+\.txt\s*(.*)", first)
    if not m:
        return first or "not recorded"
    return _SOURCES.get(m.group(1), "a rule text") + (f", {m.group(2)}" if m.group(2) else "")


def _cmd_presets(a) -> None:
    from .rules import PLANNED_PRESETS, PRESET_SOURCES, PRESETS, differences

    def text(v) -> str:
        return str(v).lower() if isinstance(v, bool) else str(v)

    for name, rules in PRESETS.items():
        print(f"{name}  (rules from: {_plain_source(PRESET_SOURCES.get(name, ''))})")
        print(f"    {rules.description}")
        diff = differences(rules)
        if name != "tranca":
            opts = " ".join(f"{k}={text(v)}" for k, v in diff) or "none"
            print(f"    as --rule options, where it differs from tranca: {opts}")
    if PLANNED_PRESETS:
        print(f"\nplanned (not played yet): {', '.join(PLANNED_PRESETS)}")
    print(
        "any option can be changed with --rule OPTION=VALUE; every rule, with the passage of the "
        "rules it comes from: docs/rules.md"
    )


def _cmd_strategies(a) -> None:
    from tranca_sim.strategies import StrategyError, list_strategies, params_of, strategy_params, user

    files = getattr(a, "files", None) or ()
    if files:  # check these files only: the built-in list is `tranca-sim strategies` alone
        for path in files:
            mod = user.check_file(path)  # StrategyError: one line, exit 2
            print(f"{path}: meets the strategy contract (docs/strategies.md); play it as --side-a {path}:{mod.NAME}")
            _print_strategies([(f"{path}:{mod.NAME}", f"{mod.DOC} (your file)", params_of(mod))])
        return
    listed = [(name, doc, strategy_params(name)) for name, doc, _, _ in list_strategies(installed=False)]
    builtin = {name for name, _, _ in listed}
    for name in sorted(set(user.entry_points()) - builtin):  # installed strategy packages
        try:
            mod, _ = user.load_entry_point(name, register=False)
            listed.append((name, f"{mod.DOC} (installed)", params_of(mod)))
        except StrategyError as e:
            listed.append((name, f"cannot be used: {e}", []))
    _print_strategies(listed)


def _print_strategies(listed) -> None:
    """Each strategy's first doc line and its parameters (default; allowed values)."""
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
        if name == "basic":
            from .lab.publish.tip_verdicts import tip_lines

            print("\n".join(tip_lines()))


def _fmt_num(v) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else repr(f)


def strategy_failure(e: BaseException) -> str | None:
    """The one line for an exception raised in a user's strategy file (numba's ``raise`` in a
    ``choose_*`` function: its traceback holds a frame of that file), or ``None`` when no frame
    of the traceback is in a user strategy file loaded in this process.  It names the file, the
    line and the function, and the exception with its message (46 lines of traceback through
    the kernel before)."""
    import traceback

    if isinstance(e, BrokenPipeError):
        return None
    try:
        from tranca_sim.strategies import user
    except ImportError:
        return None
    files = {os.path.realpath(src.file) for src in user.selection()}
    if not files:
        return None
    hit = None
    for fr in traceback.extract_tb(e.__traceback__):
        if fr.filename and os.path.realpath(fr.filename) in files:
            hit = fr  # the innermost such frame
    if hit is None:
        return None
    text = str(e).strip().splitlines()
    what = type(e).__name__ + (f": {text[0]}" if text else "")
    return (
        f"the strategy file {hit.filename} raised {what} (line {hit.lineno}, in {hit.name}); "
        "the run was stopped"
    )


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
        stays ignored).  Each prints one line saying what was kept, and
        nothing else (:mod:`tranca_sim.cli_signals`).  The kernels play on
        helper threads (:func:`tranca_sim.engine.kernel.off_main_thread`),
        so the signal is seen while they play; as the console script, once
        the command has unwound and the line is written, the process ends at
        once (``os._exit``) with that status: no finalizer or exit function
        of a library prints after the line, and a kernel thread that never
        returns (a user strategy's endless loop) is not waited for.  As the
        console script (``argv`` None), a signal that comes after the command
        finished, while the process shuts down (numba's, Dask's and the
        libraries' teardown take a second or so), prints the same line and
        exits with the same status, instead of ending the process silently.
    """
    state = {"args": None}
    stop = Stop()  # the handlers of SIGINT, SIGTERM and SIGHUP for the call (tranca_sim.cli_signals)
    finished = False
    status = 0
    stopped = 0  # the status of an interrupt or termination
    stdout = sys.stdout
    if stdout is not None:
        sys.stdout = _WatchedStdout(stdout)
    try:
        stop.install()
        status = _main(argv, state)
        _flush_stdout()
        finished = True
        return status
    except KeyboardInterrupt:
        stopped = 130
        _fail(_stopped("interrupted", state), stopped)
    except Terminated as t:
        stopped = 128 + t.signum
        _fail(_stopped("terminated", state), stopped)
    except Exception as e:
        if not stop.signum and _stdout_failed(e):
            _fail(f"cannot write to standard output: {_why(e, _console(argv))}")
        if not stop.signum:
            raise
        # the signal's exception turned into another error on its way (a library's C code): the
        # command was stopped all the same
        stopped = 128 + stop.signum
        _fail(_stopped("interrupted" if stop.signum == signal.SIGINT else "terminated", state), stopped)
    finally:
        if isinstance(sys.stdout, _WatchedStdout):
            sys.stdout = stdout
        if stopped and _console(argv):
            # the command has unwound (temporary files removed, a dataset left resumable, locks
            # released) and the line is written: nothing else may print, nothing need wait
            exit_stopped(stopped)
        stop.restore()
        if finished and stop.previous and _console(argv):  # the process exits next
            for sig in stop.previous:
                signal.signal(sig, late_stop(state))
            exit_finished(status)


def _flush_stdout() -> None:
    """The command's printed output reaches its file now, inside the command: a full disk is then
    the command's one line (exit 2), not an error lost at the exit.  A pipe whose reader has gone
    (``| head -3``) is no error: the reader took what it wanted, and the rest is dropped."""
    if sys.stdout is None:
        return
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _drop_stdout()


def _drop_stdout() -> None:
    """Standard output's reader has gone: what is still to be written there goes nowhere."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)


def _stdout_failed(e: BaseException) -> bool:
    """Whether ``e`` came from writing standard output: it is closed (``>&-``: Python sets
    ``sys.stdout`` to None) or it cannot take what is pending (a full disk, a closed pipe)."""
    if sys.stdout is None:
        return isinstance(e, AttributeError)
    return isinstance(e, OSError) and getattr(sys.stdout, "failed", False)


class _WatchedStdout:
    """``sys.stdout`` for one command, noting whether a write to it failed (a full disk, a closed
    pipe): the error that reaches :func:`main` is then said as standard output's, not as a fault."""

    def __init__(self, stream):
        self._stream = stream
        self.failed = False

    def write(self, text):
        try:
            return self._stream.write(text)
        except OSError:
            self.failed = True
            raise

    def flush(self):
        try:
            return self._stream.flush()
        except OSError:
            self.failed = True
            raise

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _why(e: BaseException, console: bool) -> str:
    """What went wrong with standard output, in words; as the console script, what is still
    pending there is dropped (the exit's own flush would fail again and print a traceback)."""
    if sys.stdout is None:
        return "it is closed"
    if console:
        _drop_stdout()
    return os.strerror(e.errno) if getattr(e, "errno", None) else str(e)


def _resume_hint(args, e: Exception) -> str:
    """For a dataset run stopped by a failed write (a full disk): what is kept and how to finish,
    as the interrupt's line says (cli_common._stopped); empty otherwise."""
    from .dataset import MANIFEST

    out = getattr(args, "out", None)
    if (
        args.command != "simulate"
        or not getattr(args, "dataset_out", False)
        or getattr(args, "written", None)
        or not str(e).startswith("cannot write")
        or not os.path.isfile(os.path.join(out, MANIFEST))
    ):
        return ""
    return (
        f"; the chunks written so far are kept in {out}: make room and run the same command with "
        "--resume to finish it"
    )


def _main(argv, state: dict) -> int:
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)  # before the heavier imports: --version and typos are quick
    if extra:  # the command's own help lists its flags; a shortened one is never taken (issue 23)
        _fail(unknown_arguments(parser, getattr(args, "command", None), extra))
    state["args"] = args

    from .io import OutputExistsError

    errors = _user_errors()
    import warnings

    shown = warnings.showwarning

    warned: set[str] = set()

    def show(message, category, filename, lineno, file=None, line=None):
        if category.__name__ in ("TunedFallbackWarning", "InertParameterWarning", "IdleVariantWarning"):  # one readable line
            if str(message) not in warned:  # a file read twice (checked, then run) warns once
                warned.add(str(message))
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
        "atlas": _cmd_atlas,
        "presets": _cmd_presets,
        "strategies": _cmd_strategies,
        **ANALYSE_COMMANDS,  # position, analyse, review (tranca_sim/cli_analyse.py)
    }[args.command]
    try:
        with contextlib.ExitStack() as locks:  # the outputs' locks (cli_common._lock_out), held to the end
            args.locks = locks
            command(args)
    except OutputExistsError as e:
        _fail(_exists_message(e))
    except errors as e:
        _fail(str(e) + _resume_hint(args, e))
    except BrokenPipeError:  # e.g. `tranca-sim strategies | head -1`
        _drop_stdout()
    except Exception as e:
        said = strategy_failure(e)
        if said is None:
            raise
        _fail(said)
    finally:
        warnings.showwarning = shown
    return 0


if __name__ == "__main__":
    sys.exit(main())
