"""The sequential test with both error rates fixed (tranca_sim.lab.statistics.decision): its statistic, its
boundaries and the sequential Holm step-down, each worked out by hand on tiny examples."""

import math

import numpy as np
import pytest

from tranca_sim.lab.statistics.decision import (
    GAIN,
    LOSS,
    NO_EFFECT,
    UNDECIDED,
    SequentialHolm,
    deck_outcome_classes,
    effect_size,
    holm_bounds,
    llr,
    replay,
    two_sided_llr,
    wald_bounds,
)


def test_llr_of_four_decks_by_hand():
    # units 10, 30, 20, 40: mean 25, variance (225 + 25 + 25 + 225) / 4 = 125
    # LLR(0, +10) = 4 * 10 * (2 * 25 - 0 - 10) / (2 * 125) = 1600 / 250 = 6.4
    # LLR(0, -10) = 4 * (-10) * (50 + 10) / 250 = -9.6
    assert llr(25.0, 125.0, 4, 0.0, 10.0) == pytest.approx(6.4)
    assert llr(25.0, 125.0, 4, 0.0, -10.0) == pytest.approx(-9.6)
    proc = SequentialHolm(1, 10.0, 0.05, 0.05)
    val, eff = proc.statistic([10, 30, 20, 40])
    assert val == pytest.approx(6.4) and eff == pytest.approx(25.0)


def test_llr_is_symmetric_in_the_sign_of_the_effect():
    assert two_sided_llr(-25.0, 125.0, 4, 10.0) == pytest.approx(6.4)


def test_wald_boundaries_by_hand():
    # alpha 0.05 (0.025 each way), beta 0.05: log(0.05 / 0.975) and log(0.95 / 0.025) = log 38
    lo, hi = wald_bounds(0.05, 0.05)
    assert lo == pytest.approx(math.log(0.05 / 0.975)) and lo == pytest.approx(-2.9704, abs=1e-4)
    assert hi == pytest.approx(math.log(38.0)) and hi == pytest.approx(3.6376, abs=1e-4)


def test_holm_boundaries_of_two_variants_by_hand():
    # the first decision of two uses alpha / 2 and beta / 2, the second alpha and beta
    lower, upper = holm_bounds(2, 0.05, 0.05)
    assert upper[0] == pytest.approx(math.log(0.975 / 0.0125))  # log 78 = 4.357
    assert upper[1] == pytest.approx(math.log(38.0))
    assert lower[0] == pytest.approx(math.log(0.025 / 0.9875))  # -3.676
    assert lower[1] == pytest.approx(math.log(0.05 / 0.975))


def test_step_down_rejects_the_second_at_the_easier_boundary():
    # L = 5.0 passes log 78 = 4.357, then L = 4.0 passes log 38 = 3.638
    proc = SequentialHolm(2, 10.0, 0.05, 0.05)
    now = proc.look({"a": (5.0, +3.0, 50), "b": (4.0, -2.0, 50)})
    assert set(now) == {"a", "b"}
    assert proc.decisions["a"].verdict == GAIN and proc.decisions["b"].verdict == LOSS


def test_two_variants_at_the_single_test_boundary_are_not_rejected_in_a_family():
    # 4.0 passes log 38 (one variant alone) but not log 78 (the first of two)
    alone = SequentialHolm(1, 10.0, 0.05, 0.05)
    alone.look({"a": (4.0, 1.0, 50)})
    assert alone.decisions["a"].verdict == GAIN
    family = SequentialHolm(2, 10.0, 0.05, 0.05)
    assert family.look({"a": (4.0, 1.0, 50), "b": (4.0, 1.0, 50)}) == []
    assert family.decisions["a"].verdict == UNDECIDED


