"""The position notation: written from logged deals, read back, typed by hand, its mistakes."""

import pytest
from cli_call import call, one_error_line

from tranca_sim.engine.log import play_logged
from tranca_sim.position import PositionError, format_position, parse_position
from tranca_sim.position_log import decisions, position_at
from tranca_sim.rules import get_preset

# worked out by hand: 9 + 11 + 10 + 11 cards in hands, 6 melded, 3 in the pile, 1 red 3 and two
# face-down mortos of 11 leave 108 - 41 - 6 - 3 - 1 - 22 = 35 in the stock
TYPED = """\
# a position typed by hand
rules: tranca
turn: 9
to move: seat 0, draw
hand: KD KS 7C 7D 9H JS 4C 5S 2C
hands: 9 11 10 11
meld A: QH QD QC
meld B: 8C 8D 2S
pile: 6H 10S KH
red 3s A: 3H
red 3s B: -
morto A: waiting
morto B: waiting
stock: 35
score: A 1200, B 450
took 1: 6C
"""


@pytest.mark.parametrize("preset", ["tranca", "tranca-carioca", "tranca-aberta", "tranca-3p", "buraco"])
def test_every_decision_of_a_logged_deal_reads_back_as_the_same_position(preset):
    rules = get_preset(preset)
    n = 0
    for deal in (0, 1):
        log = play_logged(rules, ["basic"] * rules.n_sides, 7, deal)
        for d in decisions(log):
            text = format_position(d.position)
            assert parse_position(text) == d.position, text
            n += 1
    assert n > 40  # two whole deals: dozens of decisions


def test_a_position_from_a_deal_holds_what_the_seat_saw():
    rules = get_preset("tranca")
    log = play_logged(rules, ["basic", "basic"], 7, 3)
    pos = position_at(log, 6, "draw")
    assert pos.seat == (3 + 6) % 4  # deal 3 starts at seat 3 (E1)
    assert pos.turn == 6 and pos.phase == "draw"
    assert len(pos.hand) == pos.hand_sizes[pos.seat]
    hidden = sum(pos.hand_sizes) - len(pos.hand) + pos.stock
    hidden += sum(rules.morto_size for st, _ in pos.mortos if st == "waiting")
    shown = len(pos.hand) + len(pos.pile) + sum(len(m) for side in pos.melds for m in side)
    assert shown + hidden + sum(len(r) for r in pos.red3) == 108
    # what each other seat took from the pile is what the log's take_pile actions put in its hand
    took = {}
    pile = []
    for a in log["actions"]:
        if a["turn"] >= 6:
            break
        if a["act"] in ("turn_up", "discard"):
            pile.append(a["card"])
        elif a["act"] == "take_pile":
            took.setdefault(a["seat"], []).extend(pile[:-1])  # closed pile: the top card is melded
            pile = []
    assert {s: sorted(c) for s, c in pos.took.items()} == {
        s: sorted(c) for s, c in took.items() if s != pos.seat and c
    }


def test_a_typed_position_reads_as_worked_out_by_hand():
    pos = parse_position(TYPED)
    assert pos.seat == 0 and pos.phase == "draw" and pos.turn == 9
    assert sorted(pos.hand) == sorted("KD KS 7C 7D 9H JS 4C 5S 2C".split())
    assert pos.hand_sizes == [9, 11, 10, 11]
    assert pos.melds == [[["QH", "QD", "QC"]], [["8C", "8D", "2S"]]]
    assert pos.pile == ["6H", "10S", "KH"]  # bottom first: KH on top
    assert pos.score == [1200, 450]
    assert pos.took == {1: ["6C"]}
    assert pos.mortos == [("waiting", []), ("waiting", [])]
    assert parse_position(format_position(pos)) == pos


