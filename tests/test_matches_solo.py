"""Matches at the three-player table (``tranca-3p``): three sides, target 1500.

Sources: seed ``000_95ec226e9cdd732e.txt`` "Winning" ("A match is won by the first partnership to
reach the agreed cumulative total ... If both partnerships cross the threshold on the same deal,
the higher score wins; a dead tie is broken by an extra deal"), Setup 1 ("the deal rotates
clockwise after each hand"), Common Variations "Three-player Tranca" ("canasta bonuses and match
target halved": 3000 / 2 = 1500); VARIANTS.md decision 15; docs/rules.md E25 (matches), E27
(solo tables: a player is a side).  With three players the sentences are read among three sides:
the match ends after the first deal that leaves one player strictly highest at or above the
target.  Every expected outcome below is worked out by hand, not read from the engine.
"""

from __future__ import annotations

import numpy as np
import pytest
from match_replay import assert_match_replayed

from tranca_sim.cli import main
from tranca_sim.engine import simulate_match_chunk
from tranca_sim.engine.match import match_decided
from tranca_sim.engine.state import END_TURN_LIMIT
from tranca_sim.io import load_meta, load_run
from tranca_sim.referee.match import check_match_rows, match_outcome
from tranca_sim.rules import get_preset

STRATS = ("basic", "basic", "basic")


@pytest.fixture(scope="module")
def p3():
    return get_preset("tranca-3p")


@pytest.fixture(scope="module")
def matches(p3):
    return simulate_match_chunk(p3, STRATS, 21, 0, 24, check=True)


# ---- deciding a match among three ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("scores", "winner"),
    [
        ([1520, 900, 1100], 0),  # A alone at 1500+: A wins
        ([1490, 1499, 1200], -1),  # nobody at 1500: play on
        ([1600, 1650, 1200], 1),  # A and B over in one deal: the higher, B (1650 > 1600)
        ([1505, 1685, 1625], 1),  # all three over: B highest (1685 > 1625 > 1505)
        ([1600, 1600, 1000], -1),  # A and B over, dead tie at the top: another deal
        ([1400, 1700, 1700], -1),  # B and C tied at the top (A below the target): another deal
        ([1700, 1700, 1800], 2),  # A and B tied, but C higher than both: C wins
        ([900, 1100, 1500], 2),  # exactly the target is reaching it
    ],
)
def test_three_sides_decided(scores, winner):
    who, ties, best = match_decided(np.array(scores, dtype=np.int64))
    assert (who if best >= 1500 and ties == 1 else -1) == winner
    _, ref = match_outcome([scores], 1500)  # the referee's own rule, one deal from zero
    assert (-1 if ref is None else ref) == winner


def test_hand_made_match():
    """A match of four deals made by hand, target 1500 (tranca-3p).
    deal 0: 620, 310, -45   -> 620, 310, -45     nobody at 1500
    deal 1: 400, 515, 280   -> 1020, 825, 235    nobody at 1500
    deal 2: 505, 700, 90    -> 1525, 1525, 325   A and B over, dead tie: another deal
    deal 3: -20, 160, 1300  -> 1505, 1685, 1625  B strictly highest: B wins after 4 deals
    (a fifth deal in the list is never played)."""
    deals = [[620, 310, -45], [400, 515, 280], [505, 700, 90], [-20, 160, 1300], [999, 0, 0]]
    assert match_outcome(deals, 1500) == (4, 1)
    assert match_outcome(deals[:3], 1500) == (3, None)  # undecided after the tie


def _rows(deals, winner, first_seats, m=0):
    """Run-file rows of one match (one row per deal and side) from hand-made deal scores."""
    k, n = len(deals), len(deals[0])
    totals = np.cumsum(np.array(deals), axis=0)
    return {
        "match_index": np.full(k * n, m),
        "deal_in_match": np.repeat(np.arange(k), n),
        "side": np.tile(np.arange(n), k),
        "score": np.array(deals).reshape(-1),
        "match_score": totals.reshape(-1),
        "match_deals": np.full(k * n, k),
        "match_winner": np.full(k * n, winner),
        "first_seat": np.repeat(np.array(first_seats), n),
    }


