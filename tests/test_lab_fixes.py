"""A fresh user's findings in the lab: too few deals for an interval, a failing report over a good
directory, odd --deals in the duplicate design, the experiment file checked before --out."""

from __future__ import annotations

import json
import re
import textwrap

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest

from tranca_sim.cli import main
from tranca_sim.lab import charts, reports
from tranca_sim.lab.spec import SpecError, load_spec

TINY = """
title = "Two tips, a very quick look"
question = "Do two tips change the score per deal of basic?"
baseline = "basic"
seed = 3
batch = 1000
budget = 1000
[[variants]]
label = "wild in reserve"
strategy = "basic:wild_reserve=1"
[[variants]]
label = "partner"
strategy = "basic:partner=1"
"""


def _write(tmp_path, text=TINY, name="tiny.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


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


def test_a_failing_report_leaves_the_good_directory(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    p = _write(tmp_path)
    assert main(["experiment", str(p), "--out", str(out), "--deals", "4", "--no-progress"]) == 0
    before = {f.relative_to(out): f.read_bytes() for f in out.rglob("*") if f.is_file()}
    assert "report.md" in {f.name for f in before}

    def broken(*a, **k):
        raise ValueError("Axis limits cannot be NaN or Inf")

    monkeypatch.setattr(reports, "write_report", broken)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(p), "--out", str(out), "--deals", "6", "--no-progress", "--force"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"tranca-sim: error: [^\n]+\n", err) and "left as it was" in err
    after = {f.relative_to(out): f.read_bytes() for f in out.rglob("*") if f.is_file()}
    assert after == before  # the old experiment, whole
    assert [q.name for q in tmp_path.iterdir() if q.name.startswith(".")] == []  # no temporary left
    with pytest.raises(SystemExit) as e:  # `tranca-sim report` with a bug in the report: one line
        main(["report", str(out)])
    assert e.value.code == 1
    assert re.fullmatch(r"tranca-sim: error: [^\n]+NaN or Inf\)\n", capsys.readouterr().err)
    # no directory to replace: the runs are kept, the message says how to write the report
    new = tmp_path / "new"
    with pytest.raises(SystemExit):
        main(["experiment", str(p), "--out", str(new), "--deals", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert "tranca-sim report" in err and (new / "experiment.json").is_file()
    assert json.loads((new / "experiment.json").read_text())["budget"] == 2


def test_odd_deals_refused_in_the_duplicate_design(tmp_path):
    p = _write(tmp_path)
    with pytest.raises(SpecError, match=r"--deals must be even in the duplicate design.*got 5; give 4 or 6"):
        load_spec(p, deals_cap=5)
    assert load_spec(p, deals_cap=6)["budget"] == 6
    fixed = _write(tmp_path, TINY.replace('baseline = "basic"', 'baseline = "basic"\ndesign = "fixed-opponent"'
                                          '\nopponent = "random"'), "fixed.toml")  # fmt: skip
    assert load_spec(fixed, deals_cap=5)["budget"] == 5  # one deal per unit: odd is fine


def test_missing_experiment_file_is_named_before_out(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(tmp_path / "nonexist.toml"), "--out", str(tmp_path / "full")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "nonexist.toml" in err and "not empty" not in err


def test_pooled_baseline_is_said_in_report_and_charts(tmp_path):
    d = tmp_path / "syn"
    d.mkdir()
    data = L.report_data(d, with_sweep=True)
    note = reports.pooled_note(data)
    assert "pools the baseline's deals against every variant" in note
    reports.write_report(d, data)
    md = (d / "report.md").read_text()
    for section in ("## Score of each strategy", "## How deals end"):
        assert note in md.split("\n" + section + "\n")[1].split("##")[0]
    info = charts.ChartInfo("foot", data.baseline_label, reports.pooled_note(data, short=True))
    fig = charts.end_reason_plot(reports.end_reason_table(data), info)
    assert any("against every variant, pooled" in t.get_text().replace("\n", " ") for t in fig.axes[0].texts)
    fixed = reports.ReportData(d, dict(data.spec, design="fixed-opponent"), data.comparison, None, data.deals)
    assert reports.pooled_note(fixed) == ""  # the baseline plays only the opponent there


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


def test_red3_title_is_two_lines():
    data = L.report_data(__import__("pathlib").Path("."), with_sweep=False)
    fig = charts.red3_plot(reports.red3_table(data), charts.ChartInfo("foot"), "drawn: a note")
    assert fig._suptitle.get_text().count("\n") == 1  # title and one line of notes


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