def test_the_typed_positions_choices_are_those_worked_out_by_hand():
    from tranca_sim.describe import describe_choices
    from tranca_sim.position_state import legal_choices, to_state

    pos = parse_position(TYPED)
    st = to_state(pos)
    words = describe_choices(pos, st, legal_choices(pos, st))
    # the closed pile (top KH, not locked) is taken only with KH in a new meld: KD KS from the
    # hand, or one of them and the 2C; side A has no king meld to extend
    assert words[0] == "draw from the stock"
    assert sorted(words[1:]) == sorted(
        ["take the pile (3, top KH): new meld KD KH KS", "take the pile (3, top KH): new meld KD KH 2C"]
    ) or sorted(words[1:]) == sorted(
        ["take the pile (3, top KH): new meld KD KH KS", "take the pile (3, top KH): new meld KH KS 2C"]
    )
    meld = parse_position(TYPED.replace("seat 0, draw", "seat 0, meld"))
    st = to_state(meld)
    words = describe_choices(meld, st, legal_choices(meld, st))
    # pairs of kings and 7s with the 2C, or the 2C onto the queens (3 naturals, 1 wild): no set of
    # three naturals in the hand
    assert sorted(words) == sorted(
        ["stop melding", "new meld KD KS 2C", "new meld 7C 7D 2C", "2C onto meld 1 (QC QD QH)"]
    )
    disc = parse_position(TYPED.replace("seat 0, draw", "seat 0, discard"))
    st = to_state(disc)
    words = describe_choices(disc, st, legal_choices(disc, st))
    assert sorted(words) == sorted(f"discard {c}" for c in "KD KS 7C 7D 9H JS 4C 5S 2C".split())


def _problems(text):
    with pytest.raises(PositionError) as e:
        parse_position(text)
    return e.value.problems


@pytest.mark.parametrize(
    "old, new, line, words",
    [
        ("hand: KD", "hand: 1X KD", 5, "'1X' is not a card"),
        ("meld A: QH QD QC", "meld A: QH QD QC QH QH", 7, "QH (meld A) is one copy too many: the pack holds 2"),
        ("hands: 9 11", "hands: 8 11", 6, "seat 0's hand has 9 cards but 'hands' says 8"),
        ("stock: 35", "stock: 36", 14, "the cards add up to 109"),
        ("meld B: 8C 8D 2S", "meld B: 8C 2D 2S", 8, "a meld needs at least 2 naturals"),
        ("red 3s B: -", "red 3s B: 3C", 11, "3C is not a red 3"),
        ("turn: 9", "trun: 9", 3, "unknown field 'trun'"),
        ("seat 0, draw", "seat 0, pass", 4, "the phase is one of draw, meld, discard"),
        ("seat 0, draw", "seat 5, draw", 4, "seat 5 is not at the table"),
        ("morto B: waiting", "morto B: lost", 13, "a morto is one of"),
        ("score: A 1200, B 450", "score: A lots", 15, "'score' takes"),
        ("took 1: 6C", "took 0: 6C", 16, "names the player itself"),
        ("hand: KD KS", "hand: 3H KS", 5, "a red 3 (3H) is never held"),
        # five KD where the two decks hold 2: three too many, not one (a fresh user's find)
        ("hand: KD", "hand: KD KD KD KD KD", 5, "KD (hand) is 3 copies too many: the pack holds 2 KD"),
        ("hand: KD", "hand: KD KD KD", 5, "KD (hand) is one copy too many"),
        # one KD in the hand, three in meld A and three in meld B: 7 where 2 fit, five too many,
        # the extra ones in both melds, said once on the line where the pack first runs out
        ("meld A: QH QD QC", "meld A: KD KD KD\nmeld B: KD KD KD", 7, "KD (meld A, meld B) is 5 copies too many"),
    ],
)
def test_each_mistake_is_said_on_its_own_line(old, new, line, words):
    assert old in TYPED
    problems = _problems(TYPED.replace(old, new, 1))
    hits = [p for p in problems if p.startswith(f"line {line}: ") and words in p]
    assert hits, problems


