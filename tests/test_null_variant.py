"""A real null for users: a variant equal to the baseline gives exactly 0 on every deck, and a
``null = true`` variant (the baseline against itself, the deck's second way round dealt from a seed
of its own) differs deck by deck with a true mean of exactly 0."""

import json

import numpy as np

from tranca_sim.engine import simulate_chunk
from tranca_sim.lab.experiments.experiment import load_experiment, run_experiment
from tranca_sim.lab.publish.tables import comparison_table, paired_units
from tranca_sim.lab.statistics.designs import null_seed, plan_runs
from tranca_sim.rules import get_preset

TOML = """
title = "null"
question = "q"
baseline = "basic"
seed = 11
batch = {batch}
budget = {budget}
[decision]
delta = 40
delta_outcome = 0.03
[[variants]]
label = "null"
null = true
[[variants]]
label = "same"
strategy = "basic"
play_anyway = true  # a variant equal to the baseline, played on purpose
params = {{ take_pile_min = 3 }}
"""


def _run(tmp_path, batch=100, budget=200):
    p = tmp_path / "null.toml"
    p.write_text(TOML.format(batch=batch, budget=budget), encoding="utf-8")
    out = tmp_path / "out"
    run_experiment(p, out, threads=1, progress=False, report=False)
    return load_experiment(out)


def test_null_runs_deal_the_second_way_round_from_their_own_seeds():
    plans = plan_runs("duplicate", [("n1", "basic"), ("n2", "basic"), ("t", "basic:black3_lock=1")], "basic",
                      nulls={"n1", "n2"})  # fmt: skip
    seeds = {p.key: p.seed(7) for p in plans}
    assert seeds["v01-n1.ab"] == 7 and seeds["v03-t.ab"] == 7 and seeds["v03-t.ba"] == 7
    assert seeds["v01-n1.ba"] == null_seed(7, 1) and seeds["v02-n2.ba"] == null_seed(7, 3)
    assert len({seeds["v01-n1.ba"], seeds["v02-n2.ba"], 7}) == 3  # independent of each other


def test_null_unit_is_half_the_difference_of_two_independent_plays(tmp_path):
    exp = _run(tmp_path)
    units = paired_units(exp, "null").units
    # by hand: deck k's unit is ((A - B) on seed 11, deal k  -  (A - B) on the other seed, deal k) / 2,
    # basic on both sides of both plays
    rules = get_preset("tranca")
    a = simulate_chunk(rules, ("basic", "basic"), 11, 0, 100)
    b = simulate_chunk(rules, ("basic", "basic"), null_seed(11, 1), 0, 100)
    da = a["score"][0::2].astype(float) - a["score"][1::2]
    db = b["score"][0::2].astype(float) - b["score"][1::2]
    assert np.array_equal(units, (da - db) / 2)
    assert np.count_nonzero(units) >= 90  # the decks differ: not a degenerate null
    rec = json.loads((exp.dir / "experiment.json").read_text())
    ba = next(r for r in rec["runs"] if r["label"] == "null" and r["role"] == "ba")
    assert ba["seed"] == null_seed(11, 1)


def test_a_variant_equal_to_the_baseline_gives_exactly_zero_and_is_decided_at_once(tmp_path):
    exp = _run(tmp_path)
    same = paired_units(exp, "same")
    assert not np.any(same.units) and np.all(same.outcomes == 0.5)
    row = comparison_table(exp).filter(variant="same").row(0, named=True)
    assert row["mean"] == 0.0 and row["decision"] == "no effect" and row["decision_units"] == 50
    assert row["outcome_decision"] == "no effect"


def test_null_mean_is_zero_within_its_error_over_many_decks(tmp_path):
    # the two plays are exchangeable, so the units are symmetric about 0; 1500 decks
    exp = _run(tmp_path, batch=3000, budget=3000)
    u = paired_units(exp, "null").units
    se = u.std(ddof=1) / np.sqrt(len(u))
    assert abs(u.mean()) < 4 * se
    assert u.std() > 100  # about as spread as real tips' decks
