"""The strategy contract, checked on a user's module before it plays (docs/strategies.md).

A strategy module has ``NAME``, ``PARAMS`` and three numba functions called by
the engine with fixed argument types; :func:`check_module` checks all of it
(compiling the functions for those types, so a typing error is one readable
line, not a numba traceback in the middle of compiling the kernels).  Used by
:mod:`tranca_sim.strategies.user` for files named by path and installed strategies.
"""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path

NAME_RE = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")
#: the three functions of a strategy and their parameter names
FUNCTIONS = {
    "choose_draw": ("prm", "obs", "acts", "n", "rng"),
    "choose_meld": ("prm", "obs", "acts", "n", "rng"),
    "choose_discard": ("prm", "obs", "rng"),
}
#: optional functions: checked when the module defines them (a strategy without ``choose_redraw``
#: keeps the card it drew when the first-player redraw of seed 003 is offered)
OPTIONAL_FUNCTIONS = {"choose_redraw": ("prm", "obs", "rng")}


def _error(message: str):
    from tranca_sim.strategies import StrategyError

    return StrategyError(message)


def check_module(module, where: str) -> None:
    """Check ``module`` against the strategy contract (docs/strategies.md).

    ``NAME``: a name of ASCII letters, digits, ``_`` and ``-`` not taken by a
    built-in strategy; ``PARAMS``: at most ``N_PARAMS`` tuples ``(name,
    default, doc[, lowest, highest[, kind]])`` with distinct names, a finite
    default within the range and a kind of :data:`tranca_sim.strategies.PARAM_KINDS`; ``choose_draw``, ``choose_meld``,
    ``choose_discard``: numba functions (``@njit``) with the contract's
    arguments that compile for the engine's argument types and return an
    integer; the optional ``choose_redraw(prm, obs, rng)`` the same when present.  ``DOC`` is optional (the module docstring's first line).

    Raises
    ------
    StrategyError
        Naming the first problem found.
    """
    from tranca_sim.strategies import N_PARAMS, builtin_names

    name = getattr(module, "NAME", None)
    if name is None:
        raise _error(f'{where} defines no NAME (the strategy\'s name, e.g. NAME = "greedy")')
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise _error(
            f"{where}: NAME must be ASCII letters (a-z, A-Z, no accents such as ç or ã), digits, '_' or "
            f"'-', starting with a letter (it names files and generated code), got {name!r}"
        )
    if name in builtin_names():
        raise _error(f"{where}: NAME {name!r} is taken by a built-in strategy; choose another name")
    if not hasattr(module, "DOC"):
        module.DOC = ((module.__doc__ or "").strip().splitlines() or [""])[0]
    params = getattr(module, "PARAMS", None)
    if params is None:
        raise _error(
            f"{where} defines no PARAMS (a tuple of (name, default, doc, lowest, highest); () for none)"
        )
    if not isinstance(params, (tuple, list)) or len(params) > N_PARAMS:
        raise _error(f"{where}: PARAMS must be a tuple of at most {N_PARAMS} parameter tuples")
    seen = set()
    for p in params:
        _check_param(p, seen, where)
    for fn in FUNCTIONS:
        _check_function(module, fn, where)
    for fn in OPTIONAL_FUNCTIONS:
        if getattr(module, fn, None) is not None:
            _check_function(module, fn, where)


def _check_param(p, seen: set, where: str) -> None:
    shape = "(name, default, doc, lowest, highest)"
    if not isinstance(p, (tuple, list)) or len(p) < 3:
        raise _error(f"{where}: each PARAMS entry must be {shape}, got {p!r}")
    pname, default = p[0], p[1]
    if not isinstance(pname, str) or not pname.isidentifier():
        raise _error(f"{where}: parameter name {pname!r} must be an identifier")
    if pname in seen:
        raise _error(f"{where}: parameter {pname!r} is declared twice")
    seen.add(pname)
    nums = [default, *p[3:5]]
    if any(isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) for x in nums):
        raise _error(f"{where}: parameter {pname!r} needs finite numbers for default, lowest, highest")
    if len(p) >= 5 and not p[3] <= default <= p[4]:
        raise _error(f"{where}: parameter {pname!r} default {default} is outside {p[3]}..{p[4]}")
    if len(p) >= 6:
        from tranca_sim.strategies import PARAM_KINDS

        if p[5] not in PARAM_KINDS:
            raise _error(
                f"{where}: parameter {pname!r} kind must be one of {', '.join(PARAM_KINDS)}, got {p[5]!r}"
            )
        if p[5] != "real" and not float(default).is_integer():
            raise _error(f"{where}: parameter {pname!r} of kind {p[5]} needs a whole default, got {default}")


