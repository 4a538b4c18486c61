"""The ``tranca-sim`` argument parser: every command's flags, their help and their value checks."""

from __future__ import annotations

import argparse
import re
import sys

from .cli_analyse import add_parsers as add_analyse_parsers
from .cli_atlas import add_parser as add_atlas_parser
from .cli_common import MAX_CHUNK, MAX_DEALS, PROG, _fail


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (no usage dump) and no shortened flags: argparse's
    ``allow_abbrev`` would take ``--log x`` as ``--log-deals x`` without a word (issue 23), so
    every parser, the subcommands' too (``parser_class``), leaves a prefix unknown, and the
    unknown argument is refused by :func:`tranca_sim.cli._main`."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def parse_known_args(self, args=None, namespace=None):
        self._words = list(sys.argv[1:] if args is None else args)  # for error(): a flag it did not know
        return super().parse_known_args(args, namespace)

    def error(self, message):
        if message.startswith("the following arguments are required"):  # '--ou d' left --out missing
            unknown = [w for w in getattr(self, "_words", ()) if w.startswith("--") and len(w) > 2
                       and w.split("=", 1)[0] not in self._option_string_actions]
            if unknown:
                _fail(_unknown_line(self.prog, self._option_string_actions, unknown))
        # "argument --deals: must be ..." -> "--deals must be ..." for the value checks below
        message = re.sub(r"^argument (-[-\w]+|[a-z]\w*): (must|takes) ", r"\1 \2 ", message)
        # a check whose message names its flag itself ("--cluster local:N takes ..."): said once
        message = re.sub(r"^argument (-[-\w]+): \1 ", r"\1 ", message)
        hint = f" (see '{self.prog} --help')"
        _fail(message + hint)


def unknown_arguments(parser: argparse.ArgumentParser, command: str | None, extra: list[str]) -> str:
    """The one line refusing the arguments ``extra`` that ``command``'s parser (of ``parser``,
    :func:`build_parser`) did not know, pointing to that command's own help; a shortened flag
    (``--log`` for ``--log-deals``) is told the flags it begins, since a prefix is never taken."""
    where, known = PROG, parser._option_string_actions
    if command:
        where = f"{PROG} {command}"
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction) and command in action.choices:
                known = action.choices[command]._option_string_actions
    return _unknown_line(where, known, extra)


def _unknown_line(where: str, known, extra: list[str]) -> str:
    begun = []
    for word in extra:
        flag = word.split("=", 1)[0]
        if flag.startswith("--") and len(flag) > 2:
            begun += sorted(o for o in known if o.startswith(flag) and o != flag and o not in begun)
    full = f"flags are given in full, e.g. {' or '.join(begun[:3])}; " if begun else ""
    return f"unrecognized arguments: {' '.join(extra)} ({full}see '{where} --help')"


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
_two_or_more = _bounded(2, None, "at least 2")  # a ladder's decks: a bootstrap over decks needs two
_seed = _bounded(0, 2**63 - 1, "between 0 and 2**63 - 1")
# a chunk's outputs are held in memory before they are written: 10**12 asked numpy for 218 TiB
_chunk_size = _bounded(1, MAX_CHUNK, f"between 1 and {MAX_CHUNK} (a chunk is held in memory)")


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
        raise argparse.ArgumentTypeError(str(e)) from None  # it begins "--cluster ...", as error() keeps it


def _scheduler(text: str) -> str:
    from .parallel import parse_scheduler

    try:
        return parse_scheduler(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None  # it begins "--scheduler ...", as error() keeps it


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
        help=f"run {what} on a Dask LocalCluster of N workers (default 2; at most the cores of this machine) "
        "started for the run",
    )
    where.add_argument(
        "--scheduler",
        type=_scheduler,
        default=None,
        metavar="ADDRESS",
        help=f"run {what} on the existing Dask cluster of this scheduler, e.g. tcp://host:8786",
    )


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for docs and tests)."""
    from . import __version__

    p = _Parser(
        prog=PROG,
        description="Monte Carlo strategy lab for the Brazilian rummies Tranca and Buraco "
        "(their rule presets: 'tranca-sim presets').",
    )
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
        type=_chunk_size,
        default=50_000,
        help=f"deals per chunk (Parquet row group, held in memory), at most {MAX_CHUNK}; default 50000",
    )
    s.add_argument(
        "--rule",
        action="append",
        default=[],
        metavar="OPTION=VALUE",
        help="change a rule of the preset, e.g. --rule max_wilds=1 (repeatable; see docs/rules.md)",
    )
    s.add_argument("--check", action="store_true", help="run the engine's invariant checks after every action (slower); says in one line what passed")
    s.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (a first run's one 'compiling ...' line is still said)",
    )
    s.add_argument(
        "--log-deals",
        default=None,
        metavar="K|I,J,...|sample:K",
        help="log every action of the first K deals, of the listed deals, or of K sampled deals "
        "(K at least 1) to a deal-log file: beside a run file (run.parquet -> run.log.jsonl), "
        "inside a dataset directory (DIR/deals.log.jsonl) (docs/log-format.md); --force replaces "
        "the run and its log, and without --log-deals it removes an older run's log there",
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
        default=None,  # 200; None tells the default from a --sample given (warned about when capped)
        help="deals of a run to check (at most the run's deals; a larger N checks every deal, "
        "with a warning); default 200",
    )
    c.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (a first run's one 'compiling ...' line is still said)",
    )

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
    e.add_argument("--force", action="store_true", help="replace an earlier output of this command")
    e.add_argument(
        "--threads",
        type=_positive_int,
        default=None,
        help="numba threads; default all cores (with --processes, --cluster or --scheduler: per worker, "
        "default 1)",
    )
    _where_args(e, "the runs' batches")
    e.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (a first run's one 'compiling ...' line is still said)",
    )
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
    tu.add_argument("--force", action="store_true", help="replace an earlier output of this command")
    tu.add_argument("--threads", type=_positive_int, default=None, help="numba threads; default all cores")
    tu.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (a first run's one 'compiling ...' line is still said)",
    )

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
        "--decks", type=_two_or_more, default=20_000, help="decks a pair (each played twice); default 20000"
    )
    la.add_argument(
        "--search-decks",
        type=_two_or_more,
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
    la.add_argument("--force", action="store_true", help="replace an earlier output of this command")
    la.add_argument("--threads", type=_positive_int, default=None, help="numba threads; default all cores")
    la.add_argument(
        "--no-progress",
        action="store_true",
        help="no progress bar (a first run's one 'compiling ...' line is still said)",
    )

    add_analyse_parsers(sub)  # position, analyse, review (tranca_sim/cli_analyse.py)
    add_atlas_parser(sub)  # the Tip Atlas (tranca_sim/cli_atlas.py)
    sub.add_parser("presets", help="list the rule presets")
    st = sub.add_parser(
        "strategies", help="list the strategies and their parameters (and check your own strategy files)"
    )
    st.add_argument(
        "files",
        nargs="*",
        metavar="FILE.py",
        help="check these strategy files against the contract and list only them, with their parameters (docs/strategies.md)",
    )
    return p
