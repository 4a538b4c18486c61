"""Matches (VARIANTS decision 15) and the minimum first meld of 004 (E25).

Sources: seed 000 "Winning" ("A match is won by the first partnership to reach the agreed
cumulative total ... If both partnerships cross the threshold on the same deal, the higher score
wins; a dead tie is broken by an extra deal"), 000 Setup 1 ("the deal rotates clockwise after each
hand"), 004 "End of the game" and Variations "Minimum points to lay down" ("in a game to 3,000
points, many rule sets ask a team with 1,500 points or more to lay down at least 75 points in
cards in its first meld of each round").  Every expected value below is worked by hand from
those sentences, not read from the engine.
"""

from __future__ import annotations

import numba
import numpy as np
import pytest
from match_replay import assert_match_replayed

from tranca_sim.engine import simulate_match_chunk
from tranca_sim.engine.kernel import set_match_facts
from tranca_sim.engine.match import MATCH_STRIDE, match_decided
from tranca_sim.engine.obs import A_NEW, act_type, act_x
from tranca_sim.engine.opening import filter_melds, must_go_on
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import list_melds
from tranca_sim.engine.state import SS_MELD_MIN, new_state
from tranca_sim.referee import check_log
from tranca_sim.rules import get_preset

STRATS = ("basic", "basic")


@pytest.fixture(scope="module")
def tranca():
    return get_preset("tranca")


@pytest.fixture(scope="module")
def minimum():
    """Tranca with 004's card values (A 15, K..8 10, 7..3 5, 2 10, joker 20) and 004's minimum."""
    return get_preset("tranca").replace(card_values="004", first_meld_min=75)


@pytest.fixture(scope="module")
def quick_target(tranca):
    """A short match (target 1000) so each match takes a few deals only."""
    return tranca.replace(match_target=1000, first_meld_min=75)


@pytest.fixture(scope="module")
def matches(quick_target):
    return simulate_match_chunk(quick_target, STRATS, 11, 0, 60, check=True)


# ---- deciding a match -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("scores", "target", "winner"),
    [
        ([3010, 2000], 3000, 0),  # A alone passes 3000: A wins
        ([2990, 2500], 3000, -1),  # nobody at 3000: play on
        ([3100, 3150], 3000, 1),  # both over in one deal: the higher (B, 3150 > 3100) wins
        ([3050, 3050], 3000, -1),  # both over, a dead tie: another deal
        ([3000, -40], 3000, 0),  # exactly the target is reaching it ("reach the agreed total")
    ],
)
def test_match_decided(scores, target, winner):
    who, ties, best = match_decided(np.array(scores, dtype=np.int64))
    got = who if best >= target and ties == 1 else -1
    assert got == winner


def test_match_rows_follow_the_rules(matches, quick_target):
    """Every match of a run: the running score is the sum of the deal scores; no deal before the
    last decided the match; after the last one the winner is at the target and strictly higher."""
    target = quick_target.match_target
    m_idx = matches["match_index"]
    assert (matches["invariant_errors"] == 0).all() and (matches["illegal_choices"] == 0).all()
    for m in np.unique(m_idx):
        rows = m_idx == m
        score = matches["score"][rows].reshape(-1, 2)
        running = matches["match_score"][rows].reshape(-1, 2)
        assert (running == np.cumsum(score, axis=0)).all()
        k = len(score)
        assert (matches["match_deals"][rows] == k).all()
        assert list(matches["deal_in_match"][rows][::2]) == list(range(k))
        for d in range(k - 1):  # not decided: nobody at the target, or a dead tie at the top
            a, b = running[d]
            assert max(a, b) < target or a == b
        a, b = running[-1]
        w = matches["match_winner"][rows][0]
        assert w in (0, 1) and max(a, b) >= target and running[-1][w] > running[-1][1 - w]
        assert list(matches["won_match"][rows]) == [s == w for s in matches["side"][rows]]


def test_dealer_rotates(matches):
    """000 Setup 1: the deal rotates clockwise, so the first seat of deal d of match m is one seat
    further for each deal: (m + d) % 4 (the first dealer rotates with the match index)."""
    want = (matches["match_index"] + matches["deal_in_match"]) % 4
    assert (matches["first_seat"] == want).all()
    assert (matches["deal_index"] == matches["match_index"] * MATCH_STRIDE + matches["deal_in_match"]).all()


def test_match_replayed_deal_by_deal(quick_target, matches):
    """A match played again in Python, one deal at a time from its deal key, with the match
    scores handed to each deal and the stopping rule written out here: the same rows."""
    for m in (0, 1, 2):
        assert_match_replayed(quick_target, STRATS, 11, m, matches)


def test_matches_independent_of_threads_and_chunks(quick_target):
    before = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        one = simulate_match_chunk(quick_target, STRATS, 5, 0, 12)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        many = simulate_match_chunk(quick_target, STRATS, 5, 0, 12)
    finally:
        numba.set_num_threads(before)
    parts = [simulate_match_chunk(quick_target, STRATS, 5, s, 4) for s in (0, 4, 8)]
    for k in ("deal_index", "score", "match_score", "match_winner", "first_seat"):
        assert (one[k] == many[k]).all()
        assert (one[k] == np.concatenate([p[k] for p in parts])).all()


