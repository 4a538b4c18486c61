"""``basic`` in runs presets where going out needs a clean canasta (``buraco``, ``tranca-br``,
``tranca-sp``): ``run_clean_first`` and ``out_pile_max`` (strategies/basic.py, docs/strategies.md
"Runs and a clean canasta to go out").  Hand-made ``buraco`` positions (seed
``004_083ae37bb3863d19.txt``: same-suit runs only, 2s wild, one wild a run, open pile, a clean
canasta of 7 naturals to go out); the expected choices are worked out by hand from the
parameters' text, the old play (``run_clean_first=0``, ``out_pile_max=108``) beside each.

Seat 0 (side A) is to move.  In ``tranca`` (no runs) neither parameter plays: checked on a
position where the same hand would be affected in ``buraco``.
"""

import numpy as np
import pytest
from numba import njit

from tranca_sim.engine.deal import _obs
from tranca_sim.engine.obs import A_CAP_OPEN, A_EXT, A_RUN_EXT, A_RUN_NEW, A_STOCK, C_TWO, PUB_LEN, RUN_3NAT
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import list_draws, list_melds
from tranca_sim.rules import PRESETS
from tranca_sim.strategies import basic, resolve

DRAW, MELD = 0, 1


@njit
def _decide(st, rp, seat, prm, what):
    pub = np.zeros(PUB_LEN, np.int32)
    hidden = np.zeros((2, 53), np.int16)
    acts = np.zeros(512, np.int32)
    rng = np.zeros(4, np.uint64)
    o = _obs(st, rp, seat, pub, hidden)
    if what == DRAW:
        n = list_draws(st, rp, seat, acts)
        i = basic.choose_draw(prm, o, acts, n, rng)
    else:
        n = list_melds(st, rp, seat, acts)
        i = basic.choose_meld(prm, o, acts, n, rng)
    return acts[i] if i >= 0 else -1


def decide(rules, st, what, spec="basic"):
    """Seat 0's draw or meld-phase choice (every listed action, sets and runs) as (type, x, y),
    or None (stop melding)."""
    a = int(_decide(st, rules.to_array(), 0, resolve(spec).params, what))
    return None if a < 0 else (a >> 16, (a >> 8) & 255, a & 255)


OLD = "basic:run_clean_first=0,out_pile_max=108"
STOCK = "4C 5C 6C 7C 8C 9C 10C JC QC KC 4D 8D"  # plain stock cards the positions do not use
MORTO_B = "AC AC AD AD AH AH 3C 3C 3D 3D 3H"  # side B's waiting morto (11 cards, 004)
MORTO_A = "AS AS 3S 3S 4S 4S 5S 5S 6S 6S 7S"
CLEAN7 = "3H 4H 5H 6H 7H 8H 9H"  # a clean run canasta (7 naturals)


@pytest.fixture(scope="module")
def buraco():
    return PRESETS["buraco"]


def pos(rules, hand, melds_a=(), taken=False, pile=None, stock=STOCK):
    """Seat 0 to move with ``hand``; seats 1-3 hold one card each; side B's morto waits, side
    A's waits too unless ``taken`` (then seat 2 took it)."""
    mortos = {1: MORTO_B} if taken else {0: MORTO_A, 1: MORTO_B}
    return make_position(
        rules,
        hands={0: hand, 1: "KD", 2: "QD", 3: "JD"},
        melds={0: list(melds_a), 1: []},
        pile=pile,
        stock=stock,
        mortos=mortos,
        taken_mortos={0: 2} if taken else None,
    )


def _kind(a):
    return None if a is None else a[0]


def test_no_wild_on_a_clean_run_while_the_side_has_no_clean_canasta(buraco):
    # Side A: one clean run of six hearts, no clean canasta. Hand 2C 5D 7S KS: the 2C is the
    # only card that melds (as a wild at 4H or 10H: 6 + 1 = 7 cards, a canasta).
    # Old play: a wild completing a canasta scores 30 -> the 2C goes on the run (a dirty canasta).
    # run_clean_first: the run is the side's only way to the clean canasta it needs to go out
    # (7 naturals; one wild a run and a wild keeps its place, E18) -> no wild on it: nothing laid.
    st = pos(buraco, "2C 5D 7S KS", melds_a=["4H 5H 6H 7H 8H 9H"])
    old = decide(buraco, st, MELD, OLD)
    assert old[0] == A_RUN_EXT and old[1] == 0 and old[2] % 4 == C_TWO
    assert decide(buraco, st, MELD) is None


