"""What ``tranca-sim ladder`` writes: ratings, the pair table, the chart and the report.

Files in the output directory (all written under temporary names, the directory renamed into
place by :func:`tranca_sim.lab.ladder.ladder.run_ladder`):

``ladder.json``
    Settings, players, per pair its deck record and mean difference, the ratings with their
    bootstrap intervals.
``ratings.csv``, ``ratings.md``
    One row per player: Elo (Bradley-Terry on deck wins) and points a deal, with 95% intervals.
``pairs.csv``
    One row per pair: decks, deck wins/draws/losses of the first player, mean difference
    (points a deal, first minus second) with its 95% t interval, the deck-win share and what
    the ratings predict for it.
``units.parquet``
    One row per pair and deck: ``i``, ``j``, ``deck``, ``e`` (points a deal, ``i`` minus ``j``):
    everything the ratings are computed from.
``ladder.png``, ``ladder.svg``
    Both scales with their intervals.
``report.md``
    Design, tables and chart.
``runs/II-JJ.ab.parquet``, ``runs/II-JJ.ba.parquet``
    The run files of each pair (``tranca-sim replay`` reads them).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..._plural import plural
from .rating import (
    bootstrap_ratings,
    bt_ratings,
    deck_record,
    expected_share,
    points_fit,
    points_ratings,
    win_matrix,
)

#: virtual drawn decks added to every pair (see :mod:`tranca_sim.lab.ladder.rating`)
PRIOR = 0.5


def summarize_ladder(
    players, units: dict, pair_rows: list[dict], anchor: int, n_boot: int, seed: int
) -> dict:
    """Ratings, intervals and the pair table as a JSON-ready dict.

    ``players``: :class:`tranca_sim.lab.ladder.ladder.Player` list; ``units``: ``(i, j)`` -> per-deck
    differences; ``pair_rows``: per pair ``i``, ``j``, ``decks``, ``seconds``, ``went_out_i``,
    ``went_out_j``, ``runs``.
    """
    from ..statistics.inference import t_test

    n = len(players)
    elo = bt_ratings(win_matrix(units, n, PRIOR), anchor)
    pts = points_ratings(units, n, anchor)
    fit = points_fit(units, n, anchor)
    boot = bootstrap_ratings(units, n, anchor, PRIOR, n_boot, seed)
    pairs = []
    for row in pair_rows:
        i, j = row["i"], row["j"]
        e = units[(i, j)]
        w, d, lo = deck_record(e)
        t = t_test(e)
        pairs.append(
            dict(
                row,
                a=players[i].label,
                b=players[j].label,
                wins=w,
                draws=d,
                losses=lo,
                share=(w + 0.5 * d) / len(e),
                expected=expected_share(elo[i], elo[j]),
                mean=t["mean"],
                lo=t["lo"],
                hi=t["hi"],
                sd=t["sd"],
            )
        )
    ratings = []
    for k, p in enumerate(players):
        decks = sum(len(e) for (i, j), e in units.items() if k in (i, j))
        ratings.append(
            {
                "label": p.label,
                "strategy": p.strategy,
                "elo": float(elo[k]),
                "elo_lo": float(boot["elo_lo"][k]),
                "elo_hi": float(boot["elo_hi"][k]),
                "points": float(pts[k]),
                "points_lo": float(boot["points_lo"][k]),
                "points_hi": float(boot["points_hi"][k]),
                "decks": decks,
            }
        )
    for k in range(n):  # a player that won no deck at all: its Elo only says "below", set by the prior
        ratings[k]["never_won"] = all(
            deck_record(e)[0 if i == k else 2] + deck_record(e)[1] == 0
            for (i, j), e in units.items()
            if k in (i, j)
        )
    order = sorted(range(n), key=lambda k: -ratings[k]["elo"])
    for rank, k in enumerate(order, 1):
        ratings[k]["rank"] = rank
    return {
        "anchor": players[anchor].label,
        "prior_draws": PRIOR,
        "bootstrap": n_boot,
        "bootstrap_seed": seed,
        "players": [{"label": p.label, "strategy": p.strategy, "slow": p.slow} for p in players],
        "ratings": [ratings[k] for k in order],
        "pairs": pairs,
        "points_fit": {
            **{k: fit[k] for k in ("chi2", "df", "p", "fits", "level")},
            "pairs": [
                {"a": players[x["i"]].label, "b": players[x["j"]].label,
                 **{k: x[k] for k in ("observed", "fitted", "se", "z")}}
                for x in fit["pairs"]
            ],
        },
    }  # fmt: skip


def _f(x: float, sign: bool = True) -> str:
    if x is None or not math.isfinite(x):
        return "n/a"
    return f"{x:+.0f}" if sign else f"{x:.0f}"


def _f1(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else "n/a"


def points_shown(result: dict) -> bool:
    """Whether the points-a-deal scale fits the pairs well enough to be shown as a rating (a ladder
    written before the fit was tested: shown, as then)."""
    fit = result.get("points_fit")
    return True if fit is None else bool(fit["fits"])


def fit_markdown(result: dict) -> str:
    """Does one points scale fit the head-to-head pairs? The test and each pair's residual."""
    fit = result.get("points_fit")
    if fit is None:
        return ""
    verdict = (
        "it fits: the points-a-deal column is a fair summary of the pairs"
        if fit["fits"]
        else "it does not fit, so the ladder shows no points-a-deal rating: read each pair's head-to-head "
        "difference in the pair table below (points a deal are not additive here: a player that cannot go out "
        "loses about the same to every opponent, whatever its distance from the others)"
    )
    lines = [
        f"Weighted least squares of each pair's mean difference on r_i - r_j (weights: the inverse variance of "
        f"the pair's mean): sum of z² {fit['chi2']:,.1f} on {fit['df']} degrees of freedom, p "
        f"{fit['p']:.2g} (approximate: pairs that share decks are correlated); {verdict}.",
        "",
        "| first | second | head to head, points a deal | the scale's difference | residual z |",
        "|---|---|---:|---:|---:|",
    ]
    for x in fit["pairs"]:
        lines.append(f"| {x['a']} | {x['b']} | {_f1(x['observed'])} | {_f1(x['fitted'])} | {x['z']:+.1f} |")
    return "\n".join(lines) + "\n"


