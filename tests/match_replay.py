"""A match played again in Python, deal by deal, for the match tests of two and three sides."""

from __future__ import annotations

from tranca_sim.engine import play_deck
from tranca_sim.engine.kernel import deck_of
from tranca_sim.engine.match import deal_key


def assert_match_replayed(rules, strategies, seed: int, m: int, matches: dict) -> None:
    """Play match ``m`` again one deal at a time from its deal keys: each deal led by seat
    ``(m + d) % n_seats`` and handed the match scores before it, stopping, as written out here
    from 000 Winning, when the highest total reaches ``rules.match_target`` and no other side
    has it; each deal's scores and the number of deals must equal the rows ``matches``
    (``simulate_match_chunk`` columns) hold."""
    ns = rules.n_sides
    score = [0] * ns
    d = 0
    while True:
        key = deal_key(m, d)
        _, cols = play_deck(
            rules, deck_of(rules, seed, key), strategies, (m + d) % rules.n_seats, seed, key,
            check=False, match_scores=score, deal_in_match=d,
        )  # fmt: skip
        row = (matches["match_index"] == m) & (matches["deal_in_match"] == d)
        assert list(matches["score"][row]) == [int(x) for x in cols["score"]], (m, d)
        score = [score[s] + int(cols["score"][s]) for s in range(ns)]
        d += 1
        top = max(score)
        if top >= rules.match_target and score.count(top) == 1:
            break
    assert d == matches["match_deals"][matches["match_index"] == m][0]
