"""A strategy's declared search space: which parameters ``tranca-sim tune`` searches, over what.

A strategy module (built-in or a user's file) may declare ``SEARCH``, a tuple of
``(parameter, lowest, highest[, rule])`` or ``(parameter, (value, value, ...)[, rule])`` (a grid
of values, searched as unordered choices): the parameter must be one of its ``PARAMS``, the
range (every value) lie inside the parameter's own range, and ``rule`` (optional) names a field of
:class:`tranca_sim.rules.Rules` that must be on (true, non-zero) in the preset for the
parameter to be searched (``basic``'s face-up-morto switches: ``"mortos_face_up"``). The kind
(``switch``, ``int``, ``real``) is the parameter's kind in ``PARAMS``. A strategy without
``SEARCH`` is searched over every parameter with its whole declared range, as long as every
range is finite and at most 10^6 wide (a ``PARAMS`` entry without range is not searchable).

>>> from tranca_sim.strategies.search import search_space
>>> [p.name for p in search_space("basic")][:3]
['take_pile_min', 'wild_reserve', 'clean_patience']
"""

from __future__ import annotations

from dataclasses import dataclass

from tranca_sim.strategies import StrategyError, params_of, resolve

WIDEST = 1e6  # a PARAMS range wider than this (or infinite) is not a search range


@dataclass(frozen=True)
class SearchParam:
    """One searched parameter: ``name``, ``kind`` (``"switch"``, ``"int"``, ``"real"``),
    ``low``, ``high`` (inclusive, in the parameter's units), ``default`` (the strategy's
    default value), ``rule`` (the rule option it needs, or None), ``choices`` (a grid of
    values, or None for the whole range)."""

    name: str
    kind: str
    low: float
    high: float
    default: float
    rule: str | None = None
    choices: tuple[float, ...] | None = None


def _module_of(strategy: str):
    """(module, StrategySpec) of a strategy text; its parameters are ignored."""
    from tranca_sim.strategies import _module

    spec = resolve(strategy.partition(":")[0])  # "basic:x=1" -> "basic"; "my.py:greedy" -> "my.py"
    return _module(spec.name), spec


def search_space(strategy: str, rules=None, only=None) -> list[SearchParam]:
    """The parameters ``tranca-sim tune`` searches for ``strategy`` under ``rules``.

    Parameters
    ----------
    strategy : str
        A strategy name (``"basic"``) or a user's file (``"my.py:greedy"``); parameters after
        the name are ignored here.
    rules : tranca_sim.rules.Rules, optional
        The preset (with options): parameters whose ``rule`` is off there are left out.
        Without ``rules`` every declared parameter is returned.
    only : sequence of str, optional
        Search only these parameters (each must be in the declared space).

    Returns
    -------
    list of SearchParam, in the declaration order.

    Raises
    ------
    StrategyError
        Unknown strategy; a ``SEARCH`` entry that is malformed, names no parameter of the
        strategy or twice, has a range outside the parameter's (or low > high, or a switch
        range other than 0..1) or an unknown rule option; no ``SEARCH`` and a parameter
        without a finite range; ``only`` naming a parameter outside the space; an empty space.
    """
    mod, _ = _module_of(strategy)
    return space_of(mod, rules, only)


def space_of(mod, rules=None, only=None) -> list[SearchParam]:
    """:func:`search_space` of a strategy module (``NAME``, ``PARAMS`` and optionally ``SEARCH``)."""
    name = mod.NAME
    params = {p[0]: p for p in params_of(mod)}  # name -> (name, default, doc, lo, hi, kind)
    declared = getattr(mod, "SEARCH", None)
    if declared is None:
        declared = tuple((p[0], p[3], p[4]) for p in params.values())
        for n, lo, hi in declared:
            if not (abs(lo) <= WIDEST and abs(hi) <= WIDEST):
                raise StrategyError(
                    f"strategy {name!r} declares no SEARCH and parameter {n!r} has no finite range "
                    f"({lo:g} to {hi:g}); declare SEARCH = ((name, lowest, highest), ...) in its module"
                )
    from tranca_sim.rules import Rules

    rule_fields = set(Rules.__dataclass_fields__)
    from tranca_sim.strategies.inert import inert_reason

    out: list[SearchParam] = []
    dropped: dict[str, str] = {}
    seen = set()
    for i, entry in enumerate(declared):
        where = f"strategy {name!r}: SEARCH[{i}]"
        if not isinstance(entry, tuple | list) or len(entry) < 2:
            raise StrategyError(f"{where} must be (parameter, lowest, highest[, rule]), got {entry!r}")
        if len(entry) >= 2 and isinstance(entry[1], tuple | list):  # (parameter, (values...)[, rule])
            if len(entry) > 3:
                raise StrategyError(f"{where} must be (parameter, (value, ...)[, rule]), got {entry!r}")
            pname, grid, rule = entry[0], entry[1], (entry[2] if len(entry) == 3 else None)
        else:
            if len(entry) not in (3, 4):
                raise StrategyError(f"{where} must be (parameter, lowest, highest[, rule]), got {entry!r}")
            pname, grid, rule = entry[0], None, (entry[3] if len(entry) == 4 else None)
        if pname not in params:
            raise StrategyError(
                f"{where} names {pname!r}, which is not a parameter; its parameters: {', '.join(params)}"
            )
        if pname in seen:
            raise StrategyError(f"{where} names {pname!r} a second time")
        seen.add(pname)
        _, default, _, plo, phi, kind = params[pname]
        try:
            values = [float(v) for v in (grid if grid is not None else entry[1:3])]
        except (TypeError, ValueError):
            raise StrategyError(f"{where} ({pname}): its values must be numbers") from None
        lo, hi = min(values), max(values)
        if grid is None and values[0] > values[1] or not plo <= lo <= hi <= phi or not values:
            raise StrategyError(
                f"{where} ({pname}): range {values[0]:g} to {values[-1]:g} must lie in the parameter's "
                f"{plo:g} to {phi:g} with lowest <= highest"
            )
        if grid is not None and (len(set(values)) != len(values) or len(values) < 2):
            raise StrategyError(f"{where} ({pname}): give two or more different values")
        if kind == "switch" and (lo, hi) != (0.0, 1.0):
            raise StrategyError(f"{where} ({pname}) is a switch: its range is 0 to 1, got {lo:g} to {hi:g}")
        if kind in ("int", "switch") and not all(v.is_integer() for v in values):
            raise StrategyError(f"{where} ({pname}) is a whole number: give whole values")
        if rule is not None and rule not in rule_fields:
            raise StrategyError(f"{where} ({pname}): rule {rule!r} is not a rule option")
        if rules is not None and rule is not None and not getattr(rules, rule):
            continue
        why = inert_reason(name, pname, rules) if rules is not None else None
        if why is not None:  # a parameter that cannot change play here (strategies/inert.py)
            dropped[pname] = why[0]
            continue
        choices = tuple(values) if grid is not None else None
        out.append(SearchParam(pname, kind, lo, hi, float(default), rule, choices))
    if only:
        names = [p.name for p in out]
        bad = [n for n in only if n not in names]
        if bad and bad[0] in dropped:
            raise StrategyError(f"{dropped[bad[0]]}; tune does not search it")
        if bad:
            raise StrategyError(
                f"{bad[0]!r} is not in the search space of {name!r} here; searchable: {', '.join(names)}"
            )
        out = [p for p in out if p.name in set(only)]
    if not out:
        raise StrategyError(f"strategy {name!r} has no parameter to search here")
    return out


__all__ = ["SearchParam", "search_space", "space_of"]