def test_a_missing_line_and_an_unknown_preset_are_said():
    assert any("the 'stock:' line is missing" in p for p in _problems(TYPED.replace("stock: 35\n", "")))
    assert _problems(TYPED.replace("rules: tranca", "rules: canasta"))[0].startswith("line 2: ")
    assert any("unknown rule option" in p for p in _problems(TYPED.replace("rules: tranca", "rules: tranca wilds=1")))


def test_two_mistakes_give_two_lines():
    text = TYPED.replace("hand: KD", "hand: 1X KD").replace("meld B: 8C 8D 2S", "meld B: 8C 2D 2S")
    problems = _problems(text)
    assert any(p.startswith("line 5: ") for p in problems) and any(p.startswith("line 8: ") for p in problems)


def test_cli_position_checks_a_file_and_writes_a_logged_deal(tmp_path, capsys, small_run):
    good = tmp_path / "good.txt"
    good.write_text(TYPED, encoding="utf-8")
    status, out, _ = call(["position", str(good)], capsys)
    assert status == 0 and parse_position(out) == parse_position(TYPED)
    bad = tmp_path / "bad.txt"
    bad.write_text(TYPED.replace("hand: KD", "hand: 1X KD").replace("meld B: 8C 8D 2S", "meld B: 8C 2D 2S"))
    status, out, err = call(["position", str(bad)], capsys)
    lines = err.splitlines()
    assert status == 2 and out == "" and len(lines) == 2, err
    assert all(x.startswith(f"tranca-sim: error: {bad}: line ") for x in lines)
    status, out, err = call(["position", str(small_run), "--deal", "2", "--turn", "5"], capsys)
    assert status == 0, err
    assert parse_position(out).turn == 5
    status, out, err = call(["position", str(small_run), "--deal", "2", "--turn", "900"], capsys)
    assert status == 2 and out == "" and "no draw decision" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("command", [["position", "--turn", "5"], ["review"]])
def test_a_match_index_on_a_run_of_single_deals_is_one_line(capsys, small_run, command):
    """``--match`` names a match of a match run; on a run of single deals it is one line and exit
    2, as ``replay`` says it (a fresh user's find: a KeyError traceback, exit 1)."""
    name, *rest = command
    status, out, err = call([name, str(small_run), "--deal", "2", "--match", "0", *rest], capsys)
    assert status == 2 and out == "", err
    assert one_error_line(err).endswith("is not a match run (simulate --matches); give --deal I alone")


@pytest.mark.parametrize(
    "old, new, line, words",
    [
        ("hand: KD KS", "hand: KX KS", 5, "'KX' is not a card"),  # not also the hand's size
        ("hand: KD", "hand: 3H KD", 5, "a red 3 (3H) is never held"),  # not also the hand's size
        ("meld A: QH QD QC", "meld A: QH QD QX", 7, "'QX' is not a card"),  # not the meld's length nor the count
        ("meld A: QH QD QC", "meld A: QH QD QC QH QH", 7, "QH (meld A) is one copy too many"),
        ("meld A: QH QD QC", "meld C: QH QD QC", 7, "side 'C' is not at the table"),
        ("pile: 6H 10S KH", "pile: 6H 10S KX", 9, "'KX' is not a card"),
        ("red 3s A: 3H", "red 3s A: 3X", 10, "'3X' is not a card"),
        ("red 3s A: 3H", "red 3s C: 3H", 10, "side 'C' is not at the table"),
        ("hands: 9 11 10 11", "hands: 9 11 10", 6, "'hands' gives 3 sizes"),
        ("hands: 9 11 10 11", "hands: 9 11 x 11", 6, "a hand's size takes a whole number"),
        ("morto A: waiting", "morto A: waiting KH", 12, "deals the mortos face down"),
        ("morto A: waiting", "morto C: waiting", 12, "side 'C' is not at the table"),  # not also 'morto A' missing
        ("stock: 35", "stock: x", 14, "stock takes a whole number"),
        ("seat 0, draw", "seat 1, draw", 6, "seat 1's hand has 9 cards but 'hands' says 11"),  # not also 'took 1'
        ("rules: tranca", "rules: tranca-2p", 6, "'hands' gives 4 sizes, tranca-2p has 2 seats"),
        ("stock: 35\n", "", None, "the 'stock:' line is missing"),  # not also the count
        ("hands: 9 11 10 11\n", "", None, "the 'hands:' line is missing"),
        ("hand: KD KS 7C 7D 9H JS 4C 5S 2C\n", "", None, "the 'hand:' line is missing"),
    ],
)
def test_one_typed_mistake_gives_one_line(old, new, line, words):
    """A fresh user's find: one typed mistake gave two or three lines, the later ones only its
    echoes (a card misspelt in a meld also made the meld too short and the pack's count wrong).
    The checks that build on a line already found wrong, or missing, are left out."""
    assert old in TYPED
    problems = _problems(TYPED.replace(old, new, 1))
    assert len(problems) == 1, problems
    assert problems[0].startswith(f"line {line}: " if line else "the ") and words in problems[0], problems


