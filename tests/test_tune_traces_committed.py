"""The committed tuning traces (reports/tune-*) are drawn by the current chart code: the x axis names
the phases ('selection', 'confirmation' right of the search's numbered candidates; a fresh user's
find: they kept the old axis), and every number they draw is the one report.md prints
(scripts/redraw_tune_traces.py reads the chart's data back and checks it)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DIRS = sorted((ROOT / "reports").glob("tune-*"))


@pytest.mark.parametrize("d", DIRS, ids=[d.name for d in DIRS])
def test_the_committed_trace_has_the_current_x_axis(d):
    texts = re.findall(r"<!-- (.*?) -->", (d / "trace.svg").read_text(encoding="utf-8"))
    rounds = sum(t.startswith("round ") for t in texts)
    assert rounds >= 1
    assert texts.count("selection") == rounds and texts.count("confirmation") == rounds, texts
    assert "search: each candidate in the order the optimiser asked for it" in texts
    assert "candidate, in the order the optimiser asked for it (search stage)" not in texts  # the old label


def test_the_committed_traces_draw_the_numbers_of_their_reports():
    p = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "redraw_tune_traces.py"), *map(str, DIRS), "--dry-run"],
        env=dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg"),
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert p.returncode == 0, p.stderr
    assert p.stdout.count("every number as report.md and the old chart say") == len(DIRS), p.stdout
