"""The reference documents stay in step with the code."""

import dataclasses
from pathlib import Path

from tranca_sim import schema
from tranca_sim.rules import PRESETS, Rules
from tranca_sim.schema import COLUMNS

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


def test_no_played_preset_is_called_planned_in_the_rules_reference():
    """Every preset of VARIANTS Presets is played (tranca_sim.rules.PRESETS, PLANNED_PRESETS is
    empty): the rules reference calls none of them, nor presets at large, "planned" (issue 21, 5)."""
    from tranca_sim.rules import PLANNED_PRESETS

    text = (ROOT / "docs" / "rules.md").read_text().lower()
    if not PLANNED_PRESETS:
        assert "planned" not in text


def test_red3s_of_an_indirect_morto_cite_variants_7_once_with_the_reason():
    """VARIANTS 7 (clarified) says a morto's red 3s are laid at the taker's next turn after an
    indirect pickup, from 002's "sólo podrá utilizarlo en la otra vuelta": section 3.8 cites it,
    and the reason is given in one place, E4 (issue 21, 5)."""
    text = (ROOT / "docs" / "rules.md").read_text()
    sec = text.split("### 3.8 Red 3s", 1)[1].split("###", 1)[0]
    indirect = next(b for b in sec.split("\n- ") if "indirect" in b)
    assert "VARIANTS 7" in indirect and "E4" in indirect
    e4 = next(line for line in text.splitlines() if line.startswith("| E4 |"))
    assert "VARIANTS 7 (as clarified)" in e4 and "otra vuelta" in e4
    assert text.count("VARIANTS 7 (as clarified)") == 1


def test_the_docs_say_where_the_compile_note_is_and_how_a_stuck_strategy_ends():
    """The README said 'the last line then says the engine was compiled first', but that text ends
    the rate line, which the summary table follows; and it did not say that a strategy that never
    returns can only be stopped with kill -9."""
    from pathlib import Path

    docs = Path(__file__).resolve().parents[1] / "docs"  # the README's text moved there (issue 24)
    text = " ".join((docs / "explanation" / "engine.md").read_text(encoding="utf-8").split())
    assert "the last line then says `the engine was compiled first" not in text
    assert "the rate line" in text and "which the summary table follows" in text
    text = " ".join((docs / "how-to" / "own-strategy.md").read_text(encoding="utf-8").split())
    own = text.split("Your own strategy is a file of your own", 1)[1].split("Strategy packages", 1)[0]
    assert "never returns" in own and "kill -9" in own


def test_the_readme_counts_the_run_file_columns(small_run):
    """A fresh user's find: the README said a run file has 41 columns; it has 42 (one per entry
    of schema.COLUMNS, in two-side and three-player runs alike: load_run reads COLUMNS)."""
    import re

    schema_page = (Path(__file__).resolve().parents[1] / "docs" / "schema.md").read_text()
    said = re.search(r"One row per \(deal, side\) with (\d+) columns", schema_page)
    assert said, "docs/schema.md (the README's Output schema section until issue 24) names the column count"
    from tranca_sim.io import load_run

    assert int(said.group(1)) == len(load_run(small_run).columns) == len(COLUMNS)


def test_every_command_is_in_the_command_line_reference():
    """`atlas` was missing from docs/reference/cli.md: its usage, the command table and the
    --force rules."""
    import argparse

    from tranca_sim.cli_parser import build_parser

    text = (ROOT / "docs" / "reference" / "cli.md").read_text()
    usage = text.split("```text", 1)[1].split("```", 1)[0]
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    for name, parser in sub.choices.items():
        assert f"tranca-sim {name}" in usage, name
        assert f"| `{name}` |" in text, name
    rules = text.split("`--force` replaces only", 1)[1].split("\n\n", 1)[0]  # --force's rules
    for name in ("tune", "ladder", "atlas"):
        assert any("--force" in a.option_strings for a in sub.choices[name]._actions), name
        assert f"`{name}`" in rules, name
