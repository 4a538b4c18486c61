"""A fresh user's finding: a variant equal to the baseline got a different match-win probability
(fixed-opponent: ``97.8% vs 98.1%`` beside a difference of exactly +0.0; duplicate: 49.8%), because
each variant's matches drew with its own seed (``seed + i``) and, in the fixed-opponent design, the
baseline's figure came from its whole run rather than the variant's deals."""

from __future__ import annotations

import textwrap

import numpy as np
import pytest

from tranca_sim.cli import main
from tranca_sim.lab.experiments.experiment import load_experiment
from tranca_sim.lab.publish.tables import comparison_table
from tranca_sim.lab.statistics.inference import match_win_prob


def test_twin_matches_of_mirrored_decks_are_exactly_one_half():
    # a deck played twice with the sides swapped by the same strategy: deal 2 is deal 1 mirrored
    rng = np.random.default_rng(11)
    x = rng.integers(-200, 900, size=60).astype(float)
    y = rng.integers(-200, 900, size=60).astype(float)
    a = np.column_stack([x, y])  # side a's score in the deck's two deals
    b = np.column_stack([y, x])
    p, lo, hi = match_win_prob(a, b, 1000, n_matches=4000, n_boot=20, boot_matches=400, seed=5, twins=True)
    assert p == 0.5
    assert lo < 0.5 < hi


def test_twin_matches_keep_a_clear_winner():
    # side a scores 100 more in every deal: it wins every match, twins or not
    a = np.full((30, 2), 300.0)
    b = np.full((30, 2), 200.0)
    assert match_win_prob(a, b, 1000, n_matches=2000, n_boot=10, boot_matches=200, twins=True)[0] == 1.0


def test_twin_matches_need_two_deals_per_unit():
    with pytest.raises(ValueError, match="2 columns"):
        match_win_prob(np.ones((5, 1)), np.ones((5, 1)), 1000, twins=True)


SAME = """
title = "A variant equal to the baseline"
question = "Is basic as good as basic?"
preset = "tranca-2p"
baseline = "basic"
design = "{design}"
{opponent}
seed = 3
batch = 40
budget = 40
[[variants]]
label = "lock"
strategy = "basic:black3_lock=1"
[[variants]]
label = "same"
strategy = "basic"
play_anyway = true  # a variant equal to the baseline, played on purpose
"""


@pytest.mark.parametrize("design", ["fixed-opponent", "duplicate"])
def test_a_variant_equal_to_the_baseline_gets_the_baselines_match_figure(tmp_path, capsys, design):
    toml = tmp_path / "same.toml"
    opponent = 'opponent = "basic:black3_lock=1"' if design == "fixed-opponent" else ""
    toml.write_text(textwrap.dedent(SAME.format(design=design, opponent=opponent)), encoding="utf-8")
    assert main(["experiment", str(toml), "--out", str(tmp_path / "out")]) == 0
    capsys.readouterr()
    comp = comparison_table(load_experiment(tmp_path / "out"))
    row = comp.row(comp["variant"].to_list().index("same"), named=True)
    assert row["mean"] == 0.0 and row["sd"] == 0.0  # the same play: every deal scores the same
    if design == "fixed-opponent":
        assert np.isfinite(row["match_win_prob"])
        assert row["match_win_prob"] == row["match_win_baseline"]
    else:
        assert row["match_win_prob"] == 0.5
        assert row["match_win_lo"] < 0.5 < row["match_win_hi"]
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert "common random numbers" in report  # the Design section says how the draws are paired


class _SpyRng:
    """A numpy Generator that records the shape of every ``integers`` draw."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)
        self.sizes = []

    def integers(self, lo, hi, size):
        self.sizes.append(tuple(size))
        return self.rng.integers(lo, hi, size=size)


@pytest.mark.parametrize("players", [2, 3])
def test_match_draws_do_not_depend_on_the_scores(players):
    # matches end at different deals (some in the first deal, some much later): every round still
    # draws the next deals of all the matches, so two strategies' matches use the same draws
    from tranca_sim.lab.statistics.inference import _play_matches, _play_matches3

    a = np.zeros(20)
    a[0] = 5000.0  # a wins a match that draws deal 0 before b reaches the target (about 18 deals)
    b = np.full(20, 60.0)
    b[0] = 0.0
    spy = _SpyRng(4)
    if players == 2:
        w, d = _play_matches(a, b, 1000, 50, spy)
    else:
        w, d = _play_matches3(a, b, b / 2, 1000, 50, spy)
    assert d == 50 and 0 < w < 50
    assert len(spy.sizes) > 1  # the matches without deal 0 went on
    assert set(spy.sizes) == {(50, 16)}
