"""Rule tests of the solo presets ``tranca-2p`` and ``tranca-3p``.

Seed ``000_95ec226e9cdd732e.txt`` "Players": "Three-player and two-player versions exist where
each player plays for themselves (each with their own morto)"; "Common Variations": "Two-handed
Tranca: Each player plays solo with a personal 11-card morto. Hands are often shrunk to 9 or 10
cards to balance." and "Three-player Tranca: Three individuals each with their own morto;
canasta bonuses and match target halved."  VARIANTS.md presets table (``tranca-2p`` /
``tranca-3p``), docs/rules.md E27-E29.  Everything else is ``tranca`` (000).

Every expected value is worked out by hand from those rules, with the arithmetic in a comment.
Card values (000 Scoring): A 20, K..8 10, 7..4 5, 2 20, joker 50.
"""

from __future__ import annotations

import numpy as np
import pytest

from tranca_sim import schema
from tranca_sim.engine import play_position, simulate_chunk
from tranca_sim.engine.cards import JOKER, counts_to_cards, parse
from tranca_sim.engine.deal import setup_deal
from tranca_sim.engine.log import play_logged
from tranca_sim.engine.melds import list_meld_actions
from tranca_sim.engine.obs import A_EXT, A_NEW, C_NAT, NEW_3NAT, act_type, act_x, act_y
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.state import (
    END_REASONS,
    MS_INDIRECT,
    MS_WAITING,
    SC_DECK_N,
    SC_PILE_N,
    SC_STOCK_PTR,
    SS_MORTO,
    SS_MORTO_SEAT,
    new_state,
)
from tranca_sim.engine.turn import discard
from tranca_sim.rules import RulesError, get_preset

PARTS = schema.SCORE_PARTS


@pytest.fixture(scope="module")
def p2():
    return get_preset("tranca-2p")


@pytest.fixture(scope="module")
def p3():
    return get_preset("tranca-3p")


def cards(row):
    return sorted(counts_to_cards(row))


def hand(text):
    return sorted(text.split())


def meld_acts(rules, st, seat):
    acts = np.zeros(256, np.int32)
    n = list_meld_actions(st, rules.to_array(), seat, acts)
    return sorted((int(act_type(a)), int(act_x(a)), int(act_y(a))) for a in acts[:n])


def _natural_order_deck():
    # kinds 0..51, kinds 0..51 again, then the 4 jokers (position 0 = top)
    return np.array(list(range(52)) + list(range(52)) + [JOKER] * 4, np.int16)


def _stock_and_pile(st):
    return int(st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR] + st.sc[SC_PILE_N])


# ---- the presets -------------------------------------------------------------------------------


def test_presets_are_the_seed_variations(p2, p3):
    """000 Common Variations: solo players with an own 11-card morto; 2p hand 11; 3p halves the
    canasta bonuses (200 / 2 = 100 clean, 100 / 2 = 50 dirty) and the match target (3000 / 2 =
    1500); the going-out bonus, red 3s and morto penalty are not halved (the seed names only the
    canasta bonuses)."""
    assert (p2.n_seats, p2.partnerships, p2.n_sides, p2.hand_size, p2.morto_size) == (2, False, 2, 11, 11)
    assert (p3.n_seats, p3.partnerships, p3.n_sides, p3.hand_size, p3.morto_size) == (3, False, 3, 11, 11)
    assert (p3.clean_bonus, p3.dirty_bonus, p3.match_target) == (100, 50, 1500)
    assert (p3.going_out_bonus, p3.em_cima_bonus, p3.red3_value, p3.morto_penalty) == (100, 200, 100, 100)
    assert (p2.clean_bonus, p2.dirty_bonus, p2.match_target) == (200, 100, 3000)
    # "hands are often shrunk to 9 or 10 cards": both accepted
    assert p2.replace(hand_size=9).hand_size == 9 and p2.replace(hand_size=10).hand_size == 10
    # a table that is neither four partners nor 2/3 solo players is refused with the option named
    for bad in ({"n_seats": 3, "partnerships": True}, {"n_seats": 4, "partnerships": False}, {"n_seats": 5}):
        with pytest.raises(RulesError, match="n_seats"):
            p2.replace(**bad)


# ---- the deal (000 Setup 3-5 at a table of 2 or 3, E2) ----------------------------------------------


