"""``tranca-sim strategies`` says each tip's measured verdict at each strength as the committed tip
table publishes it (tranca_sim/lab/publish/tip_verdicts.py), and that table is not stale: it holds every
tip of tranca_sim.strategies.basic.TIPS with its value."""

import json

from tranca_sim.lab.publish.tip_verdicts import REPORT, _root, load_rows, verdict_line
from tranca_sim.strategies.basic import TIPS


def _cell(block, strength, decision, mean, check="passes", lo=None, hi=None):
    return {"label": "black3_lock=1", "strength": strength, "block": block, "mean": mean, "se": 5.0,
            "decision": {"points": {"verdict": decision}}, "check": {"verdict": check},
            "lo_split": mean - 20 if lo is None else lo, "hi_split": mean + 20 if hi is None else hi}  # fmt: skip


def _report(tmp_path, cells):
    rec = {
        "strength": [{"label": s, "kind": "basic"} for s in ("basic", "tuned", "search")],
        "variants": [{"label": "black3_lock=1"}],
        "block_seeds": [{"block": 1}, {"block": 2}],
        "cells": cells,
    }
    (tmp_path / "experiment.json").write_text(json.dumps(rec), encoding="utf-8")
    return load_rows(tmp_path)


def test_each_strength_says_the_published_figure_or_why_there_is_none(tmp_path):
    rows = _report(
        tmp_path,
        [
            _cell(1, "basic", "gain", 50.0), _cell(2, "basic", "gain", 60.0),  # confirmed
            _cell(1, "tuned", "gain", 50.0, "FAILS"), _cell(2, "tuned", "gain", 60.0),  # check fails
            _cell(1, "search", "gain", 50.0), _cell(2, "search", "no decision", 20.0),  # undecided
        ],
    )  # fmt: skip
    line = verdict_line("black3_lock=1", rows)
    # equal errors: the mean of 50 and 60; the interval where [30, 70] and [40, 80] overlap
    assert "basic gain +55.0 [+40.0, +70.0]" in line
    assert "tuned not valued (check FAILS)" in line
    assert "search not confirmed (1 of 2 blocks undecided)" in line


def test_without_the_report_the_line_says_where_it_is(tmp_path):
    assert load_rows(tmp_path) is None
    assert REPORT.as_posix() in verdict_line("black3_lock=1", None)


def test_the_committed_tip_table_holds_every_tip_with_its_value():
    rows = load_rows(_root() / REPORT)
    assert rows is not None
    assert set(rows) == {f"{param}={on}" for param, on, *_ in TIPS}


def test_a_superseded_report_says_so_above_every_figure():
    from tranca_sim.lab.ladder.tip_strength_report import report_markdown

    result = json.loads((_root() / "reports/tips-vs-strength/results.json").read_text(encoding="utf-8"))
    md = report_markdown(result, "**Superseded; not for quoting.** See another report.\n\nThe reading.")
    assert md.index("**Superseded") < md.index("## Design")
    assert md.count("**Superseded") == 1 and "The reading." in md