def ratings_markdown(result: dict) -> str:
    """The rating table (Markdown), best first; without the points-a-deal columns when that scale
    does not fit the pairs (:func:`points_shown`)."""
    if not points_shown(result):
        return _elo_only_markdown(result)
    a = result["anchor"]
    lines = [
        (
            f"| rank | player | strategy | Elo (deck wins, {a} = 0) | 95% interval | points a deal vs {a} "
            "| 95% interval | decks played |"
        ),
        "|---:|---|---|---:|---|---:|---|---:|",
    ]
    for r in result["ratings"]:
        lines.append(
            f"| {r['rank']} | {r['label']} | `{r['strategy']}` | {_f(r['elo'])}{' *' if r.get('never_won') else ''} | "
            f"[{_f(r['elo_lo'])}, {_f(r['elo_hi'])}] | {_f1(r['points'])} | "
            f"[{_f1(r['points_lo'])}, {_f1(r['points_hi'])}] | {r['decks']:,} |"
        )
    if any(r.get("never_won") for r in result["ratings"]):
        lines.append("")
        lines.append(
            f"\\* won no deck against anyone: its Elo is only an upper bound, set by the {result['prior_draws']:g} "
            "virtual drawn deck per pair; its points a deal are estimated as for every player."
        )
    return "\n".join(lines) + "\n"


def _elo_only_markdown(result: dict) -> str:
    a = result["anchor"]
    lines = [
        f"| rank | player | strategy | Elo (deck wins, {a} = 0) | 95% interval | decks played |",
        "|---:|---|---|---:|---|---:|",
    ]
    for r in result["ratings"]:
        lines.append(
            f"| {r['rank']} | {r['label']} | `{r['strategy']}` | {_f(r['elo'])}{' *' if r.get('never_won') else ''} | "
            f"[{_f(r['elo_lo'])}, {_f(r['elo_hi'])}] | {r['decks']:,} |"
        )
    if any(r.get("never_won") for r in result["ratings"]):
        lines += ["", f"\\* won no deck against anyone: its Elo is only an upper bound, set by the "
                      f"{result['prior_draws']:g} virtual drawn deck per pair."]  # fmt: skip
    return "\n".join(lines) + "\n"


