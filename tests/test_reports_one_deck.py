"""Experiments too small for an interval (one deck a variant, or a few deals): report.md's tables
say n/a, the charts draw the points without intervals and say "not tested", draw too few scores as
dots rather than a density, and the captions say what the charts draw."""

from __future__ import annotations

import textwrap

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest
from experiment_files import write_spec as _write

from tranca_sim.cli import main
from tranca_sim.lab.publish import charts

INFO = charts.ChartInfo(
    "experiment x · preset tranca · seed 3", "basic (baseline)", "basic (baseline): pooled"
)
LONG = [
    "basic:black3_lock=1,morto_stock=0,clean_patience=3",
    "a rather long label for a variant that keeps going",
    "lock",
]

ONE_DECK_SWEEP = """
title = "A sweep on one deck"
question = "Does holding the morto back change anything?"
baseline = "basic"
seed = 3
batch = 2
budget = 2
[sweep]
strategy = "basic"
param = "morto_stock"
grid = [30, 0]
"""


@pytest.fixture(scope="module")
def one_deck_sweep(tmp_path_factory):
    from tranca_sim.lab.experiments.experiment import run_experiment

    d = tmp_path_factory.mktemp("one")
    (d / "one.toml").write_text(textwrap.dedent(ONE_DECK_SWEEP), encoding="utf-8")
    run_experiment(d / "one.toml", d / "out", progress=False)
    return d / "out"


def test_one_deck_sweep_table_says_n_a(one_deck_sweep):
    """`experiment experiments/example.toml --deals 2`: report.md's sweep table said
    `[NaN, NaN] | nan | nan` where the console and the tip table say n/a (one deck: no interval)."""
    text = (one_deck_sweep / "report.md").read_text(encoding="utf-8")
    table = text.split("## Sweep table", 1)[1].split("##", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| morto_stock")]
    assert len(rows) == 2, table
    for line in rows:
        assert "nan" not in line.lower(), line
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[4:] == ["n/a", "n/a", "n/a"], cells  # interval, p, p Holm


def _legend(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_one_deck_charts_say_not_tested_and_list_only_drawn_marks(tmp_path):
    """A one-deck experiment's tip chart labelled its points "not significant after Holm" and its
    legend showed the red "significant (0 of 3 drawn)" though no interval, hence no test, was
    drawn. Now: "not tested (too few deals)", and only the marks drawn are listed."""
    import lab_synthetic as L
    import numpy as np
    import polars as pl

    from tranca_sim.lab.publish import charts

    info = charts.ChartInfo("foot", "basic (baseline)")
    c = L.comparison().head(3)
    none = c.with_columns(lo=pl.lit(np.nan), hi=pl.lit(np.nan), holm_significant=pl.lit(False))
    fig = charts.forest_plot(none, info)
    assert _legend(fig) == ["not tested (too few deals)"]
    fig.savefig(tmp_path / "one_deck_tips.png")
    # one tested and not significant, one significant, one not tested: all three marks, the count of red
    mixed = c.with_columns(
        lo=pl.Series([np.nan, -5.0, 1.0]), hi=pl.Series([np.nan, 5.0, 9.0]),
        holm_significant=pl.Series([False, False, True]),
    )  # fmt: skip
    assert _legend(charts.forest_plot(mixed, info)) == [
        "significant after Holm correction (1 of the 3 drawn)",
        "not significant after Holm",
        "not tested (too few deals)",
    ]
    sweep = pl.DataFrame(
        {"param": ["morto_stock"] * 3, "value": [30.0, 15.0, 0.0], "variant": ["a", "b", "c"],
         "n_units": [1, 5, 5], "mean": [0.0, -15.0, 20.0], "lo": [np.nan, -30.0, 5.0], "hi": [np.nan, 0.5, 35.0],
         "p_value": [np.nan, 0.06, 0.01], "p_holm": [np.nan, 0.06, 0.02]}
    )  # fmt: skip
    fig = charts.sweep_plot(sweep, info)
    assert _legend(fig) == [
        "95% interval", "not significant after Holm: adjusted p > 0.05", "not tested (too few deals)",
        "significant after Holm: adjusted p ≤ 0.05",
    ]  # fmt: skip
    fig.savefig(tmp_path / "one_deck_sweep.png")


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
    many = pl.DataFrame(
        {"label": ["basic (baseline)"] * 60 + ["lock"] * 60, "score": rng.normal(300, 200, 120)}
    )
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

    from tranca_sim.lab.publish import reports

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


def test_forest_plot_draws_a_point_without_interval():
    # one deck per variant: the Student t interval is NaN (n - 1 = 0 degrees of freedom)
    c = L.comparison().head(3).with_columns(
        lo=pl.Series([np.nan, -5.0, np.nan]), hi=pl.Series([np.nan, 5.0, np.nan]),
        mean=pl.Series([10.0, 1.0, np.nan]),
    )  # fmt: skip
    fig = charts.forest_plot(c, charts.ChartInfo("footnote"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "+10.0 [n/a]" in texts and "+1.0 [-5.0, +5.0]" in texts and "n/a [n/a]" in texts
    lo, hi = fig.axes[0].get_xlim()
    assert np.isfinite([lo, hi]).all() and lo < -5 and hi > 10


def test_two_deals_give_a_report_with_na(tmp_path, capsys):
    out = tmp_path / "out"
    assert (
        main(["experiment", str(_write(tmp_path)), "--out", str(out), "--deals", "2", "--no-progress"]) == 0
    )
    md = (out / "report.md").read_text()
    assert "| n/a |" in md and (out / "tip_effects.png").is_file()
    assert main(["report", str(out)]) == 0