def test_two_player_deal_one_at_a_time_two_mortos(p2):
    """E2 at a table of two: position j of the pack goes to seat (first + j) % 2, then morto A
    (side 0 = seat 0), morto B (seat 1), the rest is the stock."""
    st = new_state(2)
    setup_deal(st, p2.to_array(), _natural_order_deck(), 108, 1)
    # first seat 1: seat 1 <- positions 0, 2, ..., 20 (kinds 0..20 even); seat 0 <- 1, 3, ..., 21
    for seat, first in ((1, 0), (0, 1)):
        want = np.zeros(53, np.int64)
        want[list(range(first, 22, 2))] = 1
        assert (st.hand[seat] == want).all(), seat
    assert st.hand[2:].sum() == 0  # no third or fourth player
    # morto A = positions 22..32 = kinds 22..32: 10D JD QD KD AH 2H 3H 4H 5H 6H 7H
    assert cards(st.morto[0]) == hand("10D JD QD KD AH 2H 3H 4H 5H 6H 7H")
    # morto B = positions 33..43: 8H 9H 10H JH QH KH AS 2S 3S 4S 5S
    assert cards(st.morto[1]) == hand("8H 9H 10H JH QH KH AS 2S 3S 4S 5S")
    # 108 - 2 x 11 - 2 x 11 = 64 cards: position 44 = 6S (natural) turned up + 63 in the stock
    assert st.sc[SC_PILE_N] == 1 and st.sc[SC_DECK_N] - st.sc[SC_STOCK_PTR] == 63


@pytest.mark.parametrize("hs", [9, 10])
def test_two_player_shrunk_hand(p2, hs):
    """000 "Hands are often shrunk to 9 or 10 cards": hand_size 9 or 10, mortos stay 11."""
    rules = p2.replace(hand_size=hs)
    st = new_state(2)
    setup_deal(st, rules.to_array(), _natural_order_deck(), 108, 0)
    assert [int(st.hand[s].sum()) for s in range(4)] == [hs, hs, 0, 0]
    # morto A = positions 2*hs .. 2*hs+10 (kinds of the same numbers)
    assert sorted(int(k) for k in np.repeat(np.arange(53), st.morto[0])) == list(range(2 * hs, 2 * hs + 11))
    assert int(st.morto[1].sum()) == 11
    # stock + turned-up card: 108 - 2*hs - 22 -> 68 for 9, 66 for 10
    assert _stock_and_pile(st) == {9: 68, 10: 66}[hs]


def test_three_player_deal_three_mortos(p3):
    """E2 at a table of three: position j to seat (first + j) % 3, then mortos A, B, C."""
    st = new_state(3)
    setup_deal(st, p3.to_array(), _natural_order_deck(), 108, 0)
    for seat in range(3):  # seat s <- positions s, s + 3, ..., s + 30 (kinds of the same numbers)
        want = np.zeros(53, np.int64)
        want[list(range(seat, 33, 3))] = 1
        assert (st.hand[seat] == want).all(), seat
    assert st.hand[3].sum() == 0
    # morto A = positions 33..43: 8H 9H 10H JH QH KH AS 2S 3S 4S 5S
    assert cards(st.morto[0]) == hand("8H 9H 10H JH QH KH AS 2S 3S 4S 5S")
    # morto B = positions 44..54: kinds 44..51 (6S..KS) and the second pack's 0..2 (AC 2C 3C)
    assert cards(st.morto[1]) == hand("6S 7S 8S 9S 10S JS QS KS AC 2C 3C")
    # morto C = positions 55..65: kinds 3..13 = 4C..KC, AD
    assert cards(st.morto[2]) == hand("4C 5C 6C 7C 8C 9C 10C JC QC KC AD")
    # 108 - 3 x 11 - 3 x 11 = 42 cards in stock and pile (wilds buried as in tranca, E3)
    assert _stock_and_pile(st) == 42


def test_first_seat_and_turns_go_round_the_table(p2, p3):
    """000 Setup 1 and 8, E1: the deal rotates clockwise (first seat of deal i is i % players)
    and turns go clockwise round the players."""
    c2 = simulate_chunk(p2, "passive", 1, 0, 5)
    assert [int(x) for x in c2["first_seat"][::2]] == [0, 1, 0, 1, 0]  # two rows a deal
    c3 = simulate_chunk(p3, "passive", 1, 0, 5)
    assert [int(x) for x in c3["first_seat"][::3]] == [0, 1, 2, 0, 1]  # three rows a deal
    assert [int(x) for x in c3["side"][:6]] == [0, 1, 2, 0, 1, 2]
    lg = play_logged(p3, ["passive", "passive", "passive"], 1, 4)  # deal 4: first seat 4 % 3 = 1
    seats = [a["seat"] for a in lg["actions"] if a["act"] == "turn"][:7]
    assert seats == [1, 2, 0, 1, 2, 0, 1]


