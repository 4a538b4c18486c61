"""The lab's charts, checked on the matplotlib figures: the footnote wraps between its items,
subtitles and long row labels stay inside the figure and clear of its edges, a note where a panel
has no point, the pooled baseline row labelled as such, legends that list only what is drawn, the
tune trace's phases on its x axis."""

from __future__ import annotations

import json
from pathlib import Path

import lab_synthetic as L
import numpy as np
import polars as pl

from tranca_sim.lab.ladder import ladder_report, tip_strength_report
from tranca_sim.lab.publish import charts, reports
from tranca_sim.lab.publish.chart_text import fit_titles
from tranca_sim.lab.tuning.tune_report import trace_figure

ROOT = Path(__file__).resolve().parents[1]
FOOT = (
    "experiment tranca-3p-tips · preset tranca-3p · design rotation · 2 000-10 000 decks "
    "(6 000-30 000 deals) per variant · seed 20261130 · tranca-sim 0.1.0"
)
INFO = charts.ChartInfo(
    "experiment x · preset tranca · seed 3", "basic (baseline)", "basic (baseline): pooled"
)
LONG = [
    "basic:black3_lock=1,morto_stock=0,clean_patience=3",
    "a rather long label for a variant that keeps going",
    "lock",
]


def _footnote_lines(fig) -> list[str]:
    return next(t for t in fig.texts if t.get_text().startswith("experiment ")).get_text().split("\n")


def test_the_footnote_wraps_between_items_never_inside_one():
    # the footnote of reports/tranca-3p-tips: textwrap broke "tranca-sim | 0.1.0"
    assert len(FOOT) > 150
    fig = charts.forest_plot(L.comparison().head(3), charts.ChartInfo(FOOT))
    lines = _footnote_lines(fig)
    assert len(lines) == 2 and lines[1] == "tranca-sim 0.1.0", lines
    assert " · ".join(lines) == FOOT
    for item in FOOT.split(" · "):
        assert any(item in line for line in lines), item
    # an item longer than a line is wrapped on its own
    assert charts.wrap_items("a · " + "x " * 10 + "· b", 8) == ["a", "x x x x", "x x x x", "x x · b"]


def _inside(fig, text) -> bool:
    fig.draw_without_rendering()
    return text.get_window_extent(fig.canvas.get_renderer()).x1 <= fig.bbox.x1


def test_a_subtitle_after_long_row_labels_stays_inside_the_figure():
    """The three-player score chart: labels 'opponent: basic (beside a variant)' push the axes right;
    its subtitle ran past the figure's right edge."""
    labels = ["basic (baseline)", "morto_stock=20", "opponent: basic (beside a variant), 42 chars"]
    rng = np.random.default_rng(1)
    scores = pl.DataFrame({"label": np.repeat(labels, 50), "score": rng.normal(400, 300, 150)})
    info = charts.ChartInfo(
        FOOT, "basic (baseline)", "basic (baseline): at an all-baseline table", "rotation", 3
    )
    fig = charts.score_distribution_plot(scores, info)
    ax = fig.axes[0]
    (sub,) = [t for t in ax.texts if t.get_text().startswith("every deal counts")]
    assert _inside(fig, sub)
    words = sub.get_text().replace("\n", " ")
    assert words.endswith("basic (baseline): at an all-baseline table")  # all of it, wrapped, not cut
    assert _inside(fig, ax.title) or ax.title.get_text() == ""


