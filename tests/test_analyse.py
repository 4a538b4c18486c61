"""analyse and review: every legal choice played out on the same sampled worlds, never peeking."""

import random

import numpy as np
import pytest
from cli_call import call, one_error_line

from tranca_sim.analyse import AnalyseError, analyse, format_analysis, next_best_gap, play_out, separated
from tranca_sim.engine.log import play_logged
from tranca_sim.position import parse_position
from tranca_sim.position_log import decisions, decisions_of, position_at
from tranca_sim.position_state import hidden_cards, legal_choices, to_state
from tranca_sim.review import review
from tranca_sim.rules import get_preset

# side A has a clean canasta of kings and its morto: laying the three 7s leaves the 9C, whose
# discard empties the hand and goes out (000 Gameplay 11).  Cards: hands 4 + 8 + 6 + 9 = 27,
# melds 7 + 3, pile 2, morto B 11: the stock holds 108 - 27 - 10 - 2 - 11 = 58.
GO_OUT = """\
rules: tranca
turn: 20
to move: seat 0, meld
hand: 7H 7D 7S 9C
hands: 4 8 6 9
meld A: KC KC KD KD KH KH KS
meld B: 5C 5D 5H
pile: 4C 8D
morto A: taken
morto B: waiting
stock: 58
"""


@pytest.mark.parametrize("preset", ["tranca", "tranca-3p", "buraco"])
def test_the_analysis_never_sees_the_hidden_cards(preset):
    """Two stand-in states of one position, the hidden cards dealt again at random (consistent with
    what the seat knows), give the same outcomes world by world (three players, Buraco's morto
    becoming the stock: the worlds of every preset)."""
    log = play_logged(get_preset(preset), ["basic", "basic"], 11, 2)
    rng = random.Random(5)
    checked = 0
    for phase, turn in (("draw", 5), ("discard", 9)):
        pos = position_at(log, turn, phase)
        codes = legal_choices(pos)
        hidden = hidden_cards(pos)
        rng.shuffle(hidden)
        a = play_out(pos, codes, 4, key=3)
        b = play_out(pos, codes, 4, key=3, st=to_state(pos, order=hidden))
        assert a.shape == (4, len(codes), a.shape[2])
        np.testing.assert_array_equal(a, b)
        checked += 1
    assert checked == 2


def test_the_outcomes_do_not_depend_on_the_threads():
    pos = parse_position(GO_OUT.replace("seat 0, meld", "seat 0, discard"))
    codes = legal_choices(pos)
    np.testing.assert_array_equal(play_out(pos, codes, 6, key=2), play_out(pos, codes, 6, key=2, threads=3))


def test_the_real_hidden_cards_of_a_logged_deal_give_the_same_analysis():
    """The position as the engine really had it (the other hands, the mortos and the stock as the
    log deals them) and a stand-in: the same worlds, the same ranking."""
    log = play_logged(get_preset("tranca"), ["basic", "basic"], 11, 2)
    d = next(x for x in decisions(log) if x.turn == 7 and x.phase == "discard")
    pos = d.position
    from tranca_sim.referee import walk

    real = None
    for i, a, table in walk(log):
        if a["act"] == "discard" and a["turn"] == 7:
            break
        hands = [list(table.hands[s].elements()) for s in range(4)]
        real = [c for s in range(4) if s != pos.seat for c in hands[s]]
        real += [c for sd in range(2) if table.morto_state[sd] == "waiting" for c in table.mortos[sd]]
        real += list(table.stock)
    assert sorted(real) == sorted(hidden_cards(pos))
    codes = legal_choices(pos)
    np.testing.assert_array_equal(play_out(pos, codes, 3, key=1), play_out(pos, codes, 3, key=1, st=to_state(pos, order=real)))