def _check_function(module, fn: str, where: str) -> None:
    from numba.core import types
    from numba.core.dispatcher import Dispatcher

    f = getattr(module, fn, None)
    if f is None:
        raise _error(f"{where} defines no {fn}({', '.join(FUNCTIONS[fn])})")
    want = FUNCTIONS.get(fn) or OPTIONAL_FUNCTIONS[fn]
    if not isinstance(f, Dispatcher):
        raise _error(f"{where}: {fn} is not a numba function; decorate it with @njit(cache=True, _nrt=False)")
    try:
        sig = inspect.signature(f.py_func)
        sig.bind(*want)
    except TypeError:
        raise _error(f"{where}: {fn} must take ({', '.join(want)})") from None
    args = _arg_types()[fn]
    try:
        f.compile(args)
    except Exception as e:  # noqa: BLE001 -- typing errors, and whatever numba raises on odd code
        raise _error(
            f"{where}: numba cannot compile {fn} for the engine's arguments: {_numba_reason(e)}"
        ) from None
    rtype = next(s.return_type for s in f.nopython_signatures if s.args == tuple(args))
    if not (isinstance(rtype, types.Integer) and rtype.signed):
        raise _error(f"{where}: {fn} must return an integer (a signed int), it returns {rtype}")


def _numba_reason(e: Exception) -> str:
    """One line from a numba compile error: the reason and the user's source line."""
    lines = [x.strip() for x in str(e).splitlines() if x.strip()]
    skip = ("Failed in ", "During: ", "- Resolution failure", "- Of which", "- argument", "[1]", "[0]")
    reason = next(
        (x for x in lines if not x.startswith(skip) and not x.startswith("File ")), type(e).__name__
    )
    # the user's line: the last source location outside numba's own files (an error inside one
    # of numba's implementations names that file first)
    spots = [m.groups() for m in re.finditer(r'File "([^"]*)", line (\d+)', str(e))]
    own = [x for x in spots if "site-packages" not in x[0] and "/numba/" not in x[0]]
    m = own[-1] if own else (spots[0] if spots else None)
    loc = f" ({Path(m[0]).name} line {m[1]})" if m else ""
    if "Only accept returning of array passed into the function as argument" in str(e):
        called = re.search(r"Function\(<built-in function (\w+)>\)", str(e))
        what = f"np.{called.group(1)}" if called else "an array"
        reason = (
            f"{what}: a strategy may not allocate arrays (np.zeros, np.empty, np.array, ...; the "
            "kernels run without numba's reference counting, _nrt=False); keep scratch values in scalars"
        )
    reason = re.sub(r"\x1b\[[0-9;]*m", "", reason)
    reason = re.sub(r"type Obs\((?:[^()]|\([^()]*\))*\)", "type Obs", reason)  # not the 8 array types
    return reason + loc


_ARG_TYPES: dict | None = None


def _arg_types() -> dict:
    """The numba argument types the kernels call each strategy function with."""
    global _ARG_TYPES
    if _ARG_TYPES is None:
        import numpy as np
        from numba import typeof, types

        from tranca_sim.engine.obs import PUB_LEN, Obs
        from tranca_sim.engine.state import new_state
        from tranca_sim.rules import R_LEN

        st = new_state()
        obs = Obs(st.hand[0], np.zeros(PUB_LEN, np.int32), st.pile, st.mh, st.mc, st.taken, st.morto,
                  np.zeros(R_LEN, np.int64))  # fmt: skip
        prm = typeof(np.zeros((4, 8))[0])
        acts = typeof(np.zeros(256, np.int32))
        rng = typeof(np.zeros((4, 4), np.uint64)[0])
        to = typeof(obs)
        _ARG_TYPES = {
            "choose_draw": (prm, to, acts, types.int64, rng),
            "choose_meld": (prm, to, acts, types.int64, rng),
            "choose_discard": (prm, to, rng),
            "choose_redraw": (prm, to, rng),
        }
    return _ARG_TYPES
