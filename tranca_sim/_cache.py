"""Numba disk cache keyed by the source of everything the kernels compile.

numba's ``cache=True`` checks only the source file of the function it
compiles, not the modules that function calls into; editing a strategy in
``strategies/`` would leave a stale kernel in the cache.  We therefore set
``numba.config.CACHE_DIR`` to ``<base>/<hash>``, where the hash covers every
``.py`` file of ``tranca_sim/`` and ``strategies/`` that defines numba kernels
(``njit``; so editing the CLI or the I/O code keeps the cache), the package version and
numba's version.  ``<base>`` is ``$TRANCA_SIM_CACHE_DIR``, else
``$NUMBA_CACHE_DIR``, else ``~/.cache/tranca-sim``.  This must run before any
kernel module is imported, hence its call in ``tranca_sim/__init__.py``.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path


def source_hash(version: str) -> str:
    import numba

    h = hashlib.sha256(f"{version}|{numba.__version__}".encode())
    root = Path(__file__).resolve().parent
    for pkg in (root, root.parent / "strategies"):
        for p in sorted(pkg.glob("*.py")):
            text = p.read_bytes()
            if b"njit" in text:
                h.update(p.name.encode())
                h.update(text)
    return h.hexdigest()[:16]


def configure_numba_cache(version: str) -> str | None:
    """Point numba's cache at a per-source-hash directory; return it (None if not writable)."""
    import numba

    base = os.environ.get("TRANCA_SIM_CACHE_DIR") or os.environ.get("NUMBA_CACHE_DIR")
    base_path = Path(base) if base else Path.home() / ".cache" / "tranca-sim"
    target = base_path / source_hash(version)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    numba.config.CACHE_DIR = str(target)
    return str(target)
