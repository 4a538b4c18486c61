"""The report of an experiment with ``strength`` or ``blocks`` (:mod:`tranca_sim.lab.experiments.strengths`):
each tip's value at each strength on each block, whether the blocks confirm it
(:func:`tranca_sim.lab.statistics.blocks.confirmation`), and where the answer changes with strength.

**Does the answer change with strength?** For a tip and two strengths, the difference of the two
effects on each block (the strengths play the same decks of a block: a normal interval with the
covariance of the decks both played, :func:`diff_interval`), pooled over the blocks by inverse
variance, a two-sided z test, Holm over every (tip, pair of strengths) of the table.  The answer
"changes" where that difference is Holm-significant at 5%, and its sign "flips" where one strength
has a confirmed gain and another a confirmed loss.  The units were collected under a sequential
stopping rule, so these fixed-sample tests are approximate (a stop at a large effect biases that
cell's mean outward a little); the blocks' agreement is the check.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np

from ..statistics.blocks import CRITERION, confirmation


def _f(x) -> str:
    return f"{x:+.1f}" if isinstance(x, int | float) and math.isfinite(x) else "n/a"


def _p(p) -> str:
    if not isinstance(p, int | float) or not math.isfinite(p):
        return "n/a"
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def diff_interval(x: np.ndarray, y: np.ndarray) -> dict:
    """Mean of ``y`` minus mean of ``x``, per-deck values on decks ``0..len-1`` of one block (the
    shorter a prefix of the longer's decks): estimate, standard error (``var(x)/n_x + var(y)/n_y -
    2 cov(x[:m], y[:m]) m / (n_x n_y)``, ``m`` the shared decks)."""
    nx, ny = len(x), len(y)
    m = min(nx, ny)
    cov = float(np.cov(x[:m], y[:m], ddof=1)[0, 1]) if m >= 2 else 0.0
    var = float(np.var(x, ddof=1)) / nx + float(np.var(y, ddof=1)) / ny - 2 * cov * m / (nx * ny)
    return {"diff": float(np.mean(y) - np.mean(x)), "se": math.sqrt(max(var, 0.0))}


def _check_verdict(cells: list[dict]) -> str:
    """The manipulation check over the blocks (``cell["check"]``, :func:`tranca_sim.lab.experiments.strengths._check`):
    ``FAILS`` if it fails on a block, ``no change`` if a block saw none, ``passes`` if every block
    passes, ``no check`` when none was computed."""
    found = [(c.get("check") or {}).get("verdict") for c in cells]
    if not found or any(f is None for f in found):
        return "no check"
    if "FAILS" in found:
        return "FAILS"
    return "no change" if "no change" in found else "passes"


def _verdict(cell: dict) -> str:
    d = cell.get("decision", {}).get("points")
    return d["verdict"] if d else "no decision"


def published_rows(rec: dict) -> list[dict]:
    """One row per tip and strength of experiment.json's record: the blocks' cells, the check over
    the blocks, the confirmation (:func:`tranca_sim.lab.statistics.blocks.confirmation`) and ``published``."""
    given = all(x["kind"] == "given" for x in rec["strength"])
    by = {(c["label"], c["strength"], c["block"]): c for c in rec["cells"]}
    blocks = [b["block"] for b in rec["block_seeds"]]
    rows = []
    for lab in [v["label"] for v in rec["variants"]]:
        for s in [s["label"] for s in rec["strength"]]:
            cells = [by[(lab, s, b)] for b in blocks if (lab, s, b) in by]
            conf = confirmation([{**c, "decision": _verdict(c)} for c in cells])
            check = _check_verdict(cells) if not given else None
            if not given and check != "passes":  # a tip not shown doing what it says is not its value
                conf = {**conf, "published": False}
            rows.append({"label": lab, "strength": s, "cells": cells, "check": check,
                         "published": conf.get("published", conf["confirmed"]), **conf})  # fmt: skip
    return rows


def summarise(rec: dict, units) -> dict:
    """The figures of the report: ``rows`` (one per tip and strength: the blocks' cells and the
    confirmation) and ``changes`` (one per tip and pair of strengths), from experiment.json's
    record and ``units`` (the units.parquet frame)."""
    from scipy.stats import norm

    from ..statistics.inference import holm

    strengths = [s["label"] for s in rec["strength"]]
    given = all(x["kind"] == "given" for x in rec["strength"])
    labels = [v["label"] for v in rec["variants"]]
    blocks = [b["block"] for b in rec["block_seeds"]]
    rows = published_rows(rec)
    arrays = {}
    for (lab, s, b), part in units.group_by(["label", "strength", "block"]):
        arrays[(lab, s, int(b))] = part.sort("deck")["unit"].to_numpy()
    changes = []
    for lab in labels:
        for s1, s2 in itertools.combinations(strengths, 2):
            ds, ses = [], []
            for b in blocks:
                x, y = arrays.get((lab, s1, b)), arrays.get((lab, s2, b))
                if x is None or y is None or len(x) < 2 or len(y) < 2:
                    continue
                d = diff_interval(x, y)
                ds.append(d["diff"])
                ses.append(d["se"])
            if not ds:
                continue
            from ..statistics.blocks import pooled

            pool = pooled(ds, ses)
            mu, se = pool["mean"], pool["se"]
            p = float(2 * norm.sf(abs(mu) / se)) if se > 0 else (1.0 if mu == 0 else 0.0)
            changes.append({"label": lab, "from": s1, "to": s2, "diff": mu, "lo": mu - 1.96 * se,
                            "hi": mu + 1.96 * se, "p_value": p, "blocks": len(ds)})  # fmt: skip
    if changes:
        for c, ph in zip(changes, holm([c["p_value"] for c in changes])):
            c["p_holm"] = float(ph)
            c["significant"] = bool(ph <= 0.05)
    verdicts = {}
    for r in rows:
        if r["published"]:
            verdicts.setdefault(r["label"], {})[r["strength"]] = r["verdict"]
    flips = {lab for lab, v in verdicts.items() if {"gain", "loss"} <= set(v.values())}
    return {"rows": rows, "changes": changes, "flips": sorted(flips), "strengths": strengths, "blocks": blocks,
            "given": given, "design_words": "each deck in every seat" if _rotation(rec) else "duplicate decks"}  # fmt: skip


def _cell_text(c: dict) -> str:
    return f"{_f(c['mean'])} [{_f(c['lo'])}, {_f(c['hi'])}] {_verdict(c)} ({c['decks']:,} decks)"


def table_markdown(summary: dict) -> str:
    blocks = summary["blocks"]
    given = summary.get("given")
    head = ("| variant | " if given else "| tip | strength | ") + " | ".join(f"block {b}" for b in blocks)
    extra = " confirmed | published figure |" if given else " check | confirmed | published figure |"
    lines = [head + " |" + extra, ("|---|" if given else "|---|---|") + "---|" * len(blocks) + (":---:|" if given else ":---:|:---:|") + "---|"]
    for r in summary["rows"]:
        by = {c["block"]: c for c in r["cells"]}
        cols = [(_cell_text(by[b]) if b in by else "not played") for b in blocks]
        if r["published"]:
            pub = f"**{r['verdict']}**: {_f(r['mean'])} [{_f(r['lo'])}, {_f(r['hi'])}]"
        elif r["confirmed"]:
            pub = {"FAILS": "not published: the tip's check fails", "no check": "not published: no manipulation check"}.get(
                r["check"], f"not published: the check says {r['check']}"
            )
        else:
            pub = "not published"
        mark = "yes" if r["confirmed"] else f"no ({r['why']})"
        first = f"| {r['label']} | " if given else f"| {r['label']} | {r['strength']} | "
        check = "" if given else (f" **{r['check']}** |" if r["check"] == "FAILS" else f" {r['check']} |")
        lines.append(first + " | ".join(cols) + f" |{check} {mark} | {pub} |")
    return "\n".join(lines) + "\n"


def changes_markdown(summary: dict) -> str:
    lines = [
        "| tip | strengths | difference of effects, points a deal | 95% interval | p | p Holm | changes? |",
        "|---|---|---:|---|---:|---:|:---:|",
    ]
    for c in summary["changes"]:
        lines.append(
            f"| {c['label']} | {c['to']} minus {c['from']} | {_f(c['diff'])} | [{_f(c['lo'])}, {_f(c['hi'])}] | "
            f"{_p(c['p_value'])} | {_p(c.get('p_holm'))} | {'yes' if c.get('significant') else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def answers(summary: dict) -> list[str]:
    """One line per tip: where its answer changes with strength."""
    out = []
    if summary.get("given"):
        for r in summary["rows"]:
            fig = f"{_f(r['mean'])} [{_f(r['lo'])}, {_f(r['hi'])}]"
            out.append(f"- **{r['label']}**: " + (f"confirmed {r['verdict']}, {fig}" if r["confirmed"] else f"not confirmed ({r['why']})"))
        return out
    for lab in dict.fromkeys(r["label"] for r in summary["rows"]):
        rows = [r for r in summary["rows"] if r["label"] == lab]
        said = ", ".join(
            f"{r['strength']}: "
            + (r["verdict"] if r["published"] else "check " + r["check"] if r["confirmed"] else "unconfirmed")
            for r in rows
        )
        sig = [c for c in summary["changes"] if c["label"] == lab and c.get("significant")]
        if lab in summary["flips"]:
            what = "the sign changes with strength (a confirmed gain at one strength, a confirmed loss at another)"
        elif sig:
            what = "the size changes with strength: " + "; ".join(
                f"{c['to']} minus {c['from']} {_f(c['diff'])} [{_f(c['lo'])}, {_f(c['hi'])}]" for c in sig
            )
        else:
            what = "no significant change with strength"
        out.append(f"- **{lab}** ({said}): {what}.")
    return out


def figure(summary: dict):
    """Forest plot: a block of rows per tip, one row per strength, each block's effect with its 95%
    interval (filled: the blocks confirm it)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from .chart_base import layout_room

    rows = summary["rows"]
    tips = list(dict.fromkeys(r["label"] for r in rows))
    n = len(rows) + len(tips) - 1
    colors = ["#1f77b4", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    scol = {s: colors[i % len(colors)] for i, s in enumerate(summary["strengths"])}
    marks = ["o", "s", "^", "D", "v"]
    fig = Figure(figsize=(9, 2.0 + 0.34 * n), layout="constrained")
    FigureCanvasAgg(fig)
    layout_room(fig)
    ax = fig.subplots()
    y, ticks, labels = n, [], []
    nb = len(summary["blocks"])
    for t in tips:
        for r in [r for r in rows if r["label"] == t]:
            y -= 1
            for k, c in enumerate(sorted(r["cells"], key=lambda c: c["block"])):
                dy = ((nb - 1) / 2 - k) * 0.22  # block 1 on top
                col = scol[r["strength"]]
                ax.errorbar(c["mean"], y + dy, xerr=[[c["mean"] - c["lo"]], [c["hi"] - c["mean"]]],
                            fmt=marks[k % len(marks)], color=col if r["check"] in (None, "passes") else "#aaaaaa",
                            mfc=(col if r["check"] in (None, "passes") else "#aaaaaa") if r["published"] else "white",
                            capsize=2, ms=5, lw=1)  # fmt: skip
            ticks.append(y)
            flag = "" if r["check"] in (None, "passes") else f" (check: {r['check']})"
            labels.append(t if summary.get("given") else f"{t}: {r['strength']}{flag}")
        y -= 1
    ax.axvline(0, color="#7f8c8d", lw=0.8)
    ax.set_yticks(ticks, labels, fontsize=8)
    ax.set_ylim(-0.8, n - 0.2)
    ax.set_xlabel(
        "points a deal: the variant minus the baseline"
        if summary.get("given")
        else "points a deal: the player with the tip minus the same player without it",
        fontsize=9,
    )
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    handles = [] if summary.get("given") else [Line2D([], [], color=c, lw=2, label=s) for s, c in scol.items()]
    handles += [Line2D([], [], marker=marks[k % len(marks)], ls="", color="#333333", label=f"block {b}")
                for k, b in enumerate(summary["blocks"])]  # fmt: skip
    handles.append(Line2D([], [], marker="o", ls="", color="#333333", mfc="white", label="not published"))
    ax.legend(handles=handles, fontsize=7.5, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=False)
    what = "Each variant against the baseline" if summary.get("given") else "Each tip at each strength"
    ax.set_title(
        f"{what}, every block of fresh decks ({summary.get('design_words', 'duplicate decks')}, 95% intervals)\n"
        + (
            "filled: confirmed (the blocks decided it the same way); hollow: not confirmed"
            if summary.get("given")
            else "filled: confirmed (the blocks decided it the same way) and the tip's check passes; hollow: not "
            "published;\ngrey: the tip's manipulation check does not pass at that strength (not the tip's value)"
        ),
        fontsize=9,
        loc="left",
    )
    return fig


def _rotation(rec: dict) -> bool:
    """Whether the blocks played the three-player rotation (each deck three times), not duplicate decks."""
    return rec.get("design") == "rotation"


def report_markdown(rec: dict, summary: dict, notes: str = "") -> str:
    d = rec.get("decision") or {}
    stop = rec["stopping"]
    per = 3 if _rotation(rec) else 2  # deals a deck
    strengths = "; ".join(
        f"`{s['label']}` (`{s['strategy'].split(':')[0]}`, at most {s['budget'] // per:,} decks a tip and block)"
        for s in rec["strength"]
    )
    seeds = ", ".join(f"block {b['block']}: {b['seed']}" for b in rec["block_seeds"])
    interval = (
        "95% confidence sequence (valid at the data-dependent stop)" if stop["sequential"] else "95% Student t"
    )
    lines = [f"# {rec['title']}", "", rec["question"], "", "## Design", ""]
    given = all(x["kind"] == "given" for x in rec["strength"])
    if given:
        lines.append(
            f"- **Preset** `{rec['preset']}`; each variant against the baseline `{rec['baseline']}`, at most "
            f"{rec['budget'] // per:,} decks a variant and block."
        )
    else:
        lines += [
        f"- **Preset** `{rec['preset']}`; **strengths**: {strengths}.",
        "- **Each tip against the same player without it** (restricted play, Jaffe et al., AIIDE 2012): at "
        "`basic` and `tuned`, the player with the tip's parameter values against the same player with the "
        "baseline's values; at the search player, the tip constrains its own choices: where its rollout "
        "policy's answer with the tip and without differ it plays the tip's answer (the player without the "
        "tip: the other one), elsewhere it searches, and its own side's rollouts follow the tip "
        "(`strategies/pimc.py`, `tip_params`).",
        ]
    design = (
        "- **Design** rotation at three solo players (`tranca_sim/lab/statistics/rotation.py`: each deck three "
        "times, the variant once in each seat against two baseline players, and once at an all-baseline table); "
        "**unit** the deck: the variant's score minus the mean of the other two, over its three seats, points a deal."
        if _rotation(rec)
        else "- **Design** duplicate decks (each deck twice, sides swapped); **unit** the deck: the mean of its two "
        "score differences, points a deal."
    )
    lines += [
        design,
        f"- **Interval** {interval}; **p** two-sided.",
    ]
    if d:
        own = [s for s in rec["strength"] if s.get("delta") not in (None, d["delta"])]
        said = "".join(
            f"; `{s['label']}`: H1 ±{s['delta']:g} points a deal (deck outcome 1/2 ± "
            f"{d['delta_outcome'] * s['delta'] / d['delta']:g}), the effect it can decide within its budget"
            for s in own
        )
        least = f"; no decision before {d['min_decks']:,} decks" if d.get("min_decks") else ""
        lines.append(
            f"- **Decision** {rec['decision']['method']}: H0 no effect, H1 ±{d['delta']:g} points a deal "
            f"(deck outcome: 1/2 ± {d['delta_outcome']:g}){said}{least}, α = {d['alpha']:g}, β = {d['beta']:g}; "
            "**correction**: sequential Holm over every (tip, strength) of a block, for the points and for the "
            "deck outcome. \"no effect\" means no effect as large as H1's: a small effect may remain."
        )
    lines += [
        f"- **Stopping rule** {stop['rule']}; each strength's budget above.",
        f"- **Blocks** {len(rec['block_seeds'])} of fresh decks, seeds {seeds} (`tranca_sim/lab/statistics/blocks.py`: a hash "
        "of the experiment's seed, the preset and the block; no deck is shared between blocks or presets; the "
        "strengths of a block play the same decks).",
        f"- **Criterion** {CRITERION}. Only a confirmed figure is published"
        + (
            "."
            if given
            else ", and only where the tip's manipulation check passes on every block at that strength "
            "(`tranca_sim/lab/statistics/checks.py`, `strategies/basic.py` CHECKS: the player with the tip against the "
            "same player without it on the cell's own runs; 95% normal interval of the difference)."
        ),
    ]
    if not given:
        lines.append(
            "- **Change with strength**: per tip and pair of strengths, the difference of effects (paired on a "
            "block's shared decks, pooled over blocks), two-sided z test, Holm over the table; the sign flips "
            "where one strength has a confirmed gain and another a confirmed loss. These tests use normal "
            "standard errors at the sequential stops: approximate."
        )
    lines += [
        f"- **Played** {rec['deals_total']:,} deals in {rec['seconds']:.0f} s wall, {rec['cpu_seconds']:.0f} s CPU "
        f"({rec['threads']} thread{'s' if rec['threads'] != 1 else ''}; load average at the end "
        f"{', '.join(str(x) for x in rec['load_average'])} on {rec['cpu_count']} cores); tranca-sim {rec['version']}.",
    ]
    if rec.get("command"):
        lines.append(f"- **Command** `{rec['command']}`")
    lines += ["", "## Each variant on each block" if given else "## Each tip at each strength", "", table_markdown(summary)]
    lines += ["![Tips by strength and block](strength_effects.png)", "", "Vector version: [strength_effects.svg](strength_effects.svg)", ""]  # fmt: skip
    if summary["changes"]:
        lines += ["## Where the answer changes with strength", "", *answers(summary), "", changes_markdown(summary)]
    lines += ["## The variants" if given else "## The tips", ""]
    for v in rec["variants"]:
        if given:
            lines.append(f"- **{v['label']}**: `{v['strategy']}`{': ' + v['note'] if v.get('note') else ''}")
            continue
        tip = ", ".join(f"{k}={x:g}" for k, x in (v.get("tip") or {}).items())
        without = ", ".join(f"{k}={x:g}" for k, x in (v.get("without") or {}).items())
        lines.append(f"- **{v['label']}** ({tip}; without: {without}){': ' + v['note'] if v.get('note') else ''}")
    lines.append("")
    if notes:
        lines += ["## Reading the results", "", notes, ""]
    return "\n".join(lines)


def write_report(out_dir, shown_dir=None) -> list[Path]:
    """Write ``report.md``, ``cells.csv`` and ``strength_effects.png/.svg`` into ``out_dir``."""
    import polars as pl

    from ...io import atomic_output, writing
    from .chart_base import save_figure
    from .report_md import ReportError

    out = Path(out_dir)
    rec = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    if not (out / "units.parquet").is_file():  # not committed (*.parquet): the figures are in experiment.json
        raise ReportError(
            f"{str(out)!r} holds no units.parquet (the decks' units the report is drawn from); play the "
            f"experiment again: {rec.get('command') or 'tranca-sim experiment ' + str(rec.get('source'))}"
        )
    units = pl.read_parquet(out / "units.parquet")
    summary = summarise(rec, units)
    notes_file = out / "notes.md"
    notes = notes_file.read_text(encoding="utf-8") if notes_file.is_file() else ""
    written = list(save_figure(figure(summary), out, "strength_effects"))
    flat = [{k: (json.dumps(v) if isinstance(v, dict | list) else v) for k, v in c.items()} for c in rec["cells"]]
    p = out / "cells.csv"
    with atomic_output(p, force=True) as tmp, writing(p):
        pl.DataFrame(flat).write_csv(tmp)
    written.append(p)
    p = out / "report.md"
    with atomic_output(p, force=True) as tmp, writing(p):
        Path(tmp).write_text(report_markdown(rec, summary, notes), encoding="utf-8")
    written.append(p)
    return written
