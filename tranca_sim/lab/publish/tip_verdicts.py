"""Each tip's measured verdict for ``tranca-sim strategies``: read from the committed tip table at
three strengths (reports/tranca-tips-strengths/experiment.json, issue 22), never assumed.

For a tip and a strength the line says what the table publishes: the confirmed decision with its
figure and interval, or why nothing is published (the tip's manipulation check fails or saw no
change at that strength, or the blocks left it undecided or disagree).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

#: the committed report the verdicts come from, relative to the project's root
REPORT = Path("reports") / "tranca-tips-strengths"


def _root() -> Path:
    import tranca_sim

    return Path(tranca_sim.__file__).resolve().parents[1]


def load_rows(report: Path | None = None) -> dict | None:
    """``{tip label: [row per strength]}`` of :func:`.strengths_report.published_rows`, or None
    when the report is not there (an installation without the project's reports/)."""
    from .strengths_report import published_rows

    path = (report or _root() / REPORT) / "experiment.json"
    if not path.is_file():
        return None
    rows: dict = {}
    for r in published_rows(json.loads(path.read_text(encoding="utf-8"))):
        rows.setdefault(r["label"], []).append(r)
    return rows


def _f(x: float) -> str:
    return f"{x:+.1f}" if math.isfinite(x) else "n/a"


def row_text(r: dict) -> str:
    """One strength's verdict in a few words."""
    if r["published"]:
        return f"{r['strength']} {r['verdict']} {_f(r['mean'])} [{_f(r['lo'])}, {_f(r['hi'])}]"
    if r["check"] in ("FAILS", "no change"):
        return f"{r['strength']} not valued (check {r['check']})"
    return f"{r['strength']} not confirmed ({r['why']})"


def verdict_line(label: str, rows: dict | None) -> str:
    """The ``measured:`` line of a tip (``label`` as the report names it, e.g. ``morto_rush=1``)."""
    if rows is None:
        return f"measured: see {REPORT.as_posix()}/report.md (not in this installation)"
    if label not in rows:
        return f"measured: not in {REPORT.as_posix()} (play experiments/tranca-tips-strengths.toml)"
    return "measured in tranca, points a deal, 2 blocks: " + "; ".join(row_text(r) for r in rows[label])


def tip_lines() -> list[str]:
    """``tranca-sim strategies``: every tip of ``basic`` with its seed label, its manipulation
    check, the check's verdict against ``basic`` in each checked preset (tests/test_tip_checks.py
    plays them) and the tip's measured verdict at each strength (:func:`verdict_line`)."""
    from tranca_sim.rules import PRESETS
    from tranca_sim.strategies import basic
    from tranca_sim.strategies.inert import inert_reason

    from ..statistics.checks import STATISTICS, Check, expected_text

    measured = load_rows()
    out = [
        "    tips of the rule guides (strategies/basic.py TIPS; checks: CHECKS, tranca_sim/lab/statistics/checks.py):",
        "    (the guides: 000 'How to Play Tranca' (English), 002 'Reglas del Juego Tranca' (Spanish), 003 Tranca "
        "conventions of Sao Paulo (Portuguese), 004 Buraco rules (English); docs/rules.md cites them)",
    ]
    for param, on, _off, seed, line in basic.TIPS:
        out.append(f"      {param}={on}  [{seed}] {line}")
        for c in (Check(*x) for x in basic.CHECKS[param]):
            out.append(f"        check: {STATISTICS[c.statistic][0]}: {expected_text(c)}")
        verdicts = []
        for preset in basic.CHECKED_PRESETS:
            if inert_reason("basic", param, PRESETS[preset]) is not None:
                verdicts.append(f"{preset}: cannot act (rule)")
            elif (preset, param) in basic.NO_CHANGE:
                verdicts.append(f"{preset}: no change (not the tip's value)")
            else:
                verdicts.append(f"{preset}: passes")
        out.append("        check against basic (tests/test_tip_checks.py): " + "; ".join(verdicts))
        out.append("        " + verdict_line(f"{param}={on}", measured))
    return out
