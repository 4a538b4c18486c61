"""What ``tranca-sim tune`` writes: the trial table, the trace chart, the parameter file, the report.

Every function writes into a directory that :func:`tranca_sim.lab.tuning.tune.run_tune` renames into
place only when all files are complete. Scores are points per deal, candidate minus opponent on
duplicate deals (:mod:`tranca_sim.lab.tuning.tune`).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

#: stage names of the trial table, in play order
STAGES = ("search", "selection", "confirmation", "final")
#: the trace shows candidates down to this many points a deal below the best (and 0, and the
#: confirmation interval); the others are counted in the panel
SHOWN_BELOW_BEST = 300.0


def _git_commit() -> str:
    import subprocess

    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=10,
            check=False,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def write_trials(out_dir: Path, rows: list[dict]) -> Path:
    """``trials.parquet``: one row per evaluation (stage ``search``, ``selection``,
    ``confirmation`` or ``final``), columns as in :func:`tranca_sim.lab.tuning.tune.run_tune`."""
    import polars as pl

    from ...io import atomic_output, writing

    path = out_dir / "trials.parquet"
    df = pl.DataFrame(rows)
    with atomic_output(path) as tmp, writing(path):
        df.write_parquet(tmp, compression="zstd")
    return path


def same_parameters(a: str, b: str) -> bool:
    """Strategy texts or labels ``a`` and ``b`` name the same strategy with the same parameters
    (``basic`` and ``basic:go_out=1`` do: 1 is its default); texts that cannot be resolved here
    (a user's file elsewhere) are compared as written."""
    if a == b:
        return True
    from tranca_sim.strategies import StrategyError, resolve

    try:
        sa, sb = resolve(a), resolve(b)
    except (StrategyError, ValueError, OSError):
        return False
    return sa.name == sb.name and np.array_equal(np.asarray(sa.params), np.asarray(sb.params))


def is_the_opponent(rd: dict) -> bool:
    """The round's pick is its opponent itself (the same parameters): never a winner. A round
    that names no pick (a trace drawn from a summary without it) is not the opponent."""
    pick = rd.get("winner") or rd.get("winner_label")
    return bool(pick) and same_parameters(pick, rd.get("opponent") or rd["opponent_label"])


def trace_figure(rows: list[dict], result: dict):
    """The optimisation trace: one panel per round, search candidates in the order played (dots),
    the best so far (line), the round winner's selection mean (diamond) and its confirmation on
    fresh decks (mean and 95% interval, band). Returns a matplotlib ``Figure``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    rounds = result["rounds"]
    n = max(1, len(rounds))
    fig = Figure(figsize=(8.0, 1.4 + 2.7 * n))
    FigureCanvasAgg(fig)
    axes = fig.subplots(n, 1, squeeze=False)[:, 0]
    for ax, rd in zip(axes, rounds):
        r = rd["round"]
        search = [x for x in rows if x["round"] == r and x["stage"] == "search"]
        y = np.array([x["mean"] for x in search])
        xs = np.arange(1, len(y) + 1)
        ax.axhline(0, color="#7f8c8d", lw=0.8)
        ax.scatter(
            xs,
            np.maximum(y, -1e9),
            s=9,
            color="#5d6d7e",
            alpha=0.6,
            label="candidate (search decks)",
            zorder=2,
        )
        if len(y):
            ax.step(
                xs,
                np.maximum.accumulate(y),
                where="post",
                color="#1f77b4",
                lw=1.4,
                label="best so far",
                zorder=3,
            )
        c = rd["confirmation"]
        # the winner's two later phases right of the search, each with its own tick label
        gap = max(3, len(y) // 6)
        x_sel, x_end = len(y) + gap, len(y) + 2 * gap
        ax.axvline(len(y) + gap / 2, color="#999999", lw=0.8, ls=":", zorder=1)
        ticks = [
            t for t in MaxNLocator(nbins=6, integer=True).tick_values(1, max(len(y), 1)) if 0 <= t <= len(y)
        ]
        ax.set_xticks([*ticks, x_sel, x_end], [f"{t:g}" for t in ticks] + ["selection", "confirmation"])
        ax.set_xlim(-0.02 * x_end, x_end + gap * 0.75)
        ax.axhspan(
            c["lo"], c["hi"], color="#c0392b", alpha=0.18, zorder=1,
            label="band: the confirmation's 95% CI",
        )  # fmt: skip
        ax.errorbar(
            [x_end],
            [c["mean"]],
            yerr=[[c["mean"] - c["lo"]], [c["hi"] - c["mean"]]],
            fmt="o",
            color="#c0392b",
            capsize=3,
            label="the round's pick on fresh decks (95% CI)",
            zorder=4,
        )
        ax.scatter(
            [x_sel],
            [rd["selection_mean"]],
            marker="D",
            s=28,
            color="#ff7f0e",
            label="the round's pick on the selection decks",
            zorder=4,
        )
        verdict = "beats it" if rd["beats_opponent"] else "does not beat it significantly"
        vs = rd["opponent_label"] if r == 1 else f"round {r - 1}'s winner"
        pick = f"winner {c['mean']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}], {verdict}"
        if is_the_opponent(rd):  # its own parameters: not a winner of anything
            pick = (
                f"the best candidate was the opponent itself (its own parameters), "
                f"{c['mean']:+.1f} [{c['lo']:+.1f}, {c['hi']:+.1f}]: no winner"
            )
        ax.set_title(
            f"round {r}: against {vs}, {rd['played']} candidates played; {pick}",
            fontsize=8.5,
            loc="left",
        )
        ax.set_ylabel("points a deal\nvs the round's opponent", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(axis="y", alpha=0.3)
        hi = max([c["hi"], float(y.max()) if len(y) else 0.0, rd["selection_mean"]])
        lo = min(c["lo"], 0.0, max(float(y.min()) if len(y) else 0.0, hi - SHOWN_BELOW_BEST))
        pad = 0.08 * (hi - lo or 1.0)
        ax.set_ylim(lo - pad, hi + pad)  # the scale is for the best candidates
        below = int((y < lo - pad).sum())
        if below:
            ax.text(
                0.01,
                0.03,
                f"{below} of {len(y)} candidates lie below {lo - pad:+.0f} (not shown)",
                transform=ax.transAxes,
                fontsize=7,
                color="#5d6d7e",
                bbox={"facecolor": "white", "edgecolor": "none", "alpha": 0.85, "pad": 1.5},
                zorder=5,
            )
    axes[-1].set_xlabel(
        "search: each candidate in the order the optimiser asked for it\nright of the dotted line: the "
        "round's pick on the selection decks and on fresh decks (confirmation)",
        fontsize=8,
    )
    # one legend under the panels, where it hides no candidate (inside a panel it covered some)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=7, frameon=False)
    f = result["final"]
    import textwrap

    head = f"tune {result['base_label']} ({result['preset']}): " + result["champion_label"].replace(",", ", ")
    fig.suptitle(
        textwrap.fill(head, 88) + "\n"
        f"vs {result['opponent_label']} on fresh decks: {f['mean']:+.1f} [{f['lo']:+.1f}, {f['hi']:+.1f}] "
        f"points a deal ({f['decks']:,} decks)",
        fontsize=9.5,
    )
    from ..publish.chart_text import fit_titles

    fit_titles(fig)  # the titles wrapped inside the figure first, then the layout made room for them
    fig.tight_layout(rect=(0, 0.5 / fig.get_figheight(), 1, 1))  # room for the legend below (two rows)
    return fig


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | np.integer):
        return str(int(v))
    if isinstance(v, float):
        return str(int(v)) if float(v).is_integer() and abs(v) < 1e15 else repr(float(v))
    if isinstance(v, list | tuple):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'


def params_toml(result: dict) -> str:
    """The winner as a parameter file (the format of ``strategies/tuned/<preset>.toml``)."""
    f = result["final"]
    lines = [
        f"# Parameters of the strategy tuned by tranca-sim tune for preset {result['preset']}.",
        f"# Made by: {result['command'] or '(from Python)'}",
        "# Every value is the strategy's parameter; 'confirmation' is the final run on fresh decks.",
        f"strategy = {toml_value(result['strategy'].partition(':')[0])}",
        f"preset = {toml_value(result['preset'])}",
        f"command = {toml_value(result['command'])}",
        f"commit = {toml_value(result.get('commit') or _git_commit())}",
        f"made = {toml_value(result['started'])}",
        f"rule_options = {toml_value(sorted(f'{k}={v}' for k, v in result['rules'].items()))}",
        "",
        "[params]",
        *(f"{k} = {toml_value(float(v))}" for k, v in result["params"].items()),
        "",
        "[confirmation]",
        f"opponent = {toml_value(result['opponent_label'])}",
        f"effect = {round(f['mean'], 2)}",
        f"ci95 = [{round(f['lo'], 2)}, {round(f['hi'], 2)}]",
        f"decks = {f['decks']}",
        f"deals = {f['deals']}",
        f"master_seed = {f['seed']}",
        f"first_deal = {f['first_deal']}",
        "",
    ]
    return "\n".join(lines)


def _fmt(x: float, sign: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.1f}" if sign else f"{x:.1f}"


def _p(p: float) -> str:
    return "< 1e-4" if p < 1e-4 else f"{p:.3g}"


def report_md(rows: list[dict], result: dict) -> str:
    cfg = result["config"]
    f = result["final"]
    space = result["space"]
    load0, load1 = result["load"]
    lines = [
        f"# Tuning `{result['base_label']}` for `{result['preset']}`",
        "",
        (
            f"Command: `{result['command'] or '(from Python)'}` (commit {result.get('commit') or _git_commit()}, "
            f"started {result['started']})."
        ),
        "",
        "## Result",
        "",
        (
            f"**`{result['champion_label']}`** against `{result['opponent_label']}`: "
            f"**{_fmt(f['mean'])} points a deal, 95% CI [{_fmt(f['lo'])}, {_fmt(f['hi'])}]** "
            f"(one-sided p {_p(f['p_greater'])}), from the final run only: {f['decks']:,} fresh decks "
            f"({f['deals']:,} deals, duplicate design, master seed {f['seed']}, deal indices {f['first_deal']:,} to "
            f"{f['first_deal'] + f['decks'] - 1:,}), none of them used in the search or the selection. "
            f"Goes out in {f['went_out']:.0%} of its deals against {f['opp_went_out']:.0%}; "
            f"win share difference {_fmt(100 * f.get('win_share_diff', math.nan))} percentage points."
        ),
        "",
        "Parameters that differ from the strategy's defaults: "
        + (", ".join(f"`{x}`" for x in result["champion_label"].partition(":")[2].split(",") if x) or "none"),
        "",
        "![optimisation trace](trace.png)",
        "",
        "## Rounds",
        "",
        (
            "Each round searches against its opponent on one block of decks shared by every candidate, "
            "re-plays the best candidates on fresh decks (selection) and confirms the best of those on other "
            "fresh decks; the confirmation alone decides whether the winner beats the opponent "
            f"(one-sided t test, p < {cfg.alpha:g}; one hypothesis on unused decks, so no correction). "
            "The search and selection means of the winner are biased upwards (it is the best of many noisy "
            "candidates); the confirmation is not."
        ),
        "",
        "| round | opponent | candidates played (asked) | winner | search | selection | confirmation [95% CI] | p | beats it |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for rd in result["rounds"]:
        c = rd["confirmation"]
        lines.append(
            f"| {rd['round']} | `{rd['opponent_label']}` | {rd['played']} ({rd['trials']}) | "
            + ("the opponent itself " if is_the_opponent(rd) else f"`{rd['winner_label']}` ")
            + f"| {_fmt(rd['search_mean'])} | {_fmt(rd['selection_mean'])} | {_fmt(c['mean'])} [{_fmt(c['lo'])}, "
            f"{_fmt(c['hi'])}] | {_p(c['p_greater'])} | {'yes' if rd['beats_opponent'] else 'no'} |"
        )
    last = result["rounds"][-1]
    stop = (
        f"stopped after round {last['round']}: its best candidate was `{last['opponent_label']}` itself, no winner"
        if is_the_opponent(last)
        else f"stopped after round {last['round']}: its winner does not beat `{last['opponent_label']}` significantly"
        if not last["beats_opponent"]
        else f"stopped at --rounds {cfg.rounds}: the last winner still beat its opponent (more rounds may help)"
    )
    lines += [
        "",
        f"Self-play: {stop}.",
        "",
        "## Search space",
        "",
        "| parameter | kind | searched values | default |",
        "|---|---|---|---|",
    ]
    for p in space:
        vals = ", ".join(f"{v:g}" for v in p.choices) if p.choices else f"{p.low:g} to {p.high:g}"
        lines.append(f"| `{p.name}` | {p.kind} | {vals} | {p.default:g} |")
    lines += [
        "",
        "## Settings and cost",
        "",
        (
            f"- Optimiser: Optuna TPE (multivariate), ask/tell, sampler seed from `SeedSequence([{cfg.seed}, round])`; "
            f"search budget {cfg.budget:,} deals over at most {cfg.rounds} rounds ({cfg.budget // cfg.rounds:,} a round), "
            f"{cfg.trial_deals:,} deals ({cfg.trial_deals // 2:,} decks) per candidate; selection of the best "
            f"{cfg.select_top} on {cfg.select_deals:,} deals each; confirmation and final run {cfg.confirm_deals:,} deals."
        ),
        f"- Deal blocks (master seed {cfg.seed}; each block's deal indices are used by no other block):",
    ]
    for b in result["blocks"]:
        rd = f"round {b['round']}" if b["round"] else "after the rounds"
        lines.append(
            f"  - {b['stage']}, {rd}: deal indices {b['start']:,} to {b['start'] + b['decks'] - 1:,} "
            f"({b['decks']:,} decks, each dealt twice)"
        )
    lines += [
        (
            f"- {result['deals']:,} deals in {result['seconds']:.0f} s ({result['seconds'] / 60:.1f} min): "
            f"{result['deals_per_s']:,.0f} deals/s on {result['threads']} numba threads, {result['cpus']} CPUs; "
            f"load average {load0[0]:.1f} at the start, {load1[0]:.1f} at the end (1-minute), engine compile not counted."
        ),
        (
            f"- Files: `trials.parquet` ({len(rows)} evaluations: stage, round, trial, parameters, mean and 95% CI, "
            "decks, seed, first deal), `trace.png`/`trace.svg`, `params.toml` (copy it to "
            f"`strategies/tuned/{result['preset']}.toml` to make it the `tuned` strategy)."
        ),
        "",
    ]
    return "\n".join(lines)


def write_outputs(out_dir: Path, rows: list[dict], result: dict) -> list[Path]:
    """Write ``trials.parquet``, ``trace.png``/``.svg``, ``params.toml`` and ``report.md`` into ``out_dir``."""
    from ...io import atomic_output, writing
    from ..publish.charts import save_figure

    written = [write_trials(out_dir, rows)]
    written += save_figure(trace_figure(rows, result), out_dir, "trace")
    for name, text in (("params.toml", params_toml(result)), ("report.md", report_md(rows, result))):
        path = out_dir / name
        with atomic_output(path) as tmp, writing(path):
            tmp.write_text(text, encoding="utf-8")
        written.append(path)
    return written


def summary_from_trials(out_dir, alpha: float = 0.05) -> tuple[list[dict], dict]:
    """``(rows, result)`` rebuilt from a tuning directory's ``trials.parquet`` and ``params.toml``:
    what :func:`trace_figure` needs (rounds, final run, labels), so the chart can be drawn again
    without playing a deal (``redraw_trace``).

    Raises
    ------
    tranca_sim.io.RunFileError
        If ``trials.parquet`` or ``params.toml`` is missing or unreadable.
    """
    import tomllib

    import polars as pl

    from ...io import RunFileError

    d = Path(out_dir)
    try:
        rows = pl.read_parquet(d / "trials.parquet").to_dicts()
        meta = tomllib.loads((d / "params.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError, pl.exceptions.PolarsError) as e:
        raise RunFileError(f"{str(d)!r} is not a tuning directory: {e}") from None
    rounds = []
    for r in sorted({x["round"] for x in rows if x["round"] > 0}):
        conf = next((x for x in rows if x["round"] == r and x["stage"] == "confirmation"), None)
        if conf is None:
            continue
        search = [x for x in rows if x["round"] == r and x["stage"] == "search"]
        sel = next(
            x for x in rows if x["round"] == r and x["stage"] == "selection" and x["trial"] == conf["trial"]
        )
        src = next(x for x in search if x["trial"] == conf["trial"])
        rounds.append(
            {
                "round": r,
                "opponent_label": conf["opponent"],
                "played": len(search),
                "winner_label": conf["label"],
                "search_mean": src["mean"],
                "selection_mean": sel["mean"],
                "confirmation": conf,
                "beats_opponent": bool(
                    conf["p_greater"] < alpha and not same_parameters(conf["label"], conf["opponent"])
                ),
            }
        )
    final = next(x for x in rows if x["stage"] == "final")
    result = {
        "rounds": rounds,
        "final": final,
        "preset": meta.get("preset", "?"),
        "base_label": meta.get("strategy", "?"),
        "champion_label": final["label"],
        "opponent_label": final["opponent"],
    }
    return rows, result


def redraw_trace(out_dir) -> list[Path]:
    """Draw ``trace.png``/``trace.svg`` of a tuning directory again from its files."""
    from ..publish.charts import save_figure

    rows, result = summary_from_trials(out_dir)
    return save_figure(trace_figure(rows, result), Path(out_dir), "trace")