# ---- own morto, own melds, own canasta ------------------------------------------------------


def test_each_solo_player_takes_its_own_morto(p3):
    """000 Players ("each with their own morto"), Gameplay 10, V 9: seat 2 discards its last card:
    it takes morto C (its own, indirect), not A or B."""
    st = make_position(
        p3,
        hands={0: "KC KD", 1: "QC QD", 2: "7H"},
        stock="9S 9D",
        mortos={0: "AS AS", 1: "10S 10D", 2: "5C 5D 6H"},
        seat=2,
    )
    discard(st, p3.to_array(), 2, parse("7H"))
    assert cards(st.hand[2]) == hand("5C 5D 6H")  # morto C
    assert (int(st.ss[2, SS_MORTO]), int(st.ss[2, SS_MORTO_SEAT])) == (MS_INDIRECT, 2)
    assert [int(st.ss[s, SS_MORTO]) for s in (0, 1)] == [MS_WAITING, MS_WAITING]
    assert cards(st.morto[0]) == hand("AS AS") and cards(st.morto[1]) == hand("10S 10D")


def test_solo_player_extends_only_its_own_melds(p3):
    """000 Gameplay 9 ("partners share all melds") has no partner at a solo table: seat 1 may not
    extend seat 0's nines, which seat 2 of a tranca table (seat 0's partner) may."""
    melds = {0: ["9C 9D 9H"]}
    st3 = make_position(p3, hands={0: "4C 4D", 1: "9S 4H 7D", 2: "8C 8D"}, melds=melds,
                        mortos={0: "AS", 1: "AD", 2: "AH"})  # fmt: skip
    assert meld_acts(p3, st3, 1) == []  # no meld of its own, no three of a kind
    tranca = get_preset("tranca")
    st4 = make_position(tranca, hands={0: "4C 4D", 1: "8C 8D", 2: "9S 4H 7D", 3: "8H 8S"}, melds=melds,
                        mortos={0: "AS", 1: "AD"})  # fmt: skip
    assert meld_acts(tranca, st4, 2) == [(A_EXT, 0, C_NAT)]


def test_going_out_needs_the_players_own_canasta(p3):
    """000 Gameplay 11, V 10, E6: with its morto taken, seat 2 may not empty its hand (meld 5C 5D
    5H, its last three cards) while it has no canasta of its own -- seat 0's canasta is not its.
    At a tranca table the same seat 2 is seat 0's partner and may: the side has the canasta."""
    canasta = {0: ["KC KD KH KS KC KD KH"]}
    st3 = make_position(p3, hands={0: "4C 4D", 1: "8C 8D", 2: "5C 5D 5H"}, melds=canasta,
                        mortos={1: "AD"}, taken_mortos={0: 0, 2: 2})  # fmt: skip
    assert meld_acts(p3, st3, 2) == []
    tranca = get_preset("tranca")
    st4 = make_position(tranca, hands={0: "4C 4D", 1: "8C 8D", 2: "5C 5D 5H", 3: "8H 8S"}, melds=canasta,
                        mortos={1: "AD"}, taken_mortos={0: 0})  # fmt: skip
    assert meld_acts(tranca, st4, 2) == [(A_NEW, 5, NEW_3NAT)]


# ---- scoring per solo player ------------------------------------------------------------------


def test_three_player_scores_with_halved_canasta_bonuses(p3):
    """000 Scoring with the 3p variation's halved canasta bonuses (clean 100, dirty 50), each
    player scored alone.  Stock and pile empty: seat 0 cannot draw or take the pile, the deal ends
    at once (V 14, E8), no going-out bonus.

    A (seat 0): clean kings 7 x 10 = 70, dirty queens 6 x 10 + 2C 20 = 80 -> melded 150;
       canastas 100 + 50 = 150; red 3D +100 (has a canasta); morto taken 0; hand 7C -5
       -> 150 + 150 + 100 - 5 = 395   (at a tranca table the bonuses would be 200 + 100)
    B (seat 1): nines 30; no canasta; red 3H -100; morto waiting -100; hand AC JK -(20 + 50)
       -> 30 - 100 - 100 - 70 = -240
    C (seat 2): clean eights 7 x 10 = 70 + 100; morto taken; hand 4D 4H -10 -> 160
    won: A only (395 > -240 and 395 > 160)."""
    st = make_position(
        p3,
        hands={0: "7C", 1: "AC JK", 2: "4D 4H"},
        melds={
            0: ["KC KD KH KS KC KD KH", "QC QD QH QS QC QD 2C"],
            1: ["9C 9D 9H"],
            2: ["8C 8D 8H 8S 8C 8D 8H"],
        },
        mortos={1: "5S 6S"},
        taken_mortos={0: 0, 2: 2},
        red3={0: "3D", 1: "3H"},
    )
    cols = play_position(p3, st, strategies=("basic", "basic", "basic"), check=True)
    assert list(cols["side"]) == [0, 1, 2]
    assert list(cols["invariant_errors"]) == [0, 0, 0]
    got = {p: [int(x) for x in cols[p]] for p in ("score",) + PARTS}
    assert got == {
        "score": [395, -240, 160],
        "melded_points": [150, 30, 70],
        "canasta_bonus": [150, 0, 100],
        "red3_points": [100, -100, 0],
        "going_out_bonus": [0, 0, 0],
        "morto_penalty": [0, -100, 0],
        "hand_penalty": [-5, -70, -10],
    }
    assert [bool(x) for x in cols["won"]] == [True, False, False]
    assert END_REASONS[int(cols["end_reason"][0])] == "stock_out"
    # a solo player has no partner: the partner's dealt-hand facts are -1
    assert [int(x) for x in cols["hand1_wilds"]] == [-1, -1, -1]


