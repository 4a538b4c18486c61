"""The rollout policy of analyse and review: tuned where the preset has its parameter file, basic
elsewhere (a fresh user's find: tuned played tranca's values in every preset, which lose to basic
in buraco-fechado), and the head of the output names it."""

import tomllib
import warnings
from pathlib import Path

import numpy as np
import pytest

from tranca_sim.analyse import analyse, default_policy, format_analysis, policy_row
from tranca_sim.engine.log import play_logged
from tranca_sim.position_log import position_at
from tranca_sim.review import format_review, review
from tranca_sim.rules import PRESETS, get_preset
from tranca_sim.strategies import basic

# the presets with a file in strategies/tuned/ (docs/explanation/results.md)
TUNED_PRESETS = {"tranca", "tranca-aberta", "tranca-paulista", "buraco"}
TUNED_DIR = Path(__file__).resolve().parents[1] / "strategies" / "tuned"


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_default_rollout_policy_is_tuned_only_where_the_preset_has_its_file(preset):
    assert default_policy(preset) == ("tuned" if preset in TUNED_PRESETS else "basic")


def test_tuned_rollouts_play_the_values_tuned_for_the_preset():
    """buraco's rollouts by tuned play strategies/tuned/buraco.toml, not tranca.toml."""
    given = tomllib.loads((TUNED_DIR / "buraco.toml").read_text(encoding="utf-8"))["params"]
    want = [float(given.get(p[0], p[1])) for p in basic.PARAMS]
    row = policy_row("tuned", "buraco")
    np.testing.assert_array_equal(row[: len(want)], want)
    assert list(row[: len(want)]) != list(policy_row("tuned", "tranca")[: len(want)])


@pytest.mark.parametrize("preset, policy", [("buraco-fechado", "basic"), ("buraco", "tuned")])
def test_analyse_and_review_say_which_policy_played_the_rollouts(preset, policy):
    log = play_logged(get_preset(preset), ["basic", "basic"], 11, 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no fallback warning: the default never falls back
        a = analyse(position_at(log, 5, "draw"), seconds=0.01, max_worlds=4)
        rv = review(log, 0, seconds=0.01, max_worlds=4, phases=("draw",))
    assert a.policy == policy and f"rollouts to the end of the deal by {policy};" in format_analysis(a)
    assert rv.policy == policy and f"rollouts by {policy}" in format_review(rv, "deal 0")
