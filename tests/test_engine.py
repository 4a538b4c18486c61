"""Determinism, seeding and the batch kernel's contract."""

import numba
import numpy as np
import pytest

from tranca_sim import schema
from tranca_sim.engine import deck_of, play_deck, simulate_chunk
from tranca_sim.engine.cards import N_KINDS
from tranca_sim.rules import RulesError, get_preset

COMPARED = [
    n
    for n, _, _ in schema.COLUMNS
    if n not in ("preset", "master_seed", "strategy", "strategy_params", "version")
]


def _same(a, b):
    for k in COMPARED:
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_same_results_with_one_or_two_threads(tranca):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate_chunk(tranca, ("basic", "random"), 7, 0, 1000)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
        two = simulate_chunk(tranca, ("basic", "random"), 7, 0, 1000)
    finally:
        numba.set_num_threads(before)
    _same(one, two)


def test_same_results_whatever_the_batch_size(tranca):
    whole = simulate_chunk(tranca, ("random", "basic"), 11, 0, 1000)
    parts = [simulate_chunk(tranca, ("random", "basic"), 11, 100 * i, 100) for i in range(10)]
    joined = {k: np.concatenate([p[k] for p in parts]) for k in COMPARED}
    _same(whole, joined)


def test_a_single_deal_replays_alone(tranca):
    batch = simulate_chunk(tranca, ("basic", "basic"), 3, 500, 64)
    alone = simulate_chunk(tranca, ("basic", "basic"), 3, 537, 1)
    for k in COMPARED:
        np.testing.assert_array_equal(batch[k][74:76], alone[k], err_msg=k)


def test_strategies_do_not_change_the_cards(tranca):
    """Common random numbers: the deal's cards depend on (seed, index) only."""
    a = simulate_chunk(tranca, ("basic", "basic"), 5, 0, 200)
    b = simulate_chunk(tranca, ("random", "passive"), 5, 0, 200)
    for k in ("hand0_wilds", "hand0_jokers", "hand0_red3", "hand0_black3", "hand1_wilds", "first_seat"):
        np.testing.assert_array_equal(a[k], b[k], err_msg=k)


def test_seeds_and_indices_give_different_decks(tranca):
    d0 = deck_of(tranca, 1, 0)
    assert d0 == deck_of(tranca, 1, 0)
    assert d0 != deck_of(tranca, 1, 1)
    assert d0 != deck_of(tranca, 2, 0)
    assert np.bincount(d0, minlength=N_KINDS).tolist() == [2] * 52 + [4]


def test_shuffle_is_roughly_uniform(tranca):
    """Each of the 53 kinds is on top of the pack with probability 2/108 (jokers 4/108)."""
    tops = np.array([deck_of(tranca, 9, i)[0] for i in range(5400)])
    counts = np.bincount(tops, minlength=N_KINDS)
    # expected 100 per suited kind, 200 for the joker; 6 sigma bounds
    assert counts[:52].min() > 100 - 60 and counts[:52].max() < 100 + 60
    assert 200 - 85 < counts[52] < 200 + 85


def test_play_deck_matches_the_batch(tranca):
    """The stacked-deck entry point plays exactly what the batch kernel plays for that deck."""
    deck = deck_of(tranca, 4, 21)
    _, one = play_deck(tranca, deck, ("basic", "random"), first_seat=21 % 4, master_seed=4, deal_index=21)
    batch = simulate_chunk(tranca, ("basic", "random"), 4, 21, 1)
    for k in COMPARED:
        np.testing.assert_array_equal(one[k], batch[k], err_msg=k)


def test_bad_arguments_are_refused(tranca):
    with pytest.raises(ValueError):
        simulate_chunk(tranca, ("basic", "basic"), -1, 0, 10)
    with pytest.raises(ValueError):
        simulate_chunk(tranca, ("basic", "basic"), 1, 0, 0)
    with pytest.raises(ValueError, match="unknown strategy"):
        simulate_chunk(tranca, ("nosuch", "basic"), 1, 0, 10)
    with pytest.raises(ValueError, match="pack"):
        play_deck(tranca, [0] * 108)
    with pytest.raises(RulesError, match="unknown preset"):
        get_preset("canasta")
    with pytest.raises(RulesError, match="unknown rule option"):
        tranca.replace(wilds=3)


@pytest.mark.parametrize(
    "option, value",
    [
        ("min_naturals", 4),  # a new meld is three cards: it could never be laid
        ("morto_size", 1),
        ("clean_bonus", 10**20),
        ("canasta_size", 1000),
        ("match_target", -1),
        ("max_turns", 5),
        ("hand_size", "11"),
        ("em_cima", 1),
    ],
)
def test_rule_options_out_of_range_are_refused(tranca, option, value):
    with pytest.raises(RulesError, match=option):
        tranca.replace(**{option: value})


def test_three_naturals_minimum_is_played(tranca):
    rules = tranca.replace(min_naturals=3)
    c = simulate_chunk(rules, ("basic", "random"), 8, 0, 300, check=True)
    assert c["invariant_errors"].max() == 0