# ---- the minimum first meld ------------------------------------------------------------------
def test_minimum_from_the_match_score(minimum, tranca):
    """004: a team with 1,500 points or more in a game to 3,000 lays at least 75; below, nothing."""
    st = new_state()
    set_match_facts(st, minimum.to_array(), np.array([1500, 1499], dtype=np.int64), 3)
    assert list(st.ss[:2, SS_MELD_MIN]) == [75, 0]
    assert minimum.first_meld_minimum(1500) == 75 and minimum.first_meld_minimum(1499) == 0
    # off by default: no minimum at any score
    set_match_facts(st, tranca.to_array(), np.array([2900, 2900], dtype=np.int64), 0)
    assert list(st.ss[:2, SS_MELD_MIN]) == [0, 0]


def _opening_acts(rules, hand, need):
    st = make_position(
        rules, hands={0: hand, 1: "9H", 2: "9C", 3: "9S"}, mortos={0: "4H", 1: "4D"}, stock="8C 8D"
    )
    st.ss[0, SS_MELD_MIN] = need
    acts = np.zeros(512, np.int32)
    rp = rules.to_array()
    n = list_melds(st, rp, 0, acts)
    if need:
        n = filter_melds(st, rp, 0, acts, n, new_state(), np.zeros(512, np.int32))
    return st, {(int(act_type(a)), int(act_x(a))) for a in acts[:n]}


def test_minimum_refuses_70(minimum):
    """004 values: K K K K = 4 x 10 = 40, Q Q Q = 3 x 10 = 30; 5C 9D 4S meld nothing.  All the
    hand can lay this turn is 40 + 30 = 70 < 75: no meld is offered at 1500+."""
    hand = "KH KD KS KC QH QD QS 5C 9D 4S"
    _, acts = _opening_acts(minimum, hand, 75)
    assert acts == set()
    # below 1500 (no minimum) the same hand may meld its kings and queens (ranks 13 and 12)
    _, free = _opening_acts(minimum, hand, 0)
    assert {(A_NEW, 13), (A_NEW, 12)} <= free


def test_minimum_allows_75_over_several_melds(minimum):
    """K K K = 30, Q Q Q = 30, 5 5 5 = 3 x 5 = 15: 75 in three melds laid in the same turn, which
    count together (004: "lay down at least 75 points in cards in its first meld", E25).  Each of
    the three new melds is offered; after the kings alone (30 < 75) the player may not stop."""
    hand = "KH KD KS QH QD QS 5C 5D 5S 9D"
    st, acts = _opening_acts(minimum, hand, 75)
    assert {(A_NEW, 13), (A_NEW, 12), (A_NEW, 5)} <= acts
    from tranca_sim.engine.melds import apply_meld_action

    rp = minimum.to_array()
    apply_meld_action(st, rp, 0, A_NEW, 13, 0)  # K K K: 30 card points
    assert must_go_on(st, rp, 0)


def test_minimum_drop_one_five_is_refused(minimum):
    """K K K + Q Q Q + 5 5 (a pair, no wild: no meld) = 60 < 75: nothing is offered."""
    _, acts = _opening_acts(minimum, "KH KD KS QH QD QS 5C 5D 9D 4S", 75)
    assert acts == set()


# ---- the referee on match deals ---------------------------------------------------------------
def test_referee_checks_match_deals(quick_target, matches):
    """The referee replays deals of matches (the later deals have sides at 500+ of 1000, so
    first_meld_min=75 applies to them) and agrees with the engine on every one."""
    from tranca_sim.engine.log import play_logged

    keys = np.unique(matches["deal_index"])[:40]
    after = {
        (int(k), int(s)): int(v)
        for k, s, v in zip(matches["deal_index"], matches["side"], matches["match_score"])
    }
    applied = 0
    for key in keys:
        m, d = divmod(int(key), MATCH_STRIDE)
        scores = [after[(int(key) - 1, s)] for s in (0, 1)] if d else [0, 0]
        applied += sum(x >= 500 for x in scores)
        log = play_logged(
            quick_target, STRATS, 11, int(key), match={"match_index": m, "deal_in_match": d, "scores": scores}
        )
        v = check_log(log)
        assert v.ok, str(v)
        assert [v.scores[s]["score"] for s in "AB"] == [after[(int(key), s)] - (scores[s]) for s in (0, 1)]
    assert applied > 0


def test_referee_refuses_a_short_first_meld(minimum):
    """Deals played with no minimum (match scores 0) whose logs then claim scores of 1500: the
    referee finds a side's first meld short of 75 where it was one three-card meld: two naturals
    and at most one wild, at most A A + joker = 15 + 15 + 20 = 50 < 75 in 004 values."""
    from tranca_sim.engine.log import play_logged

    flagged = 0
    for i in range(6):
        log = play_logged(minimum, STRATS, 3, i)
        assert check_log(log).ok
        log["match"] = {"match_index": 0, "deal_in_match": 1, "scores": [1500, 1500]}
        v = check_log(log)
        if not v.ok:
            assert v.code == "first_meld_min", str(v)
            flagged += 1
    assert flagged > 0
