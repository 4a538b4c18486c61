"""review: each decision charged once; the melds of a turn are one decision (issue 23)."""

from types import SimpleNamespace

import numpy as np
import pytest

import tranca_sim.review as rvm
from tranca_sim.engine.log import play_logged
from tranca_sim.position_log import decisions_of
from tranca_sim.describe import played_choice
from tranca_sim.position_state import legal_choices, observation, to_state
from tranca_sim.rules import get_preset

# deal 0 of seed 1, basic against basic: seat 3 lays six melds at turn 15, then stops and
# discards (seven meld decisions: the melds and the stop), with nothing new in its hand between
SEAT, TURN = 3, 15


@pytest.fixture(scope="module")
def log():
    return play_logged(get_preset("tranca"), ["basic", "basic"], 1, 0)


def _turn_only(monkeypatch):
    """The review sees only the decisions of turn ``TURN`` (the others cost time, not the point)."""
    every = rvm.decisions_of

    def of_the_turn(log, seat):
        return [d for d in every(log, seat) if d.turn == TURN]

    monkeypatch.setattr(rvm, "decisions_of", of_the_turn)


def test_the_turn_has_several_melds_seen_alike(log):
    """The case's premise: several meld decisions in the turn, none with new cards in the hand,
    and every world the analyser samples at one of them is the same deal of the hidden cards at
    the others (a meld moves cards the seat knows): their outcomes pair world by world."""
    from tranca_sim.engine.cards import N_KINDS
    from tranca_sim.engine.rng import seed_stream
    from tranca_sim.engine.state import PACK_MAX, SC_DECK_N, SC_STOCK_PTR, new_state
    from tranca_sim.strategies.pimc_worlds import sample_world

    melds = [d for d in decisions_of(log, SEAT) if d.turn == TURN and d.phase == "meld"]
    assert len(melds) >= 4 and [len(d.played) for d in melds][-1] == 0  # melds, then the stop
    assert len(rvm.meld_phases(melds)) == 1

    def world(pos, w):
        rng = np.zeros(4, np.uint64)
        seed_stream(rng, 0, w, 0)
        st = new_state(pos.rules.n_sides)
        sample_world(observation(pos), rng, st, np.zeros(N_KINDS, np.int64), np.zeros(PACK_MAX, np.int16))
        hands = [st.hand[s].copy() for s in range(4) if s != SEAT]
        return hands, st.morto.copy(), st.deck[st.sc[SC_STOCK_PTR] : st.sc[SC_DECK_N]].copy()

    for w in range(3):
        first = world(melds[0].position, w)
        for d in melds[1:]:
            for a, b in zip(first, world(d.position, w)):
                np.testing.assert_array_equal(a, b)


def test_one_shortfall_in_a_turns_melds_is_charged_once(log, monkeypatch):
    """Every meld decision of the turn has a choice 74 points better than the one played in every
    world (the shortfall the fresh user saw at each of five melds).  Charged meld by meld that is
    74 again at each decision; the turn's melds are one decision, so it is 74 once: one meld row
    for the turn, 74 lost [74, 74], a total of 74."""
    _turn_only(monkeypatch)
    played = {}
    for d in decisions_of(log, SEAT):
        if d.turn == TURN and d.phase == "meld":
            st = to_state(d.position)
            codes = [int(c) for c in legal_choices(d.position, st)]
            i = played_choice(d.position, st, codes, d.played, d.after)
            played[tuple(sorted(d.position.hand))] = codes[i]

    def fake_analyse(pos, st=None, **kw):
        codes = [int(c) for c in legal_choices(pos, st)]
        res = np.zeros((16, len(codes), 8))
        noise = np.arange(16.0)[:, None]  # the same world helps every choice alike
        res[:, :, 0] = noise + np.where(np.array(codes) == played[tuple(sorted(pos.hand))], 0.0, 74.0)
        ranked = sorted(codes, key=lambda c: -res[0, codes.index(c), 0])
        best_first = [SimpleNamespace(code=c) for c in ranked]
        return SimpleNamespace(outcomes=res, codes=codes, worlds=16, choices=best_first)

    monkeypatch.setattr(rvm, "analyse", fake_analyse)
    rv = rvm.review(log, SEAT, seconds=0.0, phases=("meld",))  # no time left for more worlds
    assert len(rv.rows) == 1, [(r.turn, r.played, r.lost) for r in rv.rows]
    row = rv.rows[0]
    assert (row.turn, row.phase, row.lost, row.ci, row.worlds) == (TURN, "meld", 74.0, (74.0, 74.0), 16)
    assert row.played.endswith("stop melding") and row.played.count(", ") == len(played) - 1
    assert rv.total[0] == 74.0 and [r.lost for r in rv.worst()] == [74.0]


def test_a_turns_melds_are_one_row_of_the_real_review(log, monkeypatch):
    """The analyser itself on the logged turn: one row for its melds, the melds in the order
    played and then the stop, its loss 0 or more (the played melds are among the choices the best
    is taken from) over the worlds every decision of the turn played."""
    _turn_only(monkeypatch)
    rv = rvm.review(log, SEAT, seconds=0.01, max_worlds=16, phases=("meld",), threads=1)
    melds = [d for d in decisions_of(log, SEAT) if d.turn == TURN and d.phase == "meld"]
    assert [(r.turn, r.phase) for r in rv.rows] == [(TURN, "meld")]
    row = rv.rows[0]
    assert row.played.split(", ")[-1] == "stop melding" and row.played.count(", ") == len(melds) - 1
    assert row.lost >= 0 and row.worlds == 16
    text = rvm.format_review(rv, "deal 0")
    assert sum(x.split()[:2] == [str(TURN), "meld"] for x in text.splitlines()) == 1, text


def test_more_worlds_for_the_two_compared_continue_the_analysers_worlds(log):
    """The meld row's best and played choices are played on further worlds in the time left: the
    worlds after the analyser's (32 given, 64 asked: worlds 32..63 added, the same outcomes as 64
    worlds played at once)."""
    from tranca_sim.analyse import play_out

    melds = [d for d in decisions_of(log, SEAT) if d.turn == TURN and d.phase == "meld"]
    pair = []
    for d in (melds[0], melds[-1]):
        st = to_state(d.position)
        code = int(legal_choices(d.position, st)[0])
        pair.append((d, st, code, play_out(d.position, [code], 32, 0, 0, None, st)[:, 0, 0]))
    best, worth = rvm.more_worlds(pair, 600.0, 64, None, 0, 1)
    assert len(best) == len(worth) == 64
    for got, (d, st, code, _) in zip((best, worth), pair):
        np.testing.assert_array_equal(got, play_out(d.position, [code], 64, 0, 0, None, st)[:, 0, 0])
