"""A fresh user's finding: the sweep chart did not mark the baseline's value when it is off the
grid (experiments/example.toml: grid 30, 15, 0; basic's default morto_stock=108), while the README
says the chart marks "the baseline's own value"."""

from __future__ import annotations

from types import SimpleNamespace

import polars as pl

from tranca_sim.lab.publish import charts
from tranca_sim.lab.publish.reports import _sweep_baseline_value

SWEEP = pl.DataFrame(
    {"param": ["morto_stock"] * 3, "value": [0.0, 15.0, 30.0], "variant": ["a", "b", "c"],
     "n_units": [50, 50, 50], "mean": [-480.0, -240.0, -9.0], "lo": [-500.0, -260.0, -17.0],
     "hi": [-460.0, -220.0, -1.0], "p_value": [1e-6, 1e-6, 0.04], "p_holm": [1e-5, 1e-5, 0.04]}
)  # fmt: skip


def _markers(ax, marker):
    return [ln for ln in ax.get_lines() if ln.get_marker() == marker]


def test_off_grid_baseline_gets_its_own_category_at_zero():
    fig = charts.sweep_plot(SWEEP, charts.ChartInfo("foot", "basic"), "hold the morto", 108.0)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "15", "30", "108\n(baseline)"]
    assert list(ax.get_xticks()) == [0, 1, 2, 3]
    (diamond,) = _markers(ax, "D")
    assert list(diamond.get_xdata()) == [3.0] and list(diamond.get_ydata()) == [0.0]
    assert any("baseline's own value (108; not played" in t for t in ax.get_legend_handles_labels()[1])


def test_off_grid_baseline_inside_the_grid_goes_in_value_order():
    fig = charts.sweep_plot(SWEEP, charts.ChartInfo("foot", "basic"), "", 5.0)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "5\n(baseline)", "15", "30"]
    (diamond,) = _markers(ax, "D")
    assert list(diamond.get_xdata()) == [1.0]
    # the grid points skip the baseline's category: 0 at x 0, 15 at x 2, 30 at x 3
    pts = [ln for ln in ax.get_lines() if ln.get_marker() in ("o", "s")]
    xs = sorted(float(x) for ln in pts for x in ln.get_xdata())
    assert xs == [0.0, 2.0, 3.0]


def test_on_grid_baseline_has_no_extra_category():
    fig = charts.sweep_plot(SWEEP, charts.ChartInfo("foot", "basic"), "", 15.0)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "15\n(baseline)", "30"]
    assert not _markers(ax, "D")


def _data(point_rest: str):
    base = "basic:take_pile_min=3,morto_stock=108,run_pile_share=0.25"
    comp = pl.DataFrame(
        {"variant": ["tip", "morto_stock=30"], "strategy": ["basic:take_pile_min=2,morto_stock=108,run_pile_share=0.25",
                                                            f"basic:{point_rest}"],
         "baseline": [base, base], "param": [None, "morto_stock"], "value": [None, 30.0]}
    )  # fmt: skip
    return SimpleNamespace(comparison=comp, sweep=SWEEP)


def test_the_baselines_own_value_is_read_from_its_strategy():
    assert _sweep_baseline_value(_data("take_pile_min=3,morto_stock=30,run_pile_share=0.25")) == 108.0
    # the sweep's other parameters are not the baseline's: the baseline is not on this curve
    assert _sweep_baseline_value(_data("take_pile_min=2,morto_stock=30,run_pile_share=0.25")) is None


def test_sweep_axis_is_categorical_with_the_baseline_marked():
    sweep = pl.DataFrame(
        {"param": ["morto_stock"] * 4, "value": [108.0, 40.0, 20.0, 0.0], "variant": ["a", "b", "c", "d"],
         "n_units": [10] * 4, "mean": [0.0, -5.0, -20.0, -40.0], "lo": [0.0, -9.0, -25.0, -45.0],
         "hi": [0.0, -1.0, -15.0, -35.0], "p_value": [1.0, 0.01, 0.001, 0.001], "p_holm": [1.0, 0.02, 0.003, 0.003]}
    )  # fmt: skip
    fig = charts.sweep_plot(sweep, charts.ChartInfo("foot", "basic (baseline)"), "hold the morto", 108.0)
    ax = fig.axes[0]
    assert list(ax.get_xticks()) == [0, 1, 2, 3]  # evenly spaced, not 0..108 to scale
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0", "20", "40", "108\n(baseline)"]
    assert any(t.get_text() == "hold the morto" for t in ax.texts)
