"""A finished experiment's comparison table as text (``tranca-sim compare``, the report's tip
table heading), and the short strategy names every lab table shows.

>>> from tranca_sim.lab.publish.table_text import format_table
>>> print(format_table(comparison_table(exp), exp.spec))  # doctest: +SKIP
"""

from __future__ import annotations

import math

from .tables import interval_name


def short_strategy(text: str) -> str:
    """A strategy text with the parameters at their defaults left out (``basic:go_out=0``);
    the text itself if it does not resolve."""
    from tranca_sim.strategies import StrategyError, resolve

    try:
        spec = resolve(text)
        default = resolve(spec.name)
    except StrategyError:
        return text
    changed = [
        f"{n}={spec.params[i]:g}"
        for i, n in enumerate(spec.param_names)
        if spec.params[i] != default.params[i]
    ]
    return spec.name + (":" + ",".join(changed) if changed else "")


def _match_cell(r: dict, fixed: bool) -> str:
    pct = lambda x: f"{100 * x:.1f}%" if x is not None and math.isfinite(x) else "n/a"
    return (
        f"{pct(r['match_win_prob'])} vs {pct(r.get('match_win_baseline'))}"
        if fixed
        else pct(r["match_win_prob"])
    )


def format_table(df, spec: dict) -> str:
    """The comparison table as aligned text (the CLI's tip table and the tables of docs/explanation/results.md).

    The ``match win`` column is the variant against the baseline in the duplicate design; in
    the fixed-opponent design both play only the opponent, so the column is headed ``match win
    vs <opponent>`` and reads ``variant% vs baseline%``.  In the rotation design (three
    players) it is the variant's share of three-player matches (fair share 33.3%), and the
    last column is the own-score gain with its interval instead of the plain-pairing ratio."""
    design = spec["design"]
    fixed = design == "fixed-opponent"
    rot = design == "rotation"
    if fixed:
        match_head = f"match win vs {short_strategy(spec['opponent'])}: variant vs baseline"
    else:
        match_head = "match win of 3 (fair 33.3%)" if rot else "match win"
    rows = [
        (
            "variant",
            "deals",
            "margin [interval] pts/deal" if rot else "mean [interval] pts/deal",
            "p Holm",
            "first-place diff" if rot else "win diff",
            match_head,
            "var/unpaired",
            "own gain [interval]" if rot else "var/plain",
        )
    ]
    decided = bool(spec.get("decision"))
    if decided:
        rows[0] += ("d", "decision: points", "decision: outcome")
    for r in df.iter_rows(named=True):
        sig = "*" if r["holm_significant"] else " "
        if rot:
            last = _mean_ci(r["own_gain"], r["own_lo"], r["own_hi"])
        else:
            last = f"{r['var_ratio_vs_plain']:.2f}" if math.isfinite(r["var_ratio_vs_plain"]) else "n/a"
        rows.append(
            (
                r["variant"],
                str(r["n_deals"]),
                _mean_ci(r["mean"], r["lo"], r["hi"]),
                f"{_p(r['p_holm'])}{sig}",
                f"{100 * r['win_share_diff']:+.1f}%" if math.isfinite(r["win_share_diff"]) else "n/a",
                _match_cell(r, fixed),
                f"{r['var_ratio_design']:.2f}" if math.isfinite(r["var_ratio_design"]) else "n/a",
                last,
            )
        )
        if decided:
            es = r.get("effect_size")
            rows[-1] += (
                f"{es:+.3f}" if es is not None and math.isfinite(es) else "n/a",
                _verdict_cell(r.get("decision"), r.get("decision_units")),
                _verdict_cell(r.get("outcome_decision"), r.get("outcome_decision_units")),
            )
    widths = [max(len(x[i]) for x in rows) for i in range(len(rows[0]))]
    lines = [
        "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths)))
        for r in rows
    ]
    unit = {
        "duplicate": "deck (both deals, sides swapped)",
        "rotation": "deck (three deals, the variant once in each seat against two baseline seats)",
    }.get(design, "deal")
    tail = (
        "margin: the variant's score minus the mean of the two baseline players' at its table; own gain: "
        "its score minus the baseline's in the same seat at the all-baseline table; var/unpaired: "
        "variance of the design's estimate over that of unpaired deals at equal deals"
        if rot
        else "var/unpaired, var/plain: variance of the design's estimate over that of unpaired deals and "
        "(duplicate) of plain pairing at equal deals"
    )
    lines.append(
        f"design {design}, unit {unit}; baseline {short_strategy(spec['baseline'])}; "
        f"interval: {interval_name(spec)}; * = Holm-adjusted p <= alpha; {tail}"
    )
    if decided:
        d = spec["decision"]
        lines.append(
            f"decision: sequential test of no effect against +-{d['delta']:g} pts/deal (outcome: a "
            f"{pu_unit(design)} score of 1/2 against 1/2 +-{d['delta_outcome']:g}), alpha {d['alpha']:g}, beta "
            f"{d['beta']:g}, Holm over the variants (at N: the units it took); d: mean / sd of the units"
        )
    return "\n".join(lines)


def pu_unit(design: str) -> str:
    """The unit of a design, one word."""
    return {"fixed-opponent": "deal"}.get(design, "deck")


def _verdict_cell(verdict, units) -> str:
    """``gain at 400`` / ``no effect at 1200`` / ``no decision``; ``-`` without one."""
    if verdict is None:
        return "-"
    return verdict if verdict == "no decision" else f"{verdict} at {units}"


def _mean_ci(mean: float, lo: float, hi: float) -> str:
    """``+1.2 [-3.4, +5.6]``; ``[n/a]`` without an interval (one unit: too few for one)."""
    m = f"{mean:+.1f}" if math.isfinite(mean) else "n/a"
    return f"{m} [{lo:+.1f}, {hi:+.1f}]" if math.isfinite(lo) and math.isfinite(hi) else f"{m} [n/a]"


def _p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "<1e-4" if p < 1e-4 else f"{p:.4f}"


__all__ = ["format_table", "short_strategy"]
