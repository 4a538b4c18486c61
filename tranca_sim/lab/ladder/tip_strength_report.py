"""Tables, chart and report of :mod:`tranca_sim.lab.ladder.tip_strength` (tips against players of
different strength)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

COLORS = {
    ("basic", "self-play"): "#1f77b4",
    ("tuned", "self-play"): "#2ca02c",
    ("basic", "vs search"): "#9467bd",
    ("tuned", "vs search"): "#d62728",
}


def _f(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else "n/a"


def _p(p: float) -> str:
    return "< 0.0001" if p < 1e-4 else f"{p:.4f}" if p < 0.01 else f"{p:.3f}"


def effect_label(e: dict) -> str:
    return f"{e['follower']}, {e['setting']}"


def effects_markdown(result: dict) -> str:
    lines = [
        (
            "| tip | follower | opponent | tip on / off | decks | effect, points a deal | 95% interval | p | p Holm "
            "| Holm-significant |"
        ),
        "|---|---|---|---|---:|---:|---|---:|---:|:---:|",
    ]
    for e in result["effects"]:
        opp = "search (small budget)" if e["setting"] == "vs search" else "itself without the tip"
        lines.append(
            f"| {e['tip']} | {e['follower']} | {opp} | `{e['on']}` / `{e['off']}` | {e['decks']:,} | "
            f"{_f(e['mean'])} | [{_f(e['lo'])}, {_f(e['hi'])}] | {_p(e['p_value'])} | {_p(e['p_holm'])} | "
            f"{'yes' if e['holm_significant'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def differences_markdown(result: dict) -> str:
    lines = [
        "| tip | difference of effects | points a deal | 95% interval | p | p Holm | Holm-significant |",
        "|---|---|---:|---|---:|---:|:---:|",
    ]
    for d in result["differences"]:
        lines.append(
            f"| {d['tip']} | {d['comparison']} | {_f(d['diff'])} | [{_f(d['lo'])}, {_f(d['hi'])}] | "
            f"{_p(d['p_value'])} | {_p(d['p_holm'])} | {'yes' if d['holm_significant'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def figure(result: dict):
    """Forest plot: one block per tip, one row per follower and setting, effect with its 95%
    interval (filled: Holm-significant). Returns a matplotlib ``Figure``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.lines import Line2D

    from ..publish.chart_base import layout_room

    effects = result["effects"]
    tips = list(dict.fromkeys(e["tip"] for e in effects))
    rows = len(effects) + len(tips) - 1
    fig = Figure(figsize=(8.5, 1.9 + 0.36 * rows), layout="constrained")
    FigureCanvasAgg(fig)
    layout_room(fig)  # the row labels clear of the left edge
    ax = fig.subplots()
    y, ticks, labels = rows, [], []
    for t in tips:
        for e in [e for e in effects if e["tip"] == t]:
            y -= 1
            c = COLORS.get((e["follower"], e["setting"]), "#333333")
            ax.errorbar(
                e["mean"],
                y,
                xerr=[[e["mean"] - e["lo"]], [e["hi"] - e["mean"]]],
                fmt="o",
                color=c,
                mfc=c if e["holm_significant"] else "white",
                capsize=3,
                ms=6,
            )
            ax.annotate(
                f"{e['mean']:+.1f} [{e['lo']:+.1f}, {e['hi']:+.1f}]  ({e['decks']:,} decks)",
                (e["hi"], y),
                xytext=(5, -3),
                textcoords="offset points",
                fontsize=7.5,
            )
            ticks.append(y)
            labels.append(f"{t}: {effect_label(e)}")
        y -= 1
    ax.axvline(0, color="#7f8c8d", lw=0.8)
    ax.set_yticks(ticks, labels, fontsize=8.5)
    lo = min(e["lo"] for e in effects)
    hi = max(e["hi"] for e in effects)
    span = max(hi - lo, 1.0)
    ax.set_xlim(lo - 0.05 * span, hi + 0.62 * span)
    ax.set_xlabel("points a deal: follower with the tip minus the same follower without it", fontsize=9)
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    handles = [
        Line2D([], [], marker="o", ls="", color=c, label=f"{f}, {s}") for (f, s), c in COLORS.items()
    ] + [Line2D([], [], marker="o", ls="", color="#333333", mfc="white", label="not significant (Holm)")]
    ax.legend(
        handles=handles, fontsize=7.5, loc="upper center", bbox_to_anchor=(0.45, -0.09), ncol=3, frameon=False
    )
    ax.set_title(
        "Does a tip's value depend on strength? (tranca, duplicate deals, 95% intervals)\n"
        "self-play: the follower with the tip against itself without it;\n"
        "vs search: each of the two against the search player, difference of their margins",
        fontsize=9,
        loc="left",
    )
    return fig


