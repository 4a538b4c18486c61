"""Numba disk cache keyed by the source of everything the kernels compile.

numba's ``cache=True`` checks only the source file of the function it
compiles, not the modules that function calls into; editing a strategy in
``strategies/`` would leave a stale kernel in the cache.  We therefore point
numba's cache at ``<base>/<hash>``, where the hash covers numba's optimisation level (below) and
every ``.py`` file under ``tranca_sim/`` and ``strategies/`` that defines numba kernels (``njit``;
so editing the CLI or the I/O code keeps the cache), the parameter files of
``tuned`` (``strategies/tuned/*.toml``: the search player's rollouts compile
them in as constants), the package version and numba's version.  ``<base>`` is ``$TRANCA_SIM_CACHE_DIR``, else
``$NUMBA_CACHE_DIR``, else ``~/.cache/tranca-sim``; if it cannot be created,
a directory under the system temporary directory is used, so the stale-cache
guard holds even then.

A process that plays user strategies (strategies/user.py) moves the cache to
``<base>/<hash>-u<selection hash>`` with :func:`use_variant` before the
engine is imported: kernels compiled with the user's modules inlined never
mix with the built-in ones, and an edited user file gets new kernels.

Optimisation level (issue 9): numba compiles at ``NUMBA_OPT`` (default 3); numba's
``CPUCodeLibrary.finalize`` runs the whole module optimisation again over every callee it links
at each level of the call tree, so the level is most of the first compile's cost.  Unless the user
set ``NUMBA_OPT``, this module sets it to :data:`OPT_LEVEL` (1) before numba is imported:
measured, level 1 compiles the engine in about 23% less CPU time than 3 at the same speed
(benchmarks/README.md "Engine speed (issue 9)").  If numba was imported before ``tranca_sim``, the
level is left as numba read it (``NUMBA_OPT``, else numba's 3): numba reads it when it is imported.
numba's own cache does not key on the level, so the hash below does (the level in effect), and
kernels compiled at another level are never loaded.

This runs from ``tranca_sim/__init__.py`` before any kernel module is
imported.  It does not import numba itself (importing the package stays
cheap): when numba is not loaded yet it sets ``NUMBA_CACHE_DIR`` for it, and
when it is, ``numba.config.CACHE_DIR``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import tempfile
import warnings
from importlib import metadata
from pathlib import Path


def _numba_version() -> str:
    try:
        return metadata.version("numba")
    except metadata.PackageNotFoundError:
        return "unknown"


#: numba's optimisation level for the package's kernels when the user has not set ``NUMBA_OPT``
OPT_LEVEL = "1"


def configure_opt_level() -> str:
    """Set ``NUMBA_OPT`` to :data:`OPT_LEVEL` unless the user set it or numba is already imported;
    return the level in effect (what numba compiles at: ``"0"`` to ``"3"`` or ``"max"``)."""
    if "numba" in sys.modules:
        from numba.core import config

        return "max" if getattr(config.OPT, "is_opt_max", False) else str(int(config.OPT))
    os.environ.setdefault("NUMBA_OPT", OPT_LEVEL)  # child processes inherit it
    return os.environ["NUMBA_OPT"].strip().lower()


def source_hash(version: str, opt: str = "") -> str:
    """16 hex digits over the kernel sources, the package version, numba's version and the
    optimisation level ``opt`` (numba's cache does not key on it)."""
    h = hashlib.sha256(f"{version}|{_numba_version()}|opt={opt}".encode())
    root = Path(__file__).resolve().parent
    for pkg in (root, root.parent / "strategies"):
        for p in sorted(pkg.rglob("*.py")):
            text = p.read_bytes()
            if b"njit" in text:
                h.update(p.relative_to(pkg).as_posix().encode())
                h.update(text)
    for p in sorted((root.parent / "strategies" / "tuned").glob("*.toml")):
        h.update(p.name.encode())  # tuned parameters: numba constants of the search's rollouts
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _usable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(d, os.W_OK | os.X_OK)


_chosen: list[tuple[Path, str]] = []  # (base, digest) picked by configure_numba_cache


def _point_numba_at(target: Path) -> None:
    if "numba" in sys.modules:
        import numba

        numba.config.CACHE_DIR = str(target)
        # numba re-reads NUMBA_* variables when one changes; keep them in step
        if "NUMBA_CACHE_DIR" in os.environ:
            os.environ["NUMBA_CACHE_DIR"] = str(target)
    else:
        os.environ["NUMBA_CACHE_DIR"] = str(target)


def use_variant(tag: str) -> str | None:
    """Point numba's cache at ``<base>/<source hash>-<tag>`` and return it (None if it
    cannot be created).  Call before the modules whose kernels depend on ``tag`` are imported:
    numba fixes a function's cache directory when it is decorated."""
    if not _chosen:
        return None
    base, digest = _chosen[-1]
    target = base / f"{digest}-{tag}"
    if not _usable(target):
        return None
    _point_numba_at(target)
    return str(target)


@contextlib.contextmanager
def functions_cached_in(sub: str):
    """While the block runs, numba functions being *defined* are cached in
    ``<base>/<source hash>/<sub>`` (numba fixes a function's cache directory when it is
    decorated).  Used for a user's strategy module loaded by path: numba restores cached code
    by module name, so its functions must not share a cache entry with the same file imported
    under its own name."""
    if not _chosen:
        yield
        return
    base, digest = _chosen[-1]
    target = base / digest / sub
    if not _usable(target):
        yield
        return
    import numba

    before_env = os.environ.get("NUMBA_CACHE_DIR")
    before = numba.config.CACHE_DIR
    _point_numba_at(target)
    try:
        yield
    finally:
        numba.config.CACHE_DIR = before
        if before_env is not None:
            os.environ["NUMBA_CACHE_DIR"] = before_env


def configure_numba_cache(version: str) -> str | None:
    """Point numba's cache at a per-source-hash directory and return it.

    Returns None (with a warning) only if neither the base directory nor the
    temporary directory can hold it; numba then caches beside the sources.
    """
    base = os.environ.get("TRANCA_SIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    digest = source_hash(version, configure_opt_level())
    candidates = [Path(base) if base else Path.home() / ".cache" / "tranca-sim"]
    candidates.append(Path(tempfile.gettempdir()) / f"tranca-sim-cache-{os.getuid()}")
    for cand in candidates:
        target = cand / digest
        if _usable(target):
            # child processes (joblib workers, subprocesses) find the same directory
            os.environ.setdefault("TRANCA_SIM_CACHE_DIR", str(candidates[0]))
            _chosen.append((cand, digest))
            _point_numba_at(target)
            return str(target)
    warnings.warn(
        f"tranca-sim: no writable numba cache directory ({candidates[0]}); kernels are cached beside the sources",
        stacklevel=2,
    )
    return None
