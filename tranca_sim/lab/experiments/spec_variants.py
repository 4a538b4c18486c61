"""An experiment file's ``[[variants]]`` and ``[sweep]``: each variant's strategy checked and
made canonical, and those that cannot change play (a parameter inert under the rules) or play as
the baseline or an earlier variant said in one line.  The file itself: :mod:`.spec`."""

from __future__ import annotations

import math

from ..._plural import spelled
from .spec_fields import _fmt

_VARIANT = {"label", "strategy", "params", "note", "null", "play_anyway"}
_SWEEP = {"strategy", "param", "grid", "params", "label", "note"}


def read_variants(c, doc: dict, baseline: str) -> list[dict]:
    """The ``[[variants]]`` tables checked, in file order: ``label``, ``strategy`` (canonical
    text), ``param`` and ``value`` (None), ``note``, ``null``, ``play_anyway``."""
    variants = []
    raw_vars = doc.get("variants", [])
    if not isinstance(raw_vars, list):
        c.fail("variants", "must be an array of tables ([[variants]])")
    for i, v in enumerate(raw_vars):
        where = f"variants[{i}]"
        if not isinstance(v, dict):
            c.fail(where, f"must be a table, got {spelled(v)}")
        c.keys(v, _VARIANT, where)
        null = v.get("null", False)
        if not isinstance(null, bool):
            c.fail(f"{where}.null", f"must be true or false, got {spelled(null)}")
        anyway = v.get("play_anyway", False)
        if not isinstance(anyway, bool):
            c.fail(f"{where}.play_anyway", f"must be true or false, got {spelled(anyway)}")
        if null:
            given, text = _null_strategy(c, v, where, baseline)
        else:
            given = c.text(v, "strategy", where, required=True)
            text = c.strategy(given, v.get("params"), f"{where}.strategy")
            if isinstance(v.get("params"), dict) and v["params"]:
                extra = ",".join(f"{k}={_fmt(x)}" for k, x in v["params"].items())
                given += ("," if ":" in given else ":") + extra
        label = c.text(
            v, "label", where, default=f"null {i + 1} (the baseline on other decks)" if null else given
        )
        variants.append(
            {"label": label, "strategy": text, "param": None, "value": None, "note": c.text(v, "note", where),
             "null": null, "play_anyway": anyway}
        )  # fmt: skip
    return variants


def read_sweep(c, doc: dict) -> tuple[dict | None, list[dict]]:
    """The ``[sweep]`` table checked: ``(sweep, its grid's variants)``; ``(None, [])`` without one."""
    sweep = doc.get("sweep")
    if sweep is None:
        return None, []
    variants = []
    if not isinstance(sweep, dict):
        c.fail("sweep", f"must be a table, got {spelled(sweep)}")
    c.keys(sweep, _SWEEP, "sweep")
    base = c.text(sweep, "strategy", "sweep", required=True)
    param = c.text(sweep, "param", "sweep", required=True)
    grid = sweep.get("grid")
    if not isinstance(grid, list) or len(grid) < 2:
        c.fail("sweep.grid", f"must be a list of at least 2 numbers, got {spelled(grid)}")
    fixed = sweep.get("params") or {}
    if not isinstance(fixed, dict):
        c.fail("sweep.params", f"must be a table of name = number, got {spelled(fixed)}")
    if param in fixed:
        c.fail("sweep.params", f"{param!r} is the swept parameter; do not fix it too")
    prefix = c.text(sweep, "label", "sweep", default=param)
    values = []
    for j, x in enumerate(grid):
        if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
            c.fail(f"sweep.grid[{j}]", f"must be a number, got {spelled(x)}")
        if float(x) in values:
            c.fail(f"sweep.grid[{j}]", f"{spelled(x)} is in the grid twice")
        values.append(float(x))
        text = c.strategy(base, {**fixed, param: x}, f"sweep.grid[{j}]")
        variants.append(
            {
                "label": f"{prefix}={_fmt(x)}",
                "strategy": text,
                "param": param,
                "value": float(x),
                "note": None,
                "null": False,
            }
        )
    note = c.text(sweep, "note", "sweep", default="")
    sweep = {"strategy": base, "param": param, "grid": values, "note": note or None}
    return sweep, variants


