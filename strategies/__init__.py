"""Pluggable strategies for tranca-sim.

A strategy is a module in this package with ``NAME``, ``DOC``, ``PARAMS``
(tuple of ``(name, default, doc, lowest, highest[, kind])``; kind is
"switch" (0/1), "int" or "real") and three numba functions::

    choose_draw(prm, obs, acts, n, rng) -> int     # index into acts[:n] (stock or a way to take the pile)
    choose_meld(prm, obs, acts, n, rng) -> int     # index into acts[:n], or -1 to stop melding
    choose_discard(prm, obs, rng) -> int           # a card kind in obs.hand

``prm`` is the seat's ``float64[N_PARAMS]`` parameter row, ``obs`` an
:data:`tranca_sim.engine.obs.Obs` (only what the player may see), ``rng`` the
seat's own ``uint64[4]`` stream.  Register the module in
:mod:`strategies.registry` and run ``python -m strategies.build``.
See docs/strategies.md.
"""

from __future__ import annotations

import importlib
import math
import re
from dataclasses import dataclass

import numpy as np

from strategies.registry import MODULES

N_PARAMS = 24  # width of a parameter row; a strategy uses the first len(PARAMS)


class StrategyError(ValueError):
    """Unknown strategy name or parameter, or a bad parameter value."""


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with its parameter values.

    Attributes: ``name``; ``sid`` (int id for the kernel); ``params``
    (``float64[N_PARAMS]``); ``param_names``; ``text`` (canonical spec string).
    """

    name: str
    sid: int
    params: np.ndarray
    param_names: tuple[str, ...]

    @property
    def text(self) -> str:
        if not self.param_names:
            return self.name
        vals = ",".join(f"{n}={self.params[i]:g}" for i, n in enumerate(self.param_names))
        return f"{self.name}:{vals}"

    @property
    def param_dict(self) -> dict[str, float]:
        return {n: float(self.params[i]) for i, n in enumerate(self.param_names)}


def _modules():
    return [importlib.import_module(f"strategies.{m}") for m in MODULES]


def list_strategies() -> list[tuple[str, str, tuple[str, ...], tuple[float, ...]]]:
    """``[(name, doc, param_names, defaults), ...]`` in id order."""
    out = []
    for mod in _modules():
        out.append((mod.NAME, mod.DOC, tuple(p[0] for p in mod.PARAMS), tuple(p[1] for p in mod.PARAMS)))
    return out


_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _param_range(p) -> tuple[float, float]:
    """(lowest, highest) of a PARAMS entry ``(name, default, doc[, lo, hi])``."""
    return (float(p[3]), float(p[4])) if len(p) >= 5 else (-1e9, 1e9)


def resolve(spec: str | StrategySpec, **overrides: float) -> StrategySpec:
    """Parse ``"name"`` or ``"name:p1=v1,p2=v2"`` into a :class:`StrategySpec`.

    Spaces around names and values are ignored.  Values are plain decimal
    numbers (``1``, ``0.5``, ``2e3``) within the parameter's range.

    Raises
    ------
    StrategyError
        Unknown strategy or parameter name, a parameter given twice, a value
        that is not a finite number or is outside the parameter's range, or an
        empty parameter list after ``:``.
    """
    if isinstance(spec, StrategySpec):
        if not overrides:
            return spec
        spec = spec.text
    name, colon, rest = str(spec).partition(":")
    name = name.strip()
    mods = _modules()
    names = [m.NAME for m in mods]
    if name not in names:
        raise StrategyError(f"unknown strategy {name!r}; available: {', '.join(names)}")
    sid = names.index(name)
    mod = mods[sid]
    pnames = tuple(p[0] for p in mod.PARAMS)
    params = np.zeros(N_PARAMS, dtype=np.float64)
    for i, p in enumerate(mod.PARAMS):
        params[i] = p[1]
    given: dict[str, str | float] = {}
    if colon and not rest.strip():
        raise StrategyError(f"strategy {spec!r}: nothing after ':'; give name=value pairs or no ':'")
    if rest.strip():
        for item in rest.split(","):
            key, eq, val = item.partition("=")
            key = key.strip()
            if not eq or not key:
                raise StrategyError(
                    f"strategy parameter {item.strip()!r} of {name!r} is not of the form name=value"
                )
            if key in given:
                raise StrategyError(f"strategy parameter {key!r} of {name!r} is given twice")
            given[key] = val.strip()
    given.update(overrides)
    for key, val in given.items():
        if key not in pnames:
            known = ", ".join(pnames) if pnames else "none"
            raise StrategyError(f"strategy {name!r} has no parameter {key!r}; its parameters: {known}")
        if isinstance(val, str) and not _NUMBER.fullmatch(val):
            raise StrategyError(f"parameter {key!r} of {name!r} must be a number, got {val!r}")
        x = float(val)
        lo, hi = _param_range(mod.PARAMS[pnames.index(key)])
        if not math.isfinite(x) or not lo <= x <= hi:
            raise StrategyError(
                f"parameter {key!r} of {name!r} must be a number from {lo:g} to {hi:g}, got {val!r}"
            )
        params[pnames.index(key)] = x
    return StrategySpec(name, sid, params, pnames)
