"""Charts of an experiment (matplotlib, Agg backend, one :class:`~matplotlib.figure.Figure` each).

Every function takes the tables of :mod:`tranca_sim.lab.publish.reports` (polars
DataFrames) and a :class:`ChartInfo` (the footnote and the baseline's label)
and returns a new ``Figure``; nothing touches pyplot's global state, so the
functions are safe in scripts, notebooks and tests.  :func:`save_figure`
writes a figure as PNG and SVG, atomically and byte-for-byte reproducibly.
What the charts share (:class:`ChartInfo`, the figure and its footnote, row labels, legends,
:func:`save_figure`) is in :mod:`tranca_sim.lab.publish.chart_base`; this module draws each chart.

All score axes are in **points per deal** (the score of one side in one deal,
``score`` of docs/schema.md); differences are variant minus baseline.
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import polars as pl
from matplotlib.figure import Figure
from matplotlib.lines import Line2D

from ..._plural import plural
from .chart_base import (  # noqa: F401 (ChartInfo, PNG_DPI, WIDTH, save_figure: public here too)
    _FAILED,
    _FOOT_IN,
    _NOT,
    _SERIES,
    _SIG,
    _UNTESTED,
    _UNTESTED_LABEL,
    _UNTESTED_MARK,
    EDGE_IN,
    MIN_BIN_N,
    PNG_DPI,
    WIDTH,
    ChartInfo,
    _baseline_row,
    _below,
    _empty,
    _figure,
    _mark_baseline_row,
    _mean_ci_text,
    _row_labels,
    _series_legend,
    _untested_handle,
    _with_pooled,
    save_figure,
)
from .chart_text import FOOT_SEP, _fitted, _title, fit_titles, wrap_items  # noqa: F401 (FOOT_SEP, fit_titles: public here too)

#: a strategy's scores below this many are drawn one by one, not as a density and a box
MIN_DENSITY_N = 20
_DOT = "#1b4f72"  # one score, where too few are drawn for a density

END_LABELS = {
    "side_went_out": "this side went out (bater)",
    "other_went_out": "the other side went out",
    "stock_out": "stock ran out",
    "turn_limit": "turn limit reached",
}
END_COLORS = {
    "side_went_out": "#2e86c1",
    "other_went_out": "#aed6f1",
    "stock_out": "#f5b041",
    "turn_limit": "#7f8c8d",
}


# ---- forest plot -----------------------------------------------------------------------
@_fitted
def forest_plot(comparison: pl.DataFrame, info: ChartInfo, family: int | None = None) -> Figure:
    """Forest plot: each variant's mean score difference against the baseline with its
    ``1 - info.alpha`` interval (95% by default), sorted by effect, a zero line, Holm-significant
    variants (``holm_significant``: adjusted p at most the experiment's alpha) in red.

    Parameters
    ----------
    comparison : polars.DataFrame
        :func:`tranca_sim.lab.publish.tables.comparison_table` (columns ``variant, mean, lo, hi,
        holm_significant, n_units, unit`` used).
    family : int, optional
        Number of comparisons the Holm correction ran over (default: the rows drawn).
    """
    c = comparison.sort("mean")
    n = c.height
    fig = _figure(max(2.8, 1.7 + 0.36 * n), info)
    ax = fig.add_subplot()
    title = f"How many points per deal each tip gains or loses against {info.baseline}"
    if info.design == "rotation":
        title = (
            "How many points per deal each tip gains or loses against two "
            f"{info.baseline.removesuffix(' (baseline)')} players"
        )
    if n == 0:
        _empty(ax, "no comparisons")
        _title(ax, title)
        return fig
    y = np.arange(n)
    mean, lo, hi = (c[k].to_numpy().astype(float) for k in ("mean", "lo", "hi"))
    sig = c["holm_significant"].to_numpy().astype(bool)
    has_ci = np.isfinite(lo) & np.isfinite(hi)  # too few units (one deck): no interval
    # a tip whose manipulation check fails (tranca_sim/lab/statistics/checks.py) is not that tip's value: grey,
    # hatched, and said so in its label
    verdict = c["check"].to_list() if "check" in c.columns else [None] * n
    failed = np.array([v in ("FAILS", "no change") for v in verdict])
    sig = sig & ~failed
    for i in range(n):
        color = _FAILED if failed[i] else (_SIG if sig[i] else _NOT)
        if has_ci[i]:
            ax.plot([lo[i], hi[i]], [y[i], y[i]], color=color, lw=2, solid_capstyle="butt")
        if np.isfinite(mean[i]) and not has_ci[i]:  # no interval, so no test: its own mark
            ax.plot(mean[i], y[i], _UNTESTED_MARK, color=_UNTESTED, ms=6, mfc="white")
        elif np.isfinite(mean[i]):
            ax.plot(
                mean[i], y[i], "o" if sig[i] else "s", color=color, ms=6, mfc=color if sig[i] else "white"
            )
    ax.axvline(0, color="black", lw=0.8)
    labels = [textwrap.shorten(v, 42, placeholder="…") for v in c["variant"].to_list()]
    labels = [
        f"{v} (no change)" if verdict[i] == "no change" else (f"{v} (check fails)" if failed[i] else v)
        for i, v in enumerate(labels)
    ]
    ax.set_yticks(y, labels)
    for i, t in enumerate(ax.get_yticklabels()):
        if failed[i]:
            t.set_color(_FAILED)
            t.set_style("italic")
    ax.set_ylim(-0.7, n - 0.3)
    ends = np.r_[lo, hi, mean]
    ends = ends[np.isfinite(ends)]
    if ends.size == 0:
        ends = np.zeros(1)
    span = max(float(np.abs(ends).max()), 1.0)
    ax.set_xlim(min(-0.05 * span, ends.min() - 0.05 * span), max(0.05 * span, ends.max() + 0.05 * span))
    # the numbers, right of the axes
    for i in range(n):
        ax.annotate(
            _mean_ci_text(mean[i], lo[i], hi[i]),
            xy=(1.01, y[i]),
            xycoords=("axes fraction", "data"),
            va="center",
            fontsize=8,
            color=_FAILED if failed[i] else (_SIG if sig[i] else "#333333"),
        )
    tested = bool(has_ci.any())  # one deck: no interval for any variant, so no test and no red mark
    drawn = f"points per deal, {info.level} interval" if tested else "points per deal"
    if info.design == "rotation":
        ax.set_xlabel(
            f"margin: variant − mean of the two {info.baseline.removesuffix(' (baseline)')} players at its "
            f"table ({drawn})"
        )
    else:
        ax.set_xlabel(f"score difference, variant − {info.baseline} ({drawn})")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    units = c["unit"][0] if "unit" in c.columns else "deck"
    k = int(sig.sum())
    # only the marks drawn; the red one also when none of the tested variants is significant (its count
    # says so), not when no variant could be tested (one deck: no interval, no p)
    handles = []
    if tested:
        handles.append(
            Line2D(
                [],
                [],
                color=_SIG,
                marker="o",
                lw=2,
                label=f"significant after Holm correction ({k} of the {n} drawn)",
            )
        )
    if (has_ci & ~sig).any():
        handles.append(
            Line2D([], [], color=_NOT, marker="s", mfc="white", lw=2, label="not significant after Holm")
        )
    if (~has_ci & np.isfinite(mean)).any():
        handles.append(_untested_handle())
    if failed.any():
        handles.append(
            Line2D(
                [], [], color=_FAILED, marker="s", mfc="white", lw=2,
                label="grey: fails its check or changes no play (not the tip's value)",
            )
        )  # fmt: skip
    ax.annotate(
        f"mean [{info.level} interval]",
        xy=(1.01, n - 0.3),
        xycoords=("axes fraction", "data"),
        va="bottom",
        fontsize=8,
        color="#333333",
        style="italic",
    )
    ax.legend(
        handles=handles, loc="upper center", **_below(fig, ax),
        ncol=2, fontsize=8, frameon=False,
    )  # fmt: skip
    fam = n if family is None else family
    # the correction ran over the whole family; the chart may draw fewer (the tips, not the sweep)
    over = plural(fam, "comparison") if fam == n else f"the experiment's {fam} comparisons ({n} drawn)"
    if tested:
        sub = (
            f"mean over {units}s with {info.level} interval; "
            f"red: Holm-adjusted p <= {info.alpha:g} over {over}"
        )
    else:  # what is drawn: the means alone
        most = c["n_units"].max() if "n_units" in c.columns else None
        per = f" ({plural(int(most), units)} a variant)" if most is not None and np.isfinite(most) else ""
        sub = (
            f"mean over {units}s; too few {units}s{per} for a {info.level} interval, so no variant is tested"
        )
    # ending short of the axes' right end, where the "mean [95% interval]" header stands
    _title(ax, title, sub, 90, within_axes=True)
    return fig


# ---- score distributions -------------------------------------------------------------
@_fitted
def score_distribution_plot(scores: pl.DataFrame, info: ChartInfo) -> Figure:
    """Distribution of the per-deal score of each strategy: violin, quartile box, 5-95%
    whiskers and the mean (diamond).  A strategy with fewer than :data:`MIN_DENSITY_N` scores
    (a one-deck experiment has two) gets no density or box: each of its scores is drawn as a
    dot, with the mean.

    Parameters
    ----------
    scores : polars.DataFrame
        Columns ``label`` (str, one group per label, plotted top to bottom in order of
        first appearance) and ``score`` (points per deal), e.g.
        :func:`tranca_sim.lab.publish.reports.score_table`.
    """
    labels = scores["label"].unique(maintain_order=True).to_list()
    n = len(labels)
    fig = _figure(max(3.0, 1.7 + 0.42 * n), info)
    ax = fig.add_subplot()
    title = "Score of a side in one deal, by strategy"
    if n == 0:
        _empty(ax, "no deals")
        _title(ax, title)
        return fig
    data = [scores.filter(pl.col("label") == lab)["score"].to_numpy().astype(float) for lab in labels]
    pos = np.arange(n)[::-1]
    dense = [i for i, d in enumerate(data) if len(d) >= MIN_DENSITY_N]
    few = [i for i, d in enumerate(data) if 0 < len(d) < MIN_DENSITY_N]
    if dense:
        parts = ax.violinplot(
            [data[i] for i in dense], positions=pos[dense], orientation="horizontal", widths=0.8,
            showextrema=False,
        )  # fmt: skip
        for body in parts["bodies"]:
            body.set_facecolor("#aed6f1")
            body.set_edgecolor("#5dade2")
            body.set_alpha(0.7)
        ax.boxplot(
            [data[i] for i in dense],
            positions=pos[dense],
            orientation="horizontal",
            widths=0.22,
            whis=(5, 95),
            showfliers=False,
            patch_artist=True,
            boxprops={"facecolor": "white", "edgecolor": "#1b4f72"},
            medianprops={"color": "#1b4f72"},
            whiskerprops={"color": "#1b4f72"},
            capprops={"color": "#1b4f72"},
        )
    for i in few:  # each score on its row; equal ones side by side in height, not hiding each other
        d = np.sort(data[i])
        first = np.searchsorted(d, d, side="left")
        ties = np.searchsorted(d, d, side="right") - first
        up = (np.arange(len(d)) - first - (ties - 1) / 2) * 0.12
        ax.plot(d, pos[i] + up, "o", color=_DOT, ms=4, mfc="none", ls="")
    means = [float(np.mean(d)) if len(d) else np.nan for d in data]
    ax.plot(means, pos, "D", color=_SIG, ms=5, label="mean")
    ax.set_yticks(pos, _row_labels(labels, info))
    ax.set_ylim(-0.6, n - 0.4)  # the same rows with or without violins
    _mark_baseline_row(ax, labels, pos, info)
    ax.axvline(0, color="black", lw=0.6)
    ax.set_xlabel("score of the side in the deal (points per deal)")
    ax.grid(axis="x", color="#dddddd", lw=0.6)
    ax.set_axisbelow(True)
    handles = [Line2D([], [], color=_SIG, marker="D", ls="", label="mean")]
    if dense:
        handles.append(
            Line2D([], [], color="#1b4f72", lw=1.5, label="box: quartiles and median; whiskers: 5% and 95%")
        )
    if few:
        handles.append(Line2D([], [], color=_DOT, marker="o", mfc="none", ls="", label="one deal's score"))
    ax.legend(
        handles=handles, loc="upper center", **_below(fig, ax),
        ncol=len(handles), fontsize=8, frameon=False,
    )  # fmt: skip
    said = ["every deal counts once per side the strategy played"]
    if dense:
        said.append("shaded: density of the scores")
    if few:
        said.append(
            f"fewer than {MIN_DENSITY_N} scores: each drawn, no density or box"
            if dense
            else f"each score drawn: too few (fewer than {MIN_DENSITY_N}) for a density or quartiles"
        )
    _title(ax, title, _with_pooled("; ".join(said), info))
    return fig


# ---- sweep curves ----------------------------------------------------------------------
@_fitted
def sweep_plot(
    sweep: pl.DataFrame,
    info: ChartInfo,
    note: str = "",
    baseline_value: float | None = None,
    family: int | None = None,
) -> Figure:
    """One panel per swept parameter: the mean score difference against the baseline at each
    value, with its ``1 - info.alpha`` band (95% by default); points whose Holm-adjusted p-value
    is at most the experiment's ``info.alpha`` in red, the legend saying the level.  The grid values are
    evenly spaced (a categorical axis: a grid such as 0, 5, ..., 40, 108 leaves no empty gap).

    Parameters
    ----------
    sweep : polars.DataFrame
        :func:`tranca_sim.lab.publish.tables.sweep_table` (``param, value, mean, lo, hi, p_holm``).
    note : str
        What the parameter means (the experiment file's ``[sweep] note``), the subtitle.
    baseline_value : float, optional
        The swept parameter's value in the baseline strategy (its difference is 0 by definition):
        on the grid, that value's tick is marked "(baseline)"; off the grid or not played (basic's default
        ``morto_stock=108`` beside a grid 30, 15, 0), it gets its own category in value order,
        a black diamond at 0 and a tick marked "(baseline)", and the legend says it was not
        played as a grid point.
    family : int, optional
        Number of comparisons the Holm correction ran over (the experiment's variants, tips and
        grid points: :func:`tranca_sim.lab.publish.tables.sweep_table`); named in the legend.
    """
    holm = "Holm" if family is None else f"Holm over the experiment's {plural(family, 'comparison')}"
    params = sweep["param"].unique(maintain_order=True).to_list()
    k = max(len(params), 1)
    fig = _figure(1.4 + 3.0 * k, info)
    axes = fig.subplots(k, 1, squeeze=False)[:, 0]
    for ax, param in zip(axes, params):
        s = sweep.filter(pl.col("param") == param).sort("value")
        values = s["value"].to_numpy().astype(float)
        x = np.arange(len(values), dtype=float)  # evenly spaced: the grid is categorical
        off_grid = baseline_value is not None and math.isfinite(baseline_value) and baseline_value not in values
        if off_grid:  # the baseline's own value gets its own category, in value order
            bx = float(np.searchsorted(values, baseline_value))
            x = np.where(np.arange(len(values)) >= bx, x + 1, x)
        m, lo, hi = (s[c].to_numpy().astype(float) for c in ("mean", "lo", "hi"))
        sig = s["p_holm"].to_numpy().astype(float) <= info.alpha  # holm_significant of the tip table
        # the legend lists only what is drawn: no interval (too few units), no significant point ...
        if np.isfinite(lo).any() and np.isfinite(hi).any():
            ax.fill_between(x, lo, hi, color="#aed6f1", alpha=0.8, lw=0, label=f"{info.level} interval")
        ax.plot(x, m, "-", color="#1b4f72", lw=1.5)
        shown = np.isfinite(m)
        tested = np.isfinite(s["p_holm"].to_numpy().astype(float))  # one deck: no interval, no p
        if (~sig & tested & shown).any():
            no = ~sig & tested
            not_sig = f"not significant after {holm}: adjusted p > {info.alpha:g}"
            ax.plot(x[no], m[no], "s", color=_NOT, mfc="white", ls="", label=not_sig)
        if (~tested & shown).any():
            ax.plot(
                x[~tested],
                m[~tested],
                _UNTESTED_MARK,
                color=_UNTESTED,
                mfc="white",
                ls="",
                label=_UNTESTED_LABEL,
            )
        if (sig & shown).any():
            is_sig = f"significant after {holm}: adjusted p ≤ {info.alpha:g}"
            ax.plot(x[sig], m[sig], "o", color=_SIG, ls="", label=is_sig)
        if off_grid:
            ax.plot(
                [bx], [0.0], "D", color="black", ms=6, ls="",
                label=f"baseline's own value ({baseline_value:g}; not played, difference 0 by definition)",
            )  # fmt: skip
        ax.axhline(0, color="black", lw=0.8)
        ax.set_xlabel(f"value of {param} (grid values evenly spaced, not to scale)")
        ax.set_ylabel(f"variant − {info.baseline}\n(points per deal)")
        ax.grid(color="#eeeeee", lw=0.6)
        ticks = [f"{v:g}" + ("\n(baseline)" if v == baseline_value else "") for v in values]
        if off_grid:
            ticks.insert(int(bx), f"{baseline_value:g}\n(baseline)")
            x = np.arange(len(ticks), dtype=float)
        ax.set_xticks(x, ticks)
        if len(x) > 12:
            ax.tick_params(axis="x", labelsize=7)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(fontsize=8, loc="best", framealpha=0.9)
        _title(ax, f"Score difference against {info.baseline} as {param} changes", note)
    if not params:
        _empty(axes[0], "no sweep in this experiment")
    return fig


# ---- binned means ---------------------------------------------------------------------
def _binned(ax, table: pl.DataFrame, xcol: str, order: list, info: ChartInfo | None = None) -> int:
    """Mean score with its 95% interval for each x category, one offset series per label; the
    number of points drawn (points from fewer than :data:`MIN_BIN_N` side-deals are not)."""
    labels = table["label"].unique(maintain_order=True).to_list()
    drawn = 0
    width = 0.7 / max(len(labels), 1)
    x0 = np.arange(len(order))
    for j, lab in enumerate(labels):
        t = table.filter((pl.col("label") == lab) & (pl.col("n") >= MIN_BIN_N))
        at = {v: i for i, v in enumerate(order)}
        xs = np.array([at[v] for v in t[xcol].to_list()], dtype=float) + (j - (len(labels) - 1) / 2) * width
        m, lo, hi = (t[c].to_numpy().astype(float) for c in ("mean_score", "lo", "hi"))
        color = _SERIES[j % len(_SERIES)]
        drawn += len(xs)
        if not len(xs):  # nothing of this strategy drawn: no legend entry either
            continue
        if info is not None and lab == info.baseline:
            lab = _baseline_row(info, legend=True) or lab
        ax.errorbar(
            xs,
            m,
            yerr=[m - lo, hi - m],
            fmt="o",
            ms=4,
            color=color,
            ecolor=color,
            elinewidth=1.2,
            capsize=2,
            label=textwrap.shorten(lab, 40, placeholder="…"),
        )
    ax.set_xticks(x0, [str(v) for v in order])
    ax.set_xlim(-0.6, len(order) - 0.4)  # each category inside the panel, also with nothing drawn
    ax.grid(axis="y", color="#eeeeee", lw=0.6)
    ax.set_axisbelow(True)
    return drawn


def _none_drawn(ax, table: pl.DataFrame, nothing: str, lead: str = "") -> None:
    """Say in an axes where :func:`_binned` drew no point why: ``nothing`` when ``table`` has no
    row (e.g. no side-deal in which the side made a canasta), else that every point comes from
    fewer than :data:`MIN_BIN_N` side-deals; ``lead`` is said first."""
    if table.height == 0:
        why = nothing
    else:
        why = (
            f"too few deals to draw: every point comes from fewer than {MIN_BIN_N} side-deals "
            f"(the most: {int(table['n'].max())}); play more deals"
        )
    ax.text(0.5, 0.5, "\n".join(textwrap.wrap(lead + why, 48)), ha="center", va="center",
            transform=ax.transAxes, color="#555555", fontsize=9)  # fmt: skip
    ax.tick_params(axis="y", left=False, labelleft=False)  # no scale: nothing drawn on it


@_fitted
def morto_turn_plot(morto: pl.DataFrame, info: ChartInfo, note: str = "") -> Figure:
    """Mean final score by the turn the side took its morto (binned), with 95% intervals;
    "never taken" is its own category at the right.

    Parameters
    ----------
    morto : polars.DataFrame
        :func:`tranca_sim.lab.publish.reports.morto_turn_table`.
    note : str
        Said after the subtitle (e.g. which strategies are drawn).
    """
    fig = _figure(4.6, info)
    ax = fig.add_subplot()
    order = morto.select("bin", "bin_order").unique().sort("bin_order")["bin"].to_list()
    if not _binned(ax, morto, "bin", order, info):
        none_taken = morto.height > 0 and morto.filter(pl.col("bin") != "never taken").height == 0
        _none_drawn(
            ax, morto, "no deals", "no side picked up its morto in these deals; " if none_taken else ""
        )
    _series_legend(fig, ax)
    if order and order[-1] == "never taken":
        ax.axvline(len(order) - 1.5, color="#999999", lw=0.8, ls=":")
    turns = dict(morto.select("bin", "deal_turns").unique("bin").rows()) if "deal_turns" in morto.columns else {}
    if turns and order:  # under each bin, how long its deals ran: the selection made visible
        ax.set_xticks(
            ax.get_xticks(),
            [f"{b}\n{turns[b]:.0f}" if turns.get(b) is not None else b for b in order],
        )
    ax.tick_params(axis="x", labelsize=8)
    ax.set_xlabel(
        f"turn the side took its morto ({info.seats} turns = a round)"
        + ("; under it, the mean turns of those deals" if turns else "")
    )
    ax.set_ylabel("final score of the side\n(points per deal, mean and 95% interval)")
    _title(
        ax,
        "Final score by when the side took its morto (observed, not an effect of timing)",
        _with_pooled(
            "who takes the morto when is not chosen at random: a morto is taken late only in a long deal, "
            "and a long deal leaves more turns to meld, so later pickups come with higher scores. "
            "Whether taking it later wins or loses is what a variant that changes the timing "
            "(e.g. morto_stock) measures in the tip table and sweep. A morto never taken costs 100; "
            f"points from fewer than {MIN_BIN_N} side-deals left out" + (f"; {note}" if note else ""),
            info,
        ),
    )
    return fig


def red3_plot(red3: pl.DataFrame, info: ChartInfo, note: str = "") -> Figure:
    """Mean final score by the number of red 3s the side laid down, in two panels: the side
    made a canasta (red 3s count +100 each) or not (-100 each, 000 Scoring).

    Parameters
    ----------
    red3 : polars.DataFrame
        :func:`tranca_sim.lab.publish.reports.red3_table`.
    note : str
        Said under the title (e.g. which strategies are drawn).
    """
    fig = _figure(4.7, info, legend_in=0.3)
    axes = fig.subplots(1, 2, sharey=True)
    order = sorted(red3["red3_count"].unique().to_list()) or [0]
    for ax, has, name in ((axes[0], True, "side made a canasta"), (axes[1], False, "side made no canasta")):
        t = red3.filter(pl.col("has_canasta") == has)
        if not _binned(ax, t, "red3_count", order, info):
            _none_drawn(ax, t, f"no side-deal in which the {name}")
        ax.set_xlabel("red 3s of the side (count)")
        ax.set_title(name, fontsize=9, loc="left")
    seen = {}  # the strategies drawn in either panel, once each
    for ax in axes:
        for h, lab in zip(*ax.get_legend_handles_labels()):
            seen.setdefault(lab, h)
    handles, labels = list(seen.values()), list(seen)
    if handles:  # a figure legend in the space kept free above the footnote, outside the layout
        fig.legend(
            handles, labels, loc="lower center", bbox_to_anchor=(0.5, _FOOT_IN / fig.get_figheight()),
            ncol=min(4, len(handles)), fontsize=8, frameon=False,
        )  # fmt: skip
    axes[0].set_ylabel("final score of the side\n(points per deal, mean and 95% interval)")
    sub = f"points from fewer than {MIN_BIN_N} side-deals left out" + (f"; {note}" if note else "")
    title = "Final score by the number of red 3s the side held\n" + "\n".join(textwrap.wrap(f"({sub})", 125))
    fig.suptitle(title, fontsize=9, x=EDGE_IN / fig.get_figwidth(), ha="left")
    return fig


# ---- how deals end -------------------------------------------------------------------
@_fitted
def end_reason_plot(ends: pl.DataFrame, info: ChartInfo) -> Figure:
    """Stacked horizontal bars: for each strategy, the share of its deals that ended with its
    side going out, the other side going out, the stock running out, or the turn limit.

    Parameters
    ----------
    ends : polars.DataFrame
        :func:`tranca_sim.lab.publish.reports.end_reason_table` (``label, end, share``).
    """
    labels = ends["label"].unique(maintain_order=True).to_list()
    n = len(labels)
    fig = _figure(max(2.8, 1.9 + 0.36 * n), info)
    ax = fig.add_subplot()
    pos = np.arange(n)[::-1]
    left = np.zeros(n)
    for key, name in END_LABELS.items():
        if key == "other_went_out" and info.seats == 3:
            name = "another player went out"
        share = np.array(
            [
                float(ends.filter((pl.col("label") == lab) & (pl.col("end") == key))["share"].sum())
                for lab in labels
            ]
        )
        if not share.any():
            continue
        ax.barh(pos, share * 100, left=left * 100, color=END_COLORS[key], label=name, height=0.65)
        for p, lft, s in zip(pos, left, share):
            if s >= 0.06:
                ax.text((lft + s / 2) * 100, p, f"{s:.0%}", ha="center", va="center", fontsize=7.5)
        left += share
    ax.set_yticks(pos, _row_labels(labels, info))
    _mark_baseline_row(ax, labels, pos, info)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of the strategy's deals (%)")
    ax.legend(fontsize=8, ncol=2, loc="upper center", frameon=False, **_below(fig, ax))
    _title(
        ax,
        "How the deals ended, by strategy",
        _with_pooled("bater = going out; stock out and turn limit end without it", info),
    )
    return fig
