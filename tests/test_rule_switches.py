"""Every rule option matters, and no rule set ends a deal at the turn limit.

For every played preset, every field of :class:`~tranca_sim.rules.Rules` is either

- flipped (booleans) or moved to another legal value (numbers, the card-value table) on its
  own, played by ``random`` vs ``random`` and ``basic`` vs ``basic`` on the same deals as the
  preset (common random numbers), and shown to change the outcome of some deal; or
- named by :func:`dead` with the reason it cannot change play under that preset, and shown to
  change nothing (so the reason is checked, not just stated); or
- named in :data:`NOT_PLAYABLE` (not a rule, or refused by ``Rules.validate`` in this version).

Every boolean switch is also flipped on top of the open pile (``pile_closed=False``), where
E13 and E14 (docs/rules.md section 5) keep deals finite.  In all these runs no deal may end at
the turn limit (issue 6: ``--rule pile_closed=false`` with ``basic`` ran 129 of 2000 deals, seed
3, into it before E13/E14).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tranca_sim.engine import play_position, simulate_chunk
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.state import END_REASONS
from tranca_sim.rules import PRESETS, Rules, RulesError

SEED = 3
DEALS_SWITCH = 2000  # boolean switches: thousands of deals each (turn-limit proof)
DEALS_VALUE = 400  # numbers and tables: enough to see a changed outcome
#: presets of issue 8 (Buraco, seed 002): fewer deals a case to keep the suite's time (their
#: thousands of deals are played once outside the suite: docs/rules.md section 4 notes)
SMALL = {"buraco": 300, "buraco-fechado": 300, "tranca-br": 300, "tranca-2p": 400, "tranca-3p": 400}
STRATEGIES = ("random", "basic")
TURN_LIMIT = END_REASONS.index("turn_limit")

#: fields that are not rule options of a played preset: never flipped
NOT_PLAYABLE = {
    "name": "the preset's name, not a rule",
    "description": "free text, not a rule",
    "max_turns": "engine safety net (E12), not a rule",
    "match_target": "read by match runs only (tests/test_matches.py); a run of deals plays independent deals",
    "first_meld_min": "applies from a match score (tests/test_matches.py); in a run of deals every score is 0",
    "first_meld_from": "applies from a match score (tests/test_matches.py); in a run of deals every score is 0",
    "max_match_deals": "engine safety net of match runs (E25), not a rule",
    "n_seats": "the table (4 in partnerships, 2 or 3 solo) is a preset: tranca-2p and tranca-3p run every case",
    "partnerships": "the table (4 in partnerships, 2 or 3 solo) is a preset: tranca-2p and tranca-3p run every case",
}

#: numbers and tables: another legal value (keyed by the preset's value when it matters)
MOVES = {
    "hand_size": 9,
    "morto_size": 9,
    "n_jokers": {4: 0, 0: 4},
    "stock_out": {0: 1, 1: 0},
    "morto_stock_side": {0: 1, 1: 0},
    "max_wilds": {2: 1, 1: 2},
    "min_naturals": 3,
    "canasta_size": 6,
    "clean_bonus": 300,
    "dirty_bonus": 150,
    "going_out_bonus": 150,
    "em_cima_bonus": 300,
    "morto_penalty": 0,
    "red3_value": 200,
    "card_values": {"000": "004", "003": "004", "004": "000"},
}

#: options whose rule applies about once in 20,000 deals of basic (none of random): em cima,
#: going out having melded nothing in an earlier turn (E7).  Where the runs show no change, a
#: hand-made position shows it instead: side A has a clean canasta of kings and its morto; seat 0
#: (basic) holds 5C 5D 5H, draws 9S, melds the fives, discards 9S and goes out em cima, never
#: having melded before.  Going-out bonus (preset, flipped), keyed by the preset's em_cima: with
#: em cima on (000 presets) 200 and 100 with em_cima off, 200 and 300 with em_cima_bonus=300; with
#: em cima off (tranca-sp, VARIANTS 11) 100, and 200 with em_cima on (000 Scoring: Going out bonus).
RARE = {"em_cima": {True: (200, 100), False: (100, 200)}, "em_cima_bonus": {True: (200, 300)}}

#: options that change only what a strategy sees, so only a strategy that reads it plays
#: differently: mortos_face_up (000 Common Variations "Tranca Aberta") shows the mortos in
#: Obs.morto; random never looks, basic keeps ranks the opponents' morto brought (morto_seen=1).
SEEN_ONLY = {"mortos_face_up": {"random": False, "basic": True}}


def em_cima_bonus(rules: Rules) -> int:
    """The going-out bonus of the position above; with runs only (``meld_sets`` off, buraco) the
    same with runs: a clean canasta 4H..10H, seat 0 holds 5C 6C 7C and melds them as a run.  At a
    solo table (tranca-2p/-3p) the same position with its seats, one morto per side, seat 0 holding
    its own taken morto (the position leaves seat 0 unmarked as having melded, so it tests the
    bonus switches, not how an em-cima finish arises)."""
    sets = rules.meld_sets
    hands = {0: "5C 5D 5H" if sets else "5C 6C 7C", 1: "7D", 2: "4C", 3: "8D"}
    st = make_position(
        rules,
        hands={s: hands[s] for s in range(rules.n_seats)},
        melds={0: ["KC KD KH KS KC KD KH" if sets else "4H 5H 6H 7H 8H 9H 10H"]},
        stock="9S",
        mortos={1: "6S", 2: "6H"} if rules.n_sides == 3 else {1: "6S"},
        taken_mortos={0: 2 if rules.partnerships else 0},
    )
    cols = play_position(rules, st, strategies=("basic", "basic"))
    assert int(cols["went_out"][0]) == 1
    return int(cols["going_out_bonus"][0])


def special_canasta_bonus(rules: Rules) -> int:
    """special_canastas (004 Common variations "Special canastras", E24) need a clean A-K run,
    which random and basic almost never lay: side A holds the clean run AH..KH (13 cards), the
    stock and pile are empty and both mortos taken, so the deal ends at once; its canasta bonus is 500 with the option,
    the clean 200 without."""
    st = make_position(
        rules,
        hands={0: "5C", 1: "7D"},
        melds={0: ["AH 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH KH"]},
        taken_mortos={0: 2, 1: 1},
    )
    cols = play_position(rules, st, strategies=("basic", "basic"))
    return int(cols["canasta_bonus"][0])


def refused(rules: Rules, option: str) -> str | None:
    """Why ``Rules.validate`` refuses ``option`` changed under ``rules`` (None: it accepts it)."""
    if option == "special_canastas" and (rules.threes_special or not rules.meld_runs):
        return "special canastas are ace-low runs: they need runs and plain 3s (E16, E24)"
    if option == "n_jokers" and rules.card_values == "003" and rules.n_jokers == 0:
        return "the 003 card values have no joker value (Rules.validate refuses n_jokers=4 with them)"
    if option == "meld_sets" and not rules.meld_runs:
        return "without runs a rule set needs same-rank melds"
    if option == "meld_runs" and not rules.meld_sets:
        return "without same-rank melds a rule set needs runs"
    return None


def dead(rules: Rules, option: str) -> str | None:
    """Why flipping ``option`` cannot change play under ``rules`` (None: it must)."""
    if not rules.meld_runs and option in ("several_runs_per_suit", "run_wild_moves"):
        return "no runs are melded in this rule set, so the run switches have nothing to act on (E19, E21)"
    if option == "em_cima_bonus" and not rules.em_cima:
        return "em cima is off in this preset (VARIANTS 11), so its bonus is never paid"
    if option == "n_jokers" and rules.card_values == "003":
        return (
            "the 003 card values have no joker value: n_jokers stays 0 (Rules.validate refuses 4 with them)"
        )
    if rules.stock_out == 0 and option in ("morto_stock_side", "morto_stock_taken"):
        return "with stock_out=0 no morto ever becomes the stock (E22, E23)"
    if not rules.threes_special and option in ("black3_on_going_out", "red3_value"):
        return "3s are plain cards: no red 3 is laid aside and no black-3 set is melded (004)"
    if not rules.meld_sets and option == "several_melds_per_rank":
        return "no same-rank melds are played, so there is no second meld of a rank (VARIANTS 5)"
    if rules.pile_closed and option == "rediscard_one_card_pile":
        return "a closed pile's top card is melded at once, so no card taken from it can be thrown back (E13)"
    if rules.pile_closed and rules.threes_special and option == "lock_by_black3":
        return (
            "a black 3 can never be melded (000 Gameplay 6), so a closed pile with a black 3 on top "
            "cannot be taken whether or not it locks (docs/rules.md 3.7)"
        )
    return None


_FIELDS = list(dataclasses.fields(Rules))
BOOLEANS = [f.name for f in _FIELDS if f.type == "bool" and f.name not in NOT_PLAYABLE]


def _changed(rules: Rules, option: str):
    v = getattr(rules, option)
    if isinstance(v, bool):
        return not v
    m = MOVES[option]
    return m[v] if isinstance(m, dict) else m


_cache: dict = {}


def outcome(rules: Rules, strategy: str, deals: int, start: int = 0) -> dict[str, np.ndarray]:
    key = (rules, strategy, deals, start)
    if key not in _cache:
        cols = simulate_chunk(rules, strategy, SEED, start, deals)
        _cache[key] = {k: cols[k] for k in ("score", "n_turns", "end_reason", "went_out", "invariant_errors")}
    return _cache[key]


def _differs(a, b) -> bool:
    return any(not np.array_equal(a[k], b[k]) for k in ("score", "n_turns", "end_reason"))


def _cases():
    for pname in PRESETS:
        n_switch = SMALL.get(pname, DEALS_SWITCH)
        for option in BOOLEANS:
            yield pytest.param(pname, option, False, n_switch, id=f"{pname}-{option}")
            if option != "pile_closed" and PRESETS[pname].pile_closed:
                yield pytest.param(pname, option, True, n_switch, id=f"{pname}-open-{option}")
        for option in MOVES:
            yield pytest.param(pname, option, False, SMALL.get(pname, DEALS_VALUE), id=f"{pname}-{option}")


def test_every_field_is_covered():
    """No field of Rules is left out: each is flipped, moved, or named with a reason."""
    names = {f.name for f in _FIELDS}
    assert names == set(BOOLEANS) | set(MOVES) | set(NOT_PLAYABLE)
    assert not set(BOOLEANS) & set(MOVES)


@pytest.mark.parametrize("preset, option, open_pile, deals", list(_cases()))
def test_option_changes_play_and_every_deal_ends(preset, option, open_pile, deals):
    base = PRESETS[preset].replace(pile_closed=False) if open_pile else PRESETS[preset]
    why = refused(base, option)
    if why is not None:
        with pytest.raises(RulesError):
            base.replace(**{option: _changed(base, option)})
        return
    flipped = base.replace(**{option: _changed(base, option)})
    reason = dead(base, option)
    differs = []
    for strategy in STRATEGIES:
        a, b = outcome(base, strategy, deals), outcome(flipped, strategy, deals)
        for name, cols in (("preset", a), (f"{option} changed", b)):
            limit = np.flatnonzero(cols["end_reason"][:: base.n_sides] == TURN_LIMIT)
            assert limit.size == 0, f"{strategy}, {name}: deals {limit.tolist()} ended at the turn limit"
            assert int(cols["invariant_errors"].sum()) == 0
        differs.append(_differs(a, b))
    if option in SEEN_ONLY:
        assert dict(zip(STRATEGIES, differs)) == SEEN_ONLY[option], f"{option}: {differs} for {STRATEGIES}"
    if option in RARE and reason is None and not any(differs):
        want = [r.em_cima_bonus if r.em_cima else r.going_out_bonus for r in (base, flipped)]
        assert [em_cima_bonus(base), em_cima_bonus(flipped)] == want and want[0] != want[1]
        differs = [True]
    if option == "special_canastas" and not any(differs):
        # 004: 500 for the clean A-K run instead of the clean canasta's 200
        assert (special_canasta_bonus(base), special_canasta_bonus(flipped)) == (200, 500)
        differs = [True]
    if reason is None:
        assert any(differs), f"{option}={_changed(base, option)!r} changed no outcome in {deals} deals"
    else:
        assert not any(differs), f"{option} changed play although: {reason}; update dead()"


def test_reproducer_of_issue_6_ends():
    """The issue's run: basic vs basic, seed 3, 2000 deals, pile_closed=false: 129 deals ran to the
    turn limit before E13/E14; now none does, and some deals are still won by going out."""
    cols = outcome(PRESETS["tranca"].replace(pile_closed=False), "basic", DEALS_SWITCH)
    ends = cols["end_reason"][::2]
    assert int((ends == TURN_LIMIT).sum()) == 0
    assert int((ends == END_REASONS.index("went_out")).sum()) > 1000
