"""tranca-sim: a Monte Carlo strategy lab for Tranca and Buraco.

Public entry points: :func:`tranca_sim.engine.simulate_chunk`,
:func:`tranca_sim.rules.get_preset`, :func:`tranca_sim.io.load_run`.

Importing the package points numba's on-disk cache at a directory keyed by a
hash of the engine's and strategies' source (see :mod:`tranca_sim._cache`),
because numba's own cache does not notice edits to the modules a kernel calls
into (a changed strategy would otherwise run stale machine code).
"""

from ._cache import configure_numba_cache

__version__ = "0.1.0"

NUMBA_CACHE_DIR = configure_numba_cache(__version__)
