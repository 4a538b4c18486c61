"""Every tip of ``basic`` does what its seed sentence says (issue 22, item 1): its manipulation
checks (strategies/basic.py ``CHECKS``, computed by tranca_sim/lab/statistics/checks.py) pass on a few
hundred duplicate decks, in every preset where the tip can act (Tranca's tips in ``tranca``,
Buraco's in ``buraco``).

The expected directions are the seed texts' (000 "Tips and Strategy", 004 "Tips to play
better"), written in ``CHECKS``, not read back from a run: the early morto is taken earlier and
at least as often, the black-3 lock locks more piles while a card would feed an opposing meld,
the wild in reserve is held longer, and so on.
"""

import re

import numpy as np
import pytest

from tranca_sim.engine.kernel import simulate_chunk
from tranca_sim.lab.statistics.checks import columns_needed, duplicate_pairs, evaluate
from tranca_sim.rules import PRESETS
from tranca_sim.strategies import basic
from tranca_sim.strategies.inert import inert_reason

DECKS = 400
SEED = 20260722


def _tips(preset):
    rules = PRESETS[preset]
    out = []
    for param, on, _off, seed, _line in basic.TIPS:
        if inert_reason("basic", param, rules) is None:
            out.append((preset, f"basic:{param}={on}"))
    return out


CASES = [case for preset in basic.CHECKED_PRESETS for case in _tips(preset)]




def _run(preset, strategy, decks=DECKS):
    rules = PRESETS[preset]
    cols = columns_needed(strategy) + ["deal_index", "side"]

    def play(a, b):
        out = simulate_chunk(rules, (a, b), SEED, 0, decks)
        return {c: np.asarray(out[c]) for c in cols}

    pairs = duplicate_pairs(play(strategy, "basic"), play("basic", strategy))
    return evaluate(strategy, strategy, pairs)


def test_every_tip_declares_a_check():
    tips = {t[0] for t in basic.TIPS}
    assert tips <= set(basic.CHECKS), tips - set(basic.CHECKS)


@pytest.mark.parametrize("preset, strategy", CASES, ids=[f"{p}-{s}" for p, s in CASES])
def test_tip_does_what_its_text_says(preset, strategy):
    rows = _run(preset, strategy)
    assert rows, "no check declared"
    if (preset, strategy.split(":")[1].split("=")[0]) in basic.NO_CHANGE:
        assert {r["verdict"] for r in rows} == {"no change"}, rows
        return
    failed = [(r["statistic"], r["diff"], r["lo"], r["hi"]) for r in rows if r["verdict"] != "passes"]
    assert not failed, failed


def test_the_other_readings_of_the_early_morto_fail_its_check():
    # every usable pile while the morto waits: more cards in hand, the morto later and less often
    rows = {r["statistic"]: r for r in _run("tranca", "basic:morto_rush=2")}
    assert rows["morto_time"]["verdict"] == "FAILS" and rows["morto_time"]["lo"] > 0
    assert rows["morto_taken"]["verdict"] == "FAILS" and rows["morto_taken"]["hi"] < 0


def test_a_check_fails_for_a_variant_that_does_the_opposite():
    # the late morto measured by the early morto's check: the check must be able to fail
    rows = _run("tranca", "basic:morto_stock=20")
    assert rows[0]["verdict"] == "passes" and rows[0]["diff"] > 0
    from tranca_sim.lab.statistics.checks import Check, _verdict

    early = Check("morto_time", "<", "early")
    assert _verdict(early, rows[0]["lo"], rows[0]["hi"]) == "FAILS"


def test_strategies_command_lists_every_tip_with_its_seed_check_and_verdict(capsys):
    from cli_call import call

    code, out, _err = call(["strategies"], capsys)
    assert code == 0
    for param, on, _off, seed, _line in basic.TIPS:
        at = out.index(f"      {param}={on}  [{seed}]")
        nxt = re.search(r"\n      \S", out[at + 1 :])  # the next tip's line
        block = out[at : at + 1 + nxt.start()] if nxt else out[at:]
        assert "check:" in block and "(tests/test_tip_checks.py): tranca:" in block, block
        assert "measured in tranca, points a deal, 2 blocks: basic " in block, block
    assert "partner=1" in out and "tranca: no change" in out


def test_the_report_flags_a_tip_that_changes_no_play(tmp_path):
    # reports/example (committed with its run files): partner=1 against the neutral baseline
    from pathlib import Path

    from tranca_sim.lab.publish.reports import load_report_data, write_report

    root = Path(__file__).resolve().parents[1] / "reports" / "example"
    data = load_report_data(root)
    verdict = dict(zip(data.comparison["variant"].to_list(), data.comparison["check"].to_list()))
    assert verdict["partner=1"] == "no change"
    assert verdict["wild_reserve=1"] == "passes" and verdict["morto_stock=15"] == "passes"
    md = (root / "report.md").read_text()
    assert "## Does each tip do what its text says?" in md
    row = next(line for line in md.splitlines() if line.startswith("| partner=1 |"))
    assert "not this tip's value" in row


def test_the_tip_chart_greys_out_a_failed_tip():
    import polars as pl

    from tranca_sim.lab.publish import charts

    comp = pl.DataFrame(
        {
            "variant": ["a=1", "b=1"],
            "mean": [10.0, -5.0],
            "lo": [5.0, -9.0],
            "hi": [15.0, -1.0],
            "holm_significant": [True, True],
            "n_units": [100, 100],
            "unit": ["deck", "deck"],
            "check": ["passes", "FAILS"],
        }
    )
    info = charts.ChartInfo("foot", "basic (baseline)", "", "duplicate", 4, 0.05)
    fig = charts.forest_plot(comp, info)
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert "b=1 (check fails)" in labels and "a=1" in labels
    legend = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("fails its check" in t for t in legend)
    assert any("1 of the 2 drawn" in t for t in legend)  # the failed tip is not counted as significant
