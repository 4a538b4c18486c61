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

from ._plural import plural
from .cli_common import (
    _SIGNALS,
    Terminated,
    _check_processes,
    _check_rules,
    _check_threads,
    _console,
    _exists_message,
    _exit_at_once,
    _exit_now,
    _fail,
    _flag,
    _kernel_running,
    _late_stop,
    _lock_out,
    _n_deals,
    _say_if_compiling,
    _stopped,
    _terminate,
    _user_errors,
    _warn,
    diagnostics_warning,
)
from .cli_lab import _cmd_experiment, _cmd_ladder, _cmd_report, _cmd_tune, _written
from .cli_parser import build_parser


def _check_simulate_args(a) -> None:
    """Every option of ``simulate`` checked before the engine is loaded, each error naming its flag."""
    from strategies import check_rules, resolve

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
        from .lab.matches import format_match_summary

        print(format_match_summary(res["match_summary"], side_labels(res["meta"]) or ("A", "B")))
    failed = res["diagnostics"].get("invariant_errors", 0)
    if failed:
        sys.stdout.flush()
        _fail(
            f"the engine's invariant checks failed {plural(failed, 'time')}; the run file was written but is suspect",
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
    from .io import load_meta, load_run, verify_deals
    from .lab.stats import SUMMARY_COLUMNS, format_summary, summarize, turn_limit_warning

    meta = load_meta(a.path)
    verify_deals(a.path, meta)  # the same check as check and replay
    df = load_run(a.path, columns=list(SUMMARY_COLUMNS))
    summary = summarize(df, labels=side_labels(meta))
    warning = turn_limit_warning(summary)
    if warning:
        _warn(f"{a.path}: {warning}")
    suspect = diagnostics_warning(a.path, meta)
    if suspect:
        _warn(f"{a.path}: {suspect}")
    print(format_summary(summary, title=_title(meta)))
    if meta.get("matches"):
        from .lab.matches import MATCH_SUMMARY_COLUMNS, MatchSummary, format_match_summary

        acc = MatchSummary(n_sides=len(meta.get("strategies") or ()) or 2)
        acc.update(load_run(a.path, backend="pandas", columns=list(MATCH_SUMMARY_COLUMNS)))
        print(format_match_summary(acc.result(), side_labels(meta) or ("A", "B")))


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


def _prepare_engine(meta) -> None:
    """Before the engine is imported: the run's strategies decide whether it has the search
    player (strategies/user.py; a match run's facts are read through the engine's match module)."""
    from strategies import prepare_engine

    prepare_engine((meta or {}).get("strategies"))


def _cmd_replay(a) -> None:
    from .io import atomic_output, check_output_path, verify_deals, verify_run, writing

    _readable_file(a.path)
    if a.turn is not None and not a.html:
        _fail("--turn chooses the turn drawn by --html; give --html OUT.html too")
    meta = verify_run(a.path) or {}  # the same check as summarize and check
    verify_deals(a.path, meta)
    deals = meta.get("deals")
    deal = a.deal
    _prepare_engine(meta)
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
    if page is not None:  # written before the text: a closed stdout (`| head -3`) must not lose it
        with _flag("--html"), atomic_output(a.html, a.force) as tmp, writing(a.html):
            tmp.write_text(page, encoding="utf-8")
    print(format_deal(log))
    if page is not None:
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


#: deals `check` referees without --sample
DEFAULT_SAMPLE = 200

#: how referee.logfile names a line that is not JSON text (a cut or damaged log file)
_UNREADABLE_LINE = ("truncated file", "invalid JSON", "not UTF-8")


#: how every deal log line begins (docs/log-format.md), without its spaces
_LOG_OPENING = b'{"format":"tranca-sim-log/'


def _log_cut_in_first_line(path) -> bool:
    """Whether ``path`` is a deal log cut inside its first line: one line, no newline at its end,
    and what it holds is how a deal log begins (``{"format": "tranca-sim-log/...``), however
    short. Such a file is a truncated log, not some other file."""
    try:
        with open(path, "rb") as f:
            data = f.read(1 << 20)
    except OSError:
        return False
    data = data.removeprefix(b"\xef\xbb\xbf")
    if b"\n" in data.rstrip(b"\r\n\t ") or data.endswith(b"\n") or not data.strip():
        return False
    head = b"".join(data[:200].split())  # spaces between JSON tokens do not matter
    n = min(len(head), len(_LOG_OPENING))
    return head[:n] == _LOG_OPENING[:n]


def _cmd_check(a) -> None:
    from . import referee
    from .check import check_run, log_turn_limits

    _readable_file(a.path)
    if str(a.path).endswith(".jsonl"):
        try:
            verdicts = list(referee.check_file(a.path))
        except OSError as e:
            _fail(f"cannot read {str(a.path)!r}: {os.strerror(e.errno) if e.errno else e}")
        broken = [v for v in verdicts if v.code == "format" and str(v.reason).startswith(_UNREADABLE_LINE)]
        if verdicts and all(v.code == "format" for v in verdicts) and not _log_cut_in_first_line(a.path):
            _fail(f"{str(a.path)!r} is not a deal log file (docs/log-format.md): {verdicts[0]}")
        if broken:  # a line that is no JSON at all (a cut or damaged file), not a deal the referee judged
            v = broken[0]  # its line and what is wrong with it, without the verdict's "log: format:"
            _fail(f"{str(a.path)!r} is a damaged deal log file: line {v.line}: {v.reason}")
        source = a.path
        limited = log_turn_limits(a.path)
        where = "of the log file"
    else:
        from .io import verify_deals, verify_run

        meta = verify_run(a.path)  # a damaged file is refused before anything is said
        verify_deals(a.path, meta)  # the same check as summarize and replay
        _prepare_engine(meta)
        _say_if_compiling(meta)  # one line, not a bar: said with --no-progress too
        given = a.sample is not None  # only a --sample the user gave is warned about when capped
        sample = a.sample if given else DEFAULT_SAMPLE
        verdicts, source, limited = check_run(
            a.path, sample, not a.no_progress, warn=_warn if given else None
        )
        where = "of the run"
    agreed, total, bad = referee.summary(verdicts)
    if total == 0:
        _fail(f"{a.path} holds no deals to check")
    for v in bad[:10]:
        print(f"DISAGREE {v}")
    if len(bad) > 10:
        print(f"... and {len(bad) - 10} more disagreements")
    print(f"{agreed} of {plural(total, 'deal')} agreed with the referee ({source})")
    if limited:
        n = len(limited)
        shown = ", ".join(str(i) for i in limited[:10]) + (", ..." if n > 10 else "")
        print(
            f"TURN LIMIT: {n} deal{'s' * (n != 1)} {where} ended at the turn limit, not by a rule "
            f"(deal{'s' * (n != 1)} {shown}); such a deal is not an outcome of play"
        )
    if bad or limited:
        raise SystemExit(1)


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
        from strategies import user
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
        stays ignored).  Each prints one line saying what was kept.  The
        kernels play on helper threads (:func:`tranca_sim.engine.kernel.off_main_thread`),
        so the signal is seen while they play; as the console script, when a
        kernel thread is still running once the command has unwound (a user
        strategy that never returns), the process ends at once (``os._exit``)
        with that status instead of waiting for it.  As the
        console script (``argv`` None), a signal that comes after the command
        finished, while the process shuts down (numba's, Dask's and the
        libraries' teardown take a second or so), prints the same line and
        exits with the same status, instead of ending the process silently.
    """
    state = {"args": None}
    previous = {}
    finished = False
    status = 0
    stopped = 0  # the status of an interrupt or termination
    try:
        for sig in _SIGNALS:
            try:
                if signal.getsignal(sig) is not signal.SIG_IGN:  # `nohup tranca-sim ...` keeps running
                    previous[sig] = signal.signal(sig, _terminate)
            except ValueError:  # not the main thread: leave the handlers alone
                break
        status = _main(argv, state)
        finished = True
        return status
    except KeyboardInterrupt:
        stopped = 130
        _fail(_stopped("interrupted", state), stopped)
    except Terminated as t:
        stopped = 128 + t.signum
        _fail(_stopped("terminated", state), stopped)
    finally:
        if stopped and _console(argv) and _kernel_running():
            # a kernel thread still plays (a user strategy that never returns: nothing stops a
            # compiled loop) and Python's shutdown would wait for it forever: the command has
            # unwound (temporary files removed, a dataset left resumable), the line is written
            _exit_at_once(stopped)
        late = finished and bool(previous) and _console(argv)  # the process exits next
        for sig, handler in previous.items():
            signal.signal(sig, _late_stop(state) if late else handler)
        if late:
            if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
                signal.signal(signal.SIGINT, _late_stop(state))
            _exit_now(status)


def _main(argv, state: dict) -> int:
    args = build_parser().parse_args(argv)  # before the heavier imports: --version and typos are quick
    state["args"] = args

    from .io import OutputExistsError

    errors = _user_errors()
    import warnings

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if category.__name__ in ("TunedFallbackWarning", "InertParameterWarning"):  # one readable line
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
        with contextlib.ExitStack() as locks:  # the outputs' locks (cli_common._lock_out), held to the end
            args.locks = locks
            command(args)
    except OutputExistsError as e:
        _fail(_exists_message(e))
    except errors as e:
        _fail(str(e))
    except BrokenPipeError:  # e.g. `tranca-sim strategies | head -1`
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
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
