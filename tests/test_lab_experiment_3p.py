"""Experiments at the solo tables, end to end with the engine: tranca-3p through the rotation
design (the variant in each seat against two baseline seats on the same decks) and tranca-2p
through the ordinary duplicate design."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import polars as pl
import pytest

from tranca_sim.cli import main
from tranca_sim.io import load_meta, load_run
from tranca_sim.lab.experiments.experiment import load_experiment, run_experiment
from tranca_sim.lab.publish.reports import score_table
from tranca_sim.lab.publish.tables import (
    COMPARISON_COLUMNS,
    comparison_table,
    deal_table,
    largest_differences,
    paired_units,
)

THREE = """
title = "Three-player handicaps"
question = "Does a handicapped player lose points at a three-player table?"
preset = "tranca-3p"
baseline = "basic"
seed = 13
batch = 300
budget = 600
[stopping]
half_width = 1
[[variants]]
label = "random"
strategy = "random"
[[variants]]
label = "same as the baseline"
strategy = "basic"
play_anyway = true
"""

HANDS = ["deal_index", "side", "first_seat", "hand0_wilds", "hand0_jokers", "hand0_red3", "hand0_black3"]


def write(tmp_path, text, name="exp.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def three(tmp_path_factory):
    d = tmp_path_factory.mktemp("three")
    res = run_experiment(write(d, THREE), d / "out", progress=False)
    return res, load_experiment(d / "out")


def test_rotation_runs_put_the_variant_in_each_seat_on_the_same_decks(three):
    res, exp = three
    spec = json.loads((exp.dir / "experiment.json").read_text())
    assert spec["design"] == "rotation" and spec["unit"] == "deck"
    # the variant equal to the baseline has an interval of width 0 at the first look: it stops there
    assert spec["deals_played"] == {"random": 600, "same as the baseline": 300}
    assert spec["stopped_by"] == {"random": "budget", "same as the baseline": "half-width"}
    # 100 decks a look: the control table and three runs for each variant still playing
    assert res["deals"] == 100 * (1 + 3 * 2) + 100 * (1 + 3)
    runs = {(r.label, r.role): r for r in exp.runs}
    control = load_run(runs["baseline", "control"].path)
    assert control["strategy"].unique().to_list() == ["basic"] and control.height == 3 * 200
    for k in range(3):
        run = runs["random", f"s{k}"]
        x = load_run(run.path)
        assert x.height == 3 * 200
        # random sits in seat k, basic in the other two
        for seat in range(3):
            want = "random" if seat == k else "basic"
            assert x.filter(pl.col("side") == seat)["strategy"].unique().to_list() == [want]
        assert [s["text"] for s in load_meta(run.path)["strategies"]][k] == "random"
        # the same deck in every run: same deal indices, same first seat, same initial hands
        assert x.select(HANDS).equals(control.select(HANDS))


def test_variant_equal_to_the_baseline_is_exactly_zero_on_every_deck(three):
    """The three rotations of basic against basic replay the control table deal for deal (same
    decks, same seat streams), so each deck's margin and own-score gain are 0 exactly."""
    _, exp = three
    pu = paired_units(exp, "same as the baseline")
    assert len(pu.units) == 100
    assert np.all(pu.units == 0) and np.all(pu.own_units == 0)
    # while a single table's margins are not 0: the rotation is what cancels the deck's luck
    m = pu.match_a[:, 0] - (pu.match_b[:, 0] + pu.match_c[:, 0]) / 2
    assert np.any(m != 0)


def test_handicapped_player_loses_at_three_players(three):
    _, exp = three
    t = comparison_table(exp)
    assert t.columns == list(COMPARISON_COLUMNS)
    r = t.row(by_predicate=pl.col("variant") == "random", named=True)
    assert r["design"] == "rotation" and r["unit"] == "deck" and r["n_units"] == 200 and r["n_deals"] == 600
    assert r["hi"] < 0 and r["holm_significant"] and r["mean"] < -200
    assert "confidence sequence" in r["interval"]
    assert r["lo"] <= r["t_lo"] and r["t_hi"] <= r["hi"]
    assert r["own_hi"] < 0 and r["own_lo"] < r["own_gain"] < r["own_hi"]
    assert r["win_share_diff"] < -0.2 and r["win_p"] < 1e-4
    assert r["going_out_variant"] < r["going_out_baseline"]
    # a three-player match: the fair share is 1/3, random wins far fewer
    assert r["match_win_prob"] < 0.1 and "fair share 1/3" in r["match_method"]
    assert 0 < r["var_ratio_design"] and 0 < r["var_ratio_own"]
    assert r["mean"] == pytest.approx(paired_units(exp, "random").units.mean())
    same = t.row(by_predicate=pl.col("variant") == "same as the baseline", named=True)
    assert same["mean"] == 0 and not same["holm_significant"]


