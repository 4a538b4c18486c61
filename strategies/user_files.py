"""A user's strategy file or installed strategy package as text and code: how it is named on the
command line, where it is read from, its sha256 and stable module name, and executing it with
every problem said in one line.  Which of them this process plays: :mod:`tranca_sim.strategies.user`."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import re
import sys
import traceback
from pathlib import Path

ENTRY_POINT_GROUP = "tranca_sim.strategies"
_FILE_SPEC = re.compile(r"(?P<path>.*?\.py)\s*(?::(?P<tail>.*))?", re.DOTALL)


def _error(message: str):
    from tranca_sim.strategies import StrategyError

    return StrategyError(message)


def sha256_of(path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def split_file_spec(text: str) -> tuple[str, str | None, str | None] | None:
    """``"PATH.py[:NAME][:p=v,...]"`` -> ``(PATH.py, NAME or None, "p=v,..." or None)``;
    None if ``text`` does not name a ``.py`` file.  ``PATH.py:p=v`` (no name) is accepted.

    Raises
    ------
    StrategyError
        For an empty name or parameter list after a ``:``.
    """
    m = _FILE_SPEC.fullmatch(text.strip())
    if not m:
        return None
    path, tail = m.group("path").strip(), m.group("tail")
    if tail is None:
        return path, None, None
    name, colon, params = tail.partition(":")
    if not colon and "=" in name:
        name, params = "", name
    name = name.strip()
    if (colon or not tail.strip()) and not name:
        raise _error(
            f"strategy {text.strip()!r}: give the strategy's name after '{path}:' (PATH.py:NAME:p=v,...)"
        )
    if colon and not params.strip():
        raise _error(f"strategy {text.strip()!r}: nothing after ':'; give name=value pairs or no ':'")
    return path, name or None, params if params else None


def _module_name(file: Path) -> str:
    """A stable module name for a user's file: its stem and a hash of its absolute path."""
    stem = re.sub(r"\W", "_", file.stem) or "strategy"
    digest = hashlib.sha256(str(file).encode()).hexdigest()[:10]
    return f"tranca_sim_user_{stem}_{digest}"


def _read(path_text: str) -> tuple[Path, str]:
    """(absolute file, sha256 of its bytes) of a user's strategy file."""
    p = Path(os.path.expanduser(path_text))
    shown = repr(path_text)
    try:
        file = p.resolve(strict=True)
        if file.is_dir():
            raise _error(f"strategy file {shown} is a directory")
        if not file.is_file():
            raise _error(f"strategy file {shown} is not a regular file")
        data = file.read_bytes()
    except FileNotFoundError:
        where = "" if p.is_absolute() else f" (looked in {Path.cwd()})"
        raise _error(f"strategy file {shown} not found{where}") from None
    except OSError as e:
        raise _error(f"cannot read strategy file {shown}: {e.strerror or e}") from None
    return file, hashlib.sha256(data).hexdigest()


def _exec_file(name: str, file: Path, shown: str):
    spec = importlib.util.spec_from_file_location(name, file)
    if spec is None or spec.loader is None:
        raise _error(f"strategy file {shown!r} cannot be imported (is it a Python source file?)")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    from tranca_sim._cache import functions_cached_in
    from tranca_sim.strategies import builtin_names

    # what a strategy may import keeps its own cache directory (only the module's functions move)
    importlib.import_module("tranca_sim.engine.melds")
    importlib.import_module("tranca_sim.engine.rng")
    builtin_names()
    try:
        with functions_cached_in(f"user/{name}"):
            spec.loader.exec_module(module)
    except SyntaxError as e:
        sys.modules.pop(name, None)
        if "null bytes" in str(e.msg):  # a binary file: Python gives no line for it
            raise _error(
                f"strategy file {shown!r} is not Python source text: it contains NUL bytes "
                "(a binary or damaged file?)"
            ) from None
        where = f" line {e.lineno}" if e.lineno else ""
        raise _error(f"strategy file {shown!r}{where}: {e.msg}") from None
    except SystemExit as e:  # sys.exit() or exit() on load: not the user's exit status for tranca-sim
        sys.modules.pop(name, None)
        line = [f.lineno for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == file]
        where = f" line {line[-1]}" if line else ""
        raise _error(
            f"strategy file {shown!r}{where}: it exits while being loaded (SystemExit: {e.code!r}); "
            "a strategy file should only define its strategy"
        ) from None
    except Exception as e:  # noqa: BLE001 -- anything the user's module raises is reported in one line
        sys.modules.pop(name, None)
        line = [f.lineno for f in traceback.extract_tb(e.__traceback__) if Path(f.filename) == file]
        where = f" line {line[-1]}" if line else ""
        raise _error(f"strategy file {shown!r}{where}: {type(e).__name__}: {e}") from None
    return module


def entry_points() -> dict:
    """Installed strategies: ``{name: importlib.metadata.EntryPoint}`` of the group
    ``tranca_sim.strategies``."""
    from importlib.metadata import entry_points as eps

    return {ep.name: ep for ep in eps(group=ENTRY_POINT_GROUP)}


def _package_sha(modname: str, file: str) -> str:
    """sha256 of an installed strategy's source: every ``.py`` file of its top-level package
    (a helper module edited alone changes it too), or its one file."""
    top = sys.modules.get(modname.partition(".")[0])
    roots = list(getattr(top, "__path__", ())) if "." in modname else []
    if not roots:
        return sha256_of(file)
    h = hashlib.sha256()
    for root in roots:
        for p in sorted(Path(root).rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode() + b"\0" + p.read_bytes())
    return h.hexdigest()
