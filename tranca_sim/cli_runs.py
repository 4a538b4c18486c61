"""The commands that read a run file or a log: ``summarize``, ``replay`` and ``check``
(dispatched by :func:`tranca_sim.cli.main`; their errors end as its module docstring says)."""

from __future__ import annotations

import os

from ._plural import plural
from .cli_common import (
    _fail,
    _flag,
    _say_if_compiling,
    _user_errors,
    _warn,
    diagnostics_warning,
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
    from .lab.statistics.stats import SUMMARY_COLUMNS, format_summary, summarize, turn_limit_warning

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
        from .lab.statistics.matches import MATCH_SUMMARY_COLUMNS, MatchSummary, format_match_summary

        acc = MatchSummary(n_sides=len(meta.get("strategies") or ()) or 2)
        acc.update(load_run(a.path, backend="pandas", columns=list(MATCH_SUMMARY_COLUMNS)))
        print(format_match_summary(acc.result(), side_labels(meta) or ("A", "B")))


def side_labels(meta: dict) -> list[str] | None:
    """Side A's and B's (and C's, tranca-3p) strategy as people name it (non-default parameters
    only), from run metadata; None when the metadata does not describe 2 or 3 sides (the rows then
    name them).
    A built-in is described against today's defaults; a user's strategy (not loaded here) by
    the label the run stored."""
    from tranca_sim.strategies import builtin_names, describe

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
    from tranca_sim.strategies import prepare_engine

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


#: the rule texts the presets come from, by the number their files start with (docs/rules.md section 1)