def test_laying_the_melds_that_go_out_ranks_first():
    pos = parse_position(GO_OUT)
    a = analyse(pos, seconds=0.01, max_worlds=16, batch=16)
    assert [c.words for c in a.choices][0] == "new meld 7D 7H 7S"
    best = a.choices[0]
    assert best.rates["we go out"] == 1.0  # every world: the 9C's discard goes out
    assert best.win == 1.0 and best.points_ci[0] > 0
    assert {c.words for c in a.choices} == {"new meld 7D 7H 7S", "stop melding"}
    assert a.worlds == 16 and a.stopped in ("separated", "time", "worlds")


def test_separation_needs_the_paired_interval_above_zero():
    d = np.array([[10.0, 0.0], [12.0, 1.0], [11.0, -1.0], [9.0, 0.5]])
    assert separated(d, 0)
    noisy = np.array([[10.0, 0.0], [-12.0, 1.0], [11.0, -1.0], [-9.0, 0.5]])
    assert not separated(noisy, 0)
    # two choices with the same outcome in every world (3C and 3S thrown alike) do not hold it up
    twins = np.array([[10.0, 0.0, 0.0], [12.0, 1.0, 1.0], [11.0, -1.0, -1.0], [9.0, 0.5, 0.5]])
    assert separated(twins, 0)
    assert separated(twins[:, [1, 2]], 0)  # twins alone: nothing to choose between


def test_a_rule_set_the_worlds_cannot_model_is_refused():
    # every preset is played; a minimum first meld is not (the rollouts do not model it)
    rules = get_preset("buraco").replace(first_meld_min=75)
    pos = position_at(play_logged(rules, ["basic", "basic"], 3, 0), 4, "draw")
    with pytest.raises(AnalyseError, match="first_meld_min"):
        analyse(pos, seconds=0.01, max_worlds=1)


def test_review_lists_each_discard_of_the_seat_with_its_loss():
    log = play_logged(get_preset("tranca"), ["basic", "basic"], 11, 2)
    rv = review(log, 2, seconds=0.01, max_worlds=8, phases=("discard",))
    played = [d.played[0]["card"] for d in decisions_of(log, 2) if d.phase == "discard"]
    assert [r.played for r in rv.rows] == [f"discard {c}" for c in played]
    for r in rv.rows:
        assert r.lost >= 0  # the best by the worlds' means: no choice beats it on them
        assert (r.lost == 0) == (r.played == r.best) or r.n_choices == 1
    m = rv.total[0]
    assert m == pytest.approx(sum(r.lost for r in rv.rows))
    worst = rv.worst()
    assert [r.lost for r in worst] == sorted((r.lost for r in rv.rows if r.lost > 0), reverse=True)[:3]


def test_cli_analyse_and_review(tmp_path, capsys, small_run):
    f = tmp_path / "go-out.txt"
    f.write_text(GO_OUT, encoding="utf-8")
    status, out, err = call(["analyse", str(f), "--time", "0.01", "--max-worlds", "16"], capsys)
    assert status == 0, err
    rows = [x for x in out.splitlines() if x.startswith(("1 ", "2 "))]
    assert rows[0].startswith("1  new meld 7D 7H 7S") and "100%" in rows[0]
    bad = tmp_path / "bad.txt"
    bad.write_text(GO_OUT.replace("stock: 58", "stock: 59"), encoding="utf-8")
    status, out, err = call(["analyse", str(bad)], capsys)
    assert status == 2 and out == "" and "line 11: the cards add up to 109" in one_error_line(err)
    status, out, err = call(["analyse", str(f), "--time", "0"], capsys)
    assert status == 2 and "--time" in one_error_line(err)
    status, out, err = call(
        ["review", str(small_run), "--deal", "1", "--seat", "0", "--phases", "discard", "--time", "0.01", "--max-worlds", "8"],
        capsys,
    )
    assert status == 0, err
    assert "total lost:" in out
    status, out, err = call(["review", str(small_run), "--deal", "1", "--phases", "bid"], capsys)
    assert status == 2 and "--phases" in one_error_line(err)


