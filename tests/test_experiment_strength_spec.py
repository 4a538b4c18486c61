"""A wrong ``strength`` or ``blocks`` in an experiment file is one clear line naming the key (the
command line exits 2 with it); a right one gives each variant its tip and each strength its pair
of players (the player with the tip, the same player without it)."""

import pytest

from tests.cli_call import call, one_error_line
from tranca_sim.lab.experiments.spec import SpecError, load_spec

HEAD = """
title = "t"
question = "q"
baseline = "basic"
batch = 4
budget = 8
"""
VARIANT = """
[[variants]]
strategy = "basic:black3_lock=1"
"""


def _write(tmp_path, top: str, variants: str = VARIANT, head: str = HEAD):
    p = tmp_path / "e.toml"
    p.write_text(head + top + variants, encoding="utf-8")
    return p


def _refuse_search(monkeypatch):
    """A stand-in check that refuses the search player (every shipped preset lets it play, and an
    experiment cannot set the one option it refuses, a minimum first meld)."""
    from tranca_sim import strategies

    def refuse(specs, rules):
        if any(s.name == "search" for s in specs):
            raise strategies.StrategyError(f"strategy 'search' cannot play {rules.name} (a stand-in)")

    monkeypatch.setattr(strategies, "check_rules", refuse)


@pytest.mark.parametrize(
    ("top", "key"),
    [
        ('strength = ["basic", "strong"]\n', "strength[1]"),
        ('strength = ["basic", "random"]\n', "strength[1]"),
        ('strength = ["basic", "basic"]\n', "strength[1]"),
        ('strength = ["basic", 3]\n', "strength[1]"),
        ('strength = ["basic", ""]\n', "strength[1]"),
        ('strength = "basic"\n', "strength"),
        ("strength = []\n", "strength"),
        ('strength = ["tuned:nonsense=1"]\n', "strength[0]"),
        ('strength = ["basic", { strategy = "search", budget = 3 }]\n', "strength[1].budget"),
        ('strength = ["basic", { strategy = "search", speed = 3 }]\n', "strength[1].speed"),
        ('strength = ["basic", { budget = 4 }]\n', "strength[1].strategy"),
        ('strength = ["basic", { strategy = "search", delta = 0 }]\n', "strength[1].delta"),
        ('strength = ["basic", { strategy = "search", delta = "50" }]\n', "strength[1].delta"),
        # an effect for the sequential test without a [decision] table to test it in
        ('strength = ["basic", { strategy = "search", delta = 50 }]\n', "strength[1].delta"),
        ("blocks = 0\n", "blocks"),
        ('blocks = "2"\n', "blocks"),
        ("blocks = 2.5\n", "blocks"),
        ("blocks = 99\n", "blocks"),
    ],
)
def test_a_wrong_strength_or_blocks_is_one_line_naming_the_key(tmp_path, top, key):
    p = _write(tmp_path, top)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: {key}: "), msg


def test_a_strength_the_preset_cannot_play_is_named(tmp_path, monkeypatch):
    _refuse_search(monkeypatch)
    p = _write(tmp_path, 'preset = "buraco"\nstrength = ["basic", "search"]\n', "[[variants]]\nstrategy = \"basic:clean_patience=2\"\n")
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: strength[1]: "), e.value
    assert "cannot play buraco (a stand-in)" in str(e.value)


def test_strength_needs_a_tip_and_the_duplicate_design(tmp_path):
    p = _write(tmp_path, 'strength = ["basic"]\n[[variants]]\nnull = true\n', "")
    with pytest.raises(SpecError, match=r"variants\[0\]\.null"):
        load_spec(p)
    p = _write(tmp_path, 'design = "fixed-opponent"\nopponent = "random"\nstrength = ["basic"]\n')
    with pytest.raises(SpecError, match=r": strength: .*duplicate"):
        load_spec(p)


def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path, capsys):
    p = _write(tmp_path, 'strength = ["basic", "grandmaster"]\n')
    status, out, err = call(["experiment", str(p), "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "strength[1]" in line and "grandmaster" in line
    assert not (tmp_path / "out").exists()


def test_each_strength_plays_the_tip_against_itself_without_it(tmp_path):
    from tranca_sim.lab.experiments.strengths import pairs_of

    p = _write(tmp_path, 'strength = ["basic", "tuned", "search:worlds=2"]\nblocks = 2\n')
    spec = load_spec(p)
    assert spec["blocks"] == 2
    v = spec["variants"][0]
    assert v["tip"] == {"black3_lock": 1.0} and v["without"] == {"black3_lock": 0.0}
    (b_on, b_off), (t_on, t_off), (s_on, s_off) = [pairs_of(spec, s)[0][1:] for s in spec["strength"]]
    from tranca_sim.strategies import basic, resolve

    i = [q[0] for q in basic.PARAMS].index("black3_lock")
    # basic: the variant against the baseline
    assert resolve(b_on).param_dict["black3_lock"] == 1 and resolve(b_off).text == resolve("basic").text
    # tuned: tuned's own values but the tip's parameter, on and off
    on, off = resolve(t_on, preset="tranca").param_dict, resolve(t_off, preset="tranca").param_dict
    tuned = resolve("tuned", preset="tranca").param_dict
    assert on["black3_lock"] == 1 and off["black3_lock"] == 0
    assert {k: x for k, x in on.items() if k != "black3_lock"} == {k: x for k, x in tuned.items() if k != "black3_lock"}
    assert {k: x for k, x in off.items() if k != "black3_lock"} == {k: x for k, x in tuned.items() if k != "black3_lock"}
    # search: the tip's parameter index, with its value with the tip and without, swapped for the other
    son, soff = resolve(s_on).param_dict, resolve(s_off).param_dict
    assert (son["tip"], son["tip_value"], son["tip_without"]) == (i, 1, 0)
    assert (soff["tip"], soff["tip_value"], soff["tip_without"]) == (i, 0, 1)
    assert son["worlds"] == soff["worlds"] == 2 and son["tip2"] == -1


def test_a_search_tip_of_three_parameters_is_refused_naming_the_strength(tmp_path):
    p = _write(
        tmp_path,
        'strength = ["basic", "search"]\n',
        '[[variants]]\nstrategy = "basic:morto_stock=20,morto_melds=2,black3_lock=1"\n',
    )
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: strength[1]: "), e.value


def test_deals_caps_every_strengths_budget(tmp_path):
    p = _write(tmp_path, 'strength = ["basic", { strategy = "tuned", budget = 400, batch = 100 }]\n')
    spec = load_spec(p, deals_cap=40)
    assert [(s["budget"], s["batch"]) for s in spec["strength"]] == [(8, 4), (40, 40)]


def test_a_strength_names_its_own_effect_for_the_decision(tmp_path):
    top = 'strength = ["basic", { strategy = "search", delta = 50 }]\n[decision]\ndelta = 10\ndelta_outcome = 0.02\n'
    spec = load_spec(_write(tmp_path, top))
    assert [s["delta"] for s in spec["strength"]] == [10.0, 50.0]
