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
:mod:`tranca_sim.strategies.registry` and run ``python -m tranca_sim.strategies.build``.

A user's own module needs no registration: name it by path
(``my_strats.py:greedy``) or install it under the entry-point group
``tranca_sim.strategies`` (:mod:`tranca_sim.strategies.user`).  See docs/strategies.md.
"""

from __future__ import annotations

if __name__ != "tranca_sim.strategies":  # the repository's folder imported under its old top-level name
    raise ImportError(
        f"no package {__name__!r}: the strategies are imported as 'tranca_sim.strategies' "
        "(docs/strategies.md, 'Import names')",
        name=__name__,
    )

import importlib
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from tranca_sim.engine.contract import N_PARAMS, Plug, plug
from tranca_sim.strategies.registry import MODULES, PARAM_SETS


class StrategyError(ValueError):
    """Unknown strategy name or parameter, or a bad parameter value."""


@dataclass(frozen=True)
class StrategySpec:
    """A strategy with its parameter values.

    Attributes: ``name`` (the module's ``NAME``); ``params``
    (``float64[N_PARAMS]``); ``param_names``; ``module`` (a built-in's
    registry name such as ``"basic"``, else the user module's name in
    ``sys.modules``); ``path`` (a user's file as it was named, e.g.
    ``"my_strats.py"``, else None); ``file`` and ``sha256`` (a user
    strategy's absolute source file and its hash, else None).  Properties:
    ``sid`` (int id for the kernel, fixed per process), ``text`` (canonical
    spec string, ``resolve(text)`` gives the same spec), ``param_dict``,
    ``origin`` (what a run file records to find the strategy again).
    """

    name: str
    params: np.ndarray
    param_names: tuple[str, ...]
    module: str = ""
    path: str | None = None
    file: str | None = None
    sha256: str | None = None
    preset: str | None = None  # the preset whose defaults it took (strategies such as tuned), else None

    @property
    def sid(self) -> int:
        from tranca_sim.strategies.user import sid_of

        return sid_of(self.module or self.name)

    @property
    def text(self) -> str:
        head = f"{self.path}:{self.name}" if self.path else self.name
        if not self.param_names:
            return head
        vals = ",".join(f"{n}={self.params[i]:g}" for i, n in enumerate(self.param_names))
        return f"{head}:{vals}"

    @property
    def label(self) -> str:
        """The strategy as people name it: its name and only the parameters that differ
        from their defaults (``"basic:black3_lock=1"``; ``"basic"`` when all are defaults)."""
        return describe(self.name, self.params[: len(self.param_names)], self.param_names, self.preset)

    @property
    def portable_text(self) -> str:
        """:attr:`text` with a user's file named by its absolute path: resolves to the same
        strategy in another process whatever its working directory (workers of a run)."""
        return replace(self, path=self.file).text if self.path else self.text

    @property
    def param_dict(self) -> dict[str, float]:
        return {n: float(self.params[i]) for i, n in enumerate(self.param_names)}

    @property
    def origin(self) -> dict:
        """``{}`` for a built-in; for a user strategy ``file`` and ``sha256`` (and ``path``
        for a file named by path): stored in a run's metadata, read by :func:`from_record`."""
        if not self.file:
            return {}
        out = {"file": self.file, "sha256": self.sha256}
        if self.path:
            out["path"] = self.path
        return out


def check_rules(specs, rules) -> None:
    """Let each strategy refuse a rule set it cannot play: a strategy module may define
    ``check_rules(rules)`` raising :class:`StrategyError` (``search`` refuses a minimum first
    meld, ``first_meld_min``).  ``specs``: :class:`StrategySpec` objects; ``rules``: a
    :class:`tranca_sim.rules.Rules`."""
    for spec in specs:
        mod = _module(spec.name)
        check = getattr(mod, "check_rules", None) if mod is not None else None
        if check is not None:
            check(rules)


def _modules():
    return [importlib.import_module(f"tranca_sim.strategies.{m}") for m in MODULES]


def _param_sets():
    """The built-ins played by another built-in's functions (``registry.PARAM_SETS``)."""
    return [importlib.import_module(f"tranca_sim.strategies.{m}") for m in PARAM_SETS]


def builtin_names() -> list[str]:
    """Names of the built-in strategies: those with kernel functions in id order, then the
    parameter sets (``tuned``)."""
    return [m.NAME for m in _modules() + _param_sets()]


def list_strategies(installed: bool = True) -> list[tuple[str, str, tuple[str, ...], tuple[float, ...]]]:
    """``[(name, doc, param_names, defaults), ...]``: the built-ins in id order, then (with
    ``installed``) the strategies of installed packages (entry-point group
    ``tranca_sim.strategies``), by name; one that cannot be loaded is listed with its error
    as the doc and no parameters."""
    out = []
    for mod in _modules() + _param_sets():
        out.append((mod.NAME, mod.DOC, tuple(p[0] for p in mod.PARAMS), tuple(p[1] for p in mod.PARAMS)))
    if installed:
        from tranca_sim.strategies import user

        builtin = set(builtin_names())
        for name in sorted(user.entry_points()):
            if name in builtin:
                out.append(
                    (name, "installed strategy shadowed by the built-in of that name: unusable", (), ())
                )
                continue
            try:
                mod, _ = user.load_entry_point(name, register=False)
            except StrategyError as e:
                out.append((name, f"cannot be used: {e}", (), ()))
                continue
            pp = tuple(mod.PARAMS)
            out.append((name, f"{mod.DOC} (installed)", tuple(p[0] for p in pp), tuple(p[1] for p in pp)))
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
        raise StrategyError(f"unknown strategy {name!r}; available: {', '.join(builtin_names())}")
    return params_of(mod)


def params_of(module) -> list[tuple[str, float, str, float, float, str]]:
    """``[(param, default, doc, lowest, highest, kind), ...]`` of a strategy module."""
    return [(p[0], float(p[1]), p[2], *_param_range(p), _param_kind(p)) for p in module.PARAMS]


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
    """The strategy module called ``name`` (a built-in, or a user's module loaded in this
    process), or None."""
    from tranca_sim.strategies import user

    return next((m for m in _modules() + _param_sets() + user.loaded() if m.NAME == name), None)


def describe(name: str, params, param_names=None, preset: str | None = None) -> str:
    """Short text of a strategy: ``name`` and the parameters that differ from their defaults.

    Parameters
    ----------
    name : str
        Strategy name (the run file's ``strategy`` column).
    params : sequence of float
        Its parameter values in ``PARAMS`` order (the ``strategy_params`` column).
    param_names : sequence of str, optional
        Names of ``params`` (from the run metadata); checked against the strategy's.
    preset : str, optional
        The run's preset: the defaults of a strategy whose defaults depend on it (``tuned``:
        ``strategies/tuned/<preset>.toml``); without it, its module's ``PARAMS`` defaults.

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
    defaults = mod.defaults_for(preset) if hasattr(mod, "defaults_for") else [float(p[1]) for p in mod.PARAMS]
    changed = [f"{p[0]}={v:g}" for p, v, d in zip(mod.PARAMS, vals, defaults) if v != float(d)]
    return f"{name}:{','.join(changed)}" if changed else name


def from_record(entry: dict) -> StrategySpec:
    """The strategy a run file recorded (``meta["strategies"][i]``: ``text`` and, for a user
    strategy, :attr:`StrategySpec.origin`), checked to be the same source.

    Raises
    ------
    StrategyError
        For an unknown strategy, or a user strategy whose file is missing or
        has changed since the run (its sha256 differs).
    """
    text = entry["text"]
    if not entry.get("file"):
        return resolve(text)
    from tranca_sim.strategies import user

    file, sha = entry["file"], entry.get("sha256")
    if not entry.get("path"):  # an installed strategy
        loaded = user.load_entry_point(entry.get("name") or text.partition(":")[0], sha)
        if loaded is None:
            raise StrategyError(
                f"the run was played with the installed strategy {text!r}, which is not installed"
            )
        return resolve(text)
    if not Path(file).is_file():
        raise StrategyError(
            f"the run was played with strategy {text!r} from {file}, which is missing; put the file back"
        )
    _, name, params = user.split_file_spec(text)
    user.load_file(file, sha)
    spec = resolve(f"{file}:{name}" + (f":{params}" if params else ""))
    return replace(spec, path=entry["path"])


_NUMBER = re.compile(r"[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)([eE][+-]?[0-9]+)?")


def _param_range(p) -> tuple[float, float]:
    """(lowest, highest) of a PARAMS entry ``(name, default, doc[, lo, hi[, kind]])``."""
    return (float(p[3]), float(p[4])) if len(p) >= 5 else (-1e9, 1e9)


def _lookup(text: str):
    """``(module, name, colon, params text, StrategySpec origin fields)`` of a spec string."""
    from tranca_sim.strategies import user
    from tranca_sim.strategies.contract import NAME_RE

    f = user.split_file_spec(text)
    if f is not None:
        path, want, params = f
        mod, src = user.load_file(path)
        if want is not None and want != mod.NAME:
            raise StrategyError(f"strategy file {path!r} defines strategy {mod.NAME!r}, not {want!r}")
        origin = {"module": src.module, "path": path, "file": src.file, "sha256": src.sha256}
        return mod, mod.NAME, params is not None, params or "", origin
    name, colon, rest = text.partition(":")
    name = name.strip()
    names = builtin_names()
    if name in names:
        mod = (_modules() + _param_sets())[names.index(name)]
        module = getattr(mod, "PLAYS", None) or MODULES[names.index(name)]
        _include(module)
        return mod, name, colon, rest, {"module": module}
    loaded = user.load_entry_point(name) if NAME_RE.fullmatch(name) else None
    if loaded is None:
        installed = sorted(set(user.entry_points()) - set(names))
        more = f"; installed: {', '.join(installed)}" if installed else ""
        raise StrategyError(
            f"unknown strategy {name!r}; available: {', '.join(names)}{more}; or a file: PATH.py:NAME"
        )
    mod, src = loaded
    return mod, name, colon, rest, {"module": src.module, "file": src.file, "sha256": src.sha256}


def _include(module: str) -> None:
    """A built-in compiled into the engine only on demand (the search player): naming it asks for
    the engine with it, if this process's engine is not loaded yet (:mod:`tranca_sim.strategies.user`)."""
    from tranca_sim.strategies.registry import ON_DEMAND

    if module in ON_DEMAND:
        from tranca_sim.strategies import user

        user.include_search(strict=False)


def prepare_engine(strategies) -> None:
    """Before this process's engine is loaded: compile into it the built-ins compiled on demand
    (the search player, :data:`tranca_sim.strategies.registry.ON_DEMAND`) that ``strategies`` name.

    ``strategies``: spec strings (``"search:worlds=4"``), :class:`StrategySpec` objects or a run's
    metadata entries (dicts with ``text``).  Reads names only: never raises, loads no user file,
    and does nothing once the engine is loaded (playing ``search`` then raises, see
    :func:`tranca_sim.strategies.user.sid_of`).  For code that imports the engine before it resolves the
    strategies it plays (a match run's facts are read through :mod:`tranca_sim.engine.match`)."""
    from tranca_sim.strategies.registry import ON_DEMAND

    wanted = {getattr(importlib.import_module(f"tranca_sim.strategies.{m}"), "NAME", m) for m in ON_DEMAND}
    for s in strategies or ():
        if isinstance(s, StrategySpec):
            _include(s.module)
            continue
        text = s.get("text", "") if isinstance(s, dict) else s
        if isinstance(text, str) and text.partition(":")[0].strip() in wanted:
            from tranca_sim.strategies import user

            user.include_search(strict=False)


def _ensure_loaded(spec: StrategySpec) -> None:
    """Load a user strategy's module in this process (a spec made in a parent process)."""
    from tranca_sim.strategies import user

    if spec.module in user.loaded_modules():
        return
    if spec.path:
        user.load_file(spec.file, spec.sha256)
    elif user.load_entry_point(spec.name, spec.sha256) is None:
        raise StrategyError(f"installed strategy {spec.name!r} is not installed in this environment")


def resolve(spec: str | StrategySpec, preset: str | None = None, **overrides: float) -> StrategySpec:
    """Parse a strategy spec into a :class:`StrategySpec`.

    ``preset`` (a rule preset's name) matters only for a strategy whose defaults depend on it
    (``tuned``: the parameters of ``strategies/tuned/<preset>.toml``, see
    :mod:`tranca_sim.strategies.tuned`); without it such a strategy takes its module's ``PARAMS`` defaults.

    Forms: ``"name"`` or ``"name:p1=v1,p2=v2"`` for a built-in or installed
    strategy; ``"PATH.py"``, ``"PATH.py:NAME"`` or ``"PATH.py:NAME:p1=v1,..."``
    for a strategy in a user's file (loaded and checked here, see
    :mod:`tranca_sim.strategies.user`).  Spaces around names and values are ignored.
    Naming ``search`` before this process's engine is loaded compiles the search player into it
    (:func:`tranca_sim.strategies.user.include_search`; the default engine is built without it).
    Values are plain decimal numbers (``1``, ``0.5``, ``2e3``) within the
    parameter's range; an ``"int"`` parameter takes whole numbers only and a
    ``"switch"`` only 0 (off) or 1 (on).

    Raises
    ------
    StrategyError
        Unknown strategy or parameter name, a parameter given twice, a value
        that is not a finite number, is outside the parameter's range or is not
        whole for an int or switch parameter, an empty parameter list after
        ``:``; for a user's file, any problem :func:`tranca_sim.strategies.user.load_file`
        reports.
    """
    keep_path = None
    if isinstance(spec, StrategySpec):
        preset = spec.preset if preset is None else preset
        if spec.file:
            _ensure_loaded(spec)
        _include(spec.module)
        if not overrides:
            return spec
        keep_path = spec.path
        spec = replace(spec, path=spec.file if spec.path else None).text
    mod, name, colon, rest, origin = _lookup(str(spec))
    if keep_path:
        origin["path"] = keep_path
    pnames = tuple(p[0] for p in mod.PARAMS)
    params = np.zeros(N_PARAMS, dtype=np.float64)
    defaults = mod.defaults_for(preset) if preset is not None and hasattr(mod, "defaults_for") else None
    for i, p in enumerate(mod.PARAMS):
        params[i] = p[1] if defaults is None else defaults[i]
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
            span = f"from {lo:g} to {hi:g}" if math.isfinite(hi) else f"of at least {lo:g}"
            raise StrategyError(f"parameter {key!r} of {name!r} must be {what} {span}, got {val!r}")
        params[pnames.index(key)] = x
    return StrategySpec(
        name, params, pnames, **origin, preset=preset if hasattr(mod, "defaults_for") else None
    )


def _engine_dispatch():
    from tranca_sim.strategies.user import engine_dispatch

    return engine_dispatch()


# the engine reaches the strategies only through its contract (tranca_sim/engine/contract.py)
plug(Plug(engine_dispatch=_engine_dispatch, resolve=resolve, check_rules=check_rules, spec_type=StrategySpec))