def test_binned_panels_without_a_point_say_why():
    data = L.report_data(Path("."), with_sweep=False)
    tiny = data.deals.filter(pl.col("deal_index") < 2)  # two deals: every point from < 30 side-deals
    data2 = reports.ReportData(data.dir, data.spec, data.comparison, None, tiny)
    info = charts.ChartInfo("foot", data.baseline_label)
    fig = charts.morto_turn_plot(reports.morto_turn_table(data2), info)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts).replace("\n", " ")
    assert "too few deals to draw: every point comes from fewer than 30 side-deals" in texts, texts
    assert fig.axes[0].get_legend() is None  # no strategy listed whose points are not drawn
    # nobody picked up a morto: said so
    never = tiny.with_columns(morto_turn=pl.lit(-1, dtype=tiny["morto_turn"].dtype))
    data3 = reports.ReportData(data.dir, data.spec, data.comparison, None, never)
    fig = charts.morto_turn_plot(reports.morto_turn_table(data3), info)
    texts = " ".join(t.get_text() for t in fig.axes[0].texts).replace("\n", " ")
    assert "no side picked up its morto in these deals" in texts, texts
    fig = charts.red3_plot(reports.red3_table(data2), info)
    for ax in fig.axes[:2]:
        said = " ".join(t.get_text() for t in ax.texts).replace("\n", " ")
        assert "too few deals to draw" in said or "no side-deal in which the side made" in said, said
    assert not fig.legends


def test_the_pooled_baseline_row_is_labelled_and_set_apart():
    data = L.report_data(Path("."), with_sweep=False)
    info = charts.ChartInfo("foot", data.baseline_label, reports.pooled_note(data, short=True), "duplicate")
    scores = reports._in_order(data.deals.select("label", "score"), reports._order(data))
    for fig in (
        charts.score_distribution_plot(scores, info),
        charts.end_reason_plot(reports.end_reason_table(data), info),
    ):
        ax = fig.axes[0]
        ticks = [t.get_text() for t in ax.get_yticklabels()]
        assert ticks[0] == f"{data.baseline_label}\npooled over the variants", ticks
        assert sum("pooled" in t for t in ticks) == 1  # drawn once, on top
        rules = [ln for ln in ax.lines if ln.get_linestyle() == "--"]
        assert len(rules) == 1  # the rule between it and the variants
    fig = charts.morto_turn_plot(reports.morto_turn_table(data), info)
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend[0] == "basic (baseline, pooled)", legend
    # fixed-opponent design: no pooled row, plain labels
    plain = charts.ChartInfo("foot", data.baseline_label)
    ticks = [t.get_text() for t in charts.score_distribution_plot(scores, plain).axes[0].get_yticklabels()]
    assert ticks[0] == data.baseline_label


def test_the_sweep_legend_lists_only_marks_drawn():
    sweep = pl.DataFrame(
        {"param": ["morto_stock"] * 3, "value": [30.0, 15.0, 0.0], "variant": ["a", "b", "c"],
         "n_units": [1] * 3, "mean": [0.0, -315.0, -315.0], "lo": [np.nan] * 3, "hi": [np.nan] * 3,
         "p_value": [np.nan] * 3, "p_holm": [np.nan] * 3}
    )  # fmt: skip
    fig = charts.sweep_plot(sweep, charts.ChartInfo("foot", "basic (baseline)"))
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert legend == ["not tested (too few deals)"], legend  # no interval band, no red point, no test
    c = L.comparison().head(3).with_columns(holm_significant=pl.Series([True] * 3))
    legend = [
        t.get_text() for t in charts.forest_plot(c, charts.ChartInfo("f")).axes[0].get_legend().get_texts()
    ]
    assert legend == ["significant after Holm correction (3 of the 3 drawn)"]


def test_the_tune_trace_names_its_phases_on_the_x_axis():
    rows = [{"round": 1, "stage": "search", "trial": i, "mean": float(i)} for i in range(40)]
    conf = {"mean": 30.0, "lo": 25.0, "hi": 35.0, "decks": 100}
    result = {
        "rounds": [
            {"round": 1, "opponent_label": "basic", "played": 40, "confirmation": conf, "selection_mean": 33.0,
             "beats_opponent": True}
        ],
        "final": conf, "preset": "tranca", "base_label": "basic", "champion_label": "basic:x=1",
        "opponent_label": "basic",
    }  # fmt: skip
    fig = trace_figure(rows, result)
    ax = fig.axes[0]
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[-2:] == ["selection", "confirmation"], ticks
    assert all(float(x) <= 40 for x in ax.get_xticks()[:-2])  # numbered ticks only under the search
    assert ax.get_xlabel().startswith("search: each candidate")


