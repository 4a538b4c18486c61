"""Rule tests of seed 003 (``tranca-sp``): the first player's redraw and the flat 10-point cards.

Sources: seed ``003_16d360cb3b2c0dc5.txt`` ("003"): "O jogo" -- "o primeiro jogador, e somente o
primeiro jogador, poderá, em sua primeira rodada, comprar uma carta e, caso ela não seja útil para
seu jogo, descartá-la e comprar uma segunda carta. As cartas descartadas devem ficar ao lado do
monte de compras e recebem o nome de 'lixo'"; "Valor em pontos" -- every card 10, a 2 10, batida
100, clean canasta 200, dirty 100, red 3 +-100; "Convenções" -- no jokers, 2s wild, trincas and
runs.  VARIANTS.md decisions 10 (clean canasta to go out), 13 (the redraw) and docs/rules.md E20
(the thrown card starts the pile and stays there; the second card comes from the stock).

Every expected outcome is worked out by hand from those words, the arithmetic in a comment.
Kinds: suit * 13 + rank - 1 (clubs 0, diamonds 1, hearts 2, spades 3).
"""

from __future__ import annotations

import copy

import numpy as np
import pytest
from cli_call import call

from tranca_sim.engine import play_position
from tranca_sim.engine.cards import parse
from tranca_sim.engine.deal import fill_pub
from tranca_sim.engine.log import play_logged
from tranca_sim.engine.obs import PUB_LEN, PUB_REDRAW_CARD, PUB_REDRAWN
from tranca_sim.engine.positions import make_position, stack_deck
from tranca_sim.engine.state import SC_PILE_N
from tranca_sim.engine.turn import redraw
from tranca_sim.referee import check_log, score_side, validate_meld
from tranca_sim.referee import walk as referee_walk
from tranca_sim.rules import get_preset

PARTS = ("melded_points", "canasta_bonus", "red3_points", "going_out_bonus", "morto_penalty", "hand_penalty")


@pytest.fixture(scope="module")
def sp():
    return get_preset("tranca-sp")


def play(rules, st, strategies=("basic", "passive")):
    cols = play_position(rules, st, strategies=strategies, check=True)
    assert list(cols["invariant_errors"]) == [0, 0]
    for side in range(2):
        assert cols["score"][side] == sum(int(cols[p][side]) for p in PARTS)
    return cols


def turn0(log):
    """The first turn's actions as (act, card) pairs."""
    return [(a["act"], a.get("card")) for a in log["actions"] if a["turn"] == 0 and a["act"] != "turn"]


# ---- the preset -------------------------------------------------------------------------------


def test_sp_preset_values(sp):
    """003 Convenções / Valor em pontos; VARIANTS Presets, 10, 11, 13."""
    assert sp.n_jokers == 0  # "Não tem curingão (Joker)"
    assert sp.meld_sets and sp.meld_runs  # "Pode trinca", runs "do mesmo naipe"
    assert sp.card_values == "003" and sp.first_player_redraw
    assert sp.go_out_needs_clean  # VARIANTS 10: the later, specific rule
    assert not sp.turn_up_first_discard  # VARIANTS 13: the first discard starts the pile
    assert not sp.em_cima  # VARIANTS 11: em cima is 000's only
    assert not sp.lock_by_wild and sp.lock_by_black3  # "3 preto ... tranca o lixo"
    assert sp.max_wilds == 1
    assert sp.stock_out == 1  # 003 silent; VARIANTS 14: an untaken morto becomes the stock (004)
    # 003 Valor em pontos: "Todas as cartas = 10 pontos cada carta", "Curinga (dois) = 10 pontos"
    assert {sp.card_value(k) for k in range(52)} == {10}


def test_sp_is_br_with_003_values_and_the_redraw(sp):
    """VARIANTS Presets: tranca-sp is tranca-br (002) with the flat 10-point cards and the redraw of
    003; 002's Detalle (the indirect morto paid, VARIANTS 9) is not in 003."""
    br = get_preset("tranca-br")
    assert (
        sp.replace(name="tranca-br", card_values="004", first_player_redraw=False, indirect_morto_void=True)
        == br
    )


