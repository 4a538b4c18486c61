"""Experiment files: a good file resolves as written, every bad field gives one clear error line."""

from __future__ import annotations

import math
import textwrap

import pytest
from cli_call import call, one_error_line
from experiment_files import TWO_TIPS_ONE_BATCH as TINY
from experiment_files import two_tips
from experiment_files import write_spec as _write

from tranca_sim.cli import main
from tranca_sim.lab.experiments.spec import SpecError, load_spec

GOOD = """
title = "t"
question = "q?"
baseline = "basic"
seed = 3
batch = 400
budget = 4000
[stopping]
half_width = 10
[[variants]]
label = "no going out"
strategy = "basic:go_out=0"
[[variants]]
strategy = "basic"
params = { black3_lock = 1 }
"""


def write(tmp_path, text, name="x.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_good_file_resolves(tmp_path):
    spec = load_spec(write(tmp_path, GOOD))
    assert spec["name"] == "x" and spec["design"] == "duplicate" and spec["preset"] == "tranca"
    assert spec["batch"] == 400 and spec["budget"] == 4000 and spec["seed"] == 3
    assert [v["label"] for v in spec["variants"]] == ["no going out", "basic:black3_lock=1"]
    assert "black3_lock=1" in spec["variants"][1]["strategy"]
    assert spec["stopping"]["sequential"] and spec["stopping"]["alpha"] == 0.05
    assert spec["stopping"]["tune"] == pytest.approx(math.sqrt(400 * 4000))
    assert spec["rules"]["match_target"] == 3000


@pytest.mark.parametrize("value", ["1", "true", '"yes"', '"1"'])
def test_rules_table_takes_a_switch_as_the_command_line_does(tmp_path, value):
    # the CLI takes --rule lock_by_wild=1; a TOML integer 1 (or true, or the strings) means the same
    text = GOOD.replace('baseline = "basic"', f'baseline = "basic"\nrules = {{ lock_by_wild = {value} }}')
    assert load_spec(write(tmp_path, text))["rules"]["lock_by_wild"] is True


def test_rules_table_refuses_a_switch_value_other_than_0_or_1(tmp_path):
    text = GOOD.replace('baseline = "basic"', 'baseline = "basic"\nrules = { lock_by_wild = 2 }')
    with pytest.raises(SpecError, match="rules: .*lock_by_wild must be true or false, got 2"):
        load_spec(write(tmp_path, text))


def test_deals_cap_lowers_budget_and_batch(tmp_path):
    with pytest.raises(SpecError, match="--deals must be even"):  # decks are played twice: no silent rounding
        load_spec(write(tmp_path, GOOD), deals_cap=301)
    spec = load_spec(write(tmp_path, GOOD), deals_cap=300)
    assert spec["budget"] == 300 and spec["batch"] == 300
    assert not spec["stopping"]["sequential"]  # one look: a fixed number of deals


def test_sweep_makes_one_variant_per_grid_value(tmp_path):
    text = (
        GOOD.split("[[variants]]")[0]
        + """
[sweep]
strategy = "basic"
param = "take_pile_min"
grid = [1, 2, 6]
"""
    )
    spec = load_spec(write(tmp_path, text))
    assert [(v["label"], v["param"], v["value"]) for v in spec["variants"]] == [
        ("take_pile_min=1", "take_pile_min", 1.0),
        ("take_pile_min=2", "take_pile_min", 2.0),
        ("take_pile_min=6", "take_pile_min", 6.0),
    ]
    assert spec["sweep"]["grid"] == [1.0, 2.0, 6.0]


BAD = [
    # every missing required field in one message (it named them one at a time, one per try)
    ("title = 'x'", "3 required fields missing: question (a text); baseline (a strategy"),
    (
        "[[variants]]\nlabel = 'x'\n[sweep]\nparam = 'p'",
        (
            "6 required fields missing: title (a text); question (a text); baseline (a strategy, "
            'e.g. "basic"); variants[0].strategy (the variant\'s strategy); sweep.strategy (a strategy); '
            "sweep.grid (a list of values)"
        ),
    ),
    ("title = 'x'\nbaseline = 'basic'\n[[variants]]\nstrategy = 'basic'", "question: missing (a text"),
    (
        GOOD.replace('strategy = "basic:go_out=0"', 'strategy = "foo"'),
        "variants[0].strategy: unknown strategy 'foo'",
    ),
    (
        GOOD.replace("black3_lock = 1", "nope = 0"),
        "variants[1].strategy: strategy 'basic' has no parameter 'nope'",
    ),
    (GOOD.replace("black3_lock = 1", "black3_lock = 7"), "variants[1].strategy: parameter 'black3_lock'"),
    (GOOD.replace("batch = 400", "batch = 401"), "batch: must be even in the duplicate design"),
    (GOOD.replace("seed = 3", "seed = -1"), "seed: must be between 0 and"),
    (GOOD.replace("seed = 3", "seed = 'one'"), "seed: must be a whole number"),
    (GOOD.replace("half_width = 10", "half_width = -1"), "stopping.half_width: must be greater than 0"),
    (
        GOOD.replace("half_width = 10", "alpha = 0.7"),
        "stopping.alpha: must be greater than 0 and less than 0.5",
    ),
    (GOOD.replace("half_width = 10", "halfwidth = 10"), "stopping.halfwidth: unknown field"),
    (
        GOOD.replace('baseline = "basic"', 'baseline = "basic"\ndesign = "triplicate"'),
        "design: must be one of",
    ),
    (
        GOOD.replace('baseline = "basic"', 'baseline = "basic"\ndesign = "fixed-opponent"'),
        "opponent: missing",
    ),
    (
        GOOD.replace('baseline = "basic"', 'baseline = "basic"\nopponent = "random"'),
        "opponent: only the fixed",
    ),
    (GOOD.replace('baseline = "basic"', 'baseline = "basic"\npreset = "bridge"'), "preset: unknown preset"),
    (
        GOOD.replace('baseline = "basic"', 'baseline = "basic"\nrules = { max_wildz = 1 }'),
        "rules: unknown rule",
    ),
    (
        GOOD.replace('label = "no going out"', 'label = "basic:black3_lock=1"'),
        "variants[1].label: 'basic:black3_lock=1' is used twice",
    ),
    (GOOD.split("[[variants]]")[0], "variants: no variant to compare"),
    (
        GOOD + "\n[sweep]\nstrategy = 'basic'\nparam = 'go_out'\ngrid = [1]\n",
        "sweep.grid: must be a list of at least 2",
    ),
    (
        GOOD + "\n[sweep]\nstrategy = 'basic'\nparam = 'go_out'\ngrid = [0, 5]\n",
        "sweep.grid[1]: parameter 'go_out'",
    ),
    (GOOD + "\ncolour = 'red'\n", "colour: unknown field"),
    ("title = 'x\n", "not valid TOML"),
]


@pytest.mark.parametrize(("text", "message"), BAD)
def test_bad_file_one_clear_error(tmp_path, text, message):
    p = write(tmp_path, text)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: ")
    assert message in str(e.value)
    assert "\n" not in str(e.value)


def test_cli_bad_file_exits_2_with_one_line(tmp_path, capsys):
    p = write(tmp_path, GOOD.replace('strategy = "basic:go_out=0"', 'strategy = "foo"'))
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(p), "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(f"tranca-sim: error: {p}: variants[0].strategy: unknown strategy 'foo'")
    assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_strategy_that_cannot_play_the_preset_is_named_by_its_field(tmp_path, capsys, monkeypatch):
    """A fresh user's find: search in a buraco experiment was refused only after the progress
    bar had started, without naming the variant; the file's check names it, nothing runs.  The
    search player now plays every preset: a stand-in check refuses it."""
    from tranca_sim import strategies

    def refuse(specs, rules):
        if any(s.name == "search" for s in specs):
            raise strategies.StrategyError(f"strategy 'search' cannot play {rules.name} (a stand-in)")

    monkeypatch.setattr(strategies, "check_rules", refuse)
    text = GOOD.replace('baseline = "basic"', 'baseline = "basic"\npreset = "buraco"')
    p = write(tmp_path, text.replace('strategy = "basic:go_out=0"', 'strategy = "search:worlds=2"'))
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(p), "--out", str(tmp_path / "out"), "--no-progress"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(
        f"tranca-sim: error: {p}: variants[0].strategy: strategy 'search' cannot play buraco (a stand-in)"
    )
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_cli_missing_file_and_existing_output(tmp_path, capsys):
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(tmp_path / "none.toml"), "--out", str(tmp_path / "out")])
    assert e.value.code == 2
    assert "cannot read the experiment file" in capsys.readouterr().err
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(write(tmp_path, GOOD)), "--out", str(out)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "not an earlier experiment output" in err and "keep.txt" in err
    assert "--force" not in err  # it would be refused for a directory that is not ours
    assert (out / "keep.txt").exists()


