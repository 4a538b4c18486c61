"""Pluggable strategies for tranca-sim.

A strategy is a module in this package with ``NAME``, ``DOC``, ``PARAMS``
(tuple of ``(name, default, doc, lowest, highest[, kind])``; kind is
"switch" (0 or 1 only), "int" (whole numbers only) or "real" (the default))
and three numba functions::

    choose_draw(prm, obs, acts, n, rng) -> int     # index into acts[:n] (stock or a way to take the pile)
    choose_meld(prm, obs, acts, n, rng) -> int     # index into acts[:n], or -1 to stop melding
    choose_discard(prm, obs, rng) -> int           # a card kind k with obs.may_discard(obs, k)

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
    def label(self) -> str:
        """The strategy as people name it: its name and only the parameters that differ
        from their defaults (``"basic:black3_lock=1"``; ``"basic"`` when all are defaults)."""
        return describe(self.name, self.params[: len(self.param_names)], self.param_names)

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


def strategy_params(name: str) -> list[tuple[str, float, str, float, float, str]]:
    """``[(param, default, doc, lowest, highest, kind), ...]`` of strategy ``name``.

    Raises
    ------
    StrategyError
        For an unknown strategy.
    """
    mod = _module(name)
    if mod is None:
        raise StrategyError(f"unknown strategy {name!r}; available: {', '.join(m.NAME for m in _modules())}")
    return [(p[0], float(p[1]), p[2], *_param_range(p), _param_kind(p)) for p in mod.PARAMS]


#: kinds of strategy parameters (the optional 6th field of a PARAMS entry)
PARAM_KINDS = ("real", "int", "switch")


def _param_kind(p) -> str:
    kind = p[5] if len(p) >= 6 else "real"
    if kind not in PARAM_KINDS:
        raise StrategyError(
            f"parameter {p[0]!r} declares kind {kind!r}; known kinds: {', '.join(PARAM_KINDS)}"
        )
    return kind


def _module(name: str):
    """The strategy module called ``name``, or None."""
    return next((m for m in _modules() if m.NAME == name), None)


def describe(name: str, params, param_names=None) -> str:
    """Short text of a strategy: ``name`` and the parameters that differ from their defaults.

    Parameters
    ----------
    name : str
        Strategy name (the run file's ``strategy`` column).
    params : sequence of float
        Its parameter values in ``PARAMS`` order (the ``strategy_params`` column).
    param_names : sequence of str, optional
        Names of ``params`` (from the run metadata); checked against the strategy's.

    Returns
    -------
    str
        ``"basic"`` (all defaults), ``"basic:black3_lock=1,go_out=0"``; for a
        strategy this package does not know (or whose parameters changed since
        the run) every value is shown, named when ``param_names`` are given
        (``"old:a=1,b=2"``) and by position otherwise (``"old:1,2"``).
    """
    vals = [float(x) for x in params]
    mod = _module(name)
    known = tuple(p[0] for p in mod.PARAMS) if mod is not None else None
    names = tuple(param_names) if param_names is not None else known
    if mod is None or names != known or len(vals) != len(known):
        if not vals:
            return name
        if names is not None and len(names) == len(vals):
            return f"{name}:" + ",".join(f"{n}={v:g}" for n, v in zip(names, vals))
        return f"{name}:" + ",".join(f"{v:g}" for v in vals)
    changed = [f"{p[0]}={v:g}" for p, v in zip(mod.PARAMS, vals) if v != float(p[1])]
    return f"{name}:{','.join(changed)}" if changed else name


_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _param_range(p) -> tuple[float, float]:
    """(lowest, highest) of a PARAMS entry ``(name, default, doc[, lo, hi[, kind]])``."""
    return (float(p[3]), float(p[4])) if len(p) >= 5 else (-1e9, 1e9)


def resolve(spec: str | StrategySpec, **overrides: float) -> StrategySpec:
    """Parse ``"name"`` or ``"name:p1=v1,p2=v2"`` into a :class:`StrategySpec`.

    Spaces around names and values are ignored.  Values are plain decimal
    numbers (``1``, ``0.5``, ``2e3``) within the parameter's range; an
    ``"int"`` parameter takes whole numbers only and a ``"switch"`` only
    0 (off) or 1 (on).

    Raises
    ------
    StrategyError
        Unknown strategy or parameter name, a parameter given twice, a value
        that is not a finite number, is outside the parameter's range or is not
        whole for an int or switch parameter, or an empty parameter list
        after ``:``.
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
        p = mod.PARAMS[pnames.index(key)]
        lo, hi = _param_range(p)
        kind = _param_kind(p)
        if kind == "switch" and x not in (0.0, 1.0):
            raise StrategyError(
                f"parameter {key!r} of {name!r} is a switch: give 0 (off) or 1 (on), got {val!r}"
            )
        if not math.isfinite(x) or not lo <= x <= hi or (kind == "int" and not x.is_integer()):
            what = "a whole number" if kind == "int" else "a number"
            raise StrategyError(
                f"parameter {key!r} of {name!r} must be {what} from {lo:g} to {hi:g}, got {val!r}"
            )
        params[pnames.index(key)] = x
    return StrategySpec(name, sid, params, pnames)