# ---- the redraw, played ----------------------------------------------------------------------

# seat 0's hand: no pair of 8s and no spade within two places of the 8S (only the 4S): the 8S
# "não seja útil" -> basic throws it back.  The KD makes a pair of kings with KH: kept.
HAND0 = "KH 9C 9D 5H 6H JC JD QC QD 4S AC"


def test_redraw_throws_back_a_useless_card(sp):
    """003 O jogo: the first player draws 8S, useless, throws it on the pile ("lixo") and draws a
    second card, 10D, from the stock.  By hand: turn 0 = draw 8S, redraw 8S, draw 10D, and after the
    turn's discard the pile is 8S (bottom) + that discard: two cards for seat 1."""
    deck = stack_deck(sp, hands={0: HAND0}, stock="8S 10D 7C 7D")
    log = play_logged(sp, ("basic", "basic"), 0, 0, deck=deck, first_seat=0)
    acts = turn0(log)
    assert acts[:3] == [("draw", "8S"), ("redraw", "8S"), ("draw", "10D")]
    assert check_log(log).ok
    for _, a, table in referee_walk(log):
        if a["act"] == "discard" and a["turn"] == 0:
            assert table.pile == ["8S", a["card"]]
            break
    else:
        pytest.fail("no discard in turn 0")


def test_redraw_keeps_a_useful_card(sp):
    """The KD pairs the KH in hand: basic keeps it (no redraw)."""
    deck = stack_deck(sp, hands={0: HAND0}, stock="KD 10D 7C 7D")
    log = play_logged(sp, ("basic", "basic"), 0, 0, deck=deck, first_seat=0)
    acts = turn0(log)
    assert acts[0] == ("draw", "KD") and ("redraw", "KD") not in acts
    assert ("draw", "10D") not in acts  # the second stock card stays in the stock
    assert check_log(log).ok


def test_redraw_after_a_red3_replacement(sp):
    """A red 3 drawn is laid and replaced at once (003 "3 vermelho", VARIANTS 7); the card in hand
    is the replacement, 8S, and that is the card thrown back."""
    deck = stack_deck(sp, hands={0: HAND0}, stock="3H 8S 10D 7C")
    log = play_logged(sp, ("basic", "basic"), 0, 0, deck=deck, first_seat=0)
    acts = turn0(log)
    assert acts[:5] == [("draw", "3H"), ("red3", "3H"), ("draw", "8S"), ("redraw", "8S"), ("draw", "10D")]
    assert check_log(log).ok


def test_only_the_first_turn_and_default_keeps(sp):
    """A strategy without choose_redraw (passive) keeps the card (the contract's default); basic
    with redraw=0 keeps it too; the rule off offers nothing."""
    deck = stack_deck(sp, hands={0: HAND0}, stock="8S 10D 7C 7D")
    for strategies, rules in (
        (("passive", "passive"), sp),
        (("basic:redraw=0", "basic"), sp),
        (("basic", "basic"), sp.replace(first_player_redraw=False)),
    ):
        log = play_logged(rules, strategies, 0, 0, deck=deck, first_seat=0)
        assert not any(a["act"] == "redraw" for a in log["actions"])
        assert turn0(log)[0] == ("draw", "8S")
        assert check_log(log).ok


