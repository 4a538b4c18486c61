"""Holm's family is every comparison of the experiment, and the tip chart says so when it draws
fewer. (The sweep table adjusted its p-values with Holm over the sweep's points
alone (report.md: morto_stock=30 p Holm 0.0421) while the console table, the tip chart and the
Design section's "family-wise error 5% over all 6 variants" used all the variants (0.0444).)"""

from __future__ import annotations

import textwrap

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest

from tranca_sim.cli import main
from tranca_sim.lab.experiments.experiment import load_experiment
from tranca_sim.lab.publish import charts
from tranca_sim.lab.publish.tables import comparison_table, sweep_table

SWEEP = """
title = "Two tips and a short sweep"
question = "Do they change the score per deal?"
preset = "tranca-2p"
baseline = "basic"
design = "duplicate"
seed = 5
batch = 60
budget = 60
[[variants]]
label = "lock"
strategy = "basic:black3_lock=1"
[[variants]]
label = "reserve"
strategy = "basic:wild_reserve=1"
[sweep]
strategy = "basic"
param = "morto_stock"
grid = [30, 0]
"""


def _holm(p):
    """Holm's step-down adjustment, written out: the k-th smallest p times (m - k), running max."""
    p = np.asarray(p, dtype=float)
    order = np.argsort(p)
    m = len(p)
    adj = np.empty(m)
    run = 0.0
    for k, i in enumerate(order):
        run = max(run, min(1.0, (m - k) * p[i]))
        adj[i] = run
    return adj


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("holm")
    toml = d / "sweep.toml"
    toml.write_text(textwrap.dedent(SWEEP), encoding="utf-8")
    assert main(["experiment", str(toml), "--out", str(d / "out")]) == 0
    return d / "out"


def test_sweep_points_are_adjusted_over_all_variants(sweep_dir):
    exp = load_experiment(sweep_dir)
    comp = comparison_table(exp)
    assert comp.height == 4
    holm_all = dict(zip(comp["variant"].to_list(), _holm(comp["p_value"].to_numpy())))
    sw = sweep_table(exp)
    assert sw.height == 2
    for v, ph in zip(sw["variant"].to_list(), sw["p_holm"].to_list()):
        assert ph == pytest.approx(holm_all[v], rel=1e-12)
        assert ph == comp.filter(comp["variant"] == v)["p_holm"][0]  # the tip table's figure


def test_report_names_one_family(sweep_dir):
    report = (sweep_dir / "report.md").read_text(encoding="utf-8")
    assert "over all 4 variants" in report
    assert "Holm over all 4 variants, the same family as the tip table" in report
    assert "sweep's points" not in report


def test_sweep_chart_names_the_family():
    import polars as pl

    from tranca_sim.lab.publish import charts

    sweep = pl.DataFrame(
        {"param": ["morto_stock"] * 3, "value": [0.0, 15.0, 30.0], "variant": ["a", "b", "c"],
         "n_units": [50, 50, 50], "mean": [-20.0, 5.0, 1.0], "lo": [-30.0, -4.0, -8.0],
         "hi": [-10.0, 14.0, 10.0], "p_value": [0.001, 0.3, 0.8], "p_holm": [0.006, 1.0, 1.0]}
    )  # fmt: skip
    fig = charts.sweep_plot(sweep, charts.ChartInfo("foot", "basic"), family=6)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert "significant after Holm over the experiment's 6 comparisons: adjusted p ≤ 0.05" in labels
    assert "not significant after Holm over the experiment's 6 comparisons: adjusted p > 0.05" in labels


def test_forest_plot_says_when_the_holm_family_is_larger_than_drawn():
    """The tip chart draws the tips; Holm ran over all the experiment's comparisons (a fresh user
    saw 'over 11 comparisons' above a legend saying '1 of 1')."""
    c = L.comparison().head(2).with_columns(holm_significant=pl.Series([True, False]))
    for family, said in (
        (2, "over 2 comparisons"),
        (11, "over the experiment's 11 comparisons (2 drawn)"),
    ):
        fig = charts.forest_plot(c, charts.ChartInfo("footnote"), family=family)
        ax = fig.axes[0]
        texts = " ".join(t.get_text() for t in ax.texts).replace("\n", " ")
        assert said in texts, texts
        assert "significant after Holm correction (1 of the 2 drawn)" in [
            t.get_text() for t in ax.get_legend().get_texts()
        ]
