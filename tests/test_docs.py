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