def _check_inert(c, variants: list[dict], baseline: str, rules, path) -> None:
    """Refuse a variant or sweep that changes, against the baseline, a parameter that cannot change
    play under the experiment's rules (a rule it acts on is off: ``black3_lock`` in Buraco); warn
    (:class:`tranca_sim.strategies.inert.InertParameterWarning`, one line) for one only measured to change
    nothing there (:mod:`tranca_sim.strategies.inert`)."""
    from tranca_sim.strategies.inert import inert_changes, warn

    warned = set()
    for i, v in enumerate(variants):
        for param, reason, ruled in inert_changes(v["strategy"], baseline, rules, rules.name):
            if v["param"] is None:
                where = f"variants[{i}].strategy"
            else:
                where = "sweep.param" if param == v["param"] else "sweep.params"
            if ruled:
                c.fail(where, f"{reason}; the variant would play exactly as the baseline")
            if (where, param) not in warned:
                warned.add((where, param))
                warn(f"{path}: {where} ({v['label']}): {reason}")


def _null_strategy(c, v: dict, where: str, baseline: str) -> tuple[str, str]:
    """``(text shown, canonical text)`` of a ``null = true`` variant: the baseline; a strategy or
    parameters given beside it must be the baseline's."""
    if "strategy" not in v and not v.get("params"):
        return "baseline", baseline
    given = c.text(v, "strategy", where, default=baseline)
    text = c.strategy(given, v.get("params"), f"{where}.strategy")
    if text != baseline:
        c.fail(
            f"{where}.null",
            f"a null variant plays the baseline ({baseline}) against itself; its strategy is {text}: "
            "leave out strategy and params, or drop null = true",
        )
    return given, text


class IdleVariantWarning(UserWarning):
    """A variant or sweep point that plays exactly as the baseline or as an earlier variant: not
    played, not compared (one line)."""


def _drop_idle(c, variants: list[dict], baseline: str, path) -> list[dict]:
    """The variants worth playing: one that plays exactly as the baseline (the same strategy, a sweep
    value equal to the baseline's own) or as an earlier variant is said in one line
    (:class:`IdleVariantWarning`), gets no deals and stays out of the comparisons, so out of the
    Holm family (its difference is 0 by construction, or the earlier variant's).  A ``null = true``
    variant is the baseline on purpose (on other decks) and is kept.  A file whose every variant is
    idle is refused."""
    import warnings

    kept, seen = [], {}
    for i, v in enumerate(variants):
        where = f"variants[{i}]" if v["param"] is None else "sweep.grid"
        if v.get("null") or v.get("play_anyway"):  # on purpose: the baseline on other decks (a check
            kept.append(v)  # of the lab's calibration), or on the same decks (a check that the
            continue  # design gives exactly 0 on every deck)
        if v["strategy"] == baseline:
            if v["param"] is None:
                why = (
                    "plays exactly as the baseline (the same strategy and parameters; null = true plays "
                    "the baseline on other decks, as a check)"
                )
            else:
                why = f"{v['param']}={_fmt(v['value'])} is the baseline's own value"
            warnings.warn(
                IdleVariantWarning(
                    f"{path}: {where} ({v['label']}): {why}: not played and not compared "
                    "(a difference of 0 by construction)"
                    + ("; the sweep chart marks it as the baseline" if v["param"] is not None else "")
                ),
                stacklevel=3,
            )
            continue
        if v["strategy"] in seen:
            warnings.warn(
                IdleVariantWarning(
                    f"{path}: {where} ({v['label']}): plays exactly as the variant {seen[v['strategy']]!r} "
                    "(the same strategy and parameters): played and compared once"
                ),
                stacklevel=3,
            )
            continue
        seen[v["strategy"]] = v["label"]
        kept.append(v)
    if not kept:
        c.fail("variants", "every variant plays exactly as the baseline: nothing to compare")
    return kept
