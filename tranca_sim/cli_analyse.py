"""The position commands of ``tranca-sim``: ``position`` (write or check a position in the
notation of docs/reference/position-notation.md), ``analyse`` (rank every legal choice of a
position) and ``review`` (each decision of a seat in a logged deal against the analyser's best).

Registered by :func:`add_parsers` (called from :mod:`tranca_sim.cli_parser`) and dispatched
through :data:`COMMANDS` (from :mod:`tranca_sim.cli`).  Parsing imports nothing heavy.
"""

from __future__ import annotations

import argparse
import sys

from ._plural import plural
from .cli_common import PROG, _fail, _say_compiling, _say_if_compiling


def _nonneg(text: str) -> int:
    t = text.strip()
    if not t.isdigit():
        raise argparse.ArgumentTypeError(f"takes a whole number 0 or more, got {text!r}")
    return int(t)


def _positive(text: str) -> int:
    v = _nonneg(text)
    if v < 1 or v > 64:
        raise argparse.ArgumentTypeError(f"must be 1 to 64, got {v}")
    return v


def _worlds(text: str) -> int:
    v = _nonneg(text)
    if v < 2:
        raise argparse.ArgumentTypeError(f"must be at least 2 (an interval needs two worlds), got {v}")
    return v


def _seconds(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"takes a number of seconds, got {text!r}") from None
    if not 0 < v <= 86400:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 86400 seconds, got {text}")
    return v


def add_parsers(sub) -> None:
    """The ``position``, ``analyse`` and ``review`` subcommands."""
    p = sub.add_parser(
        "position",
        help="write the position of a logged deal at a turn in the position notation, or check a typed one",
    )
    p.add_argument(
        "path",
        help="a Parquet run file or dataset directory (with --deal and --turn), or a position file to check "
        "('-' reads standard input)",
    )
    p.add_argument("--deal", type=_nonneg, default=None, help="deal index in the run (a match run: with --match)")
    p.add_argument("--match", type=_nonneg, default=None, help="match index, for a match run")
    p.add_argument("--turn", type=_nonneg, default=None, help="turn number (0 = the deal's first turn)")
    p.add_argument(
        "--seat",
        type=_nonneg,
        default=None,
        help="the seat whose decision it is: its first turn from --turn on (default: the seat to move at --turn)",
    )
    p.add_argument(
        "--phase",
        choices=("draw", "meld", "discard"),
        default=None,
        help="with --deal: the decision in the turn: draw (default), meld (after the draw), discard",
    )
    add_more_parsers(sub)


def _analyse_flags(p, time_help: str) -> None:
    p.add_argument("--time", type=_seconds, default=None, metavar="S", help=time_help)
    p.add_argument(
        "--policy",
        choices=("basic", "tuned"),
        default=None,
        help="the rollout policy that plays every seat after the choice (default tuned where the preset has "
        "its parameter file, strategies/tuned/PRESET.toml; basic elsewhere)",
    )
    p.add_argument("--seed", type=_nonneg, default=0, help="seed of the sampled worlds (default 0)")
    p.add_argument("--max-worlds", type=_worlds, default=100_000, help="most worlds a decision (default 100000)")
    p.add_argument("--threads", type=_positive, default=2, help="threads playing the worlds (default 2)")
    p.add_argument("--no-progress", action="store_true", help="no progress line on the terminal")


def add_more_parsers(sub) -> None:
    a = sub.add_parser(
        "analyse",
        help="rank every legal choice of a position by expected points and chance of winning the deal",
    )
    a.add_argument("position", help="a position file (docs/reference/position-notation.md); '-' reads standard input")
    _analyse_flags(a, "stop after about S seconds if the best choice is not separated sooner (default 5)")
    r = sub.add_parser(
        "review",
        help="each decision of a seat in a logged deal against the analyser's best: the points it lost",
    )
    r.add_argument("path", help="a Parquet run file or dataset directory")
    r.add_argument("--deal", type=_nonneg, required=True, help="deal index in the run (a match run: with --match)")
    r.add_argument("--match", type=_nonneg, default=None, help="match index, for a match run")
    r.add_argument("--seat", type=_nonneg, default=0, help="the seat reviewed (default 0)")
    r.add_argument(
        "--phases",
        default="draw,meld,discard",
        help="the decisions reviewed, a comma list of draw, meld, discard (default all three)",
    )
    _analyse_flags(r, "at most about S seconds a decision (default 1)")


def _progress(args):
    if args.no_progress or not sys.stderr.isatty():
        return None

    from .analyse import points_text

    def show(n, secs, words, points):
        sys.stderr.write(f"\r{n} worlds, {secs:.1f} s: best so far {words} ({points_text(points, True)})\x1b[K")
        sys.stderr.flush()

    return show


def _end_progress(args) -> None:
    if _progress(args) is not None:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def _analyser_parts() -> tuple[str, ...]:
    """``("the analyser",)`` when its kernel is not compiled yet, else nothing."""
    from .analyse import analyser_cached

    return () if analyser_cached() else ("the analyser",)


def _cmd_analyse(args) -> None:
    from .analyse import AnalyseError, analyse, check_position, format_analysis

    pos = _read_position_file(args.position)
    try:
        check_position(pos)  # before the compile is said
    except AnalyseError as e:
        _fail(str(e))
    _say_compiling(_analyser_parts())  # one line, not a bar: said with --no-progress too
    try:
        a = analyse(pos, seconds=args.time or 5.0, max_worlds=args.max_worlds, policy=args.policy,
                    key=args.seed, progress=_progress(args), threads=args.threads)
    except AnalyseError as e:
        _fail(str(e))
    except BaseException as e:  # Ctrl-C, a termination: the ranking so far is printed, then its one line
        partial = _partial(args, e)
        if partial is not None:
            sys.stdout.write(format_analysis(partial))
            args.kept = f"the ranking of the {plural(partial.worlds, 'world', fmt=',')} played is printed, marked interrupted"
        raise
    finally:
        _end_progress(args)
    sys.stdout.write(format_analysis(a))