def test_deal_table_labels_and_largest_differences(three):
    _, exp = three
    dt = deal_table(exp, columns=["score"])
    assert dt.height == 3 * (200 + 3 * 200 + 3 * 100)
    v = dt.filter(pl.col("is_variant"))
    # one row of the three at each variant table is the variant's
    assert v.height == 3 * 200 + 3 * 100
    assert set(v.filter(pl.col("run_label") == "random")["strategy"].to_list()) == {"random"}
    assert v.group_by("role").len().sort("role")["len"].to_list() == [300, 300, 300]
    labels = set(score_table(exp)["label"].to_list())
    assert labels == {
        "basic (baseline)",
        "random",
        "same as the baseline",
        "opponent: basic (beside a variant)",
    }
    big = largest_differences(exp, "random", k=3)
    assert {"margin_s0", "margin_s1", "margin_s2", "own_gain", "run_s0", "run_control"} <= set(big.columns)
    m = big.select("margin_s0", "margin_s1", "margin_s2").to_numpy().mean(axis=1)
    np.testing.assert_allclose(m, big["difference"].to_numpy())
    # the control table's seat margins sum to 0, so the seats' changes average to the difference too
    ch = big.select("change_s0", "change_s1", "change_s2").to_numpy().mean(axis=1)
    np.testing.assert_allclose(ch, big["difference"].to_numpy(), atol=1e-9)


def test_report_states_the_three_player_design(three):
    _, exp = three
    md = (exp.dir / "report.md").read_text()
    assert "three-player rotation" in md and "the variant in seat 0, then 1, then 2" in md
    assert "**Unit:** one deck; 100-200 decks (300-600 deals) per variant" in md
    assert "Holm's step-down" in md and "confidence sequence" in md
    assert "own-score gain" in md and "fair share 33.3%" in md
    assert "Variance (measured, against unpaired deals of the same count)" in md
    for chart in ("tip_effects", "score_distribution", "morto_turn", "deal_endings", "red3"):
        assert (exp.dir / f"{chart}.png").is_file()


def test_cli_three_player_experiment(tmp_path, capsys):
    p = write(tmp_path, THREE)
    out = tmp_path / "rep"
    assert main(["experiment", str(p), "--out", str(out), "--deals", "300", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "design rotation, unit deck" in text and "own gain" in text and "random" in text
    with pytest.raises(SystemExit) as e:  # not whole decks of three deals
        main(["experiment", str(p), "--out", str(tmp_path / "x"), "--deals", "400", "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("tranca-sim: error: --deals must be a multiple of 3 in the rotation design")
    assert err.count("\n") == 1


TWO = """
title = "Two-handed handicaps"
question = "Does a handicapped player lose points at two-handed Tranca?"
preset = "tranca-2p"
baseline = "basic"
seed = 17
batch = 200
budget = 400
[[variants]]
label = "random"
strategy = "random"
[[variants]]
label = "same as the baseline"
strategy = "basic"
play_anyway = true
"""


def test_two_handed_tranca_uses_the_duplicate_design(tmp_path):
    run_experiment(write(tmp_path, TWO), tmp_path / "out", progress=False)
    exp = load_experiment(tmp_path / "out")
    assert exp.spec["design"] == "duplicate" and exp.spec["rules"]["n_seats"] == 2
    t = comparison_table(exp)
    r = t.row(by_predicate=pl.col("variant") == "random", named=True)
    assert r["unit"] == "deck" and r["n_units"] == 200 and r["n_deals"] == 400
    assert r["hi"] < 0 and r["holm_significant"] and "Student t interval" in r["interval"]
    # two solo players swap seats: basic against basic cancels on every deck
    assert np.all(paired_units(exp, "same as the baseline").units == 0)
    runs = {(r.label, r.role): r for r in exp.runs}
    ab, ba = load_run(runs["random", "ab"].path), load_run(runs["random", "ba"].path)
    assert ab.select(HANDS).equals(ba.select(HANDS)) and set(ab["side"].unique().to_list()) == {0, 1}
    assert (
        "duplicate deals: every deck is played twice with the sides swapped"
        in (exp.dir / "report.md").read_text()
    )