# ---- titles and subtitles keep clear of the figure's edges (every chart that is saved) ---------
INFO_3P = charts.ChartInfo(
    FOOT, "basic (baseline)", "basic (baseline): at an all-baseline table", "rotation", 3
)


def _clear_of_the_edges(fig) -> list[str]:
    """The titles and subtitles of ``fig`` that end less than 2.5% of its width (0.2 inch) from its
    left or right edge (empty: all clear)."""
    fig.draw_without_rendering()
    r = fig.canvas.get_renderer()
    lo, hi = fig.bbox.x0 + 0.025 * fig.bbox.width, fig.bbox.x1 - 0.025 * fig.bbox.width
    texts = [entry[1] for entry in getattr(fig, "_subtitles", [])]
    if getattr(fig, "_suptitle", None) is not None:
        texts.append(fig._suptitle)
    for ax in fig.axes:
        texts += [t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text()]
    bad = []
    for t in texts:
        box = t.get_window_extent(r)
        if box.x1 > hi + 0.5 or (box.x0 < lo - 0.5 and t.get_ha() != "left"):
            bad.append(f"{t.get_text()!r}: {box.x0:.0f}..{box.x1:.0f} of {fig.bbox.width:.0f} px")
    return bad


def test_the_three_player_deal_endings_subtitle_keeps_clear_of_the_right_edge():
    """reports/tranca-3p-tips/deal_endings.png: the subtitle ended 10 px from the figure's edge."""
    labels = ["basic (baseline)", "black3_lock=1", "morto_rush=1", "opponent: basic (beside a variant)"]
    ends = pl.DataFrame(
        {"label": np.repeat(labels, 3), "end": ["side_went_out", "other_went_out", "stock_out"] * 4,
         "share": [0.28, 0.55, 0.17] * 4}
    )  # fmt: skip
    fig = charts.end_reason_plot(ends, INFO_3P)
    (sub,) = [t for t in fig.axes[0].texts if t.get_text().startswith("bater = going out")]
    assert _clear_of_the_edges(fig) == []
    assert sub.get_text().replace("\n", " ").endswith("basic (baseline): at an all-baseline table")


def test_every_saved_chart_keeps_its_titles_clear_of_the_edges(tmp_path):
    """Experiment charts, the tune trace, the ladder and the tips-by-strength chart, as saved."""
    from unittest import mock

    from tranca_sim.lab.ladder import ladder_report, tip_strength_report
    from tranca_sim.lab.tuning import tune_report

    figs = []
    real_save = charts.save_figure

    def keep(fig, out_dir, name):
        figs.append((name, fig))
        return real_save(fig, out_dir, name)

    data = L.report_data(tmp_path, with_sweep=True)
    long = "a long sweep note that says what the parameter means, " * 4
    data.spec["sweep"] = {"note": long}
    with mock.patch.object(charts, "save_figure", keep):
        reports.write_report(tmp_path, data)
    rows = [{"round": 1, "stage": "search", "trial": i, "mean": float(i)} for i in range(40)]
    conf = {"mean": 30.0, "lo": 25.0, "hi": 35.0, "decks": 100}
    result = {
        "rounds": [
            {"round": 1, "opponent_label": "basic:" + "clean_patience=3," * 8, "played": 40,
             "confirmation": conf, "selection_mean": 33.0, "beats_opponent": True}
        ],
        "final": conf, "preset": "tranca", "base_label": "basic", "champion_label": "basic:" + "x=1," * 40,
        "opponent_label": "basic",
    }  # fmt: skip
    fig = tune_report.trace_figure(rows, result)
    real_save(fig, tmp_path, "trace")
    figs.append(("trace", fig))
    assert {n for n, _ in figs} >= {
        "tip_effects",
        "score_distribution",
        "sweep",
        "morto_turn",
        "deal_endings",
    }
    for name, fig in figs:
        assert _clear_of_the_edges(fig) == [], name
    assert ladder_report and tip_strength_report  # their charts are saved by the same save_figure