def test_the_wild_completes_a_canasta_once_the_side_has_a_clean_one(buraco):
    # As above with a clean canasta (3H..9H) already on the table: the rule is spent; the 2C
    # completes the spades run 8S..KS plus the wild (6 + 1 = 7) as in the old play (score 30).
    st = pos(buraco, "2C 5D 7D KD", melds_a=[CLEAN7, "8S 9S 10S JS QS KS"])
    for spec in ("basic", OLD):
        a = decide(buraco, st, MELD, spec)
        assert a[0] == A_RUN_EXT and a[1] == 1 and a[2] % 4 == C_TWO


def test_no_wild_started_run_while_the_side_has_no_clean_canasta(buraco):
    # Hand 5D 6D 2C KS QH, nothing on the table: the only meld is 5D 6D + the 2C as 4D or 7D.
    # Old play: a new meld with a wild scores 10 -> laid. run_clean_first: the 5D 6D wait for a
    # natural 4D/7D (a clean run) -> nothing laid (5 cards in hand: no morto to empty it for).
    st = pos(buraco, "5D 6D 2C KS QH")
    old = decide(buraco, st, MELD, OLD)
    assert old[0] == A_RUN_NEW and old[2] != RUN_3NAT
    assert decide(buraco, st, MELD) is None


def test_a_wild_started_run_that_empties_the_hand_for_the_morto_is_laid(buraco):
    # Hand 5D 6D 2C only, side A's morto waiting: laying the three cards empties the hand and
    # takes the morto (3 cards <= 3, the hand may empty) -> laid by both plays.
    st = pos(buraco, "5D 6D 2C")
    for spec in ("basic", OLD):
        a = decide(buraco, st, MELD, spec)
        assert a[0] == A_RUN_NEW and a[2] != RUN_3NAT


@pytest.mark.parametrize(
    "pile, hand, new",
    [
        # 2-card pile QC 8H (top 8H): 8H extends side A's 5H 6H 7H, QC sits next to the KC in
        # hand -> it fits (2 of 2 >= 0.25). Side A may go out (morto taken, clean canasta) and
        # seat 0 holds 3 cards: a pile of 2 > out_pile_max 1 -> the stock.
        ("QC 8H", "9D 10D KC", A_STOCK),
        # A one-card pile whose card melds at once (8H onto 5H-7H) is still taken.
        ("8H", "9D 10D KC", A_CAP_OPEN),
        # Seat 0 holds 4 cards (> 3): not about to go out -> the pile as in the old play.
        ("QC 8H", "9D 10D KC JS", A_CAP_OPEN),
    ],
)
def test_out_pile_max_keeps_a_small_hand_small(buraco, pile, hand, new):
    st = pos(buraco, hand, melds_a=["3S 4S 5S 6S 7S 8S 9S", "5H 6H 7H"], taken=True, pile=pile)
    assert _kind(decide(buraco, st, DRAW, OLD)) == A_CAP_OPEN
    assert _kind(decide(buraco, st, DRAW)) == new


def test_tranca_plays_as_before():
    # Tranca (000): no runs and any canasta goes out: neither parameter applies. Hand 2C 5D 7S
    # KS with a clean 9s meld of six: the 2C completes a (dirty) canasta, score 30, both plays.
    tranca = PRESETS["tranca"]
    st = make_position(
        tranca,
        hands={0: "2C 5D 7S KS", 1: "4D", 2: "5H", 3: "6H"},
        melds={0: ["9C 9C 9D 9D 9H 9H"], 1: []},
        stock="4C 5C 6C 7C 8C 10C JC QC KC",
        mortos={0: MORTO_A, 1: "AC AC QS"},
    )
    for spec in ("basic", OLD):
        assert decide(tranca, st, MELD, spec) == (A_EXT, 0, C_TWO)