def test_referee_flags_a_wrong_match():
    """The referee's match check passes the hand-made match above (B, 4 deals, first seats
    0, 1, 2, 0 for match 0: (0 + d) % 3) and names each planted error."""
    deals = [[620, 310, -45], [400, 515, 280], [505, 700, 90], [-20, 160, 1300]]
    good = _rows(deals, 1, [0, 1, 2, 0])
    assert check_match_rows(good, 1500, 200, 3) == []
    wrong_winner = dict(good, match_winner=np.full(12, 2))  # C (1625) is not the highest
    (m, why), *_ = check_match_rows(wrong_winner, 1500, 200, 3)
    assert m == 0 and "side B" in why
    early = _rows(deals[:3], 0, [0, 1, 2])  # stopping at the 1525-1525 tie with A as winner
    assert "undecided" in check_match_rows(early, 1500, 200, 3)[0][1]
    seat = _rows(deals, 1, [0, 1, 0, 1])  # a partnership-table rotation at a table of three
    assert "seat 0" in check_match_rows(seat, 1500, 200, 3)[0][1]
    longer = _rows([*deals, [10, 10, 10]], 1, [0, 1, 2, 0, 1])  # played on after B's win
    assert "plays 5 deals" in check_match_rows(longer, 1500, 200, 3)[0][1]


# ---- the engine's matches at three players -----------------------------------------------------
def test_engine_matches_follow_the_referee(matches, p3):
    """Every match of a tranca-3p match run: three rows a deal, the running score the sum of the
    deal scores, stopped at the deal that decides it, the winner the referee's, the deal led by
    seat (m + d) % 3 (the deal rotates round three players)."""
    assert (matches["invariant_errors"] == 0).all() and (matches["illegal_choices"] == 0).all()
    assert p3.match_target == 1500
    assert check_match_rows(matches, 1500, p3.max_match_deals, 3) == []
    assert set(np.unique(matches["side"])) == {0, 1, 2}
    winners = matches["match_winner"][(matches["deal_in_match"] == 0) & (matches["side"] == 0)]
    assert len(winners) == 24 and set(winners) <= {0, 1, 2}
    assert (matches["end_reason"] != END_TURN_LIMIT).all()
    assert list(matches["won_match"]) == list(matches["side"] == matches["match_winner"])


def test_three_player_match_replayed(matches, p3):
    """Two matches played again deal by deal from their deal keys, each deal handed the three
    match scores before it, led by seat (m + d) % 3, with the stopping rule of 000 Winning
    written out here: the same deal scores and the same number of deals."""
    assert p3.match_target == 1500
    for m in (0, 1):
        assert_match_replayed(p3, STRATS, 21, m, matches)


def test_cli_three_player_matches(tmp_path, capsys):
    """``simulate --matches`` at tranca-3p: three rows a deal, summarize names side C's match
    wins, check referees the sampled deals and every match."""
    out = tmp_path / "m3.parquet"
    argv = ["simulate", "--preset", "tranca-3p", "--matches", "12", "--seed", "4", "--side-c", "random"]
    assert main([*argv, "--out", str(out), "--no-progress"]) in (0, None)
    meta = load_meta(out)
    assert meta["matches"] == 12 and [s["side"] for s in meta["strategies"]] == ["A", "B", "C"]
    df = load_run(out, backend="pandas")
    first = df[(df["deal_in_match"] == 0) & (df["side"] == 0)]
    assert len(df) == 3 * int(first["match_deals"].sum())
    capsys.readouterr()
    assert main(["summarize", str(out)]) in (0, None)
    text = capsys.readouterr().out
    assert "matches: 12" in text and "side C random: won" in text
    assert main(["check", str(out), "--sample", "6", "--no-progress"]) in (0, None)
    text = capsys.readouterr().out
    assert "all 12 matches (0 wrong)" in text
