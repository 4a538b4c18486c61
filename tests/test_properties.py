"""Property tests (hypothesis): the rules hold for any deal, any seed."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tranca_sim import schema
from tranca_sim.engine import simulate_chunk
from tranca_sim.engine.cards import JOKER, to_str
from tranca_sim.referee import validate_meld
from tranca_sim.rules import get_preset

TRANCA = get_preset("tranca")

seeds = st.integers(min_value=0, max_value=2**63 - 1)
pairs = st.sampled_from(
    [("basic", "basic"), ("random", "random"), ("basic", "random"), ("passive", "random")]
)


@settings(max_examples=25, deadline=None)
@given(seed=seeds, start=st.integers(min_value=0, max_value=10**9), pair=pairs)
def test_any_seed_keeps_the_invariants(seed, start, pair):
    c = simulate_chunk(TRANCA, pair, seed, start, 20, check=True)
    assert c["invariant_errors"].max() == 0
    parts = sum(c[p].astype(np.int64) for p in schema.SCORE_PARTS)
    np.testing.assert_array_equal(parts, c["score"])
    assert (c["end_reason"] != 3).all()  # never the turn-limit safety net


@settings(max_examples=300, deadline=None)
@given(cards=st.lists(st.sampled_from(range(53)), min_size=1, max_size=12))
def test_new_meld_legality_follows_000_gameplay_7(cards):
    """000 Gameplay 7 / VARIANTS 2: three or more cards of one rank, at least two naturals,
    at most two wilds (2s and jokers); 3s are never melded outside the going-out black-3 set."""
    counts = np.bincount(cards, minlength=53)
    if (counts[:52] > 2).any() or counts[JOKER] > 4:
        return  # not cards of one pack
    wilds = [k for k in cards if k == JOKER or k % 13 == 1]
    naturals = [k for k in cards if k not in wilds]
    ranks = {k % 13 for k in naturals}
    expected = (
        len(cards) >= 3 and len(ranks) == 1 and len(naturals) >= 2 and len(wilds) <= 2 and 2 not in ranks
    )
    got = validate_meld([to_str(k) for k in cards], TRANCA)
    assert got.legal == expected, (cards, got.reason)
    if got.legal:
        assert got.clean == (not wilds)
        assert got.canasta == (len(cards) >= 7)
