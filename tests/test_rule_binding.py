"""A rule option that cannot bind is refused in one line, and a variant that cannot differ from
the baseline is not played (issue 21, item 8).

Two kinds of rule option change nothing (tranca_sim/rule_binding.py): the match rules in a run of
single deals (docs/rules.md 3.29, E25: the minimum first meld applies from a match score, and a
run of deals starts every deal at 0; the match target and the match safety net end matches, and a
run of deals plays none), and an option another rule keeps from acting (``red3_value`` where 3s are
plain cards, 004 Card values).  The second kind is checked against the measured list of
tests/test_rule_switches.py (``dead``: flipped, no deal changes).
"""

from __future__ import annotations

import contextlib
import warnings

import pytest
from cli_call import call, one_error_line
from test_rule_switches import MOVES, dead

from tranca_sim.cli import _check_simulate_args
from tranca_sim.cli_parser import build_parser
from tranca_sim.lab.experiments.spec import IdleVariantWarning, SpecError, load_spec
from tranca_sim.rule_binding import RULE_GATES, unbound_options, unbound_reason
from tranca_sim.rules import PRESETS, RulesError

MATCH_RULES = ("first_meld_min=75", "first_meld_from=500", "match_target=1500", "max_match_deals=50")


@pytest.mark.parametrize("rule", MATCH_RULES)
def test_a_match_rule_in_a_run_of_deals_is_refused(rule, tmp_path, capsys):
    status, _, err = call(["simulate", "--deals", "10", "--rule", rule, "--out", str(tmp_path / "r.parquet")], capsys)
    line = one_error_line(err)
    assert status == 2 and f"--rule {rule}" in line and "--matches" in line
    assert not list(tmp_path.iterdir())


def test_a_match_rule_in_a_dataset_of_deals_is_refused(tmp_path, capsys):
    status, _, err = call(["simulate", "--deals", "10", "--rule", "first_meld_min=75",
                           "--out", str(tmp_path / "d") + "/"], capsys)  # fmt: skip
    assert status == 2 and "--rule first_meld_min=75" in one_error_line(err)


def test_match_rules_are_taken_in_a_match_run(tmp_path):
    out = str(tmp_path / "m.parquet")
    a = build_parser().parse_args(
        ["simulate", "--matches", "2", "--rule", "first_meld_min=75", "--rule", "match_target=1500",
         "--rule", "first_meld_from=500", "--rule", "max_match_deals=50", "--out", out]
    )  # fmt: skip
    with contextlib.ExitStack() as a.locks:
        _check_simulate_args(a)  # no SystemExit


def test_an_option_another_rule_keeps_idle_is_refused(tmp_path, capsys):
    # buraco: 3s are plain cards (004 Card values), so no red 3 is ever scored
    status, _, err = call(["simulate", "--preset", "buraco", "--deals", "10", "--rule", "red3_value=50",
                           "--out", str(tmp_path / "r.parquet")], capsys)  # fmt: skip
    line = one_error_line(err)
    assert status == 2 and "--rule red3_value=50" in line and "threes_special" in line


def test_an_option_made_idle_by_another_change_in_the_same_command_is_refused(tmp_path, capsys):
    status, _, err = call(["simulate", "--deals", "10", "--rule", "em_cima=false", "--rule", "em_cima_bonus=300",
                           "--out", str(tmp_path / "r.parquet")], capsys)  # fmt: skip
    assert status == 2 and "--rule em_cima_bonus=300" in one_error_line(err)


def test_restating_the_presets_own_value_is_not_refused():
    assert unbound_options(PRESETS["buraco"], {"red3_value": 100, "first_meld_min": 0}, "deals") == []


def test_tune_refuses_a_match_rule(tmp_path, capsys):
    status, _, err = call(["tune", "basic", "--budget", "4", "--rule", "first_meld_min=75", "--out", str(tmp_path / "t")], capsys)
    assert status == 2 and "--rule first_meld_min=75" in one_error_line(err)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_rule_gates_agree_with_the_measured_switches(preset):
    """Every option a rule gate calls idle is one tests/test_rule_switches.py measures to change no
    deal when flipped under that preset, and the other way round."""
    rules = PRESETS[preset]
    for option in sorted(set(RULE_GATES) - {"first_meld_from"}):  # first_meld_from: a match rule
        value = getattr(rules, option)
        move = MOVES.get(option, not value if isinstance(value, bool) else None)
        move = move.get(value) if isinstance(move, dict) else move
        try:
            changed = rules.replace(**{option: move})
        except RulesError:
            continue
        assert (unbound_reason(option, changed, "matches") is not None) == (dead(rules, option) is not None), option


def _toml(tmp_path, body: str):
    p = tmp_path / "e.toml"
    p.write_text('title = "t"\nquestion = "q"\nbaseline = "basic"\nbatch = 4\nbudget = 8\n' + body)
    return p


def test_an_experiment_refuses_a_match_rule(tmp_path):
    p = _toml(tmp_path, '[rules]\nfirst_meld_min = 75\n[[variants]]\nstrategy = "basic:go_out=0"\n')
    with pytest.raises(SpecError, match=r"rules\.first_meld_min: it acts only in matches"):
        load_spec(p)


def test_an_experiment_takes_a_match_target(tmp_path):
    """An experiment's match-win chances resample its deals into matches to the target."""
    p = _toml(tmp_path, '[rules]\nmatch_target = 1500\n[[variants]]\nstrategy = "basic:go_out=0"\n')
    assert load_spec(p)["rule_options"] == {"match_target": 1500}


def test_variants_that_play_as_the_baseline_or_twice_are_not_played(tmp_path):
    p = _toml(
        tmp_path,
        '[[variants]]\nlabel = "same"\nstrategy = "basic"\n'
        '[[variants]]\nlabel = "no early"\nstrategy = "basic:go_out=0"\n'
        '[[variants]]\nlabel = "again"\nstrategy = "basic"\nparams = { go_out = 0 }\n'
        '[sweep]\nstrategy = "basic"\nparam = "morto_stock"\ngrid = [108, 0]\n',
    )
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        spec = load_spec(p)
    assert [v["label"] for v in spec["variants"]] == ["no early", "morto_stock=0"]
    said = [str(x.message) for x in w if issubclass(x.category, IdleVariantWarning)]
    assert len(said) == 3 and all("\n" not in s for s in said)
    assert "(same)" in said[0] and "(again)" in said[1] and "morto_stock=108" in said[2]
    assert spec["sweep"]["grid"] == [108.0, 0.0]  # the chart still marks the baseline's own value


def test_an_experiment_of_idle_variants_only_is_refused(tmp_path):
    p = _toml(tmp_path, '[[variants]]\nstrategy = "basic"\n')
    with pytest.warns(IdleVariantWarning), pytest.raises(SpecError, match="nothing to compare"):
        load_spec(p)


def test_the_cli_says_an_idle_variant_in_one_line(tmp_path, capsys):
    p = _toml(tmp_path, '[[variants]]\nlabel = "same"\nstrategy = "basic"\n')
    status, _, err = call(["experiment", str(p), "--out", str(tmp_path / "o")], capsys)
    lines = [x for x in err.splitlines() if x.strip()]
    assert status == 2 and "Traceback" not in err
    assert any("(same): plays exactly as the baseline" in x for x in lines)