def test_redraw_changes_the_score(sp):
    """A hand-made position on the first turn (seat 0 first): side A has taken its morto and has a
    clean canasta of seven queens; seat 0 holds KH KS 5C.  Stock: 8D, then KD.

    Redraw on (basic): 8D fits nothing -> thrown back; KD drawn; KH KS KD melded; 5C discarded:
    the hand is empty with a clean canasta (VARIANTS 10) -> going out.  By hand (003 values, 10 a
    card): melded 7 queens 70 + 3 kings 30 = 100; clean canasta 200; going out 100 (no em cima,
    VARIANTS 11); seat 2's 9C -10 -> 390.  Side B: morto never taken -100; seat 1's JD and seat
    3's 10H in hand -20 -> -120.

    Redraw off: 8D is kept; KH KS 5C 8D hold no meld, so seat 0 cannot go out on this turn."""

    def pos(rules):
        return make_position(
            rules,
            hands={0: "KH KS 5C", 1: "JD", 2: "9C", 3: "10H"},
            melds={0: ["QC QC QD QH QH QS QS"]},
            stock="8D KD 4C 4D 6C 6D",
            mortos={1: "JS"},
            taken_mortos={0: 2},
            melded_before={0, 2},
        )

    cols = play(sp, pos(sp))
    assert list(cols["score"]) == [390, -120]
    assert list(cols["went_out"]) == [1, 0] and int(cols["n_turns"][0]) == 1
    # the referee's scorer agrees with the arithmetic
    a = score_side(["QC QC QD QH QH QS QS", "KH KS KD"], 0, "9C", went_out=True, rules=sp)
    b = score_side([], 0, "JD 10H", morto_taken=False, rules=sp)
    assert (a["score"], b["score"]) == (390, -120)
    off = sp.replace(first_player_redraw=False)
    cols_off = play(off, pos(off))
    assert int(cols_off["n_turns"][0]) > 1  # no going out in turn 0


def test_redraw_obs_facts(sp):
    """PUB_REDRAWN tells every seat which card the first player threw back (it lies face up at the
    bottom of the pile); PUB_REDRAW_CARD is -1 outside the redraw choice."""
    st = make_position(sp, hands={0: "KH KS 8D", 1: "JD", 2: "9C", 3: "10H"}, stock="KD 4C",
                       mortos={0: "JC", 1: "JS"})  # fmt: skip
    rp = sp.to_array()
    pub = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, 1, pub)
    assert pub[PUB_REDRAWN] == -1 and pub[PUB_REDRAW_CARD] == -1
    redraw(st, rp, 0, parse("8D"))
    assert st.sc[SC_PILE_N] == 1 and st.pile[0] == parse("8D")
    assert st.hand[0, parse("KD")] == 1 and st.hand[0, parse("8D")] == 0  # drew the KD instead
    fill_pub(st, rp, 1, pub)
    assert pub[PUB_REDRAWN] == parse("8D") and pub[PUB_REDRAW_CARD] == -1


# ---- the referee refuses a wrong redraw ------------------------------------------------------


@pytest.fixture(scope="module")
def redraw_log(sp):
    deck = stack_deck(sp, hands={0: HAND0}, stock="8S 10D 7C 7D")
    log = play_logged(sp, ("basic", "basic"), 0, 0, deck=deck, first_seat=0)
    assert check_log(log).ok
    return log


def _index(log, act, turn=0):
    return next(i for i, a in enumerate(log["actions"]) if a["act"] == act and a["turn"] == turn)


def test_referee_redraw_rule_off(redraw_log):
    bad = copy.deepcopy(redraw_log)
    bad["rules"]["first_player_redraw"] = False
    v = check_log(bad)
    assert (v.ok, v.code) == (False, "redraw") and "003 O jogo" in v.reason


def test_referee_redraw_of_another_card(redraw_log):
    bad = copy.deepcopy(redraw_log)
    bad["actions"][_index(bad, "redraw")]["card"] = "KH"  # in hand, but not the card drawn
    v = check_log(bad)
    assert (v.ok, v.code) == (False, "redraw") and "the card drawn is 8S" in v.reason


def test_referee_pile_taken_after_redraw(redraw_log):
    """003: "comprar uma segunda carta" -- the second card is drawn from the stock; the thrown card
    is not taken back."""
    bad = copy.deepcopy(redraw_log)
    i = _index(bad, "redraw")
    bad["actions"][i + 1] = {"turn": 0, "seat": 0, "act": "take_pile", "top": "8S", "n": 1}
    v = check_log(bad)
    assert (v.ok, v.code) == (False, "redraw") and "second card from the stock" in v.reason