def test_one_typed_mistake_is_one_line_on_the_command_line(tmp_path, capsys):
    bad = tmp_path / "bad.txt"
    bad.write_text(TYPED.replace("meld A: QH QD QC", "meld A: QH QD QX"), encoding="utf-8")
    status, out, err = call(["position", str(bad)], capsys)
    assert status == 2 and out == ""
    assert one_error_line(err) == (
        f"tranca-sim: error: {bad}: line 7: 'QX' is not a card (meld; cards are written like KH, 10D, 2C, JK)"
    )


# Buraco: 3s are plain cards (docs/rules.md `threes_special`, VARIANTS 7): nothing is laid aside.
# Worked out by hand: a pack of 104 (no jokers), 11 + 11 + 11 + 11 in hands, 3 melded, 1 in the
# pile, two mortos of 11: 104 - 44 - 3 - 1 - 22 = 34 in the stock.
BURACO = """\
rules: buraco
to move: seat 0, draw
hand: 3H 3S 4C 5D 6H 7S 8C 9D 10H JS QC
hands: 11 11 11 11
meld B: 3C 4C 5C
pile: KH
morto A: waiting
morto B: waiting
stock: 34
"""


def test_a_buraco_position_reads_with_3s_as_plain_cards():
    pos = parse_position(BURACO)
    assert "3H" in pos.hand and pos.melds[1] == [["3C", "4C", "5C"]]
    assert "red 3s" not in format_position(pos)  # no red-3 area to write
    assert parse_position(format_position(pos)) == pos


@pytest.mark.parametrize("preset", ["buraco", "buraco-fechado"])
def test_a_red_3_laid_aside_in_buraco_is_one_line_naming_the_rule_set(preset):
    text = BURACO.replace("rules: buraco", f"rules: {preset}")
    problems = _problems(text.replace("stock: 34", "red 3s A: 3D\nstock: 34"))
    assert len(problems) == 1, problems
    assert problems[0].startswith("line 9: ") and f"{preset} has no red 3s" in problems[0]


def test_the_position_module_does_not_import_the_engine_state_back():
    """Imports run one way: position_state builds on position (the notation), never the reverse."""
    import ast
    from pathlib import Path

    import tranca_sim.position as notation

    tree = ast.parse(Path(notation.__file__).read_text(encoding="utf-8"))
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not [m for m in names if m and m.split(".")[-1] == "position_state"], names


