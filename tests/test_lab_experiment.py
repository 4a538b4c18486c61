"""The experiment runner with the engine: duplicate runs really swap hands, handicapped players
come out worse, stopping and budgets, the fixed-opponent design, and the LAB-CONTRACT tables."""

from __future__ import annotations

import json
import textwrap

import numpy as np
import polars as pl
import pytest

from tranca_sim.cli import main
from tranca_sim.io import load_meta, load_run
from tranca_sim.lab.experiments.experiment import load_experiment, run_experiment
from tranca_sim.lab.publish.table_text import format_table
from tranca_sim.lab.publish.tables import (
    COMPARISON_COLUMNS,
    comparison_table,
    deal_table,
    paired_units,
    sweep_table,
)
from tranca_sim.lab.statistics.designs import duplicate_units

CONTRACT = [
    "variant", "strategy", "baseline", "design", "unit", "n_units", "n_deals", "mean", "lo", "hi", "sd",
    "p_value", "p_holm", "p_bh", "holm_significant", "win_share_diff", "win_p", "going_out_variant",
    "going_out_baseline", "match_win_prob", "match_win_lo", "match_win_hi", "match_method", "var_ratio_design",
]  # fmt: skip

HANDICAPS = """
title = "Handicapped players"
question = "Do the handicapped players lose points against basic?"
baseline = "basic"
seed = 11
batch = 400
budget = 1200
[stopping]
half_width = 1
[[variants]]
label = "random"
strategy = "random"
[[variants]]
label = "never goes out early"
strategy = "basic:go_out=0"
"""