def test_referee_redraw_twice_or_later(redraw_log):
    bad = copy.deepcopy(redraw_log)
    i = _index(bad, "redraw")
    bad["actions"][i + 2 : i + 2] = [
        {"turn": 0, "seat": 0, "act": "redraw", "card": "10D"},
        {"turn": 0, "seat": 0, "act": "draw", "card": "7C"},
    ]
    v = check_log(bad)
    assert (v.ok, v.code) == (False, "redraw") and "used once" in v.reason
    bad = copy.deepcopy(redraw_log)
    j = next(i for i, a in enumerate(bad["actions"]) if a["act"] in ("draw", "take_pile") and a["turn"] == 1)
    if bad["actions"][j]["act"] == "draw":
        c = bad["actions"][j]["card"]
        bad["actions"].insert(j + 1, {"turn": 1, "seat": 1, "act": "redraw", "card": c})
        v = check_log(bad)
        assert (v.ok, v.code) == (False, "redraw") and "only the first player" in v.reason


# ---- flat 10-point cards (003 Valor em pontos) -----------------------------------------------


def test_flat_values_score(sp):
    """Side A has taken its morto and has the clean run canasta 4H..10H; seat 0 (turn 5, so no
    redraw) holds 9C 9D 2S and draws 5C: it melds 9C 9D 2S (two naturals and a wild) and goes out
    by discarding the 5C.  Its partner holds AS 2D.  003 Valor em pontos: every card 10, a 2 10.
    By hand: melded 7 x 10 + 3 x 10 = 100; clean canasta 200; going out 100; partner's AS 2D -20
    -> 380.  Side B: JD and 10S in hand -20, morto never taken -100 -> -120.  (Under the 004
    table the same side would have 4H..7H 4 x 5 + 8H..10H 3 x 10 + 9C 9D 20 + 2S 10 = 80 melded
    and AS 15 + 2D 10 = -25 in hand: 355.)"""

    def pos(rules):
        return make_position(
            rules,
            hands={0: "9C 9D 2S", 1: "JD", 2: "AS 2D", 3: "10S"},
            melds={0: ["4H 5H 6H 7H 8H 9H 10H"]},
            stock="5C KD 4C",
            mortos={1: "JS"},
            taken_mortos={0: 2},
            melded_before={0, 2},
            turn=5,
        )

    cols = play(sp, pos(sp))
    assert list(cols["score"]) == [380, -120]
    assert list(cols["melded_points"]) == [100, 0] and list(cols["hand_penalty"]) == [-20, -20]
    r004 = sp.replace(card_values="004")
    assert list(play(r004, pos(r004))["score"]) == [355, -120 - 0]
    a = score_side(["4H 5H 6H 7H 8H 9H 10H", "9C 9D 2S"], 0, "AS 2D", went_out=True, rules=sp)
    assert a["score"] == 380


# ---- validate_meld under tranca-sp -----------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "legal", "kind", "clean", "canasta"),
    [
        ("4H 5H 6H", True, "run", True, False),  # 003: "seqüência ... do mesmo naipe"
        ("QD KD AD", True, "run", True, False),  # ace high (VARIANTS 6)
        ("9C 9D 9H", True, "set", True, False),  # "Pode trinca (lavadeira)"
        ("9C 9D 2S", True, "set", False, False),  # "As cartas '2' podem ser usadas como coringa"
        ("9C 9D 2S 2H", False, None, False, False),  # one wild a meld (VARIANTS Presets)
        ("5H 2C 7H", True, "run", False, False),  # the 2 stands for the 6H
        ("5H 2C 2D 8H", False, None, False, False),  # two wilds in a run
        ("4S 5S 6S 7S 8S 9S 10S", True, "run", True, True),  # "mais de 6 cartas ... canastra"
        ("4S 5S 6S 2C 8S 9S 10S", True, "run", False, True),  # dirty run canasta
        # the 2H cannot be natural (no run below the 4 with special 3s, E16): it stands for the QH
        ("KH AH 2H", True, "run", False, False),
        ("KH AH 4H", False, None, False, False),  # no wrap-around K-A-...-4 (VARIANTS 6)
        ("3C 3S 3C", False, None, False, False),  # black 3s never melded (003 "3 preto")
        ("JK 9C 9D", False, None, False, False),  # no jokers in the pack (003)
    ],
)
def test_validate_meld_sp(sp, cards, legal, kind, clean, canasta):
    try:
        m = validate_meld(cards, sp)
    except ValueError:
        assert not legal
        return
    assert m.legal == legal, m.reason
    if legal:
        assert (m.kind, m.clean, m.canasta) == (kind, clean, canasta)
    else:
        assert m.reason


