"""The reference documents stay in step with the code."""

import dataclasses
from pathlib import Path

from tranca_sim import schema
from tranca_sim.rules import PRESETS, Rules

ROOT = Path(__file__).resolve().parent.parent


def test_schema_doc_is_generated_from_the_code():
    assert schema.markdown() in (ROOT / "docs" / "schema.md").read_text()


def test_every_rule_option_and_preset_is_in_the_rules_reference():
    text = (ROOT / "docs" / "rules.md").read_text()
    for f in dataclasses.fields(Rules):
        assert f"`{f.name}`" in text, f.name
    for name in PRESETS:
        assert f"`{name}`" in text, name


def test_accepted_values_in_the_rules_reference():
    """docs/rules.md section 2 lists the ranges Rules.validate accepts (issue 6, item 5)."""
    from tranca_sim.rules import _INT_RANGES

    text = " ".join((ROOT / "docs" / "rules.md").read_text().split())
    for key, lo, hi in _INT_RANGES:
        assert f"`{key}` {lo}..{hi}" in text, key
    assert "`stock_out` 0 or 1" in text
