"""Findings the fresh users' rounds left open, in the charts: long row labels and the numbers right
of the axes touching the image's edges, and one-deck experiments' charts (a subtitle about red
marks none of which is drawn, densities drawn from two or three scores). The cache pruning they
also found is tests/test_cache_prune.py."""

from __future__ import annotations

import json
from pathlib import Path

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest

from tranca_sim.lab import charts, ladder_report, tip_strength_report
from tranca_sim.lab.chart_text import fit_titles

ROOT = Path(__file__).resolve().parents[1]
INFO = charts.ChartInfo("experiment x · preset tranca · seed 3", "basic (baseline)", "basic (baseline): pooled")
LONG = [
    "basic:black3_lock=1,morto_stock=0,clean_patience=3",
    "a rather long label for a variant that keeps going",
    "lock",
]


def _long_label_charts():
    """Every lab chart with row (or series) labels, drawn with long labels."""
    c = L.comparison().head(3).with_columns(variant=pl.Series(LONG))
    rng = np.random.default_rng(1)
    labels = ["basic (baseline)", *LONG]
    scores = pl.DataFrame({"label": np.repeat(labels, 60), "score": rng.normal(300, 200, 240)})
    ends = pl.DataFrame(
        {"label": np.repeat(labels, 2), "end": ["side_went_out", "other_went_out"] * 4, "share": [0.6, 0.4] * 4}
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


def _subtitle(fig) -> str:
    return fig._subtitles[0][1].get_text().replace("\n", " ")


def test_one_deck_tip_chart_says_only_what_is_drawn():
    """A one-deck experiment's tip chart: no interval, so no test and no red mark, but the subtitle
    said "red: Holm-adjusted p < 0.05 over 2 comparisons" (running into the "mean [95% interval]"
    header over the numbers when the row labels were long) and the x label "95% interval"."""
    c = L.comparison().head(2).with_columns(
        variant=pl.Series(LONG[1:]), lo=pl.lit(np.nan), hi=pl.lit(np.nan), n_units=pl.lit(1),
        holm_significant=pl.lit(False), p_holm=pl.lit(np.nan),
    )  # fmt: skip
    fig = charts.forest_plot(c, INFO)
    sub = _subtitle(fig)
    assert "red" not in sub and "Holm" not in sub, sub
    assert "1 deck" in sub and "no variant is tested" in sub, sub
    assert "interval" not in fig.axes[0].get_xlabel(), fig.axes[0].get_xlabel()
    # with intervals (tested) the red marks are explained as before
    # (labels of 19 to 31 characters put the one-line subtitle's end over the header)
    mid = pl.Series(["lock", "black3_lock=1,morto_rush=1"])
    tested = charts.forest_plot(L.comparison().head(2).with_columns(variant=mid), INFO)
    assert "red: Holm-adjusted p <= 0.05 over 2 comparisons" in _subtitle(tested)
    for f in (fig, tested):  # the subtitle ends left of the header over the numbers
        f.draw_without_rendering()
        r = f.canvas.get_renderer()
        (header,) = [t for t in f.axes[0].texts if t.get_text() == "mean [95% interval]"]
        assert f._subtitles[0][1].get_window_extent(r).x1 < header.get_window_extent(r).x0, _subtitle(f)


def _violins(fig) -> int:
    from matplotlib.collections import PolyCollection

    return sum(isinstance(c, PolyCollection) for c in fig.axes[0].collections)


def _legend(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


@pytest.mark.parametrize("per_label", [2, 3, 19])
def test_too_few_scores_are_drawn_one_by_one_not_as_a_density(per_label):
    """`score_distribution` drew a density (and quartiles) from the two or three scores of a one-deck
    experiment. Under 20 scores a strategy's scores are drawn as dots, one a score (ties side by
    side), with the mean; the subtitle and legend name no density or box."""
    scores = pl.DataFrame(
        {"label": np.repeat(["basic (baseline)", "lock"], per_label),
         "score": np.r_[np.full(per_label - 1, -220.0), 955.0, np.linspace(0, 900, per_label)]}
    )  # fmt: skip
    fig = charts.score_distribution_plot(scores, INFO)
    assert _violins(fig) == 0
    dots = [ln for ln in fig.axes[0].lines if ln.get_marker() == "o"]
    assert sum(len(ln.get_xdata()) for ln in dots) == 2 * per_label
    heights = [(x, y) for ln in dots for x, y in zip(ln.get_xdata(), ln.get_ydata())]
    assert len(set(heights)) == 2 * per_label  # the equal scores (-220) do not hide each other
    assert _legend(fig) == ["mean", "one deal's score"]
    sub = _subtitle(fig)
    assert "density of" not in sub and "each score drawn" in sub, sub


def test_enough_scores_keep_their_density_and_a_mixed_chart_says_both():
    rng = np.random.default_rng(2)
    many = pl.DataFrame({"label": ["basic (baseline)"] * 60 + ["lock"] * 60, "score": rng.normal(300, 200, 120)})
    fig = charts.score_distribution_plot(many, INFO)
    assert _violins(fig) == 2
    assert _legend(fig) == ["mean", "box: quartiles and median; whiskers: 5% and 95%"]
    assert "shaded: density of the scores" in _subtitle(fig)
    mixed = pl.concat([many.head(60), pl.DataFrame({"label": ["lock"] * 3, "score": [0.0, 10.0, 20.0]})])
    fig = charts.score_distribution_plot(mixed, INFO)
    assert _violins(fig) == 1
    assert _legend(fig) == ["mean", "box: quartiles and median; whiskers: 5% and 95%", "one deal's score"]
    sub = _subtitle(fig)
    assert "shaded: density of the scores" in sub and "fewer than 20 scores: each drawn" in sub, sub


def test_one_deck_report_captions_say_what_the_charts_draw(tmp_path):
    """report.md's captions under the one-deck charts said "red: significant after the Holm
    correction", "density (shaded), quartiles" and "with its 95% band" like the charts' subtitles
    did, though none of these is drawn."""
    import dataclasses

    from tranca_sim.lab import reports

    data = L.report_data(tmp_path, with_sweep=True)
    nan = {"lo": pl.lit(np.nan), "hi": pl.lit(np.nan), "n_units": pl.lit(1)}
    one = dataclasses.replace(
        data,
        comparison=data.comparison.with_columns(**nan),
        sweep=data.sweep.with_columns(**nan, p_value=pl.lit(np.nan), p_holm=pl.lit(np.nan)),
        deals=data.deals.filter(pl.col("deal_index") == 0),  # one deck: each strategy's score or two
    )
    reports.write_report(tmp_path, one)
    charts_md = (tmp_path / "report.md").read_text(encoding="utf-8").split("## Charts", 1)[1]
    tips = charts_md.split("### Tip effects", 1)[1].split("###", 1)[0]
    assert "red" not in tips and "no variant is tested" in tips, tips
    dist = charts_md.split("### Score distributions", 1)[1].split("###", 1)[0]
    assert "density (shaded)" not in dist and "each score as a dot" in dist, dist
    sweep = charts_md.split("### Sweep", 1)[1].split("###", 1)[0]
    assert "with its 95% band" not in sweep and "no value is tested" in sweep, sweep
    # with intervals and enough deals, the captions as before
    reports.write_report(tmp_path, data)
    charts_md = (tmp_path / "report.md").read_text(encoding="utf-8").split("## Charts", 1)[1]
    assert "red: significant after the Holm correction" in charts_md.split("### Score", 1)[0]
    assert "density (shaded), quartiles" in charts_md and "dot" not in charts_md
    assert "with its 95% band." in charts_md


def test_a_subtitle_of_two_lines_ends_with_more_than_one_word():
    """The three-player one-deck tip chart's subtitle ended on a line of its own word "tested"."""
    from matplotlib.figure import Figure

    from tranca_sim.lab.chart_text import _title

    ax = Figure().add_subplot()
    sub = "mean over decks; too few decks (1 deck a variant) for a 95% interval, so no variant is tested"
    _title(ax, "How many points per deal each tip gains", sub, 90)
    lines = ax.figure._subtitles[0][1].get_text().split("\n")
    assert len(lines) == 2 and " " in lines[-1], lines
    assert " ".join(lines) == sub
