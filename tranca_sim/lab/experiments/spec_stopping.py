"""An experiment file's ``[decision]`` table (a sequential test with both error rates fixed)
and its stopping rule in words.  The file itself: :mod:`.spec`."""

from __future__ import annotations

import math

from ..._plural import spelled

_STOPPING = {"half_width", "alpha", "tune"}
_DECISION = {"delta", "delta_outcome", "alpha", "beta", "min_decks"}


def _decision(c, table) -> dict | None:
    """The ``[decision]`` table checked: ``delta`` and ``delta_outcome`` (required), ``alpha`` and
    ``beta`` (default 0.05 each); None without the table."""
    if table is None:
        return None
    if not isinstance(table, dict):
        c.fail("decision", f"must be a table, got {spelled(table)}")
    c.keys(table, _DECISION, "decision")
    for key, what in (
        ("delta", "the effect H1 names, points a deal (e.g. delta = 10)"),
        ("delta_outcome", "the deck outcome's effect H1 names, a score above or below 1/2 (e.g. 0.02)"),
    ):
        if key not in table:
            c.fail(f"decision.{key}", f"missing: {what}")
    v = table["delta"]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
        c.fail("decision.delta", f"must be a positive number of points a deal, got {spelled(v)}")
    delta = float(v)
    delta_outcome = c.number(table, "delta_outcome", "decision", 0, 0.5)
    alpha = c.number(table, "alpha", "decision", 0, 0.5, default=0.05)
    beta = c.number(table, "beta", "decision", 0, 0.5, default=0.05)
    m = table.get("min_decks", 0)
    if isinstance(m, bool) or not isinstance(m, int) or m < 0:
        c.fail("decision.min_decks", f"must be a whole number of decks, 0 or more, got {spelled(m)}")
    return {
        "method": DECISION_METHOD,
        "delta": delta,
        "delta_outcome": delta_outcome,
        "alpha": alpha,
        "beta": beta,
        "min_decks": m,
    }


#: the decision rule's name, as experiment.json and the reports give it
DECISION_METHOD = (
    "generalised SPRT on the unit (normal approximation of fishtest's pentanomial GSPRT), two-sided, "
    "Wald's boundaries, sequential Holm over the variants (Bartroff & Song 2014)"
)


def _rule(half_width, decision) -> str:
    """The stopping rule in words."""
    parts = []
    if decision is not None:
        parts.append("its points and its deck outcome are both decided (a gain, a loss or no effect)")
    if half_width is not None:
        parts.append("its own interval is narrow enough")
    return (
        "per variant: a variant stops when "
        + " and ".join(parts)
        + " or its budget is spent; the others go on"
    )
