"""The search player follows a tip (restricted play): where its rollout policy's answer with the
tip's values and without differ it plays the tip's answer; a tip that changes nothing changes no
decision."""

import numpy as np
import pytest

from tranca_sim.engine import simulate_chunk
from tranca_sim.strategies.pimc import tip_params

SMALL = "search:worlds=2,turns=4"


def _text(tip, without):
    return SMALL + "," + ",".join(f"{k}={v:g}" for k, v in tip_params(tip, without).items())


@pytest.fixture(scope="module")
def tranca():
    from tranca_sim.rules import get_preset
    from tranca_sim.strategies.user import include_search

    include_search()
    return get_preset("tranca")


def test_a_tip_with_the_policys_own_value_plays_exactly_as_no_tip(tranca):
    # the rollout policy (tuned) already has black3_lock=1: a tip of 1 against 1 never binds and
    # its rollouts are the policy's own, so every decision is the plain search player's
    same = _text({"black3_lock": 1}, {"black3_lock": 1})
    a = simulate_chunk(tranca, (SMALL, "basic"), 11, 0, 3)
    b = simulate_chunk(tranca, (same, "basic"), 11, 0, 3)
    for col in ("score", "n_turns", "pile_captures", "morto_turn"):
        assert np.array_equal(a[col], b[col]), col


def test_the_tip_decides_where_it_speaks(tranca):
    # never_pile=1 (a handicap: never take the pile while the stock has cards) against 0: the player
    # with the tip plays the stock wherever its policy would take the pile; the one forbidden the tip
    # takes it there. On the same decks the first takes far fewer piles.
    on = _text({"never_pile": 1}, {"never_pile": 0})
    off = _text({"never_pile": 0}, {"never_pile": 1})
    x = simulate_chunk(tranca, (on, off), 3, 0, 4)
    side = x["side"]
    taken_on = int(x["pile_captures"][side == 0].sum())
    taken_off = int(x["pile_captures"][side == 1].sum())
    assert taken_off >= 4 and taken_on * 4 <= taken_off, (taken_on, taken_off)


def test_tip_params_names_basics_parameter_and_both_values():
    from tranca_sim.strategies import StrategyError, basic

    i = [p[0] for p in basic.PARAMS].index("morto_stock")
    assert tip_params({"morto_stock": 20}, {"morto_stock": 108}) == {
        "tip": i, "tip_value": 20.0, "tip_without": 108.0
    }
    with pytest.raises(StrategyError):
        tip_params({"a": 1, "b": 2, "c": 3}, {"a": 0, "b": 0, "c": 0})
    with pytest.raises(StrategyError):
        tip_params({"nonsense": 1}, {"nonsense": 0})