def write(tmp_path, text, name="exp.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


@pytest.fixture(scope="module")
def handicaps(tmp_path_factory):
    d = tmp_path_factory.mktemp("handicaps")
    res = run_experiment(write(d, HANDICAPS), d / "out", progress=False)
    return res, load_experiment(d / "out")


def test_output_directory_follows_the_contract(handicaps):
    res, exp = handicaps
    d = exp.dir
    assert (d / "experiment.toml").read_text() == textwrap.dedent(HANDICAPS)
    spec = json.loads((d / "experiment.json").read_text())
    for key in (
        "name",
        "title",
        "question",
        "preset",
        "rules",
        "baseline",
        "variants",
        "design",
        "opponent",
        "seed",
        "batch",
        "budget",
        "stopping",
        "deals_played",
        "stopped_by",
        "version",
        "created",
    ):
        assert key in spec, key
    assert spec["design"] == "duplicate" and spec["unit"] == "deck"
    assert {"label", "strategy", "param", "value"} <= set(spec["variants"][0])
    assert sorted(p.name for p in (d / "runs").iterdir()) == [
        "v01-random.ab.parquet", "v01-random.ba.parquet",
        "v02-never-goes-out-early.ab.parquet", "v02-never-goes-out-early.ba.parquet",
    ]  # fmt: skip
    assert not [p for p in d.parent.iterdir() if p.name.startswith(".")]  # no temporary directory left
    # a half-width of 1 point is out of reach: every variant spends its budget in 3 looks
    assert spec["stopped_by"] == {"random": "budget", "never goes out early": "budget"}
    assert spec["deals_played"] == {"random": 1200, "never goes out early": 1200}
    assert [v["looks"] for v in spec["variants"]] == [[200, 400, 600]] * 2
    assert res["deals"] == 2 * 2 * 1200 // 2


def test_duplicate_runs_swap_hands_and_strategies(handicaps):
    _, exp = handicaps
    ab = next(r for r in exp.runs if r.role == "ab" and r.label == "random")
    ba = next(r for r in exp.runs if r.role == "ba" and r.label == "random")
    x, y = load_run(ab.path), load_run(ba.path)
    assert x.height == y.height == 2 * 600
    # the same decks: deal i of both runs has the same index, first seat and initial hands on each side
    hands = ["deal_index", "side", "first_seat", "hand0_wilds", "hand0_jokers", "hand0_red3", "hand0_black3",
             "hand1_wilds", "hand1_jokers", "hand1_red3", "hand1_black3"]  # fmt: skip
    assert x.select(hands).equals(y.select(hands))
    # ... and the strategies swapped: random holds side A's cards in ab and side B's cards in ba
    assert x.filter(pl.col("side") == 0)["strategy"].unique().to_list() == ["random"]
    assert x.filter(pl.col("side") == 1)["strategy"].unique().to_list() == ["basic"]
    assert y.filter(pl.col("side") == 0)["strategy"].unique().to_list() == ["basic"]
    assert y.filter(pl.col("side") == 1)["strategy"].unique().to_list() == ["random"]
    ma, mb = load_meta(ab.path), load_meta(ba.path)
    assert [s["text"] for s in ma["strategies"]] == [s["text"] for s in mb["strategies"]][::-1]
    assert ma["master_seed"] == mb["master_seed"] == 11 and ma["deals"] == mb["deals"] == 600


def test_self_comparison_is_exactly_zero_on_every_deck(tranca):
    """basic against itself: the swapped run replays the same deals, so each deck's two
    differences cancel exactly (the sides' cards, seats and random streams really swap)."""
    from tranca_sim.engine import simulate_chunk

    ab = simulate_chunk(tranca, ("basic", "basic"), master_seed=5, start=0, count=200)
    ba = simulate_chunk(tranca, ("basic", "basic"), master_seed=5, start=0, count=200)
    pu = duplicate_units(ab, ba)
    assert np.all(pu.units == 0)
    d = ab["score"][0::2] - ab["score"][1::2]
    assert np.any(d != 0)  # while the plain per-deal differences are not 0


def test_handicapped_players_come_out_worse(handicaps):
    _, exp = handicaps
    t = comparison_table(exp)
    assert t.columns[: len(CONTRACT)] == CONTRACT and t.columns == list(COMPARISON_COLUMNS)
    for row in t.iter_rows(named=True):
        assert row["hi"] < 0, row  # the whole interval below 0: the variant loses points
        assert row["holm_significant"]
        assert row["unit"] == "deck" and row["n_units"] == 600 and row["n_deals"] == 1200
        assert row["lo"] <= row["t_lo"] and row["t_hi"] <= row["hi"]  # the sequence is wider than t
        assert "confidence sequence" in row["interval"]
        assert row["match_method"].startswith("resampled deals")
    r = t.row(by_predicate=pl.col("variant") == "random", named=True)
    assert r["mean"] < -300 and r["win_share_diff"] < -0.5 and r["match_win_prob"] < 0.1
    assert r["going_out_variant"] < r["going_out_baseline"]
    # the table's mean is the mean of the per-deck differences read back from the run files
    pu = paired_units(exp, "random")
    assert r["mean"] == pytest.approx(pu.units.mean())
    pdf = comparison_table(exp, backend="pandas")
    assert list(pdf.columns) == list(COMPARISON_COLUMNS) and len(pdf) == 2


def test_deal_table_marks_the_variant(handicaps):
    _, exp = handicaps
    dt = deal_table(exp, columns=["score"])
    assert {"run_label", "strategy", "is_variant", "score"} <= set(dt.columns)
    assert dt.height == 4 * 2 * 600
    v = dt.filter(pl.col("is_variant"))
    assert set(v["strategy"].unique().to_list()) == {"random", exp.spec["variants"][1]["strategy"]}
    assert v.height == dt.height // 2
    assert sweep_table(exp) is None


def test_half_width_target_stops_early_and_sweep(tmp_path):
    text = """
    title = "Pile threshold"
    question = "How does the pile threshold change the score?"
    baseline = "basic"
    seed = 2
    batch = 200
    budget = 2000
    [stopping]
    half_width = 400
    [sweep]
    strategy = "basic"
    param = "take_pile_min"
    grid = [3, 4]
    """
    from tranca_sim.lab.experiments.spec import IdleVariantWarning

    # take_pile_min=3 is the baseline's own setting (basic's default): said, not played (issue 21, 8)
    with pytest.warns(IdleVariantWarning, match="take_pile_min=3 is the baseline's own value"):
        res = run_experiment(write(tmp_path, text), tmp_path / "out", progress=False)
    spec = res["spec"]
    # +-400 points a deal is reached at the first look (100 decks): it stops by half-width
    assert spec["stopped_by"] == {"take_pile_min=4": "half-width"}
    assert spec["deals_played"] == {"take_pile_min=4": 200}
    assert spec["sweep"]["grid"] == [3.0, 4.0]
    exp = load_experiment(tmp_path / "out")
    sw = sweep_table(exp)
    assert sw.columns == ["param", "value", "variant", "n_units", "mean", "lo", "hi", "p_value", "p_holm"]
    assert sw["value"].to_list() == [4.0]


def test_fixed_opponent_design(tmp_path):
    text = """
    title = "Against random"
    question = "Does never going out early cost points against random?"
    baseline = "basic"
    design = "fixed-opponent"
    opponent = "random"
    seed = 4
    batch = 300
    budget = 300
    [[variants]]
    strategy = "basic:go_out=0"
    [[variants]]
    strategy = "random"
    """
    run_experiment(write(tmp_path, text), tmp_path / "out", progress=False)
    exp = load_experiment(tmp_path / "out")
    assert [r.role for r in exp.runs] == ["baseline", "variant", "variant"]
    t = comparison_table(exp)
    assert t["unit"].to_list() == ["deal", "deal"] and t["n_deals"].to_list() == [300, 300]
    assert all("Student t" in x for x in t["interval"])
    # the per-deal difference is the variant's margin over random minus the baseline's, deal by deal
    v = load_run(exp.runs[2].path)
    b = load_run(exp.runs[0].path)
    mv = v["score"].to_numpy()[0::2] - v["score"].to_numpy()[1::2]
    mb = b["score"].to_numpy()[0::2] - b["score"].to_numpy()[1::2]
    assert t["mean"][1] == pytest.approx((mv - mb).mean())
    assert t["hi"][1] < 0  # random gets fewer points ahead of random than basic does
    assert 0 < t["var_ratio_design"][1] < 1.5
    # the match column is each strategy against the opponent, not against the baseline: the
    # baseline's own probability against the opponent is given beside it, from its own run
    from tranca_sim.lab.statistics.inference import match_win_prob

    mw_b = match_win_prob(
        b["score"].to_numpy()[0::2].astype(float)[:, None], b["score"].to_numpy()[1::2].astype(float)[:, None],
        3000, seed=exp.spec["seed"],
    )[0]  # fmt: skip
    assert t["match_win_baseline"].to_list() == [mw_b, mw_b] and mw_b > 0.8  # basic beats random
    text = format_table(t, exp.spec)
    assert "match win vs random: variant vs baseline" in text
    assert f"vs {100 * mw_b:.1f}%" in text.splitlines()[2]
    from tranca_sim.lab.publish.report_tables_md import tip_table_markdown

    md = tip_table_markdown(t)
    assert "match-win probability vs opponent random: variant / baseline" in md
    assert f" / {100 * mw_b:.1f}% |" in md


def test_cli_experiment_quick_look(tmp_path, capsys):
    p = write(tmp_path, HANDICAPS)
    out = tmp_path / "new" / "rep"  # missing parents are created
    assert main(["experiment", str(p), "--out", str(out), "--deals", "200", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "deals/s" in text and "random" in text and "Student t interval" in text
    spec = json.loads((out / "experiment.json").read_text())
    assert spec["budget"] == 200 and spec["deals_played"]["random"] == 200
    with pytest.raises(SystemExit) as e:  # the output exists now
        main(["experiment", str(p), "--out", str(out), "--deals", "200", "--no-progress"])
    assert e.value.code == 2
    assert main(["experiment", str(p), "--out", str(out), "--deals", "400", "--no-progress", "--force"]) == 0
    assert json.loads((out / "experiment.json").read_text())["budget"] == 400
    (tmp_path / "file").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(p), "--out", str(tmp_path / "file"), "--no-progress"])
    assert e.value.code == 2
    assert "exists and is not a directory" in capsys.readouterr().err


def test_committed_experiments_cover_the_tips():
    """experiments/tranca-tips.toml lists every tip of basic.TIPS with the value that follows it,
    and experiments/morto-timing.toml sweeps basic.MORTO_SWEEP; both resolve."""
    from pathlib import Path

    from tranca_sim.lab.experiments.spec import load_spec
    from tranca_sim.strategies import basic

    root = Path(__file__).resolve().parent.parent / "experiments"
    tips = load_spec(root / "tranca-tips.toml")
    assert tips["design"] == "duplicate" and tips["stopping"]["half_width"] == 5.0
    assert [v["label"] for v in tips["variants"]] == [f"{p}={v}" for p, v, *_ in basic.TIPS]
    for v, (param, value, *_rest) in zip(tips["variants"], basic.TIPS):
        assert f"{param}={float(value):g}" in v["strategy"].split(":")[1].split(",")
    assert len(tips["variants"]) >= 10
    morto = load_spec(root / "morto-timing.toml")
    param, grid = basic.MORTO_SWEEP
    note = morto["sweep"].pop("note")
    assert morto["sweep"] == {"strategy": "basic", "param": param, "grid": [float(g) for g in grid]}
    assert "108" in note and "baseline" in note  # the sweep chart's subtitle explains the parameter


def test_largest_differences_points_at_the_deals_to_replay(handicaps):
    from tranca_sim.lab.publish.tables import largest_differences

    _, exp = handicaps
    top = largest_differences(exp, "never goes out early", k=3)
    pu = paired_units(exp, "never goes out early")
    assert abs(top["difference"][0]) == np.abs(pu.units).max()
    assert list(np.abs(top["difference"])) == sorted(np.abs(top["difference"]), reverse=True)
    i = int(top["deal_index"][0])
    ab = load_run(top["run_ab"][0]).filter(pl.col("deal_index") == i).sort("side")["score"].to_list()
    ba = load_run(top["run_ba"][0]).filter(pl.col("deal_index") == i).sort("side")["score"].to_list()
    # variant on side A in ab and on side B in ba
    assert top["diff_ab"][0] == ab[0] - ab[1] and top["diff_ba"][0] == ba[1] - ba[0]
    assert top["difference"][0] == (top["diff_ab"][0] + top["diff_ba"][0]) / 2
    with pytest.raises(KeyError, match="no variant"):
        largest_differences(exp, "nope")


def test_experiment_on_processes_and_a_local_cluster(handicaps, tmp_path):
    """Every batch is fixed by the seed, the strategies and its deal indices: played on 2 local
    processes or a 2-worker Dask LocalCluster, the runs hold the same rows as in-process, so the
    stopping looks and the comparison table are the same too."""
    from joblib.externals.loky import get_reusable_executor

    _, exp = handicaps
    src = write(tmp_path, HANDICAPS)
    for name, where in (("procs", {"processes": 2}), ("dask", {"cluster": 2})):
        try:
            res = run_experiment(src, tmp_path / name, progress=False, report=False, **where)
        finally:  # later tests (test_scale.py) count each fresh worker's one load of the kernels
            get_reusable_executor().shutdown(wait=True)
        got = load_experiment(tmp_path / name)
        assert res["threads"] == 1  # per worker
        assert [r.path.name for r in got.runs] == [r.path.name for r in exp.runs], name
        for mine, ref in zip(got.runs, exp.runs, strict=True):
            assert load_run(mine.path).equals(load_run(ref.path)), (name, mine.path.name)
        for key in ("deals_played", "stopped_by", "deals_total"):
            assert got.spec[key] == exp.spec[key], (name, key)
        assert comparison_table(got).equals(comparison_table(exp)), name