@pytest.mark.parametrize(
    "flag, value",
    [("--max-worlds", "0"), ("--max-worlds", "1"), ("--max-worlds", "-3"), ("--threads", "0"), ("--time", "0"),
     ("--time", "-1")],
)
@pytest.mark.parametrize("command", ["analyse", "review"])
def test_a_number_of_worlds_threads_or_seconds_that_cannot_be_is_one_line_naming_it(
    tmp_path, capsys, small_run, command, flag, value
):
    """A fresh user's find: ``analyse --max-worlds 0`` ran one world and printed intervals of
    -inf to +inf.  An interval needs two worlds at least; nothing is played before the refusal."""
    f = tmp_path / "go-out.txt"
    f.write_text(GO_OUT, encoding="utf-8")
    where = [str(f)] if command == "analyse" else [str(small_run), "--deal", "1"]
    status, out, err = call([command, *where, f"{flag}={value}"], capsys)
    assert status == 2 and out == ""
    assert one_error_line(err).startswith(f"tranca-sim: error: {flag} ")


@pytest.mark.parametrize("cached", [False, True])
@pytest.mark.parametrize("command", ["analyse", "review", "position"])
def test_a_first_run_says_what_it_compiles_in_one_line(tmp_path, capsys, monkeypatch, small_run, command, cached):
    """A fresh user's find: a first ``position RUN`` or ``review`` sat silent for minutes while
    numba compiled.  As ``replay`` and ``simulate`` do, the command says so in one line before
    (with --no-progress too), naming what it compiles, and only when numba's cache lacks it (the
    cache is not emptied here: a compile takes minutes; ``kernel_cached`` answers instead)."""
    from tranca_sim import run

    monkeypatch.setattr(run, "kernel_cached", lambda disp: cached)
    f = tmp_path / "go-out.txt"
    f.write_text(GO_OUT, encoding="utf-8")
    quick = ["--time", "0.01", "--max-worlds", "8", "--no-progress"]
    argv = {
        "analyse": ["analyse", str(f), *quick],
        "review": ["review", str(small_run), "--deal", "1", "--phases", "discard", *quick],
        "position": ["position", str(small_run), "--deal", "2", "--turn", "5"],
    }[command]
    status, out, err = call(argv, capsys)
    assert status == 0, err
    said = [x for x in err.splitlines() if x.startswith("compiling ")]
    what = {"analyse": "the analyser", "review": "the deal player and the analyser", "position": "the deal player"}
    assert said == ([] if cached else [f"compiling {what[command]} (once, {run.COMPILE_TIME}) ..."]), err
    assert cached or err.startswith(said[0])


def test_the_next_best_gap_is_the_confidence_sequence_worked_out_by_hand():
    # best minus the other, world by world: 10, 11, 12, 8.5; mean 10.375; squared deviations
    # 0.140625 + 0.390625 + 2.640625 + 3.515625 = 6.6875, sd sqrt(6.6875 / 3) = 1.49304.
    # Confidence sequence tightest near 500 worlds, alpha 0.05 (two choices: one comparison):
    # rho2 = (2 ln 20 + ln(1 + 2 ln 20)) / 500 = (5.991465 + 1.944692) / 500 = 0.0158723;
    # v = 1 + 4 rho2 = 1.063489; half = sd sqrt(2 v / (16 rho2) ln(sqrt(v) / 0.05))
    # = 1.49304 sqrt(8.37535 * 3.026510) = 1.49304 * 5.03469 = 7.5170
    d = np.array([[10.0, 0.0], [12.0, 1.0], [11.0, -1.0], [9.0, 0.5]])
    other, m, lo, hi = next_best_gap(d, 0)
    assert other == 1 and m == pytest.approx(10.375)
    assert (lo, hi) == (pytest.approx(10.375 - 7.5170, abs=2e-3), pytest.approx(10.375 + 7.5170, abs=2e-3))
    # four choices: alpha 0.05 / 3 for three comparisons with the best, as separated() tests them:
    # rho2 = (2 ln 60 + ln(1 + 2 ln 60)) / 500 = (8.188689 + 2.217967) / 500 = 0.0208133;
    # v = 1.083253; half = 1.49304 sqrt(2.166507 / 0.333013 * (0.039988 + 4.094345)) = 7.7433.
    # The next best is the higher mean (column 2: differences 9, 10, 11, 7.5, the same spread),
    # and a twin of the best (column 3) is not a choice to name
    d3 = np.column_stack([d, d[:, 0] - [9.0, 10.0, 11.0, 7.5], d[:, 0]])
    assert d3[:, 2].mean() > d3[:, 1].mean()
    other, m, lo, hi = next_best_gap(d3, 0)
    assert other == 2 and m == pytest.approx(9.375)
    assert hi - m == pytest.approx(7.7433, abs=2e-3)
    assert next_best_gap(d[:, [0, 0]], 0) is None  # only a twin: nothing to compare