def test_two_player_goes_out_with_own_canasta(p2):
    """000 Gameplay 11, Scoring, 2p: seat 1 holds its own taken morto's last cards 5C 5D 5H and a
    clean canasta of its own; it draws 9S, melds the fives (15), discards 9S and goes out (100;
    not em cima: the position marks seat 1 as having melded before).

    A (seat 0): nothing melded, morto waiting -100, hand QC QD -20 -> -120
    B (seat 1): kings 70 + fives 15 = 85; clean canasta 200; going out 100; hand empty -> 385
    At a tranca table seat 0's hand would count with its partner's; here it is A's alone."""
    st = make_position(
        p2,
        hands={0: "QC QD", 1: "5C 5D 5H"},
        melds={1: ["KC KD KH KS KC KD KH"]},
        stock="9S 4S",
        mortos={0: "6S"},
        taken_mortos={1: 1},
        seat=1,
        melded_before={1},
    )
    cols = play_position(p2, st, strategies=("basic", "basic"), check=True)
    got = {p: [int(x) for x in cols[p]] for p in ("score",) + PARTS}
    assert got == {
        "score": [-120, 385],
        "melded_points": [0, 85],
        "canasta_bonus": [0, 200],
        "red3_points": [0, 0],
        "going_out_bonus": [0, 100],
        "morto_penalty": [-100, 0],
        "hand_penalty": [-20, 0],
    }
    assert [int(x) for x in cols["went_out"]] == [0, 1] and int(cols["out_seat"][0]) == 1


# ---- whole deals: invariants, no turn limit, basic goes out --------------------------------------


@pytest.fixture(scope="module")
def solo_runs(p2, p3):
    """300 deals of each solo preset (2p also with the 9-card hand), basic against random and
    basic against itself, with the invariant checks on (card conservation after every action)."""
    out = {}
    for name, rules in (("2p", p2), ("2p-9", p2.replace(hand_size=9)), ("3p", p3)):
        for strat in (("basic", "random"), ("basic", "basic")):
            out[name, strat] = (rules, simulate_chunk(rules, strat, 5, 0, 300, check=True))
    return out


def test_solo_invariants_hold(solo_runs):
    """Card conservation and meld legality after every action, score = sum of its parts, canasta
    bonuses as the preset says, at most one player goes out, no deal at the turn limit."""
    for (name, strat), (rules, c) in solo_runs.items():
        ns = rules.n_sides
        assert len(c["score"]) == 300 * ns
        assert int(c["invariant_errors"].sum()) == 0, (name, strat)
        assert int(c["illegal_choices"].sum()) == 0
        assert (c["end_reason"] != END_REASONS.index("turn_limit")).all(), (name, strat)
        parts = sum(c[p].astype(np.int64) for p in PARTS)
        np.testing.assert_array_equal(parts, c["score"])
        bonus = rules.clean_bonus * c["canastas_clean"] + rules.dirty_bonus * c["canastas_dirty"]
        np.testing.assert_array_equal(c["canasta_bonus"], bonus)
        assert (c["went_out"].reshape(-1, ns).sum(axis=1) <= 1).all()
        assert (c["won"].reshape(-1, ns).sum(axis=1) <= 1).all()
        assert (c["red3_count"].reshape(-1, ns).sum(axis=1) <= 4).all()
        # a player's morto is taken by the player itself
        taken = c["morto_taken"] == 1
        np.testing.assert_array_equal(c["morto_seat"][taken], c["side"][taken])


