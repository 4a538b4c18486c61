"""The red-3 area of ``score_side`` exists only where 3s are special (docs/rules.md 3.8, 3.20).

In the Buraco presets 3s are plain cards (``004_083ae37bb3863d19.txt`` Card values and scoring:
"3s" are 5-point cards; VARIANTS Presets ``threes_special = False``), so a side has no red-3 area:
a count of red 3s there is a mistake in the question, refused with one clear error, not scored
+-100 as in Tranca.
"""

from __future__ import annotations

import pytest

from tranca_sim import referee as R
from tranca_sim.rules import PRESETS, get_preset

PLAIN = [n for n, r in PRESETS.items() if not r.threes_special]


def test_buraco_presets_have_plain_threes():
    assert {"buraco", "buraco-fechado"} <= set(PLAIN)


@pytest.mark.parametrize("preset", PLAIN)
@pytest.mark.parametrize("red3", [1, 4, ["3H"], "3D 3H"])
def test_red3_refused_where_threes_are_plain(preset, red3):
    with pytest.raises(ValueError, match="no red-3 area"):
        R.score_side(["4H 5H 6H"], red3=red3, rules=get_preset(preset))


@pytest.mark.parametrize("preset", PLAIN)
def test_red3_in_hand_is_a_plain_card_where_threes_are_plain(preset):
    # 004 Card values: 4, 5, 6 and 3 are 5 points each.  Melded 4H 5H 6H = 15; a red 3 left
    # in hand costs its 5 points; morto taken, nobody went out, no canasta: 15 - 5 = 10.
    s = R.score_side(["4H 5H 6H"], red3=0, hand_cards="3H", rules=get_preset(preset))
    assert (s["melded_points"], s["hand_penalty"], s["red3_points"], s["total"]) == (15, -5, 0, 10)


def test_red3_still_scores_in_tranca():
    # 000 Gameplay 5 and Scoring: -100 a red 3 without a canasta.  Melded 5C 5D 5H = 15 (000: 5 each).
    s = R.score_side(["5C 5D 5H"], red3=1, rules=get_preset("tranca"))
    assert (s["red3_points"], s["total"]) == (-100, 15 - 100)