def test_a_separated_stop_prints_the_paired_interval_that_separated_it():
    """A fresh user's find: "separated" was said beside two marginal intervals that overlapped,
    without the paired one that justified the stop.  The head now gives the best minus the next
    best, world by world, with that interval (worked out here from the worlds' outcomes)."""
    a = analyse(parse_position(GO_OUT), seconds=30, max_worlds=64, batch=16)
    assert a.stopped == "separated"
    best, other = a.codes.index(a.choices[0].code), a.codes.index(a.choices[1].code)
    d = a.outcomes[:, best, 0] - a.outcomes[:, other, 0]
    # two choices, one comparison: the 95% confidence sequence tightest near 500 worlds
    n, rho2 = len(d), (2 * np.log(20) + np.log(1 + 2 * np.log(20))) / 500
    v = n * rho2 + 1
    half = d.std(ddof=1) * np.sqrt(2 * v / (n * n * rho2) * np.log(np.sqrt(v) / 0.05))
    assert d.mean() - half > 0
    text = format_analysis(a)
    want = (
        f"the best minus the next best (stop melding), world by world on the same worlds: {d.mean():+.0f} points "
        f"[{d.mean() - half:+.0f}, {d.mean() + half:+.0f}] (valid at any stop), above 0"
    )
    assert want in text, text


# No side is separated quickly here (the pile taken with KD KS, or the stock: about 900 worlds).
SLOW = """\
rules: tranca
turn: 9
to move: seat 0, draw
hand: KD KS 7C 7D 9H JS 4C 5S 2C
hands: 9 11 10 11
meld A: QH QD QC
meld B: 8C 8D 2S
pile: 6H 10S KH
red 3s A: 3H
morto A: waiting
morto B: waiting
stock: 35
"""


def _stop_at_call(real, n_calls: int):
    """``real`` that raises KeyboardInterrupt (as Ctrl-C does) at its ``n_calls``-th call."""
    calls = []

    def fake(*args, **kwargs):
        calls.append(1)
        if len(calls) == n_calls:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    return fake


def test_an_interrupted_analysis_prints_its_ranking_so_far_then_its_one_line(tmp_path, capsys, monkeypatch):
    """A fresh user's find: Ctrl-C dropped every world played.  The worlds of the batches finished
    (the compile's empty call, then two of 32) are ranked and printed, marked interrupted; stderr
    holds the one interrupt line."""
    from cli_call import only_the_line

    import tranca_sim.analyse as an

    f = tmp_path / "slow.txt"
    f.write_text(SLOW, encoding="utf-8")
    monkeypatch.setattr(an, "play_out", _stop_at_call(an.play_out, 4))
    status, out, err = call(["analyse", str(f), "--time", "60", "--no-progress"], capsys)
    assert status == 130
    only_the_line(err, "tranca-sim: error: interrupted; the ranking of the 64 worlds played is printed, marked interrupted")
    assert "64 worlds in " in out and "INTERRUPTED: the ranking of the worlds played so far" in out
    rows = [x for x in out.splitlines() if x[:3] in ("1  ", "2  ", "3  ")]
    assert len(rows) == 3 and rows[0].startswith("1  ")  # the draw's three choices, ranked


