"""``report.md``'s tip table and decision table (:func:`tip_table_markdown`,
:func:`decision_markdown`), and the number formats the report's text uses."""

from __future__ import annotations

import math
import re

import polars as pl

from ..._plural import noun


def _int(x) -> str:
    return f"{int(x):,}".replace(",", " ")


def _f(x, fmt: str = "+.1f") -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return format(x, fmt)


def _p(x) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    return "< 0.0001" if x < 1e-4 else f"{x:.4f}"


def _pct(x) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{100 * x:.1f}%"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def tip_table_markdown(comparison: pl.DataFrame) -> str:
    """The tip table as Markdown, variants sorted by effect (largest gain first); a ``tip``
    column with the experiment file's note (the tip and its seed) when the variants have one."""
    notes = "note" in comparison.columns and comparison["note"].drop_nulls().len() > 0
    design = comparison["design"][0] if comparison.height else "duplicate"
    fixed = design == "fixed-opponent"
    rot = design == "rotation"
    match_head = "match-win probability of three (fair share 33.3%)" if rot else "match-win probability"
    if fixed:  # both play only the opponent: give the baseline's own probability beside
        opp = re.search(r"vs opponent (.+)\)$", comparison["match_method"][0] or "")
        match_head = f"match-win probability vs opponent {opp.group(1) if opp else ''}: variant / baseline"
    head = (
        "| variant |"
        + (" tip |" if notes else "")
        + (" margin (points/deal) |" if rot else " mean diff (points/deal) |")
        + " 95% interval | p | p Holm | p BH | Holm-significant "
        + ("| first-place share diff (variant − baseline seat) |" if rot else "| deal-win share diff |")
        + " going out: variant / baseline | "
        + match_head
        + (" | own-score gain [95% interval]" if rot else "")
        + " | units |\n"
        + "|---|"
        + ("---|" if notes else "")
        + "---:|---|---:|---:|---:|:---:|---:|---|---|"
        + ("---|" if rot else "")
        + "---:|\n"
    )
    checked = "check" in comparison.columns and comparison["check"].drop_nulls().len() > 0
    if checked:  # the manipulation check's verdict (tranca_sim/lab/statistics/checks.py), last
        lines = head.rstrip("\n").split("\n")
        head = lines[0] + " does what its text says |\n" + lines[1] + ":---:|\n"
    rows = []
    for r in comparison.sort("mean", descending=True).iter_rows(named=True):
        mw = r.get("match_win_prob")
        match = (
            "–"
            if mw is None
            else f"{_pct(mw)} [{_pct(r.get('match_win_lo'))}, {_pct(r.get('match_win_hi'))}]"
        )
        if fixed:
            match += f" / {_pct(r.get('match_win_baseline'))}"
        interval = "n/a" if _f(r["lo"]) == "–" or _f(r["hi"]) == "–" else f"[{_f(r['lo'])}, {_f(r['hi'])}]"
        tip = f" {_cell(r.get('note') or '')} |" if notes else ""
        if r.get("check") in ("FAILS", "no change"):  # not the tip's value: said in the row itself
            why = "check fails" if r.get("check") == "FAILS" else "the tip changes no play here"
            tip = f" **{why}: not this tip's value** {_cell(r.get('note') or '')} |" if notes else tip
        check = {"passes": "passes", "FAILS": "**FAILS**", "no change": "**no change**"}.get(r.get("check") or "", "–")
        own = ""
        if rot:
            g, glo, ghi = r.get("own_gain"), r.get("own_lo"), r.get("own_hi")
            own = f" {_f(g)} [{_f(glo)}, {_f(ghi)}] |" if _f(glo) != "–" else f" {_f(g)} |"
        rows.append(
            f"| {_cell(r['variant'])} |{tip} {_f(r['mean'])} | {interval} "
            f"| {_p(r['p_value'])} | {_p(r['p_holm'])} | {_p(r.get('p_bh'))} "
            f"| {'yes' if r['holm_significant'] else 'no'} "
            f"| {_f(100 * r['win_share_diff'] if r.get('win_share_diff') is not None else None, '+.1f')} pp "
            f"(p {_p(r.get('win_p'))}) | {_pct(r.get('going_out_variant'))} / {_pct(r.get('going_out_baseline'))} "
            f"| {match} |{own} {_int(r['n_units'])} |" + (f" {check} |" if checked else "")
        )
    return head + "\n".join(rows) + "\n"


def _verdict(verdict, units, unit: str) -> str:
    if verdict is None:
        return "–"
    if verdict == "no decision":
        return f"no decision ({_int(units)} {noun(units, unit)}, budget spent)" if units else "no decision"
    return f"**{verdict}** at {_int(units)} {noun(units, unit)}"


def decision_markdown(comparison: pl.DataFrame, spec: dict) -> str:
    """The decisions and the deck outcome, one row per variant (sorted as the tip table)."""
    d = spec.get("decision") or {}
    unit = comparison["unit"][0] if comparison.height else "deck"
    rot = (comparison["design"][0] if comparison.height else "") == "rotation"
    outcome_head = (
        "seats above / equal / below the baseline's margin" if rot else "won / drawn / lost both ways round"
    ) if unit == "deck" else "better / alike / worse than the baseline"
    head = (
        f"| variant | mean diff [interval] | effect size d | decision, points (δ = {_f(d.get('delta'), 'g')}) "
        f"| {unit}s {outcome_head} | {unit} score [interval] | p Holm | "
        f"decision, outcome (δ = {_f(d.get('delta_outcome'), 'g')}) | {unit} classes, worst first |\n"
        "|---|---:|---:|---|---|---:|---:|---|---|\n"
    )
    rows = []
    for r in comparison.sort("mean", descending=True).iter_rows(named=True):
        interval = "n/a" if _f(r["lo"]) == "–" or _f(r["hi"]) == "–" else f"[{_f(r['lo'])}, {_f(r['hi'])}]"
        won = (
            f"{_pct(r['deck_won'])} / {_pct(r['deck_drawn'])} / {_pct(r['deck_lost'])}"
            if r.get("deck_won") is not None and not math.isnan(r["deck_won"])
            else "–"
        )
        score = _f(r.get("outcome_mean"), ".3f")
        if _f(r.get("outcome_lo")) != "–":
            score += f" [{_f(r['outcome_lo'], '.3f')}, {_f(r['outcome_hi'], '.3f')}]"
        flag = {"FAILS": " (check fails: not the tip's value)", "no change": " (changes no play: not the tip's value)"}
        rows.append(
            f"| {_cell(r['variant'])}{flag.get(r.get('check') or '', '')} | {_f(r['mean'])} {interval} "
            f"| {_f(r.get('effect_size'), '+.3f')} "
            f"| {_verdict(r.get('decision'), r.get('decision_units'), unit)} | {won} | {score} "
            f"| {_p(r.get('outcome_p_holm'))} | {_verdict(r.get('outcome_decision'), r.get('outcome_decision_units'), unit)} "
            f"| {r.get('outcome_classes') or '–'} |"
        )
    return head + "\n".join(rows) + "\n"