def pairs_markdown(result: dict) -> str:
    """The pair table (Markdown), in play order."""
    lines = [
        (
            "| first | second | decks | first's deck wins / draws / losses | deck-win share (BT fit) "
            "| first minus second, points a deal [95% CI] | goes out: first / second |"
        ),
        "|---|---|---:|---|---|---|---|",
    ]
    for p in result["pairs"]:
        lines.append(
            f"| {p['a']} | {p['b']} | {p['decks']:,} | {p['wins']} / {p['draws']} / {p['losses']} | "
            f"{p['share']:.1%} ({p['expected']:.1%}) | {_f1(p['mean'])} [{_f1(p['lo'])}, {_f1(p['hi'])}] | "
            f"{p['went_out_i']:.0%} / {p['went_out_j']:.0%} |"
        )
    return "\n".join(lines) + "\n"


def ladder_figure(result: dict):
    """Two panels, players best first: Elo from deck wins and points a deal, each relative to
    the anchor, with 95% bootstrap intervals. Returns a matplotlib ``Figure``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from ...io import package_version
    from ..publish.chart_base import EDGE_IN, footnote, layout_room
    from ..publish.chart_text import wrap_items

    rs = result["ratings"]
    n = len(rs)
    height = 1.9 + 0.42 * n
    both = points_shown(result)
    fig = Figure(figsize=(9.0 if both else 6.0, height), layout="constrained")
    FigureCanvasAgg(fig)
    layout_room(fig, 0.3)  # the footer, as the experiment charts have: what the chart is of
    footnote(fig, "\n".join(wrap_items(footer_text(result, package_version()), 150 if both else 100)))
    axes = fig.subplots(1, 2, sharey=True) if both else [fig.subplots(1, 1)]
    y = np.arange(n)[::-1]
    a = result["anchor"]
    labels = []
    panels = [(axes[0], "elo", f"Elo from deck wins ({a} = 0)", f"Elo rating relative to {a} (95% interval)")]
    if both:
        panels.append((axes[1], "points", f"points a deal above {a}", f"points a deal minus {a}'s (95% interval)"))
    for ax, key, title, xlabel in panels:
        v = np.array([r[key] for r in rs])
        lo = np.array([r[key + "_lo"] for r in rs])
        hi = np.array([r[key + "_hi"] for r in rs])
        ax.axvline(0, color="#7f8c8d", lw=0.8, zorder=1)
        ax.errorbar(
            v, y, xerr=[v - lo, hi - v], fmt="o", color="#1f4e79", ecolor="#1f4e79", capsize=3, ms=5, zorder=3
        )
        texts = []
        for yy, vv, l_, h_ in zip(y, v, lo, hi):
            texts.append(
                ax.annotate(
                    f"{vv:+.0f} [{l_:+.0f}, {h_:+.0f}]",
                    (vv, yy),
                    xytext=(0, 7),
                    textcoords="offset points",
                    ha="center",
                    fontsize=7.5,
                    color="#222222",
                )
            )
        labels.append((ax, texts))
        ax.set_title(title, fontsize=10, loc="left")
        ax.set_xlabel(xlabel, fontsize=8.5)
        ax.grid(axis="x", color="#dddddd", lw=0.6)
        ax.set_ylim(-0.7, n - 0.4)
        span = max(hi.max() - lo.min(), 1.0)
        ax.set_xlim(lo.min() - 0.16 * span, hi.max() + 0.16 * span)
        ax.tick_params(labelsize=8)
    axes[0].set_yticks(
        y,
        [
            r["label"] + (" (anchor)" if r["label"] == a else " (won no deck)" if r.get("never_won") else "")
            for r in rs
        ],
        fontsize=9,
    )
    axes[0].set_ylabel("player (best first)", fontsize=8.5)
    slow = "; pairs with search: {:,} decks".format(result["slow_decks"]) if played_slow(result) else ""
    fig.suptitle(
        f"Strength ladder, {result.get('preset', '')}: round robin on duplicate deals\n"
        f"{result.get('decks', 0):,} decks a pair{slow}{'; ' if both else chr(10)}95% bootstrap intervals over decks",
        fontsize=9.5,
        x=EDGE_IN / fig.get_figwidth(),
        ha="left",
    )
    _keep_inside(fig, labels)
    return fig


def played_slow(result: dict) -> bool:
    """Whether a slow player (``search``) played, so that its pairs played ``slow_decks``."""
    return any(p.get("slow") for p in result.get("players") or ())


def footer_text(result: dict, version: str) -> str:
    """The chart's footer line: preset, seed, decks and package version (as the experiment
    charts' footnote)."""
    slow = f" ({result['slow_decks']:,} with search)" if played_slow(result) else ""
    return (
        f"preset {result.get('preset', '')}; round robin on duplicate deals, {result.get('decks', 0):,} decks a "
        f"pair{slow}, each played twice; seed {result.get('seed', '')}; tranca-sim {version}"
    )