def test_an_interrupted_review_prints_the_decisions_it_finished_then_its_one_line(capsys, monkeypatch, small_run):
    from cli_call import only_the_line

    import tranca_sim.review as rvm

    argv = ["review", str(small_run), "--deal", "1", "--phases", "discard", "--time", "0.01", "--max-worlds", "8"]
    status, whole, err = call(argv, capsys)
    assert status == 0, err
    monkeypatch.setattr(rvm, "analyse", _stop_at_call(rvm.analyse, 3))  # the third analysed discard
    status, out, err = call(argv, capsys)
    assert status == 130
    table = [" ".join(x.split()) for x in out.splitlines() if x.split(" ", 1)[0].isdigit()]  # widths aside
    n = len(table)
    only_the_line(err, f"tranca-sim: error: interrupted; the {n} decisions reviewed before it are printed")
    assert "INTERRUPTED at turn " in out and "total lost: " in out
    # what it printed is the uninterrupted review's first rows: two analysed discards (and the
    # forced ones among them), not the one cut short
    whole_table = [" ".join(x.split()) for x in whole.splitlines() if x.split(" ", 1)[0].isdigit()]
    assert n >= 2 and whole_table[: n] == table and len(whole_table) > n
    assert sum("forced" not in x for x in table) == 2


def _stops_separated(d, batch=32, looks=100):
    """Whether the analyser's stop says "separated" at any of ``looks`` looks, one every
    ``batch`` worlds, on per-world differences ``d`` (best minus the other) of two choices."""
    diff = np.column_stack([d, np.zeros_like(d)])
    for n in range(batch, batch * looks + 1, batch):
        part = diff[:n]
        best = int(np.argmax(part.mean(axis=0)))
        if separated(part, best):
            return True
    return False


def test_two_equal_choices_are_seldom_called_separated_however_often_the_analyser_looks():
    """A fresh user's find: looking at a fixed-n 95% interval every 32 worlds and stopping the
    first time it cleared 0 called two equal choices "separated" about half the time.  The stop
    must hold 95% over all the looks: with equal choices (normal differences of mean 0), at most
    about 5% of 400 runs of 100 looks may stop as separated (binomial sd of 5% over 400 runs is
    1.1 points of percentage: 8% is nearly three sds above 5%)."""
    rng = np.random.default_rng(20261202)
    false = sum(_stops_separated(rng.normal(0.0, 30.0, 3200)) for _ in range(400))
    assert false / 400 <= 0.08, false


def test_a_real_difference_is_still_separated_within_the_looks():
    # a difference of half an sd per world: the interval clears 0 long before 3,200 worlds
    rng = np.random.default_rng(7)
    assert all(_stops_separated(rng.normal(15.0, 30.0, 3200)) for _ in range(20))


def test_points_that_round_to_zero_are_printed_0_never_minus_0():
    """A fresh user's find: "11 [-0, 21]" and "[+0, +47]".  Numbers are printed whole; one that
    rounds to zero is "0" whatever its sign."""
    from tranca_sim.analyse import Analysis, Choice, Gap
    from tranca_sim.review import Review, Reviewed, format_review

    rv = Review(0, "A", "tuned", policy="tuned")
    rv.rows.append(Reviewed(9, "discard", "discard 7C", "discard 9H", 11.2, (-0.3, 21.4), 5, 100))
    text = format_review(rv, "deal 1")
    assert "11 [0, 21]" in text and "-0" not in text, text
    pos = parse_position(GO_OUT)
    a = Analysis(pos, [Choice(1, "stop melding", 0.3, (-0.4, 46.6)), Choice(2, "new meld", -0.2, (-47.4, 0.4))],
                 64, 1.0, "time", "tuned", gap=Gap("new meld", 0.4, -0.3, 1.2, 1))  # fmt: skip
    text = format_analysis(a)
    assert "0 [0, +47]" in text and "0 [-47, 0]" in text and "0 points [0, +1]" in text, text
    assert "-0" not in text and "+0" not in text, text


