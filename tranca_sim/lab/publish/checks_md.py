"""``report.md``'s section on the manipulation checks (:mod:`tranca_sim.lab.statistics.checks`): does each tip
do what its seed text says?"""

from __future__ import annotations

import polars as pl


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def check_section(checks: pl.DataFrame | None) -> list[str]:
    """``report.md``'s manipulation checks: each tip variant's behaviour that its seed text
    predicts, variant against baseline in the same deals, with the interval and the verdict."""
    if checks is None or checks.height == 0:
        return []
    failed = sorted(set(checks.filter(pl.col("verdict") != "passes")["variant"].to_list()))
    inert = sorted(set(checks.filter(pl.col("verdict") == "no change")["variant"].to_list()))
    lines = [
        "## Does each tip do what its text says?",
        "",
        "Each tip predicts a change of play (strategies/basic.py `CHECKS`): the statistic, variant minus "
        "baseline in the same deals and seats, with its 95% interval (normal, delta method over the units, "
        "at the deals played). A tip passes when every interval lies on the side its text predicts. "
        + (
            f"**Check fails or sees no change: {', '.join(failed)}** — its row above is not that tip's value: "
            "it measures something other than the tip's text"
            + (f" ({', '.join(inert)}: the variant changed no play the check sees)." if inert else ".")
            if failed
            else "Every checked tip passes."
        ),
        "",
        "| variant | tip's words | statistic | expected | variant | baseline | difference [95% interval] | verdict |",
        "|---|---|---|---|---:|---:|---|:---:|",
    ]
    for r in checks.iter_rows(named=True):
        verdict = r["verdict"] if r["verdict"] == "passes" else f"**{r['verdict']}**"
        lines.append(
            f"| {_cell(r['variant'])} | {_cell(r['text'])} | {_cell(r['description'])} | {r['expected']} "
            f"| {r['variant_value']:.3g} | {r['baseline_value']:.3g} "
            f"| {r['diff']:+.3g} [{r['lo']:+.3g}, {r['hi']:+.3g}] | {verdict} |"
        )
    return lines + [""]