def test_acceptance_steps_up_from_the_smallest():
    # -3.8 is below -3.676 (the first acceptance of two), then -3.0 below -2.970 (the second)
    proc = SequentialHolm(2, 10.0, 0.05, 0.05)
    proc.look({"a": (-3.0, 0.1, 80), "b": (-3.8, 0.0, 80)})
    assert proc.decisions["a"].verdict == NO_EFFECT and proc.decisions["b"].verdict == NO_EFFECT
    proc = SequentialHolm(2, 10.0, 0.05, 0.05)
    proc.look({"a": (-3.0, 0.1, 80), "b": (-3.5, 0.0, 80)})  # -3.5 is not below -3.676: neither
    assert proc.decisions["a"].verdict == UNDECIDED and proc.decisions["b"].verdict == UNDECIDED


def test_a_variant_equal_to_the_baseline_is_accepted_at_the_first_look():
    proc = SequentialHolm(1, 10.0, 0.05, 0.05)
    val, eff = proc.statistic(np.zeros(50))
    assert val == -math.inf
    proc.look({"same": (val, eff, 50)})
    assert proc.decisions["same"].verdict == NO_EFFECT


def test_replay_takes_each_variant_at_its_own_looks():
    # variant 0 decided (gain) at its first look of 4 units; variant 1 undecided then, accepted later
    units = {0: np.array([10.0, 30, 20, 40, 0, 0]), 1: np.array([1.0, -1] * 20)}
    looks = {0: [4], 1: [4, 40]}
    proc = replay(units, looks, 2, 10.0, 0.05, 0.05)
    assert proc.decisions[0].verdict == GAIN and proc.decisions[0].units == 4
    # variant 1 at 4 units: mean 0, variance 1: LLR = 4 * 10 * (0 - 10) / 2 = -200, below -3.676 already
    assert proc.decisions[1].verdict == NO_EFFECT and proc.decisions[1].units == 4


def test_pentanomial_classes_of_five_decks():
    assert deck_outcome_classes([0.0, 0.25, 0.5, 0.5, 1.0]).tolist() == [1, 1, 2, 0, 1]
    assert deck_outcome_classes([0.0, 1 / 3, 1.0], deals=3).tolist() == [1, 0, 1, 0, 0, 0, 1]


def test_effect_size_is_the_mean_over_the_sd_of_the_units():
    # 10, 30, 20, 40: mean 25, sd (divisor 3) sqrt(500 / 3) = 12.91
    assert effect_size([10, 30, 20, 40]) == pytest.approx(25 / math.sqrt(500 / 3))
    assert effect_size([0.5, 0.75, 0.25, 1.0], 0.5) == pytest.approx(0.125 / np.std([0.5, 0.75, 0.25, 1.0], ddof=1))


def test_no_variant_is_decided_before_the_least_number_of_decks():
    # LLR 6.4 against an upper boundary of log(0.95 / 0.025) = 3.64: a gain at 4 decks, but not
    # while the experiment asks for at least 8 decks before a decision
    proc = SequentialHolm(1, 10.0, 0.05, 0.05, min_units=8)
    assert proc.look({"a": (*proc.statistic([10, 30, 20, 40]), 4)}) == []
    assert proc.decisions["a"].verdict == UNDECIDED
    x = [10, 30, 20, 40] * 2  # mean 25, variance 125: LLR 12.8 at 8 decks
    assert proc.look({"a": (*proc.statistic(x), 8)}) == ["a"]
    assert proc.decisions["a"].verdict == GAIN and proc.decisions["a"].units == 8


def test_a_variant_with_its_own_delta_is_tested_at_it():
    # units 10, 30, 20, 40 (mean 25, variance 125) at delta 30 instead of 10:
    # LLR(0, +30) = 4 * 30 * (50 - 30) / 250 = 9.6 (at delta 10: 6.4, by hand above)
    proc = SequentialHolm(2, 10.0, 0.05, 0.05, deltas={"slow": 30.0})
    assert proc.statistic([10, 30, 20, 40], "slow")[0] == pytest.approx(9.6)
    assert proc.statistic([10, 30, 20, 40], "fast")[0] == pytest.approx(6.4)
