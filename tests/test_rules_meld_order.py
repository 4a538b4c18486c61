"""A meld's verdict and score depend on its cards, not on the order they are listed in (VARIANTS 16,
17; issue 21 item 3).

- Where a set of cards reads as a clean or as a dirty run, the clean reading holds, as a player
  would lay it: 2C 3C 4C is the clean 2-3-4 of clubs (004 How to play: "A 2 of the same suit,
  placed in its own spot (ace, 2, 3 or 2, 3, 4), does not count as a wild card"), however listed.
- Special canastas (004 Common variations): a clean A-K run 500, A..A 1000, a dirty one an ordinary
  dirty canasta; the A-K of one suit with no wild is A-K whichever order lists it (VARIANTS 16).
"""

from __future__ import annotations

import itertools
import random

import pytest

from tranca_sim import referee as R
from tranca_sim.rules import PRESETS, get_preset

BURACO = get_preset("buraco")
SPECIAL = BURACO.replace(special_canastas=True)
HEARTS_A_K = ["AH", "2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "10H", "JH", "QH", "KH"]


def verdict(cards, rules):
    chk = R.validate_meld(list(cards), rules)
    return chk.legal, chk.clean, chk.canasta, chk.kind


@pytest.mark.parametrize("order", list(itertools.permutations(["3C", "4C", "2C"])))
def test_three_four_and_the_suits_two_read_clean_in_every_order(order):
    """3C 4C 2C in buraco: 004 lets the 2C stand in its own spot as a natural (2-3-4, clean) or as
    a wild for the 5C (3-4-5, dirty); the clean reading holds (VARIANTS 17), in all 6 orders:
    legal, clean, a run of positions 2..4 with no wild.  3 cards: no canasta."""
    chk = R.validate_meld(list(order), BURACO)
    assert (chk.legal, chk.clean, chk.canasta, chk.kind) == (True, True, False, "run")
    assert (chk.low, chk.high, chk.wild_at) == (2, 4, ())


@pytest.mark.parametrize(
    "cards, expected",
    [
        # A, own 2 at its place, 3: clean A-2-3 (004 "(ace, 2, 3 ...)")
        ("AD 2D 3D", (True, True, False, "run")),
        # the 2D natural at its place, the 2C a wild for the AD or the 5D: one wild, dirty, legal
        ("2D 3D 4D 2C", (True, False, False, "run")),
        # A-2-3-4 with both naturals: clean, 4 cards
        ("4S 3S AS 2S", (True, True, False, "run")),
        # two 2s of the suit: one natural at its place, the other a wild (for the 5S): dirty, legal
        ("2S 2S 3S 4S", (True, False, False, "run")),
        # the 2S natural at its place, the 2C standing for the 3S: two naturals, one wild: dirty
        ("2S 2C 4S", (True, False, False, "run")),
    ],
)
def test_runs_with_the_suits_two_give_one_verdict_for_every_order(cards, expected):
    """Every order of the same cards gets the same verdict (legal, clean, canasta, kind) in buraco
    (one wild a meld, 3s plain: 004).  2S 2C 4S: the 2S natural at its place, the 2C standing for
    the 3S: legal and dirty (two naturals, one wild)."""
    cs = cards.split()
    got = {verdict(p, BURACO) for p in itertools.permutations(cs)}
    assert got == {expected}


def _random_meld(rng, rules):
    """3-6 cards of one suit around a random place, some replaced by a 2 of any suit or a joker."""
    s = rng.choice("CDHS")
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    n = rng.randint(3, 6)
    lo = rng.randint(0, 14 - n)
    cards = [ranks[i] + s for i in range(lo, lo + n)]
    for i in range(n):
        if rng.random() < 0.25:
            cards[i] = "JK" if rules.n_jokers and rng.random() < 0.3 else "2" + rng.choice("CDHS")
    return cards


@pytest.mark.parametrize("preset", sorted(n for n in PRESETS if PRESETS[n].meld_runs))
def test_the_verdict_of_random_runs_does_not_depend_on_their_order(preset):
    """Random short runs (3-6 cards, some places taken by 2s or jokers), every preset with runs:
    every order of the same cards gets the same (legal, clean, canasta, kind).  The expected value
    is the cards' own: the same answer for all orders (VARIANTS 17), not one read from the code."""
    rules = get_preset(preset)
    rng = random.Random(21)
    for _ in range(150):
        cards = _random_meld(rng, rules)
        orders = {tuple(rng.sample(cards, len(cards))) for _ in range(12)} | {tuple(cards)}
        got = {verdict(o, rules) for o in orders}
        assert len(got) == 1, (cards, got)


@pytest.mark.parametrize("seed", range(4))
def test_a_clean_ace_to_king_scores_500_in_any_order(seed):
    """004 Common variations "Special canastras": a clean canastra from ace to king 500 (VARIANTS
    16: the cards decide).  The A-K of hearts in a random order, the 2H first among them in seed 0
    (2H ... KH AH, which also reads as 2..A): melded AH 15 + 2H 10 + 3H..7H 25 + 8H..KH 60 = 110,
    canasta bonus 500, total 610 (no red 3s in buraco, not out, morto taken, empty hand)."""
    cards = ["2H"] + HEARTS_A_K[2:] + ["AH"] if seed == 0 else random.Random(seed).sample(HEARTS_A_K, 13)
    s = R.score_side([cards], rules=SPECIAL)
    assert (s["melded_points"], s["canasta_bonus"], s["total"]) == (110, 500, 610)
    assert (s["canastas_clean"], s["canastas_dirty"]) == (1, 0)


def test_an_ace_to_ace_scores_1000_and_a_dirty_one_is_ordinary():
    """A..A of hearts (14 cards), listed from the 2 with both aces last: clean, 1000; melded
    110 + 15 = 125.  The same 13 A-K cards with the 5H replaced by a 2C listed first: dirty,
    an ordinary dirty canasta 100 (VARIANTS 16); melded 110 - 5 + 10 = 115."""
    aa = HEARTS_A_K[1:] + ["AH", "AH"]
    s = R.score_side([aa], rules=SPECIAL)
    assert (s["melded_points"], s["canasta_bonus"]) == (125, 1000)
    dirty = ["2C"] + [c for c in HEARTS_A_K if c != "5H"]
    s = R.score_side([dirty], rules=SPECIAL)
    assert (s["melded_points"], s["canasta_bonus"], s["canastas_dirty"]) == (115, 100, 1)