def test_short_strategy_drops_defaults():
    from tranca_sim.lab.publish.table_text import short_strategy

    assert short_strategy("basic:go_out=0,morto_stock=108") == "basic:go_out=0"  # 108 is the default
    assert short_strategy("basic") == "basic" and short_strategy("random") == "random"
    assert short_strategy("no-such") == "no-such"


def test_a_name_taken_from_the_file_name_says_so(tmp_path, capsys):
    """'q 😀.toml' failed with "name: use letters..., got 'q 😀'", though the file has no name."""
    toml = tmp_path / "q 😀.toml"
    toml.write_text(two_tips("tranca"), encoding="utf-8")
    status, _, err = call(["experiment", str(toml), "--out", str(tmp_path / "o"), "--no-progress"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "comes from the file name, 'q 😀'" in line and 'name = "..."' in line
    assert not (tmp_path / "o").exists()


def test_odd_deals_refused_in_the_duplicate_design(tmp_path):
    p = _write(tmp_path)
    with pytest.raises(SpecError, match=r"--deals must be even in the duplicate design.*got 5; give 4 or 6"):
        load_spec(p, deals_cap=5)
    assert load_spec(p, deals_cap=6)["budget"] == 6
    fixed = _write(tmp_path, TINY.replace('baseline = "basic"', 'baseline = "basic"\ndesign = "fixed-opponent"'
                                          '\nopponent = "random"'), "fixed.toml")  # fmt: skip
    assert load_spec(fixed, deals_cap=5)["budget"] == 5  # one deal per unit: odd is fine


def test_missing_experiment_file_is_named_before_out(tmp_path, capsys):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("x")
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(tmp_path / "nonexist.toml"), "--out", str(tmp_path / "full")])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "nonexist.toml" in err and "not empty" not in err
