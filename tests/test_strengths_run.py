"""A tip table at several strengths on two blocks (tranca_sim/lab/experiments/strengths.py): a slow strength is
decided at its own effect, no decision comes before ``min_decks``, each block carries its interval at
alpha / blocks for the figure the blocks publish, and the report's design says so."""

import numpy as np

from tranca_sim.lab.experiments.spec import load_spec
from tranca_sim.lab.experiments.strengths import _Cell, _cell_figures, _families, _tune
from tranca_sim.lab.statistics.inference import cs_rho2

FILE = """
title = "t"
question = "q"
preset = "tranca"
baseline = "basic"
design = "duplicate"
seed = 7
blocks = 2
batch = 100
budget = 400
strength = ["basic", { strategy = "tuned", delta = 400.0, budget = 200, batch = 40 }]

[decision]
delta = 10.0
delta_outcome = 0.02
min_decks = 100

[[variants]]
strategy = "basic:black3_lock=1"
"""


def _spec(tmp_path):
    p = tmp_path / "e.toml"
    p.write_text(FILE, encoding="utf-8")
    return load_spec(p)


def _cells(spec, units):
    cells = []
    for i, s in enumerate(spec["strength"]):
        c = _Cell(i, 1, s, "black3_lock=1", "on", "off", f"k{i}")
        c.units, c.n_units, c.looks = [units], len(units), [len(units)]
        c.outcomes, c.decision = [np.full(len(units), 0.5)], {}
        cells.append(c)
    return cells


def test_each_strength_is_decided_at_its_own_effect_and_not_before_min_decks(tmp_path):
    spec = _spec(tmp_path)
    x = np.tile([10.0, 30.0, 20.0, 40.0], 20)  # 80 decks: mean 25, variance 125
    judges = _families(spec, _cells(spec, x))
    points = judges["points"]
    # LLR(0, 10) = 80 * 10 * 40 / 250 = 128; LLR(0, 400) = 80 * 400 * (50 - 400) / 250 = -44,800
    assert points.statistic(x, 0)[0] == 128.0 and points.statistic(x, 1)[0] == -44800.0
    # the deck outcome's effect is scaled alike: 0.02 * 400 / 10
    assert judges["outcome"].deltas[1] == 0.8
    # both far past their boundaries, but 80 decks are fewer than min_decks = 100: nothing decided
    assert points.look({i: (*points.statistic(x, i), 80) for i in (0, 1)}) == []
    x2 = np.tile(x, 2)
    assert sorted(points.look({i: (*points.statistic(x2, i), 160) for i in (0, 1)})) == [0, 1]
    assert points.decisions[0].verdict == "gain" and points.decisions[1].verdict == "no effect"


def test_each_block_carries_its_interval_at_alpha_over_the_blocks(tmp_path):
    spec = _spec(tmp_path)
    rng = np.random.default_rng(1)
    x = rng.normal(20.0, 300.0, 200)
    rho2 = {s["strategy"]: cs_rho2(_tune(s, spec) / 2, 0.05) for s in spec["strength"]}
    for c in _cells(spec, x):
        f = _cell_figures(c, spec, rho2)
        # the sequence at 97.5% (two blocks) is the wider one, around the same units
        assert f["lo_split"] < f["lo"] < f["mean"] < f["hi"] < f["hi_split"]


def test_a_strength_with_a_budget_of_its_own_tunes_its_interval_to_it(tmp_path):
    spec = _spec(tmp_path)
    basic, tuned = spec["strength"]
    assert _tune(basic, spec) == spec["stopping"]["tune"]
    assert _tune(tuned, spec) == (40 * 200) ** 0.5
