"""Strategies from outside the package: a user's own file, or an installed strategy package.

A user's file is named on the command line as ``PATH.py``, ``PATH.py:NAME``
or ``PATH.py:NAME:p=v,p=v`` (``NAME`` is the file's ``NAME``, checked when
given); an installed package declares its modules under the entry-point
group ``tranca_sim.strategies`` (``NAME = "package.module"``) and is named
like a built-in strategy.  Either way the module follows the same contract
as the built-in ones (``NAME``, ``PARAMS``, ``choose_draw``, ``choose_meld``,
``choose_discard``; docs/strategies.md) and nothing in the installed
package is written to.

How the engine calls them: the kernels call a switch on the strategy id
(``strategies/_dispatch.py`` for the built-ins).  When a process uses user
strategies, :func:`engine_dispatch` -- called by
:mod:`tranca_sim.engine.deal` when the engine is first imported -- writes a
switch over the built-ins *and* the user's modules to
``<cache>/<source hash>-u<selection hash>/tranca_sim_dispatch_<selection hash>.py``
and points numba's disk cache at that directory, so ``cache=True`` keeps
working: the selection hash covers each user file's path and content (an
edited file compiles new kernels; the built-in-only kernels are untouched).
The engine's choice is made once per process: every user strategy must be
named (:func:`tranca_sim.strategies.resolve`) before the engine is imported.  The
selection is passed to child processes (joblib workers, subprocesses) in the
environment variable ``TRANCA_SIM_USER_STRATEGIES`` so they compile, or load,
the same kernels.

The search player (``search``, module ``pimc``; :data:`tranca_sim.strategies.registry.ON_DEMAND`) is
compiled into a process's engine only when the process names it (issue 9: it is about a third of
the first compile).  Naming it with :func:`tranca_sim.strategies.resolve` before the engine is imported (what
every command and lab function does with the strategies it will play), calling
:func:`include_search`, or setting ``TRANCA_SIM_SEARCH=1`` selects the engine "with search":
``strategies/_dispatch.py`` in ``<cache>/<source hash>-search`` (``...-u<hash>-search`` with user
strategies).  Otherwise the engine is the lean one (``strategies/_dispatch_lean.py``, no branch
for the search player).  The choice is passed to child processes in ``TRANCA_SIM_SEARCH``.  Playing
``search`` in a process whose engine was loaded lean raises :class:`tranca_sim.strategies.StrategyError`
saying what to do (:func:`sid_of`), never a wrong answer.

Strategy ids: the built-ins keep theirs (their place in
:data:`tranca_sim.strategies.registry.MODULES`); user strategies follow, sorted by
module name.  Ids are per process and never stored in an output.

Every problem with a user's module (missing file, syntax error, missing
``NAME``/``PARAMS``/function, a function numba does not compile for the
engine's argument types, a name taken by a built-in; the contract is checked
by :mod:`tranca_sim.strategies.contract`) raises :class:`tranca_sim.strategies.StrategyError` with
a one-line message.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

from tranca_sim.strategies.contract import check_module
from tranca_sim.strategies.user_files import (  # noqa: F401  (re-exported: named from this module)
    ENTRY_POINT_GROUP,
    _error,
    _exec_file,
    _module_name,
    _package_sha,
    _read,
    entry_points,
    sha256_of,
    split_file_spec,
)
from tranca_sim.strategies.user_switch import (  # noqa: F401  (re-exported: named from this module)
    _user_dispatch,
    prune_user_caches,
    render,
    selection_hash,
)

ENV = "TRANCA_SIM_USER_STRATEGIES"
#: "1": this process's engine (and its child processes') compiles the search player in
SEARCH_ENV = "TRANCA_SIM_SEARCH"


@dataclass(frozen=True)
class Source:
    """Where a user strategy's module comes from.

    ``module`` its name in ``sys.modules``; ``file`` the absolute path of its
    source; ``sha256`` of that file's bytes when it was loaded;
    ``entry_point`` the ``package.module`` of an installed strategy, or
    ``""`` for a file named by path.
    """

    module: str
    file: str
    sha256: str
    entry_point: str = ""


_sources: dict[str, Source] = {}  # module name -> Source: this process's user strategies
_frozen: tuple[Source, ...] | None = None  # fixed when the engine loads
_frozen_search: bool | None = None  # whether the loaded engine has the search player (ON_DEMAND)


# ---- naming a strategy -----------------------------------------------------------


def load_file(path_text: str, expect_sha: str | None = None):
    """Load (once per process) and check the strategy module in file ``path_text``.

    Returns ``(module, Source)``.  ``expect_sha``: the file must still have
    this sha256 (a run being replayed, a child process).

    Raises
    ------
    StrategyError
        For a missing or unreadable file, a file that changed since it was
        loaded in this process (or since ``expect_sha``), an error while
        importing it, a module that breaks the strategy contract
        (:func:`check_module`), or a new file once the engine is loaded
        (see the module docstring).
    """
    shown = path_text
    file, sha = _read(path_text)
    if expect_sha and sha != expect_sha:
        raise _error(
            f"strategy file {shown!r} has changed (sha256 {sha[:12]}..., expected {expect_sha[:12]}...): "
            "it is not the file the run was played with; restore that version"
        )
    name = _module_name(file)
    known = _sources.get(name)
    if known is not None:
        if known.sha256 != sha:
            raise _error(
                f"strategy file {shown!r} changed after this process loaded it; "
                "run again in a new process to use the new version"
            )
        return sys.modules[name], known
    _check_not_frozen(shown)
    module = _exec_file(name, file, shown)
    source = Source(name, str(file), sha)
    try:
        check_module(module, f"strategy file {shown!r}")
    except Exception:
        sys.modules.pop(name, None)
        raise
    _register(source, module)
    return module, source


def check_file(path_text: str):
    """Load the file ``path_text`` apart (not for play, the engine may already be loaded) and
    check it against the strategy contract; return the module.

    Raises
    ------
    StrategyError
        As :func:`load_file`.
    """
    file, sha = _read(path_text)
    name = _module_name(file)  # the name it plays under: numba's cache restores code by module name
    known = _sources.get(name)
    if known is not None and known.sha256 == sha:
        return sys.modules[name]
    if name in sys.modules:
        raise _error(f"strategy file {path_text!r} changed after this process loaded it")
    module = _exec_file(name, file, path_text)
    try:
        check_module(module, f"strategy file {path_text!r}")
    finally:
        sys.modules.pop(name, None)
    return module


def load_entry_point(name: str, expect_sha: str | None = None, register: bool = True):
    """Load and check the installed strategy ``name``; ``(module, Source)`` or None if no
    entry point has that name.  ``register=False`` only inspects it (for listings): the
    engine of the process will not include it.

    Raises
    ------
    StrategyError
        As :func:`load_file`.
    """
    ep = entry_points().get(name)
    if ep is None:
        return None
    modname = ep.value.partition(":")[0].strip()
    where = f"installed strategy {name!r} ({modname})"
    known = _sources.get(modname)
    if known is None and register:
        _check_not_frozen(f"{name} ({modname})")
    try:
        module = importlib.import_module(modname)
    except (Exception, SystemExit) as e:  # noqa: BLE001 -- anything the package raises, in one line
        raise _error(f"{where} cannot be imported: {type(e).__name__}: {e}") from None
    file = getattr(module, "__file__", None)
    if not file:
        raise _error(f"{where} has no source file")
    sha = _package_sha(modname, file)
    if expect_sha and sha != expect_sha:
        raise _error(
            f"{where} has changed since the run (sha256 {sha[:12]}..., expected {expect_sha[:12]}...)"
        )
    if known is not None:
        return module, known
    check_module(module, where)
    if module.NAME != name:
        raise _error(f"{where} says NAME = {module.NAME!r}; the entry point must be named after it")
    source = Source(modname, str(Path(file).resolve()), sha, modname)
    if register:
        _register(source, module)
    return module, source


def _check_not_frozen(what: str) -> None:
    if _frozen is not None:
        have = ", ".join(s.file for s in _frozen) or "none"
        raise _error(
            f"strategy {what}: the engine of this process is already loaded (user strategies: {have}); "
            "name every user strategy before the first simulation, or run in a new process"
        )


def _register(source: Source, module) -> None:
    from tranca_sim.strategies import builtin_names

    for other in _sources.values():
        if sys.modules[other.module].NAME == module.NAME:
            raise _error(
                f"two strategies are named {module.NAME!r}: {other.file} and {source.file}; rename one NAME"
            )
    if module.NAME in builtin_names():
        raise _error(f"{source.file}: NAME {module.NAME!r} is taken by a built-in strategy")
    _sources[source.module] = source
    os.environ[ENV] = json.dumps([asdict(s) for s in sorted(_sources.values(), key=lambda s: s.module)])


def loaded_modules() -> set[str]:
    """Module names of the user strategies loaded in this process."""
    return set(_sources)


def loaded() -> list:
    """The user strategy modules loaded in this process."""
    return [sys.modules[m] for m in _sources]


def module_for(name: str):
    """The loaded user module ``name`` (used by the generated dispatch)."""
    return sys.modules[name]


# ---- the engine's switch ---------------------------------------------------------------


def selection() -> tuple[Source, ...]:
    """The user strategies of this process, in id order (fixed once the engine loads)."""
    if _frozen is not None:
        return _frozen
    return tuple(sorted(_sources.values(), key=lambda s: s.module))


def sid_of(module: str) -> int:
    """The kernel id of the strategy in ``module`` (a built-in's registry name, e.g.
    ``"basic"``, or a user module's name).

    Raises
    ------
    StrategyError
        For a user module that is not in this process's engine, or the search player when this
        process's engine was loaded without it (module docstring).
    """
    from tranca_sim.strategies.registry import MODULES, ON_DEMAND

    if module in MODULES:
        if module in ON_DEMAND and _frozen_search is False:
            raise _error(_lean_engine_message(module))
        return MODULES.index(module)
    order = [s.module for s in selection()]
    if module not in order:
        raise _error(f"strategy module {module} is not loaded in this process's engine")
    return len(MODULES) + order.index(module)


def _from_environment() -> None:
    """Load the user strategies a parent process passed in ``TRANCA_SIM_USER_STRATEGIES``."""
    text = os.environ.get(ENV)
    if not text:
        return
    try:
        items = [Source(**d) for d in json.loads(text)]
    except (ValueError, TypeError) as e:
        raise _error(f"environment variable {ENV} is not a list of strategy sources: {e}") from None
    for s in items:
        if s.module in _sources:
            continue
        if s.entry_point:
            name = next(
                (n for n, ep in entry_points().items() if ep.value.partition(":")[0] == s.module), None
            )
            if name is None or load_entry_point(name, s.sha256) is None:
                raise _error(f"{ENV}: no installed strategy in module {s.module}")
        else:
            load_file(s.file, s.sha256)


def engine_dispatch():
    """``(choose_draw, choose_meld, choose_discard, choose_redraw)`` switches for the engine; called once,
    when :mod:`tranca_sim.engine.deal` is imported.

    Without user strategies: those of ``strategies/_dispatch_lean.py``, or with the search
    player (:func:`search_wanted`) of ``strategies/_dispatch.py``, numba's cache moved to
    ``<cache>/<source hash>-search``.  With them: a switch generated into the cache directory
    (module docstring), after pointing numba's cache there.

    Raises
    ------
    StrategyError
        If a strategy passed by a parent process cannot be loaded, or no
        writable cache directory exists.
    """
    global _frozen, _frozen_search
    if _frozen is None:
        _from_environment()
        _frozen_search = search_wanted()
        _frozen = selection()
    if _frozen:
        d = _user_dispatch(_frozen, _frozen_search)
    elif _frozen_search:
        from tranca_sim import _cache

        _cache.use_variant("search")  # before the dispatch and the kernels are defined
        from tranca_sim.strategies import _dispatch as d
    else:
        from tranca_sim.strategies import _dispatch_lean as d
    return d.choose_draw, d.choose_meld, d.choose_discard, d.choose_redraw


# ---- the search player: compiled in on demand --------------------------------------------


def search_wanted() -> bool:
    """Whether this process's engine has (or, not loaded yet, will have) the search player:
    asked for by :func:`include_search` (which :func:`tranca_sim.strategies.resolve` calls for ``search``) or
    by ``TRANCA_SIM_SEARCH=1`` in the environment.

    Raises
    ------
    StrategyError
        For a ``TRANCA_SIM_SEARCH`` other than empty, 0 or 1.
    """
    if _frozen_search is not None:
        return _frozen_search
    text = os.environ.get(SEARCH_ENV, "").strip()
    if text not in ("", "0", "1"):
        raise _error(f"environment variable {SEARCH_ENV} must be 0 or 1, got {text!r}")
    return text == "1"


def include_search(strict: bool = True) -> bool:
    """Compile the search player (``search``) into this process's engine, and its child
    processes' (``TRANCA_SIM_SEARCH=1``).  Call it, or name ``search`` with
    :func:`tranca_sim.strategies.resolve`, before the first simulation.  Returns whether the engine has it.

    ``strict=False`` (what :func:`tranca_sim.strategies.resolve` uses: naming a strategy is not playing it)
    returns False instead of raising when the engine is already loaded without it.

    Raises
    ------
    StrategyError
        With ``strict``, if this process's engine is already loaded without the search player.
    """
    if _frozen_search is not None:
        if not _frozen_search and strict:
            raise _error(_lean_engine_message("pimc"))
        return _frozen_search
    os.environ[SEARCH_ENV] = "1"
    return True


def _lean_engine_message(module: str) -> str:
    name = importlib.import_module(f"tranca_sim.strategies.{module}").NAME
    return (
        f"strategy {name!r} is not compiled into the engine this process has loaded (the engine is "
        f"compiled without it unless the process names {name!r} before its first simulation); "
        f"run it in a new process: name {name!r} among the strategies before the first simulation "
        f"(Python: tranca_sim.strategies.resolve({name!r}) or tranca_sim.strategies.user.include_search() first), "
        f"or set {SEARCH_ENV}=1 in the environment"
    )