def test_two_choices_alike_in_outcomes_and_points_are_said_to_play_the_same():
    """A fresh user's find: two choices with the same intervals were said to "differ in points"."""
    from tranca_sim.analyse import Choice, why_line

    rates = {"we go out": 0.40, "they go out": 0.30}
    best = Choice(1, "discard 3C", 12.3, (2.0, 22.0), rates=dict(rates))
    twin = Choice(2, "discard 3S", 12.1, (2.0, 22.0), rates={"we go out": 0.41, "they go out": 0.30})
    assert why_line(best, twin, "next best") == "plays the same as the next best"
    assert why_line(twin, best, "best") == "plays the same as the best"
    # the same outcomes but 8 points apart: that is still said
    other = Choice(3, "discard 9H", 4.3, (-6.0, 14.0), rates=dict(rates))
    assert "differs in points" in why_line(other, best, "best")


def test_the_progress_line_never_shows_a_signed_zero(monkeypatch):
    """The live 'best so far' line rounds -0.3 points to 0, as the ranking does (not '-0')."""
    import io
    import sys
    from types import SimpleNamespace

    from tranca_sim import cli_analyse

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    monkeypatch.setattr(sys, "stderr", err)
    show = cli_analyse._progress(SimpleNamespace(no_progress=False))
    show(32, 0.4, "draw from the stock", -0.3)
    show(64, 0.8, "draw from the stock", 12.4)
    assert "best so far draw from the stock (0)" in err.getvalue()
    assert "(+12)" in err.getvalue() and "-0" not in err.getvalue()


def test_a_discard_with_no_legal_card_says_why_not_that_the_stock_is_out():
    """Seat 0 holds one card, its side has taken its morto and has no canasta, so it may not go out
    (000: a side goes out only with a canasta): the last card may not be discarded.  The stock
    holds 108 - (1 + 8 + 6 + 9) - (3 + 3) - 2 - 11 = 65 cards: it is not out."""
    text = (
        GO_OUT.replace("seat 0, meld", "seat 0, discard").replace("hand: 7H 7D 7S 9C", "hand: 9C")
        .replace("hands: 4 8", "hands: 1 8").replace("meld A: KC KC KD KD KH KH KS", "meld A: KC KD KH")
        .replace("stock: 58", "stock: 65")
    )  # fmt: skip
    pos = parse_position(text)
    with pytest.raises(AnalyseError) as e:
        analyse(pos, seconds=0.01, max_worlds=2)
    assert str(e.value) == (
        "seat 0 has no card it may discard here: a last card is kept while its side may not go out, and a "
        "card just taken from a one-card pile is not thrown back"
    )


@pytest.mark.parametrize("lo, said", [(0.3, "+0.3"), (0.04, "+0.04"), (0.001, "just above 0"), (2.6, "+3")])
def test_a_lower_bound_above_0_is_never_printed_0_beside_above_0(lo, said):
    """A fresh user's find: "+80 points [0, +160] ... above 0: the best is better".  A lower bound
    above 0 gets the decimals that show it (or "just above 0")."""
    from tranca_sim.analyse import Analysis, Choice, Gap

    best = Choice(1, "stop melding", 80.0, (40.0, 120.0))
    gap = Gap("new meld", 80.2, lo, 160.4, 1)
    a = Analysis(parse_position(GO_OUT), [best], 64, 1.0, "separated", "tuned", gap=gap)
    assert f"+80 points [{said}, +160] (valid at any stop), above 0: the best is better" in format_analysis(a)
