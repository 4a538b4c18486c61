"""The sweep chart marks significance at the experiment's ``[stopping] alpha``, as the tip table
does (``holm_significant``: Holm-adjusted p at most alpha), and says the level; it used a fixed
0.05, so with ``alpha = 0.01`` a grid point with Holm-adjusted p 0.03 was drawn red while the
tip table said it was not significant."""

from __future__ import annotations

import dataclasses

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest

from tranca_sim.lab.publish import charts, reports


def _sweep_figure(tmp_path, monkeypatch, alpha):
    """The sweep figure write_report draws for the synthetic experiment with ``alpha``; one grid
    point (value 4) has Holm-adjusted p 0.03, between 0.01 and 0.05."""
    data = L.report_data(tmp_path, with_sweep=True)
    spec = dict(data.spec, stopping=dict(data.spec["stopping"], alpha=alpha))
    sweep = data.sweep.with_columns(p_holm=pl.Series([1.0, 0.4, 0.03, 0.0004, 0.0004]))
    data = dataclasses.replace(data, spec=spec, sweep=sweep)
    drawn = {}
    monkeypatch.setattr(charts, "save_figure", lambda fig, d, name: drawn.setdefault(name, fig) and [])
    reports.write_report(tmp_path, data)
    return drawn["sweep"]


def _red_values(fig) -> set[float]:
    """The grid values of the points drawn as significant (their tick labels)."""
    ax = fig.axes[0]
    ticks = zip(ax.get_xticks(), ax.get_xticklabels())
    ticks = {float(t): lab.get_text().split("\n")[0] for t, lab in ticks}
    (line,) = [ln for ln in ax.get_lines() if ln.get_label().startswith("significant")]
    return {float(ticks[float(x)]) for x in np.asarray(line.get_xdata(), float)}


@pytest.mark.parametrize(
    ("alpha", "red", "level"), [(0.01, {6.0, 8.0}, "99%"), (0.05, {4.0, 6.0, 8.0}, "95%")]
)
def test_the_sweep_chart_marks_significance_at_the_experiments_alpha(
    tmp_path, monkeypatch, alpha, red, level
):
    fig = _sweep_figure(tmp_path, monkeypatch, alpha)
    assert _red_values(fig) == red
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert f"{level} interval" in labels
    sig = [lab for lab in labels if lab.startswith("significant after Holm")]
    not_sig = [lab for lab in labels if lab.startswith("not significant after Holm")]
    assert len(sig) == 1 and sig[0].endswith(f": adjusted p ≤ {alpha:g}"), labels
    assert len(not_sig) == 1 and not_sig[0].endswith(f": adjusted p > {alpha:g}"), labels


def test_the_tip_chart_says_the_experiments_level(tmp_path, monkeypatch):
    info = charts.ChartInfo("foot", "basic (baseline)", alpha=0.01)
    fig = charts.forest_plot(L.comparison(), info)
    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    assert "mean [99% interval]" in texts
    assert any("99% interval; red: Holm-adjusted p <= 0.01" in t for t in texts), texts
    assert not any("95%" in t or "0.05" in t for t in texts), texts
