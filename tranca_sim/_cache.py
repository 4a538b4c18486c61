"""Numba disk cache keyed by the source of everything the kernels compile.

numba's ``cache=True`` checks only the source file of the function it
compiles, not the modules that function calls into; editing a strategy in
``strategies/`` would leave a stale kernel in the cache.  We therefore point
numba's cache at ``<base>/<hash>``, where the hash covers every ``.py`` file
under ``tranca_sim/`` and ``strategies/`` that defines numba kernels (``njit``;
so editing the CLI or the I/O code keeps the cache), the package version and
numba's version.  ``<base>`` is ``$TRANCA_SIM_CACHE_DIR``, else
``$NUMBA_CACHE_DIR``, else ``~/.cache/tranca-sim``; if it cannot be created,
a directory under the system temporary directory is used, so the stale-cache
guard holds even then.

This runs from ``tranca_sim/__init__.py`` before any kernel module is
imported.  It does not import numba itself (importing the package stays
cheap): when numba is not loaded yet it sets ``NUMBA_CACHE_DIR`` for it, and
when it is, ``numba.config.CACHE_DIR``.
"""

from __future__ import annotations

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


def source_hash(version: str) -> str:
    """16 hex digits over the kernel sources, the package version and numba's version."""
    h = hashlib.sha256(f"{version}|{_numba_version()}".encode())
    root = Path(__file__).resolve().parent
    for pkg in (root, root.parent / "strategies"):
        for p in sorted(pkg.rglob("*.py")):
            text = p.read_bytes()
            if b"njit" in text:
                h.update(p.relative_to(pkg).as_posix().encode())
                h.update(text)
    return h.hexdigest()[:16]


def _usable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError:
        return False
    return os.access(d, os.W_OK | os.X_OK)


def configure_numba_cache(version: str) -> str | None:
    """Point numba's cache at a per-source-hash directory and return it.

    Returns None (with a warning) only if neither the base directory nor the
    temporary directory can hold it; numba then caches beside the sources.
    """
    base = os.environ.get("TRANCA_SIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    digest = source_hash(version)
    candidates = [Path(base) if base else Path.home() / ".cache" / "tranca-sim"]
    candidates.append(Path(tempfile.gettempdir()) / f"tranca-sim-cache-{os.getuid()}")
    for cand in candidates:
        target = cand / digest
        if _usable(target):
            # child processes (joblib workers, subprocesses) find the same directory
            os.environ.setdefault("TRANCA_SIM_CACHE_DIR", str(candidates[0]))
            if "numba" in sys.modules:
                import numba

                numba.config.CACHE_DIR = str(target)
            else:
                os.environ["NUMBA_CACHE_DIR"] = str(target)
            return str(target)
    warnings.warn(
        f"tranca-sim: no writable numba cache directory ({candidates[0]}); kernels are cached beside the sources",
        stacklevel=2,
    )
    return None
