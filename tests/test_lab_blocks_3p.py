"""Blocks of fresh decks at a table of three solo players (tranca-3p): each block plays the rotation
design (the variant once in each seat against two baseline players, and one all-baseline table a
block), three rows a deal in every run file.  Before, the blocks played the two-sided duplicate
design and writing the first batch failed ("chunk column 'side' must be 0..1")."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest

from tranca_sim.io import load_meta, load_run
from tranca_sim.lab.experiments.experiment import run_experiment
from tranca_sim.lab.experiments.spec import SpecError, load_spec

FILE = """
title = "t"
question = "q"
preset = "tranca-3p"
baseline = "basic"
design = "rotation"
seed = 11
blocks = 2
batch = 6
budget = 6

[[variants]]
label = "random"
strategy = "random"

[[variants]]
label = "same"
strategy = "basic"
play_anyway = true
"""


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    d = tmp_path_factory.mktemp("blocks3p")
    (d / "e.toml").write_text(FILE, encoding="utf-8")
    res = run_experiment(d / "e.toml", d / "out", progress=False)
    return res, d / "out"


def test_each_block_plays_every_variant_in_each_seat_and_one_control_table(played):
    res, out = played
    rec = json.loads((out / "experiment.json").read_text(encoding="utf-8"))
    # budget 6 deals a variant and block: 2 decks, each played in the three seats
    assert [(c["block"], c["label"], c["decks"], c["deals"]) for c in rec["cells"]] == [
        (1, "random", 2, 6), (1, "same", 2, 6), (2, "random", 2, 6), (2, "same", 2, 6),
    ]  # fmt: skip
    # a block: 2 variants x 3 seats x 2 decks, and its control table's 2 decks
    assert res["deals"] == 2 * (2 * 3 * 2 + 2)
    for c in rec["cells"]:
        seats, control = c["runs"][:3], c["runs"][3]
        assert control == f"runs/b{c['block']}-control-01.parquet"
        for k, path in enumerate(seats):
            x = load_run(out / path).sort(["deal_index", "side"])
            assert x["side"].to_list() == [0, 1, 2] * 2
            want = "random" if c["label"] == "random" else "basic"
            assert x.filter(pl.col("side") == k)["strategy"].unique().to_list() == [want]
            assert load_meta(out / path)["deals"] == 2  # deals, not rows / 2
        ctrl = load_run(out / control)
        assert ctrl["strategy"].unique().to_list() == ["basic"] and ctrl.height == 3 * 2


def test_the_blocks_deal_different_decks(played):
    _, out = played
    hands = ["deal_index", "side", "hand0_wilds", "hand0_jokers", "hand0_red3", "hand0_black3"]
    b1, b2 = (
        load_run(out / "runs" / f"b{b}-control-01.parquet").sort(["deal_index", "side"]) for b in (1, 2)
    )
    assert not b1.select(hands).equals(b2.select(hands))


def test_a_variant_equal_to_the_baseline_is_exactly_zero_on_every_deck(played):
    """basic in each seat against two basic players replays the control table deal for deal."""
    _, out = played
    units = pl.read_parquet(out / "units.parquet").filter(pl.col("label") == "same")
    assert units.height == 4 and np.all(units["unit"].to_numpy() == 0)


def test_the_report_names_the_rotation(played):
    _, out = played
    text = "\n".join(p.read_text(encoding="utf-8") for p in out.glob("*.md"))
    assert "rotation at three solo players" in text and "duplicate decks" not in text


def test_blocks_with_the_fixed_opponent_design_are_one_line(tmp_path):
    p = tmp_path / "e.toml"
    two = FILE.replace('"tranca-3p"', '"tranca"').replace(
        '"rotation"', '"fixed-opponent"\nopponent = "random"'
    )
    p.write_text(two.replace("batch = 6", "batch = 4").replace("budget = 6", "budget = 8"), encoding="utf-8")
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: blocks: ") and "\n" not in str(e.value)