# ---- the presets listing and --rule ----------------------------------------------------------


def test_presets_listing_names_sources_and_differences(capsys):
    """`tranca-sim presets`: every preset with its source and the options that differ from tranca."""
    from tranca_sim.rules import PRESET_SOURCES, PRESETS

    assert set(PRESETS) <= set(PRESET_SOURCES)
    status, out, _ = call(["presets"], capsys)
    assert status == 0
    for name in PRESETS:
        assert f"{name}  (rules from: " in out
    block = out.split("tranca-sp  (rules from: ")[1].split("\n\n")[0]
    # the rule text by its title and language (003 is the Sao Paulo conventions, in Portuguese),
    # never an internal file name
    assert block.startswith("Tranca conventions of Sao Paulo (Portuguese)")
    assert ".txt" not in out
    for opt in ("first_player_redraw=true", "card_values=003", "n_jokers=0", "go_out_needs_clean=true"):
        assert opt in block


@pytest.mark.parametrize(
    ("rule", "words"),
    [
        ("n_jokers=4", ["--rule n_jokers=4", "003 card values have no joker value"]),
        ("first_player_redrew=1", ["unknown rule option 'first_player_redrew'", "first_player_redraw"]),
        ("first_player_redraw=maybe", ["first_player_redraw"]),
    ],
)
def test_rule_errors_on_sp(tmp_path, capsys, rule, words):
    status, _, err = call(
        [
            "simulate",
            "--preset",
            "tranca-sp",
            "--rule",
            rule,
            "--deals",
            "4",
            "--out",
            str(tmp_path / "r.parquet"),
        ],
        capsys,
    )
    assert status == 2 and "Traceback" not in err
    assert err.startswith("tranca-sim: error:") and err.count("\n") == 1
    for w in words:
        assert w in err


# ---- the strategy contract: choose_redraw is optional ----------------------------------------

EXAMPLE = __import__("pathlib").Path(__file__).resolve().parents[1] / "examples" / "greedy.py"
REDRAW_OK = """

@njit(cache=True, _nrt=False)
def choose_redraw(prm, obs, rng):
    return 1
"""


def test_contract_checks_an_optional_choose_redraw(tmp_path):
    """A strategy written to the contract without choose_redraw still passes (it keeps the card);
    one that defines it must take (prm, obs, rng) and return an integer; the engine's switch calls
    it only for the strategies that define it (the rest answer 0, keep)."""
    from tranca_sim.strategies import StrategyError
    from tranca_sim.strategies.build import render
    from tranca_sim.strategies.user import check_file

    good = EXAMPLE.read_text()
    assert "choose_redraw" not in good
    f = tmp_path / "plain.py"
    f.write_text(good)
    check_file(str(f))
    f = tmp_path / "withredraw.py"
    f.write_text(good + REDRAW_OK)
    mod = check_file(str(f))
    from tranca_sim.strategies.build import MODULES

    u = len(MODULES)  # the user's strategy takes the first id after the built-in ones
    text = render(extra=[f"_s{u} = None\n"], n_user=1, user_modules=[mod])
    body = text.split("def choose_redraw(sid, prm, obs, rng):")[1]
    assert "_s1.choose_redraw" in body and f"_s{u}.choose_redraw" in body  # basic and the user's
    assert "_s2.choose_redraw" not in body and body.rstrip().endswith("return 0")  # passive keeps
    for stem, extra, message in (
        (
            "args",
            REDRAW_OK.replace("(prm, obs, rng)", "(prm, obs)"),
            "choose_redraw must take (prm, obs, rng)",
        ),
        ("float", REDRAW_OK.replace("return 1", "return 0.5"), "must return an integer"),
    ):
        f = tmp_path / f"{stem}.py"
        f.write_text(good + extra)
        with pytest.raises(StrategyError) as e:
            check_file(str(f))
        assert message in str(e.value)
