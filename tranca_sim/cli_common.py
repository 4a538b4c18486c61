"""What every ``tranca-sim`` command shares: the one-line user errors (``_fail``, ``_flag``),
the exception types that are a user's mistake, and the checks of common options."""

from __future__ import annotations

import contextlib
import os
import sys

PROG = "tranca-sim"

#: most deals of one run (same as :data:`tranca_sim.run.MAX_DEALS`, kept here so
#: parsing arguments imports nothing)
MAX_DEALS = 10**12

#: most deals (or matches) of one chunk of ``simulate --chunk-size``: a chunk's outputs are held
#: in memory before they are written (same as :data:`tranca_sim.run.MAX_CHUNK`)
MAX_CHUNK = 10**7


class Terminated(BaseException):
    """Raised by the SIGTERM/SIGHUP handler of :func:`main` (:class:`tranca_sim.cli_signals.Stop`),
    so a run unwinds (and removes its temporary file) like on Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def _fail(message: str, status: int = 2):
    # one write (not print's two): a signal cannot come between the line and its newline
    sys.stderr.write(f"{PROG}: error: {message}\n")
    sys.stderr.flush()
    raise SystemExit(status)


def _warn(message: str) -> None:
    sys.stderr.write(f"{PROG}: warning: {message}\n")  # one write, as _fail
    sys.stderr.flush()


def _user_errors() -> tuple[type[BaseException], ...]:
    """The exception types that are a user's mistake (one line, exit 2), not a bug."""
    from .io import RunFileError
    from .lab.experiments.spec import SpecError
    from .lab.ladder.ladder import LadderError
    from .lab.output_dir import ExperimentError
    from .lab.tuning.tune import TuneError
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
        from tranca_sim.strategies import StrategyError

        errors += (StrategyError,)
    except ImportError:
        pass
    return errors


def _lock_out(a, out, make_dirs: bool = False) -> None:
    """Hold the lock of output ``out`` for the rest of the command (:mod:`tranca_sim.outlock`),
    before the output is checked: a second run on an output another live run writes is refused
    with one line naming that run, whatever else its arguments say. ``make_dirs``: the output's
    missing directories are created first (experiment, tune, ladder: their runs create them); an
    output in a directory that accepts no new file is refused with one line."""
    from . import stop_request
    from .outlock import OutputBusyError, OutputDirError, output_lock

    try:
        with stop_request.put_off():  # taken and handed to the command's stack in one step
            a.locks.enter_context(output_lock(out, make_dirs))
    except OutputBusyError as e:
        _fail(f"--out {e}")
    except OutputDirError as e:
        _fail(f"--out: {e}")


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


def _refuse_unbound(preset: str, raw: dict, mode: str) -> None:
    """One line (exit 2) for a ``--rule`` (checked by :func:`_check_rules`) that cannot bind in this
    kind of run (``deals``, ``matches``, ``tune``; :mod:`tranca_sim.rule_binding`)."""
    from .rule_binding import unbound_options
    from .rules import get_preset
    from .run import coerce_rule_options

    base = get_preset(preset)
    for key, why in unbound_options(base, coerce_rule_options(base, raw), mode)[:1]:
        _fail(f"--rule {key}={raw[key]}: {why}")


def _say_if_compiling(meta: dict | None, more: tuple[str, ...] = ()) -> None:
    """Before the first replayed deal: say so on stderr when the deal player is not compiled yet,
    in one line with ``more`` (the other parts the command compiles and that are not cached:
    ``("the analyser",)``).

    A run played with a user's strategy file loads that file first (checked unchanged;
    StrategyError otherwise): the engine of this process must be built with it."""
    from tranca_sim.strategies import from_record, prepare_engine

    from .run import engine_cached

    prepare_engine((meta or {}).get("strategies"))  # the search player: compiled in on demand
    for entry in (meta or {}).get("strategies") or ():
        if isinstance(entry, dict) and entry.get("file"):
            from_record(entry)
    _say_compiling((() if engine_cached("_play_stacked_nb") else ("the deal player",)) + tuple(more))