@pytest.mark.parametrize("extra", [["--phase", "discard"], ["--phase", "draw"], ["--turn", "3", "--phase", "meld"]])
def test_a_phase_for_a_position_file_is_refused_in_one_line(tmp_path, capsys, extra):
    """A fresh user's find: ``position FILE --phase discard`` printed the file's draw position, the
    option silently ignored.  A typed position names its phase on its 'to move' line."""
    good = tmp_path / "good.txt"
    good.write_text(TYPED, encoding="utf-8")
    status, out, err = call(["position", str(good), *extra], capsys)
    assert status == 2 and out == ""
    line = one_error_line(err)
    assert "--phase" in line and "--deal" in line and "'to move' line" in line


@pytest.mark.parametrize("flag", ["--deal", "--turn", "--seat", "--match"])
def test_a_negative_index_is_one_line_naming_its_option(capsys, small_run, flag):
    """The kind of ``analyse --max-worlds 0``: every number ``position`` takes is checked by the
    parser, in one line naming the option (0 is a valid index: the first deal, turn, seat)."""
    argv = ["position", str(small_run), "--deal", "2", "--turn", "5"]
    argv = [x for i, x in enumerate(argv) if not (x == flag or (i and argv[i - 1] == flag))]
    status, out, err = call([*argv, flag, "-1"], capsys)
    assert status == 2 and out == ""
    assert one_error_line(err).startswith(f"tranca-sim: error: {flag} takes a whole number 0 or more")


@pytest.mark.parametrize(
    "text, words",
    [("", "it is empty, not a position"), ("   \n# nothing\n", "it is empty, not a position"),
     ("deal,seat,points\n0,0,120\n1,0,-40\n", "no line of it is a position"),
     ("Title: my notes\nDate: today\nplay the 7s\n", "no line of it is a position")],
)
def test_a_file_that_is_no_position_at_all_is_one_line(tmp_path, capsys, text, words):
    """The wrong file given (an empty one, a table, notes) is one mistake: one line, not one for
    each of its lines and each missing field."""
    f = tmp_path / "not-a-position.txt"
    f.write_text(text, encoding="utf-8")
    status, out, err = call(["position", str(f)], capsys)
    assert status == 2 and out == ""
    assert one_error_line(err).startswith(f"tranca-sim: error: {f}: {words}: lines of 'field: value'")


# A fresh user's find: a discard with an empty hand and the morto waiting was accepted, then
# analyse said the stock was out with 44 cards in it.  Worked out by hand from TYPED: seat 0's 9
# cards gone, 108 - 32 - 6 - 3 - 1 - 22 = 44 in the stock (55 when morto A is taken: 11 more).
EMPTY_DISCARD = (
    TYPED.replace("seat 0, draw", "seat 0, discard")
    .replace("hand: KD KS 7C 7D 9H JS 4C 5S 2C", "hand: -")
    .replace("hands: 9 11", "hands: 0 11")
    .replace("stock: 35", "stock: 44")
)


@pytest.mark.parametrize("command", ["position", "analyse"])
def test_a_discard_with_no_card_in_hand_is_one_line_naming_the_file_and_line(tmp_path, capsys, command):
    bad = tmp_path / "c5.txt"
    bad.write_text(EMPTY_DISCARD, encoding="utf-8")
    status, out, err = call([command, str(bad)], capsys)
    assert status == 2 and out == ""
    assert one_error_line(err) == (
        f"tranca-sim: error: {bad}: line 5: seat 0 is to discard with no card in hand: a hand emptied by "
        "melding takes its side's morto, which is waiting, and plays on from it; give the cards it holds"
    )


def test_a_discard_with_no_card_in_hand_and_the_morto_taken_says_the_deal_is_over():
    text = EMPTY_DISCARD.replace("morto A: waiting", "morto A: taken").replace("stock: 44", "stock: 55")
    with pytest.raises(PositionError) as e:
        parse_position(text)
    assert e.value.problems == [
        "line 5: seat 0 is to discard with no card in hand: a hand emptied by melding has gone out, "
        "which ends the deal; give the cards it holds"
    ]