def _cmd_review(args) -> None:
    from .analyse import AnalyseError
    from .review import format_review, review

    phases = [x.strip() for x in args.phases.split(",") if x.strip()]
    bad = [x for x in phases if x not in ("draw", "meld", "discard")]
    if bad or not phases:
        _fail(f"--phases takes a comma list of draw, meld, discard, got {args.phases!r}")
    log = _logged_deal(args, analyser=True)
    n_seats = int((log.get("rules") or {}).get("n_seats", 4))
    if args.seat >= n_seats:
        _fail(f"--seat must be 0..{n_seats - 1} at this table, got {args.seat}")
    try:
        rv = review(log, args.seat, seconds=args.time or 1.0, max_worlds=args.max_worlds,
                    policy=args.policy, key=args.seed, phases=phases, progress=_progress(args),
                    threads=args.threads)
    except AnalyseError as e:
        _fail(str(e))
    except BaseException as e:  # Ctrl-C, a termination: the decisions finished are printed, then its one line
        partial = _partial(args, e)
        if partial is not None:
            sys.stdout.write(format_review(partial, f"deal {args.deal} of {args.path}"))
            n = len(partial.rows)
            args.kept = f"the {plural(n, 'decision')} reviewed before it {'are' if n != 1 else 'is'} printed"
        raise
    finally:
        _end_progress(args)
    sys.stdout.write(format_review(rv, f"deal {args.deal} of {args.path}"))


def _partial(args, e: BaseException):
    """What an interrupted analysis or review kept (``e.partial``), the progress line cleared
    first; None for an error (an ``Exception``) or when nothing was finished."""
    if isinstance(e, Exception):
        return None
    _end_progress(args)
    return getattr(e, "partial", None)


def _read_position_file(path: str):
    """The position in file ``path`` ('-': standard input), validated; every mistake on its own
    line, then exit 2."""
    from .position import PositionError
    from .position_state import read_position

    try:
        text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as e:
        _fail(f"cannot read the position {path}: {getattr(e, 'strerror', None) or e}")
    try:
        return read_position(text)
    except PositionError as e:
        for line in e.problems[:-1]:
            sys.stderr.write(f"{PROG}: error: {path}: {line}\n")
        _fail(f"{path}: {e.problems[-1]}")


def _run_meta(path) -> dict | None:
    """The run file's metadata, None where it cannot be read (the regeneration then says why)."""
    from .io import load_meta

    try:
        return load_meta(path) or {}
    except Exception:
        return None


def _logged_deal(args, analyser: bool = False) -> dict:
    """The deal ``args.deal`` of the run ``args.path``, played again; before it, the compile of
    the deal player (and of the analyser, with ``analyser``, whose rule set is checked first) is
    said in one line when they are not in numba's cache."""
    from .replay import match_facts, regenerate

    deal = args.deal
    match = None
    meta = _run_meta(args.path)
    if meta is not None and (meta.get("matches") or args.match is not None):
        from .cli_runs import _match_deal

        if not meta.get("matches"):
            _fail(f"--match {args.match}: {args.path} is not a match run (simulate --matches); give --deal I alone")
        deal = _match_deal(args, meta)  # both indices checked against the run, as replay does
        match = match_facts(args.path, deal)
    if meta:  # else the regeneration says why it cannot read the run
        if analyser:
            _check_run_rules(meta)
        _say_if_compiling(meta, _analyser_parts() if analyser else ())
    try:
        return regenerate(args.path, deal, match=match)
    except ValueError as e:
        _fail(str(e))


def _check_run_rules(meta: dict) -> None:
    """The run's rule set, refused in one line (before anything is compiled) where the analyser
    cannot model it; a rule set that cannot be read is left to the regeneration to say."""
    import dataclasses

    from .analyse import AnalyseError, check_rules_supported
    from .rules import Rules

    try:
        names = {f.name for f in dataclasses.fields(Rules)}
        rules = Rules(**{k: v for k, v in (meta.get("rules") or {}).items() if k in names}).validate()
    except Exception:  # noqa: BLE001 - regenerate says what is wrong with the run's metadata
        return
    try:
        check_rules_supported(rules)
    except AnalyseError as e:
        _fail(str(e))


def _cmd_position(args) -> None:
    from .position import format_position

    if args.deal is None:
        given = [f"--{k}" for k in ("turn", "seat", "match", "phase") if getattr(args, k) is not None]
        if given:
            _fail(f"{', '.join(given)} need{'s' * (len(given) == 1)} --deal (a run's deal): without --deal, "
                  f"{args.path} is a position file to check, whose 'to move' line gives the seat and the phase")
        pos = _read_position_file(args.path)
        sys.stdout.write(format_position(pos))
        return
    if args.turn is None:
        _fail("position RUN --deal I needs --turn T (the turn to write)")
    log = _logged_deal(args)
    from .position_log import position_at

    n_seats = int((log.get("rules") or {}).get("n_seats", 4))
    if args.seat is not None and args.seat >= n_seats:
        _fail(f"--seat must be 0..{n_seats - 1} at this table, got {args.seat}")
    try:
        pos = position_at(log, args.turn, args.phase or "draw", args.seat)
    except ValueError as e:
        _fail(f"deal {args.deal}: {e}")
    sys.stdout.write(format_position(pos))


#: the commands of this module, by name (merged into tranca_sim.cli's dispatch)
COMMANDS = {"position": _cmd_position, "analyse": _cmd_analyse, "review": _cmd_review}
