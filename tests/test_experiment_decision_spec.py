"""A wrong [decision] (delta, delta_outcome, alpha, beta) or null variant in an experiment file is
one clear line naming the key; the command line exits 2 with it."""

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


def _write(tmp_path, decision: str, variants: str = VARIANT):
    p = tmp_path / "e.toml"
    p.write_text(HEAD + decision + variants, encoding="utf-8")
    return p


@pytest.mark.parametrize(
    ("decision", "key"),
    [
        ("[decision]\ndelta_outcome = 0.02\n", "decision.delta"),
        ("[decision]\ndelta = 10\n", "decision.delta_outcome"),
        ("[decision]\ndelta = -5\ndelta_outcome = 0.02\n", "decision.delta"),
        ("[decision]\ndelta = 0\ndelta_outcome = 0.02\n", "decision.delta"),
        ('[decision]\ndelta = "ten"\ndelta_outcome = 0.02\n', "decision.delta"),
        ("[decision]\ndelta = true\ndelta_outcome = 0.02\n", "decision.delta"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.6\n", "decision.delta_outcome"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nalpha = 0.7\n", "decision.alpha"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nalpha = 0\n", "decision.alpha"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nbeta = 1.5\n", "decision.beta"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nbeta = nan\n", "decision.beta"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\ngamma = 1\n", "decision.gamma"),
        ("decision = 3\n", "decision"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nmin_decks = -1\n", "decision.min_decks"),
        ("[decision]\ndelta = 10\ndelta_outcome = 0.02\nmin_decks = 2.5\n", "decision.min_decks"),
        ('[decision]\ndelta = 10\ndelta_outcome = 0.02\nmin_decks = "200"\n', "decision.min_decks"),
    ],
)
def test_a_wrong_decision_key_is_one_line_naming_it(tmp_path, decision, key):
    p = _write(tmp_path, decision)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    msg = str(e.value)
    assert "\n" not in msg
    assert msg.startswith(f"{p}: {key}: "), msg


def test_the_command_line_says_it_in_one_line_and_exits_2(tmp_path, capsys):
    p = _write(tmp_path, "[decision]\ndelta = -5\ndelta_outcome = 0.02\n")
    status, out, err = call(["experiment", str(p), "--out", str(tmp_path / "out")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "decision.delta" in line
    assert not (tmp_path / "out").exists()


def test_decision_defaults_and_a_sequential_rule(tmp_path):
    spec = load_spec(_write(tmp_path, "[decision]\ndelta = 10\ndelta_outcome = 0.02\n"))
    d = spec["decision"]
    assert (d["delta"], d["delta_outcome"], d["alpha"], d["beta"]) == (10.0, 0.02, 0.05, 0.05)
    assert spec["stopping"]["sequential"] is True  # batch 4 < budget 8: looks between batches


def test_a_null_variant_is_the_baseline(tmp_path):
    spec = load_spec(_write(tmp_path, "", "[[variants]]\nnull = true\n"))
    v = spec["variants"][0]
    assert v["null"] is True and v["strategy"] == spec["baseline"]


@pytest.mark.parametrize(
    ("variant", "key"),
    [
        ('[[variants]]\nnull = true\nstrategy = "basic:black3_lock=1"\n', "variants[0].null"),
        ('[[variants]]\nnull = "yes"\n', "variants[0].null"),
    ],
)
def test_a_wrong_null_variant_is_one_line(tmp_path, variant, key):
    p = _write(tmp_path, "", variant)
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: {key}: ") and "\n" not in str(e.value)
