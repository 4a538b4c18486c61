"""The strategy lab's commands: ``tranca-sim experiment | report | tune | ladder``."""

from __future__ import annotations

from ._plural import plural
from .cli_common import (
    _check_processes,
    _check_rules,
    _check_threads,
    _fail,
    _flag,
    _lock_out,
    _n_deals,
    _refuse_unbound,
    _user_errors,
    _warn,
    diagnostics_warning,
    report_stamp,
)


def _compile_note(res: dict) -> str:
    """``; the engine was compiled first, in N s (not counted)`` (``loaded`` when numba's disk
    cache held it) for a result's ``load_seconds`` of a second or more, as ``simulate`` says it;
    else empty."""
    seconds = res.get("load_seconds") or 0.0
    if seconds < 1:
        return ""
    how = "compiled" if res.get("compiled") else "loaded"
    return f"; the engine was {how} first, in {seconds:.1f} s (not counted)"


def _written(a):
    """What the lab's runners call once the output is in place: an interrupt from then on says
    it was written (the workers' shutdown and the table come after)."""

    def note(path: str) -> None:
        a.written = path

    return note


def _check_dir_out(out, what: str) -> None:
    """Refuse ``--out NAME.parquet`` for a command that writes a directory (a fresh user's
    ``experiment x.toml --out ok.parquet`` made a directory named ok.parquet)."""
    if str(out).rstrip("/\\").lower().endswith(".parquet"):
        _fail(
            f"--out {str(out)!r}: {what} writes a directory (its runs and report), not a run file; "
            "give a directory name without .parquet"
        )


def _cmd_experiment(a) -> None:
    from pathlib import Path

    from .lab.experiments.experiment import run_experiment
    from .lab.experiments.spec import load_spec
    from .lab.output_dir import check_out_dir, load_experiment
    from .lab.publish.tables import comparison_table
    from .lab.publish.table_text import format_table

    _check_threads(a.threads)
    _check_processes(a.processes, a.cluster)
    load_spec(a.path, deals_cap=a.deals)  # the experiment file first, then --out
    _check_dir_out(a.out, "an experiment")
    _lock_out(a, a.out, make_dirs=True)
    with _flag("--out"):
        check_out_dir(Path(a.out), a.force)

    res = run_experiment(  # the report is written before the directory is renamed into place
        a.path,
        a.out,
        deals=a.deals,
        force=a.force,
        threads=a.threads,
        progress=not a.no_progress,
        say_compile=True,  # one line, not a bar: said with --no-progress too
        processes=a.processes,
        cluster=a.cluster,
        scheduler=a.scheduler,
        on_written=_written(a),
    )
    a.written = res["dir"]  # an interrupt from here on (the table) does not remove the output
    spec = res["spec"]
    threads = f"{res['threads']} thread" + ("s" if res["threads"] != 1 else "")
    if a.processes or a.cluster or a.scheduler:
        kind = plural(a.processes, "process", "processes") if a.processes else "Dask workers"
        threads = f"{kind}, {threads} each"
    print(
        f"{_n_deals(res['deals'])} in {res['seconds']:.1f} s: {res['deals_per_s']:.0f} deals/s ({threads})"
        f"{_compile_note(res)}; wrote {res['dir']}"
    )
    print(f"{spec['title']} (preset {spec['preset']}, seed {spec['seed']}, tranca-sim {spec['version']})")
    if res.get("kind") == "strengths":  # tips at several strengths, blocks of fresh decks
        import polars as pl

        from .lab.publish.strengths_report import answers, summarise

        print(f"{res['cpu_seconds']:.1f} s CPU; report: {Path(res['dir']) / 'report.md'}")
        print("\n".join(answers(summarise(spec, pl.read_parquet(Path(res["dir"]) / "units.parquet")))))
        return
    print(format_table(comparison_table(load_experiment(res["dir"])), spec))
    stopped = spec["stopped_by"]
    n_met = sum(1 for s in stopped.values() if s != "budget")
    if spec["stopping"]["sequential"]:
        n_budget = len(stopped) - n_met
        hw = spec["stopping"]["half_width"]
        target = [f"the half-width target +-{hw:g} pts/deal"] if hw is not None else []
        if spec.get("decision"):
            target.insert(0, "a decision")
        print(
            f"stopping: {n_met} of {plural(len(stopped), 'variant')} reached {' and '.join(target)}"
            + (f"; {n_budget} spent the budget of {spec['budget']} deals first" if n_budget else "")
        )
    rep = res["report"]
    if isinstance(rep, str):
        print(rep)


