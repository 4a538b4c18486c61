"""Blocks of fresh decks (tranca_sim.lab.statistics.blocks): no deck is shared between the blocks of an
experiment or between presets, and a figure is confirmed only when the blocks agree."""

import itertools
import math

import pytest

from tranca_sim.engine.kernel import deck_of
from tranca_sim.lab.statistics.blocks import block_seed, confirmation, pooled
from tranca_sim.rules import get_preset

PRESETS = ("tranca", "tranca-paulista", "tranca-aberta", "buraco")


def test_block_seeds_differ_between_blocks_presets_and_experiments():
    seeds = {(s, p, b): block_seed(s, p, b) for s in (1, 2, 20261130) for p in PRESETS for b in (1, 2, 3, 4)}
    assert len(set(seeds.values())) == len(seeds)
    assert all(0 <= x < 2**63 for x in seeds.values())
    assert block_seed(7, "tranca", 2) == block_seed(7, "tranca", 2)  # a function of its inputs
    with pytest.raises(ValueError):
        block_seed(7, "tranca", 0)


def test_no_deck_is_shared_between_blocks_or_presets():
    # the same seed in tranca and tranca-paulista used to deal the same decks (one confirmation
    # block for both presets); with block seeds no deck of the first deals coincides anywhere
    decks = {}
    for p, b in itertools.product(("tranca", "tranca-paulista", "tranca-aberta"), (1, 2, 3)):
        rules = get_preset(p)
        s = block_seed(20261130, p, b)
        for i in range(30):
            decks.setdefault(tuple(deck_of(rules, s, i)), []).append((p, b, i))
    shared = [where for where in decks.values() if len(where) > 1]
    assert not shared, shared[:3]
    # ... while one seed in two presets of the same pack deals the same deck (what blocks avoid)
    assert deck_of(get_preset("tranca"), 5, 0) == deck_of(get_preset("tranca-paulista"), 5, 0)


def _cell(decision, mean, se=2.0):
    return {"decision": decision, "mean": mean, "se": se}


def test_two_blocks_deciding_the_same_way_confirm_the_pooled_figure():
    c = confirmation([_cell("gain", 10.0), _cell("gain", 12.0)])
    assert c["confirmed"] and c["verdict"] == "gain"
    # inverse-variance mean of 10 and 12 with equal errors: 11, se 2 / sqrt 2
    assert c["mean"] == pytest.approx(11.0) and c["se"] == pytest.approx(math.sqrt(2.0))


@pytest.mark.parametrize(
    ("cells", "verdict"),
    [
        ([_cell("gain", 10.0)], "one block"),
        ([_cell("gain", 10.0), _cell("no decision", 9.0)], "undecided"),
        ([_cell("gain", 10.0), _cell("no effect", 1.0)], "blocks disagree"),
        ([_cell("gain", 10.0), _cell("loss", -10.0)], "blocks disagree"),
        # both gains, but 10 +- 1 and 30 +- 1 are not one effect: z = 20 / sqrt 2
        ([_cell("gain", 10.0, 1.0), _cell("gain", 30.0, 1.0)], "blocks disagree"),
    ],
)
def test_blocks_that_do_not_agree_confirm_nothing(cells, verdict):
    c = confirmation(cells)
    assert not c["confirmed"] and c["verdict"] == verdict


def test_three_blocks_use_cochrans_q():
    # equal estimates: Q = 0, p = 1; one far block: Q large
    assert pooled([5.0, 5.0, 5.0], [1.0, 1.0, 1.0])["p_agree"] == pytest.approx(1.0)
    # mean 10, Q = sum w (m - mean)^2 = 100 + 100 + 400 = 600 on 2 df
    p = pooled([0.0, 0.0, 30.0], [1.0, 1.0, 1.0])["p_agree"]
    assert p < 1e-100


def test_a_block_without_spread_is_not_taken_as_exact():
    # 20 decks that changed nothing (se 0) beside a block of +8.6 +- 18.6: equal weights, not all the
    # weight on the empty block
    p = pooled([8.6, 0.0], [18.6, 0.0])
    assert p["mean"] == pytest.approx(4.3) and p["se"] == pytest.approx(18.6 / 2)
    # both without spread and equal: the exact figure
    assert pooled([0.0, 0.0], [0.0, 0.0]) == {"mean": 0.0, "se": 0.0, "lo": 0.0, "hi": 0.0, "p_agree": 1.0}


def _split_cell(decision, mean, lo, hi, se=2.0):
    return {"decision": decision, "mean": mean, "se": se, "lo_split": lo, "hi_split": hi}


def test_the_published_interval_is_where_the_blocks_intervals_at_alpha_over_b_overlap():
    # each block's sequence at 97.5% (two blocks): the published 95% interval is their overlap,
    # not the normal interval 11 +- 1.96 sqrt 2 (a fixed-n interval at a data-dependent stop)
    c = confirmation([_split_cell("gain", 10.0, 4.0, 16.0), _split_cell("gain", 12.0, 5.0, 19.0)])
    assert c["confirmed"] and c["mean"] == pytest.approx(11.0)
    assert (c["lo"], c["hi"]) == (5.0, 16.0)


def test_blocks_whose_intervals_do_not_hold_the_pooled_figure_disagree():
    # the normal agreement test passes (se 20), but the blocks' intervals do not overlap
    c = confirmation([_split_cell("gain", 10.0, 8.0, 12.0, 20.0), _split_cell("gain", 30.0, 28.0, 32.0, 20.0)])
    assert not c["confirmed"] and c["verdict"] == "blocks disagree"
