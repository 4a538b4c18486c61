"""Invariants over many random deals of every strategy pairing (check mode:
card conservation and meld legality after every action)."""

import numpy as np
import pytest

from tranca_sim import schema
from tranca_sim.engine import simulate_chunk
from tranca_sim.engine.state import END_REASONS
from tranca_sim.rules import PRESETS

PAIRS = [
    ("basic", "basic"),
    ("random", "random"),
    ("basic", "random"),
    ("passive", "basic"),
    ("random", "passive"),
]


@pytest.mark.parametrize("pair", PAIRS, ids=lambda p: "-".join(p))
def test_invariants_hold_in_every_deal(tranca, pair):
    c = simulate_chunk(tranca, pair, 2024, 0, 1500, check=True)
    # 108 cards accounted for and no illegal meld after every action
    assert c["invariant_errors"].max() == 0
    assert c["meld_full"].max() == 0
    # every deal ends by going out or by the stock running out, never by the safety net
    assert set(np.unique(c["end_reason"])) <= {END_REASONS.index("went_out"), END_REASONS.index("stock_out")}
    # the score is the sum of its parts
    parts = sum(c[p].astype(np.int64) for p in schema.SCORE_PARTS)
    np.testing.assert_array_equal(parts, c["score"])
    # bonuses only as the rules allow
    assert set(np.unique(c["going_out_bonus"])) <= {0, 100, 200}
    assert (c["going_out_bonus"] > 0).tolist() == (c["went_out"] == 1).tolist()
    assert set(np.unique(c["morto_penalty"])) <= {0, -100}
    assert ((c["morto_penalty"] == -100) == (c["morto_taken"] == 0)).all()
    assert (c["canasta_bonus"] == 200 * c["canastas_clean"] + 100 * c["canastas_dirty"]).all()
    has_canasta = c["canastas_clean"] + c["canastas_dirty"] > 0
    assert (c["red3_points"] == np.where(has_canasta, 100, -100) * c["red3_count"]).all()
    assert (c["hand_penalty"] <= 0).all()
    # going out needs the morto and a canasta (000 Gameplay 11)
    out = c["went_out"] == 1
    assert (c["morto_taken"][out] == 1).all() and has_canasta[out].all()
    # at most one side goes out; red 3s: at most 4 in all
    went = c["went_out"].reshape(-1, 2)
    assert (went.sum(axis=1) <= 1).all()
    assert (c["red3_count"].reshape(-1, 2).sum(axis=1) <= 4).all()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_played_preset_keeps_the_invariants(preset):
    c = simulate_chunk(PRESETS[preset], ("basic", "random"), 99, 0, 400, check=True)
    assert c["invariant_errors"].max() == 0
    assert (c["end_reason"] != END_REASONS.index("turn_limit")).all()


def test_basic_goes_out_most_of_the_time_and_beats_random(tranca):
    bb = simulate_chunk(tranca, ("basic", "basic"), 1, 0, 2000)
    assert (bb["end_reason"] == 1).mean() > 0.8
    br = simulate_chunk(tranca, ("basic", "random"), 1, 0, 2000)
    assert br["score"][0::2].mean() > br["score"][1::2].mean() + 200