def _say_compiling(parts) -> None:
    """``compiling the deal player and the analyser (once, ...) ...`` on stderr, in one write (as
    _fail: an interrupt cannot leave the line without its newline); nothing when ``parts`` is empty."""
    from .run import COMPILE_TIME

    if parts:
        sys.stderr.write(f"compiling {' and '.join(parts)} (once, {COMPILE_TIME}) ...\n")
        sys.stderr.flush()


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


def _check_processes(processes: int | None, cluster: int | None = None) -> None:
    """``--processes N`` and ``--cluster local:N`` against the cores of this machine (more worker
    processes than cores only compete): the same cap, the same message."""
    from .parallel import max_local_workers

    most = max_local_workers()
    if processes is not None and processes > most:
        _fail(f"--processes must be between 1 and {most} (the cores of this machine), got {processes}")
    if cluster is not None and cluster > most:
        _fail(
            f"--cluster local:N must be between 1 and {most} (the cores of this machine), got local:{cluster}"
        )


# ---- signals: what an interrupted or terminated command says (handled in cli_signals) -------
def _console(argv) -> bool:
    """Whether :func:`main` runs as the program itself (the ``tranca-sim`` script or ``python -m
    tranca_sim.cli``), not called from Python: only then may it end the process."""
    return argv is None and os.path.basename(sys.argv[0] or "") in ("tranca-sim", "cli.py")


def _stopped(what: str, state: dict) -> str:
    args = state["args"]
    if args is not None and args.command in ("experiment", "tune", "ladder"):
        if getattr(args, "written", None):
            return f"{what} after writing {args.written}"
        return f"{what}; {args.out} was not written (an existing one is left as it was)"
    if args is not None and args.command == "atlas" and not getattr(args, "written", None):
        cache = args.cache or os.path.join(args.out, ".cache")
        return (
            f"{what}; the experiments finished so far are kept in {cache}: the same command reuses "
            f"them and writes the guide in {args.out} (each page or chart there is whole, old or new)"
        )
    if args is not None and args.command == "report":
        return _report_stopped(what, args)
    if args is not None and getattr(args, "kept", None):  # analyse, review: what they printed
        return f"{what}; {args.kept}"
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


def report_stamp(run_dir) -> tuple[int, int] | None:
    """``RUN_DIR/report.md``'s modification time and size, None when there is none: an
    interrupted ``report`` compares it to say whether the report was rewritten."""
    try:
        st = os.stat(os.path.join(run_dir, "report.md"))
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _report_stopped(what: str, args) -> str:
    """What an interrupted ``report RUN_DIR`` kept: each file is written whole under a temporary
    name and renamed, the charts first and report.md last."""
    path = os.path.join(args.run_dir, "report.md")
    before = getattr(args, "report_before", None)
    now = report_stamp(args.run_dir)
    if now is not None and now != before:
        return f"{what} after writing {path}"
    charts = f"each chart in {args.run_dir} is whole, the earlier one or the new one"
    if before is None:
        return f"{what}; no report.md was written ({charts})"
    return f"{what}; {path} was not rewritten: the earlier report is left as it was ({charts})"


def diagnostics_warning(path, meta: dict) -> str:
    """One sentence when the run at ``path`` recorded failed invariant checks (``--check``) or
    answers of a strategy outside the legal choices (:func:`tranca_sim.io.run_diagnostics`: the
    run file's metadata, a dataset's manifest); empty when it recorded none or nothing."""
    from ._plural import plural
    from .io import run_diagnostics

    record = meta
    if os.path.isdir(path):
        from .dataset import read_manifest

        record = {"chunks": read_manifest(path).get("chunks")}
    got = run_diagnostics(record)
    if got is None:
        return ""
    errors, illegal = got
    parts = [f"the engine's invariant checks failed {plural(errors, 'time')}"] if errors else []
    sides = meta.get("strategies") if isinstance(meta.get("strategies"), list) else []
    for i, n in enumerate(illegal):
        if n:
            who = sides[i].get("label") if i < len(sides) and isinstance(sides[i], dict) else None
            parts.append(f"side {chr(65 + i)}{f' ({who})' if who else ''} answered {plural(n, 'time')} "
                         "outside the legal choices (the engine overruled it)")  # fmt: skip
    if not parts:
        return ""
    return "the run recorded that " + "; ".join(parts) + ": its figures are suspect"