def test_basic_goes_out_in_most_solo_deals(solo_runs):
    """basic against itself goes out in most deals at both solo tables (measured on 300 deals,
    seed 5: shares in docs/strategies.md)."""
    for name in ("2p", "2p-9", "3p"):
        rules, c = solo_runs[name, ("basic", "basic")]
        share = float((c["end_reason"][:: rules.n_sides] == END_REASONS.index("went_out")).mean())
        assert share > 0.7, (name, share)


# ---- the command line and the lab at a solo table ---------------------------------------------


def test_three_player_run_summarize_check_replay(tmp_path, capsys):
    """simulate --preset tranca-3p writes three rows a deal, side C defaulting to side B's
    strategy (--side-c sets it); summarize lists three sides; check referees the deals; replay
    names the three solo players; --side-c at a two-sided table is one clear error."""
    from tranca_sim.cli import main
    from tranca_sim.io import load_meta, load_run

    def call(argv):
        try:
            status = main(argv)
        except SystemExit as e:
            status = e.code
        return (status, *capsys.readouterr())

    out = tmp_path / "r3.parquet"
    args = ["simulate", "--preset", "tranca-3p", "--deals", "40", "--seed", "2", "--no-progress"]
    status, text, _ = call([*args, "--side-b", "random", "--out", str(out)])
    assert status in (0, None)
    df = load_run(out)
    assert df.height == 120 and sorted(df["side"].unique().to_list()) == [0, 1, 2]
    assert [s["name"] for s in load_meta(out)["strategies"]] == ["basic", "random", "random"]
    assert "C     random" in text
    out2 = tmp_path / "r3c.parquet"
    status, _, _ = call([*args, "--side-b", "random", "--side-c", "passive", "--out", str(out2)])
    assert [s["name"] for s in load_meta(out2)["strategies"]] == ["basic", "random", "passive"]
    status, text, _ = call(["summarize", str(out2)])
    assert "C     passive" in text and "A - B per deal" in text
    status, text, err = call(["check", str(out), "--sample", "5", "--no-progress"])
    assert status in (0, None), err
    assert "5 of 5 deals agreed" in text
    status, text, _ = call(["replay", str(out), "--deal", "1"])
    assert "A = basic (seat 0) · B = random (seat 1) · C = random (seat 2)" in text
    assert text.count("seat 2 (C, random)") >= 1
    status, _, err = call(
        ["simulate", "--side-c", "basic", "--deals", "4", "--out", str(tmp_path / "x.parquet")]
    )
    assert status == 2 and "--side-c" in err and "tranca-3p" in err and "Traceback" not in err


def test_lab_designs_by_table_size(tmp_path):
    """An experiment on tranca-3p takes the three-player design (rotation) by default and refuses
    the two-sided duplicate design with a reason; tranca-2p (two sides) takes duplicate."""
    from tranca_sim.lab.experiments.spec import SpecError, load_spec

    text = (
        'name = "x"\ntitle = "t"\nquestion = "q"\npreset = "{}"\nbaseline = "basic"\n{}'
        '[[variants]]\nstrategy = "basic:go_out=0"\n'
    )
    f = tmp_path / "x.toml"
    f.write_text(text.format("tranca-2p", ""))
    assert load_spec(f)["rules"]["n_seats"] == 2 and load_spec(f)["design"] == "duplicate"
    f.write_text(text.format("tranca-3p", ""))
    assert load_spec(f)["design"] == "rotation"
    f.write_text(text.format("tranca-3p", 'design = "duplicate"\n'))
    with pytest.raises(SpecError, match="three solo players: its design is 'rotation'"):
        load_spec(f)


def test_referee_checks_every_player_of_a_three_player_log(p3):
    """The referee replays a tranca-3p log on its own table model (three hands, three mortos,
    turns round three seats) and checks side C's score too; a log with a fourth seat is refused.
    Side C defaults to side B's strategy in a log as in a run."""
    import json

    from tranca_sim import referee as R

    lg = play_logged(p3, ["basic", "random"], 5, 0)
    assert [t.split(":")[0] for t in lg["strategies"]] == ["basic", "random", "random"]
    assert set(lg["result"]) == {"A", "B", "C"}
    assert R.check_log(json.loads(json.dumps(lg))).ok
    bad = json.loads(json.dumps(lg))
    bad["result"]["C"]["score"] += 1
    v = R.check_log(bad)
    assert not v.ok and "side C score" in str(v)
    bad = json.loads(json.dumps(lg))
    turn = next(a for a in bad["actions"] if a["act"] == "turn")
    turn["seat"] = 3
    assert not R.check_log(bad).ok
