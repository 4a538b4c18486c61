"""``tuned``: ``basic`` with the parameters ``tranca-sim tune`` found for the preset.

The parameters live in ``strategies/tuned/<preset>.toml`` (one file per preset, written by
``tranca-sim tune basic --preset P ... --out DIR`` as ``DIR/params.toml`` and copied here; each
file names the command that made it and its confirmation on fresh deals). ``tuned`` under
preset P plays the values of ``P.toml``; a preset without its own file plays those of
``tranca.toml`` (:data:`DEFAULT_PRESET`) until one is added: adding a preset's file needs no
code change. Any parameter can still be changed on the command line, as for ``basic``
(``tuned:black3_lock=0``).

``tuned`` has no kernel functions of its own: the engine plays it with ``basic``'s functions and
the tuned parameter row (its :attr:`tranca_sim.strategies.StrategySpec.sid` is ``basic``'s), so it costs no
compile and no branch in the engine's strategy switch. Numba code (a search player's rollouts)
calls ``tranca_sim.strategies.basic.choose_draw/choose_meld/choose_discard`` with :func:`params_row`.
"""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

import numpy as np

from tranca_sim.strategies import basic as _basic

NAME = "tuned"
DOC = "basic with the parameters tuned for the preset (strategies/tuned/<preset>.toml)"
#: the built-in whose kernel functions play this strategy
PLAYS = "basic"
#: the preset whose file gives the parameters of a preset without its own file
DEFAULT_PRESET = "tranca"
#: where the parameter files are
PARAM_DIR = Path(__file__).with_name("tuned")

choose_draw = _basic.choose_draw
choose_meld = _basic.choose_meld
choose_discard = _basic.choose_discard
choose_redraw = _basic.choose_redraw
SEARCH = _basic.SEARCH


class TunedParamsError(ValueError):
    """A parameter file of ``tuned`` that is missing, unreadable or holds bad values."""


class TunedFallbackWarning(UserWarning):
    """``tuned`` plays under a preset without its own parameter file (it takes
    :data:`DEFAULT_PRESET`'s values, which were not tuned for that preset). The CLI prints it
    as one ``tranca-sim: warning: ...`` line."""


@functools.cache
def _warn_fallback(preset: str) -> None:
    import warnings

    warnings.warn(
        f"strategy 'tuned' has no parameter file for preset {preset!r} (strategies/tuned/{preset}.toml); "
        f"it plays the values tuned for {DEFAULT_PRESET!r}, which can lose to basic in a preset they were "
        f"not tuned for (in buraco-fechado they lost 43.5 points a deal to basic); "
        f"tune the preset first: tranca-sim tune basic --preset {preset} ...",
        TunedFallbackWarning,
        stacklevel=3,
    )


def presets() -> list[str]:
    """Presets with their own parameter file, sorted."""
    return sorted(p.stem for p in PARAM_DIR.glob("*.toml"))


@functools.cache
def load(preset: str) -> dict:
    """The parameter file of ``preset`` (``strategies/tuned/<preset>.toml``) as a dict, its
    ``params`` table checked: every name a parameter of ``basic``, every value a number in the
    parameter's range (whole for an int or switch).

    Raises
    ------
    TunedParamsError
        No such file, not TOML, no ``params`` table, or a bad name or value (naming the file).
    """
    path = PARAM_DIR / f"{preset}.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TunedParamsError(f"no parameter file {path} for preset {preset!r}") from None
    except (OSError, ValueError) as e:
        raise TunedParamsError(f"cannot read {path}: {e}") from None
    params = data.get("params")
    if not isinstance(params, dict) or not params:
        raise TunedParamsError(f"{path} has no [params] table")
    spec = {p[0]: p for p in _basic.PARAMS}
    for k, v in params.items():
        if k not in spec:
            raise TunedParamsError(f"{path}: {k!r} is not a parameter of basic")
        lo, hi = float(spec[k][3]), float(spec[k][4])
        kind = spec[k][5] if len(spec[k]) > 5 else "real"
        if isinstance(v, bool) or not isinstance(v, int | float) or not lo <= v <= hi:
            raise TunedParamsError(f"{path}: {k} = {v!r} is not a number from {lo:g} to {hi:g}")
        if kind in ("int", "switch") and not float(v).is_integer():
            raise TunedParamsError(f"{path}: {k} = {v!r} must be a whole number")
    return data


def file_for(preset: str | None) -> str:
    """The preset whose file ``tuned`` plays under ``preset``: its own, else :data:`DEFAULT_PRESET`."""
    return preset if preset is not None and (PARAM_DIR / f"{preset}.toml").is_file() else DEFAULT_PRESET


def defaults_for(preset: str | None) -> tuple[float, ...]:
    """``tuned``'s parameter values under ``preset``, in ``basic.PARAMS`` order (a parameter
    the file leaves out keeps ``basic``'s default)."""
    source = file_for(preset)
    if preset is not None and source != preset:
        _warn_fallback(preset)
    given = load(source)["params"]
    return tuple(float(given.get(p[0], p[1])) for p in _basic.PARAMS)


def params_row(preset: str | None = None) -> np.ndarray:
    """``float64[N_PARAMS]``: the parameter row a numba caller passes to ``basic``'s functions
    to play ``tuned`` under ``preset``."""
    from tranca_sim.strategies import N_PARAMS

    row = np.zeros(N_PARAMS, dtype=np.float64)
    row[: len(_basic.PARAMS)] = defaults_for(preset)
    return row


# basic's parameters with the defaults of the default preset's file
PARAMS = tuple((p[0], v, *p[2:]) for p, v in zip(_basic.PARAMS, defaults_for(DEFAULT_PRESET)))