def _long_label_charts():
    """Every lab chart with row (or series) labels, drawn with long labels."""
    c = L.comparison().head(3).with_columns(variant=pl.Series(LONG))
    rng = np.random.default_rng(1)
    labels = ["basic (baseline)", *LONG]
    scores = pl.DataFrame({"label": np.repeat(labels, 60), "score": rng.normal(300, 200, 240)})
    ends = pl.DataFrame(
        {
            "label": np.repeat(labels, 2),
            "end": ["side_went_out", "other_went_out"] * 4,
            "share": [0.6, 0.4] * 4,
        }
    )
    morto = pl.DataFrame(
        {"label": np.repeat(labels, 2), "bin": ["0-3", "never taken"] * 4, "bin_order": [0, 1] * 4,
         "n": [40] * 8, "mean_score": [300.0, -100.0] * 4, "lo": [250.0, -150.0] * 4, "hi": [350.0, -50.0] * 4}
    )  # fmt: skip
    red3 = pl.DataFrame(
        {"label": np.repeat(labels, 2), "red3_count": [0, 1] * 4, "has_canasta": [True, False] * 4,
         "n": [40] * 8, "mean_score": [300.0, -100.0] * 4, "lo": [250.0, -150.0] * 4, "hi": [350.0, -50.0] * 4}
    )  # fmt: skip
    ladder = json.loads((ROOT / "reports/ladder/ladder.json").read_text(encoding="utf-8"))
    strength = json.loads((ROOT / "reports/tips-vs-strength/results.json").read_text(encoding="utf-8"))
    return {
        "tip_effects": charts.forest_plot(c, INFO),
        "score_distribution": charts.score_distribution_plot(scores, INFO),
        "deal_endings": charts.end_reason_plot(ends, INFO),
        "morto_turn": charts.morto_turn_plot(morto, INFO),
        "red3": charts.red3_plot(red3, INFO),
        "sweep": charts.sweep_plot(L.sweep(), INFO),
        "ladder": ladder_report.ladder_figure(ladder),
        "tips_strength": tip_strength_report.figure(strength),
    }


def test_long_row_labels_and_the_numbers_right_of_the_axes_keep_clear_of_the_edges():
    """Long row labels began 4-8 px from the image's left edge (tip effects, score distribution,
    deal endings, tips by strength), the ladder's y label 5 px, and the tip chart's numbers and the
    binned panels' frames ended as close to the right edge. Everything drawn (text, frames,
    legends, footnote) now keeps at least 0.14 inch (15 px in the PNG files) from both edges."""
    for name, fig in _long_label_charts().items():
        fit_titles(fig)  # as saved
        fig.draw_without_rendering()
        box = fig.get_tightbbox(fig.canvas.get_renderer())  # inches
        assert box.x0 >= 0.14, (name, box.x0)
        assert fig.get_figwidth() - box.x1 >= 0.14, (name, fig.get_figwidth() - box.x1)


def test_a_subtitle_of_two_lines_ends_with_more_than_one_word():
    """The three-player one-deck tip chart's subtitle ended on a line of its own word "tested"."""
    from matplotlib.figure import Figure

    from tranca_sim.lab.publish.chart_text import _title

    ax = Figure().add_subplot()
    sub = "mean over decks; too few decks (1 deck a variant) for a 95% interval, so no variant is tested"
    _title(ax, "How many points per deal each tip gains", sub, 90)
    lines = ax.figure._subtitles[0][1].get_text().split("\n")
    assert len(lines) == 2 and " " in lines[-1], lines
    assert " ".join(lines) == sub


def test_red3_title_is_two_lines():
    data = L.report_data(__import__("pathlib").Path("."), with_sweep=False)
    fig = charts.red3_plot(reports.red3_table(data), charts.ChartInfo("foot"), "drawn: a note")
    assert fig._suptitle.get_text().count("\n") == 1  # title and one line of notes