def _keep_inside(fig, labels, pad: float = 4.0) -> None:
    """Slide each value label sideways until it lies inside its panel: a label centred over a
    point near the panel's edge (passive's -2243 at the far left) ran over the spine and into
    the player names or the other panel. ``labels``: ``[(axes, [annotation, ...]), ...]``;
    ``pad`` in pixels. The layout is drawn again after a move (constrained layout may shift
    the panels), at most three times."""
    for _ in range(3):
        fig.canvas.draw()
        renderer = fig.canvas.get_renderer()
        moved = False
        for ax, texts in labels:
            box = ax.get_window_extent(renderer)
            for t in texts:
                tb = t.get_window_extent(renderer)
                dx = 0.0
                if tb.x0 < box.x0 + pad:
                    dx = box.x0 + pad - tb.x0
                elif tb.x1 > box.x1 - pad:
                    dx = box.x1 - pad - tb.x1
                if abs(dx) > 0.5:
                    ox, oy = t.xyann
                    t.xyann = (ox + dx * 72.0 / fig.dpi, oy)  # offset points from pixels
                    moved = True
        if not moved:
            return


def _csv(path: Path, rows: list[dict], cols: list[str]) -> None:
    import polars as pl

    from ...io import atomic_output, writing

    df = pl.DataFrame([{c: r[c] for c in cols} for r in rows])
    with atomic_output(path, force=True) as tmp, writing(path):
        df.write_csv(tmp)