def _answer(result: dict, tip: str) -> str:
    ds = {d["comparison"]: d for d in result["differences"] if d["tip"] == tip}
    es = {(e["follower"], e["setting"]): e for e in result["effects"] if e["tip"] == tip}
    parts = []
    for k, d in ds.items():
        sig = "changes" if d["holm_significant"] else "no significant change"
        parts.append(f"{k}: {_f(d['diff'])} [{_f(d['lo'])}, {_f(d['hi'])}] ({sig})")
    signs = {np.sign(e["mean"]) for e in es.values() if e["holm_significant"]}
    flip = (
        " Significant effects of both signs: the tip flips sign with who follows it."
        if len(signs) > 1
        else ""
    )
    return "; ".join(parts) + "." + flip


def report_markdown(result: dict, notes: str = "") -> str:
    tips = list(dict.fromkeys(e["tip"] for e in result["effects"]))
    head, _, rest = notes.partition("\n\n")
    superseded = head.startswith("**Superseded")  # said first, above every figure
    if superseded:
        notes = rest
    lines = [
        "# Does a tip's value depend on the player's strength?",
        "",
        *([head, ""] if superseded else []),
        "## Design",
        "",
        (
            "- **Tips** (strategy parameters of `basic`, `strategies/basic.py` TIPS; the guide's setting on, "
            "`basic`'s default off, the same values for every follower):"
        ),
    ]
    seen = set()
    for e in result["effects"]:
        if e["tip"] not in seen:
            seen.add(e["tip"])
            lines.append(f"  - {e['tip']}: {e['note']}")
    lines += [
        (
            "- **Followers:** `basic` and `tuned` (`strategies/tuned/tranca.toml`). `tuned` plays `basic`'s own "
            "functions with other values (`strategies/tuned.py`), so a tip's parameter means the same in both "
            "(tests/test_tip_strength.py checks that `tuned` plays exactly as `basic` with tuned's values). "
            "`tuned` already has black3_lock=1, clean_patience=3, morto_stock=40 and morto_melds=2: its "
            "'tip on' for the black-3 lock is `tuned` itself, and 'tip off' is `tuned` with `basic`'s default."
        ),
        (
            f"- **Self-play:** the follower with the tip against itself without it, duplicate deals (each deck "
            f"twice, sides swapped), {result['decks']:,} decks per comparison. Unit: the deck; value: mean of its "
            "two score differences, points a deal."
        ),
        (
            f"- **Vs search:** the follower with the tip and without it each against the search player "
            f"(`{result['search']}`) on the same {result['search_decks']:,} duplicate decks; value per deck: "
            "on-player's margin minus off-player's margin. Why this design and not 'search + tip': the search "
            "player picks its draws and discards by rollouts, not by the tip's rule, so switching the tip on "
            "inside it would not be the same tip; what a reader can use is whether the tip still pays against "
            "strong opponents."
        ),
        (
            "- **Intervals:** 95% Student t over decks per effect, two-sided p, Holm over the whole effect table. "
            "Differences of effects: 95% normal interval with the covariance of the shared decks, Holm over the "
            "difference table."
        ),
        (
            f"- **Seed** {result['seed']} for every run (the same decks everywhere); {result['deals']:,} deals in "
            f"{result['seconds']:.0f} s."
        ),
        (
            "- **Command:** `python -m tranca_sim.lab.ladder.tip_strength --out reports/tips-vs-strength "
            f"--decks {result['decks']} --search-decks {result['search_decks']} --seed {result['seed']}`"
        ),
        "",
        "## Effects",
        "",
        effects_markdown(result),
        "![Tip effects by strength](tips_strength.png)",
        "",
        "Vector version: [tips_strength.svg](tips_strength.svg)",
        "",
        "## Does the effect change with strength?",
        "",
        differences_markdown(result),
    ]
    for t in tips:
        lines.append(f"- **{t}:** {_answer(result, t)}")
    lines.append("")
    if notes:
        lines += ["## Reading the results", "", notes, ""]
    return "\n".join(lines)


def write_outputs(out: Path, result: dict) -> None:
    import polars as pl

    from ...io import atomic_output, writing
    from ..publish.charts import save_figure

    out = Path(out)
    notes_file = out / "notes.md"
    notes = notes_file.read_text(encoding="utf-8") if notes_file.is_file() else ""
    files = {
        "results.json": json.dumps(result, indent=2) + "\n",
        "report.md": report_markdown(result, notes),
        "effects.md": effects_markdown(result),
        "differences.md": differences_markdown(result),
    }
    for name, text in files.items():
        p = out / name
        with atomic_output(p, force=True) as tmp, writing(p):
            Path(tmp).write_text(text, encoding="utf-8")
    for name, rows in (("effects.csv", result["effects"]), ("differences.csv", result["differences"])):
        p = out / name
        with atomic_output(p, force=True) as tmp, writing(p):
            pl.DataFrame(rows).write_csv(tmp)
    save_figure(figure(result), out, "tips_strength")
