"""The ladder's points-a-deal scale is fitted to the head-to-head pairs (weighted least squares of
the pairs' differences on the players' strengths), its fit is tested, and a scale that does not fit
is not shown as a rating."""

import math

import numpy as np
import pytest

from tranca_sim.lab.ladder.ladder import Player
from tranca_sim.lab.ladder.ladder_report import (
    ladder_figure,
    ratings_markdown,
    report_markdown,
    summarize_ladder,
)
from tranca_sim.lab.ladder.rating import points_fit


def _units(mean):
    # four decks mean +- 1: variance 4/3 (divisor 3), standard error of the mean sqrt(1/3)
    return np.array([mean - 1, mean + 1, mean - 1, mean + 1], dtype=float)


def test_an_additive_set_of_pairs_fits_exactly():
    fit = points_fit({(0, 1): _units(10), (1, 2): _units(10), (0, 2): _units(20)}, 3, anchor=0)
    assert fit["chi2"] == pytest.approx(0, abs=1e-9) and fit["df"] == 1 and fit["fits"]


def test_a_non_additive_set_of_pairs_by_hand():
    # 0 - 1 = 10, 1 - 2 = 10, 0 - 2 = 50 with equal weights: least squares gives r1 = -20, r2 = -40,
    # residuals -10, -10, +10, each z = 10 / sqrt(1/3) = 17.32; sum of z^2 = 900 on 1 df
    fit = points_fit({(0, 1): _units(10), (1, 2): _units(10), (0, 2): _units(50)}, 3, anchor=0)
    by = {(x["i"], x["j"]): x for x in fit["pairs"]}
    assert by[0, 1]["fitted"] == pytest.approx(20) and by[1, 2]["fitted"] == pytest.approx(20)
    assert by[0, 2]["fitted"] == pytest.approx(40)
    assert by[0, 2]["z"] == pytest.approx(10 / math.sqrt(1 / 3))
    assert fit["chi2"] == pytest.approx(900) and fit["df"] == 1 and not fit["fits"]


def _result(units):
    players = [Player("a", "basic", False), Player("b", "random", False), Player("c", "passive", False)]
    rows = [{"i": i, "j": j, "decks": len(e), "seconds": 0.0, "went_out_i": 0.5, "went_out_j": 0.5, "runs": []}
            for (i, j), e in units.items()]  # fmt: skip
    res = summarize_ladder(players, units, rows, 0, 200, 1)
    res.update(preset="tranca", seed=1, decks=4, slow_decks=4, threads=1, seconds=1.0, deals=24, command="x")
    return res


def test_a_scale_that_does_not_fit_is_dropped_from_the_ratings_and_the_chart():
    rng = np.random.default_rng(0)
    noisy = lambda m: m + rng.normal(0, 1, 400)
    res = _result({(0, 1): noisy(10), (1, 2): noisy(10), (0, 2): noisy(50)})
    assert not res["points_fit"]["fits"]
    assert "points a deal" not in ratings_markdown(res)
    text = report_markdown(res)
    assert "Does one points scale fit?" in text and "it does not fit" in text
    assert len(ladder_figure(res).axes) == 1


def test_a_scale_that_fits_is_shown():
    rng = np.random.default_rng(0)
    noisy = lambda m: m + rng.normal(0, 1, 400)
    res = _result({(0, 1): noisy(10), (1, 2): noisy(10), (0, 2): noisy(20)})
    assert res["points_fit"]["fits"]
    assert "points a deal vs a" in ratings_markdown(res)
    assert len(ladder_figure(res).axes) == 2