def report_markdown(result: dict) -> str:
    """``report.md`` of a ladder directory."""
    a = result["anchor"]
    slow = result["slow_decks"]
    fast = result["decks"]
    slow_pairs = [p for p in result["pairs"] if p["decks"] == slow and slow != fast]
    sd_slow = float(np.median([p["sd"] for p in slow_pairs])) if slow_pairs else math.nan
    hw = 1.96 * sd_slow / math.sqrt(slow) if slow_pairs else math.nan
    who = ", ".join(f"{p['label']} (`{p['strategy']}`)" for p in result["players"])
    lines = [
        f"# Strength ladder ({result['preset']})",
        "",
        "## Design",
        "",
        f"- **Players:** {who}.",
        (
            f"- **Round robin on duplicate deals:** every pair plays the same decks of master seed {result['seed']} "
            "twice, sides swapped (each player holds each hand once); all pairs share the decks (common decks). "
            f"{fast:,} decks a pair"
            + (
                f"; a pair with the search player {slow:,} (the first {slow:,} of the same decks)."
                if played_slow(result)
                else "."
            )
        ),
        "- **Unit:** the deck (a deal pair). Its value is the mean of its two score differences, points a deal.",
        (
            "- **Elo from deck wins:** a player wins a deck when it scores more than its opponent over the deck's "
            "two deals; a drawn deck counts half a win to each. Bradley-Terry maximum likelihood "
            "(`choix.ilsr_pairwise_dense`) on Elo's scale, P(i wins a deck) = 1 / (1 + 10^(-(R_i - R_j)/400)); "
            f"{result['prior_draws']:g} virtual drawn deck per pair keeps a player that never wins a deck finite. "
            f"{a} = 0."
        ),
        (
            "- **Points a deal:** weighted least squares of each pair's mean difference on r_i - r_j, pairs "
            f"weighted by the inverse variance of their mean; r is the points a deal a player scores above {a}. "
            "Shown as a rating only if it fits the pairs (section \"Does one points scale fit?\")."
        ),
        (
            f"- **Intervals:** 95% percentile bootstrap over decks ({result['bootstrap']:,} resamples), stratified "
            "so a drawn deck counts for every pair that played it. Pair table: Student t interval per pair."
        ),
    ]
    if slow_pairs:
        lines.append(
            f"- **Precision of the search pairs:** median per-deck sd {sd_slow:.0f} points, so a pair's mean "
            f"difference is known to about ±{hw:.0f} points a deal (95%) on {slow:,} decks, against "
            f"±{1.96 * float(np.median([p['sd'] for p in result['pairs'] if p['decks'] == fast])) / math.sqrt(fast):.0f}"
            f" for the other pairs on {fast:,}."
        )
    lines += [
        f"- **Cost:** {result['deals']:,} deals in {result['seconds']:.0f} s on {plural(result['threads'], 'thread')}.",
        f"- **Command:** `{result.get('command') or 'tranca-sim ladder'}`",
        "",
        "## Ratings",
        "",
        ratings_markdown(result),
        "![Strength ladder](ladder.png)",
        "",
        "Vector version: [ladder.svg](ladder.svg)",
        "",
        *(["## Does one points scale fit?", "", fit_markdown(result)] if result.get("points_fit") else []),
        "## Pairs",
        "",
        "Deck-win share in brackets: what the Elo ratings predict for the pair (a check of the model's fit).",
        "",
        pairs_markdown(result),
        (
            "Files: `ratings.csv`, `pairs.csv`, `units.parquet` (one row per pair and deck), `ladder.json`, "
            "`runs/` (each pair's two run files; `tranca-sim replay runs/II-JJ.ab.parquet --deal K`)."
        ),
        "",
    ]
    return "\n".join(lines)


def write_outputs(out_dir, result: dict, units: dict) -> list[Path]:
    """Write every file of the ladder directory but ``runs/`` (see the module doc)."""
    import polars as pl

    from ...io import atomic_output, writing
    from ..publish.charts import save_figure

    d = Path(out_dir)
    written = []
    p = d / "ladder.json"
    with atomic_output(p, force=True) as tmp, writing(p):
        Path(tmp).write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    written.append(p)
    rcols = [
        "rank",
        "label",
        "strategy",
        "elo",
        "elo_lo",
        "elo_hi",
        "points",
        "points_lo",
        "points_hi",
        "decks",
    ]
    _csv(d / "ratings.csv", result["ratings"], rcols)
    pcols = ["a", "b", "decks", "wins", "draws", "losses", "share", "expected", "mean", "lo", "hi", "sd"]
    _csv(d / "pairs.csv", result["pairs"], pcols)
    written += [d / "ratings.csv", d / "pairs.csv"]
    frames = [
        pl.DataFrame(
            {
                "i": np.full(len(e), i, np.int16),
                "j": np.full(len(e), j, np.int16),
                "deck": np.arange(len(e)),
                "e": e,
            }
        )
        for (i, j), e in units.items()
    ]
    p = d / "units.parquet"
    with atomic_output(p, force=True) as tmp, writing(p):
        pl.concat(frames).write_parquet(tmp)
    written.append(p)
    for name, text in (("ratings.md", ratings_markdown(result)), ("report.md", report_markdown(result))):
        p = d / name
        with atomic_output(p, force=True) as tmp, writing(p):
            Path(tmp).write_text(text, encoding="utf-8")
        written.append(p)
    written += save_figure(ladder_figure(result), d, "ladder")
    return written