def _cmd_report(a) -> None:
    from .lab.publish.reports import ReportError, write_report
    from .outlock import OutputBusyError, OutputDirError, output_lock

    try:  # the experiment's own lock: not while a run writes the directory
        a.locks.enter_context(output_lock(a.run_dir))
    except OutputDirError:
        pass  # no lock file beside DIR (a read-only parent): report writes inside DIR; redraw unlocked
    except OutputBusyError as e:
        _fail(
            f"cannot redraw the report of {str(a.run_dir)!r} now: {e.holder} is writing that directory, "
            "and the report is read from its run files; wait for that run to end (it writes the report "
            f"itself) or {e.stop}, then run report again"
        )
    a.report_before = report_stamp(a.run_dir)  # an interrupt says whether report.md was rewritten
    try:
        written = write_report(a.run_dir)
    except ReportError as e:
        _fail(str(e))
    except _user_errors():
        raise
    except Exception as e:  # noqa: BLE001 (a bug in the report code: one line, not a traceback)
        _fail(f"the report of {a.run_dir} failed ({type(e).__name__}: {e})", 1)
    charts = sum(1 for p in written if p.suffix == ".png")
    print(f"wrote {written[-1]} and {plural(charts, 'chart')} (PNG and SVG) in {a.run_dir}")
    _warn_diagnostics(a.run_dir)


def _warn_diagnostics(run_dir) -> None:
    """A warning line for each run file of the experiment in ``run_dir`` that recorded failed
    invariant checks or illegal answers (:func:`tranca_sim.cli_common.diagnostics_warning`)."""
    from .io import RunFileError, peek_meta
    from .lab.output_dir import ExperimentError, load_experiment

    try:
        runs = load_experiment(run_dir).runs
    except ExperimentError:
        return
    for r in runs:
        try:
            suspect = diagnostics_warning(r.path, peek_meta(r.path) or {})
        except RunFileError:
            continue
        if suspect:
            _warn(f"{r.path}: {suspect}")


def _cmd_tune(a) -> None:
    from pathlib import Path

    from .lab.output_dir import check_out_dir
    from .lab.tuning.tune import TuneConfig, check_config, command_line, run_tune

    _check_threads(a.threads)
    from tranca_sim.strategies import resolve

    # the user's words checked in the order they are typed: what to tune, against whom, on which
    # rules, then the numbers (check_config)
    with _flag("STRATEGY", a.strategy):
        resolve(a.strategy)
    with _flag("--vs", a.vs):
        resolve(a.vs)
    rules = _check_rules(a.preset, a.rule)
    _refuse_unbound(a.preset, rules, "tune")
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
        say_compile=True,
        command=command_line(),
    )
    with _flag("--params" if only else "STRATEGY", a.params if only else a.strategy):
        from tranca_sim.strategies.search import search_space

        from .rules import get_preset

        try:  # the preset's space: a parameter that cannot act there is not searchable (strategies/inert.py)
            preset_rules = get_preset(cfg.preset)
        except Exception:  # noqa: BLE001 -- check_config says what is wrong with the preset
            preset_rules = None
        search_space(a.strategy, preset_rules, only)
    check_config(cfg)
    _check_dir_out(a.out, "tune")
    _lock_out(a, a.out, make_dirs=True)
    with _flag("--out"):
        check_out_dir(Path(a.out), a.force, "tune")
    res = run_tune(cfg, on_written=_written(a))
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
        f"{res['deals_per_s']:.0f} deals/s ({plural(res['threads'], 'thread')}){_compile_note(res)}; "
        f"wrote {res['dir']}"
    )


def _cmd_ladder(a) -> None:
    from .lab.ladder.ladder import run_ladder
    from .lab.ladder.ladder_report import ratings_markdown
    from .lab.tuning.tune import command_line

    _check_threads(a.threads)
    with _flag("--preset", a.preset):
        from .rules import get_preset

        get_preset(a.preset)
    _check_dir_out(a.out, "ladder")
    _lock_out(a, a.out, make_dirs=True)
    with _flag("--out"):
        from pathlib import Path

        from .lab.output_dir import check_out_dir

        check_out_dir(Path(a.out), a.force, "ladder")
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
        say_compile=True,  # one line before the bar, not minutes inside the first pair
        command=command_line(),
        on_written=_written(a),
    )
    a.written = res["dir"]
    print(ratings_markdown(res["result"]), end="")
    print(
        f"{_n_deals(res['deals'])} in {res['seconds']:.0f} s: {res['deals'] / max(res['seconds'], 1e-9):.0f} deals/s "
        f"({plural(res['result']['threads'], 'thread')}){_compile_note(res)}; wrote {res['dir']}"
    )
