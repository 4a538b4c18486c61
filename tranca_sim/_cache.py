"""Numba disk cache keyed by the source of everything the kernels compile.

numba's ``cache=True`` checks only the source file of the function it
compiles, not the modules that function calls into; editing a strategy in
``strategies/`` would leave a stale kernel in the cache.  We therefore point
numba's cache at ``<base>/<hash>``, where the hash covers numba's optimisation level (below) and
every ``.py`` file under ``tranca_sim/`` and ``strategies/`` (:func:`strategies_dir`) that defines numba kernels (``njit``;
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
(benchmarks/LOG.md "Engine speed (issue 9)").  If numba was imported before ``tranca_sim``, the
level is left as numba read it (``NUMBA_OPT``, else numba's 3): numba reads it when it is imported.
numba's own cache does not key on the level, so the hash below does (the level in effect), and
kernels compiled at another level are never loaded.

Old directories (:func:`prune_engine_caches`): an edit of the kernels or an upgrade of the package
or numba makes a new ``<hash>`` directory (tens of MB of kernels), and the old one is never loaded
again by this copy of the package, though another checkout or version sharing the base may still
use it.  At most once an hour (a stamp file ``.tranca-sim-pruned`` in the base) a process removes
from its base the directories of *other* source hashes that the package made and that are
either unused for :data:`MAX_IDLE_DAYS` days (30), or unused for :data:`SAFE_IDLE_S` seconds (an
hour) and not among the :data:`KEEP_OTHERS` (3) most recently used other hashes.  So up to three
other checkouts or versions keep their kernels while they are used at least monthly, and a run
never loses its directory while it starts up or compiles.  "Used" is the newest of: the marker file
:data:`MARKER` in the directory (touched by every process that points numba at it), the times numba
wrote any file in it, and the access times of numba's index files (``.nbi``, read on every load,
where the file system records access times).  "The package made it": its name is
``<16 hex digits>`` with ``-search`` or ``-u<12 hex digits>[-search]`` or nothing after it, it is
a real directory (not a link), and it holds the marker or only numba's cache files (``.nbi``,
``.nbc``), generated user-strategy switches and their ``__pycache__``.  The current hash's
directories are never touched (its stale user-strategy ones are pruned by
``tranca_sim.strategies.user.prune_user_caches``), nor anything else in the base.  A directory is first renamed
aside, then deleted; whatever cannot be renamed or deleted is left, silently.  A process that
still loads from a directory being removed finds no kernels and compiles them again (numba
recreates the directory).

This runs from ``tranca_sim/__init__.py`` before any kernel module is
imported.  It does not import numba itself (importing the package stays
cheap): when numba is not loaded yet it sets ``NUMBA_CACHE_DIR`` for it, and
when it is, ``numba.config.CACHE_DIR``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
import time
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


def strategies_dir() -> Path:
    """The folder of :mod:`tranca_sim.strategies`: ``tranca_sim/strategies/`` where a wheel installed
    it, else the repository's ``strategies/`` beside ``tranca_sim/`` (pyproject.toml maps it there)."""
    root = Path(__file__).resolve().parent
    inside = root / "strategies"
    return inside if inside.is_dir() else root.parent / "strategies"


def source_hash(version: str, opt: str = "") -> str:
    """16 hex digits over the kernel sources, the package version, numba's version and the
    optimisation level ``opt`` (numba's cache does not key on it)."""
    h = hashlib.sha256(f"{version}|{_numba_version()}|opt={opt}".encode())
    root = Path(__file__).resolve().parent
    strategies = strategies_dir()
    for pkg in (root,) if strategies.parent == root else (root, strategies):
        for p in sorted(pkg.rglob("*.py")):
            text = p.read_bytes()
            if b"njit" in text:
                h.update(p.relative_to(pkg).as_posix().encode())
                h.update(text)
    for p in sorted((strategies / "tuned").glob("*.toml")):
        h.update(p.name.encode())  # tuned parameters: numba constants of the search's rollouts
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


#: the file in each cache directory the package made; its mtime is when a process last pointed
#: numba at the directory
MARKER = "tranca-sim-cache.txt"
_MARKER_TEXT = "made by tranca-sim for numba's cache of its kernels; this file's time is the last use\n"
#: other source hashes whose directories are kept while used within MAX_IDLE_DAYS
KEEP_OTHERS = 3
#: a directory of another source hash unused for this many days is removed
MAX_IDLE_DAYS = 30
#: no directory used within this many seconds is removed (a process may be loading or compiling)
SAFE_IDLE_S = 3600
#: a process prunes its base at most once in this many seconds (the stamp file below)
PRUNE_EVERY_S = 3600
_STAMP = ".tranca-sim-pruned"
_ASIDE = ".tranca-sim-removing-"
#: the names of the package's directories: <source hash>[-search | -u<selection hash>[-search]]
_OURS = re.compile(r"^([0-9a-f]{16})(?:-search|-u[0-9a-f]{12}(?:-search)?)?$")
_NUMBA_SUB = re.compile(r"^.+_[0-9a-f]{40}$")  # numba's directory for one source directory
_NUMBA_FILE = re.compile(r"^.+\.(?:nbi|nbc)(?:\.tmp\.[0-9a-f]+)?$")
_SWITCH = re.compile(r"^\.?tranca_sim_dispatch_\w+\.py(?:\.\d+\.tmp)?$")  # strategies/user.py


def _mark_used(d: Path) -> None:
    """Create or touch ``d``'s :data:`MARKER` (its mtime: this use); errors are ignored."""
    m = d / MARKER
    try:
        try:
            os.utime(m)
        except FileNotFoundError:
            m.write_text(_MARKER_TEXT, encoding="utf-8")
    except OSError:
        pass


def _last_used(d: Path) -> float:
    """The newest of the marker's mtime, the mtimes of the directories and files in ``d`` (numba
    writes) and the access times of numba's index files (``.nbi``); 0.0 if none can be read.
    Directories' access times are not used: listing one (as this function does) updates it."""
    newest = 0.0
    for root, dirs, files in os.walk(d):
        try:
            newest = max(newest, os.stat(root).st_mtime)
        except OSError:
            pass
        for f in files:
            try:
                st = os.lstat(os.path.join(root, f))
            except OSError:
                continue
            newest = max(newest, st.st_mtime, st.st_atime if f.endswith(".nbi") else 0.0)
    return newest


def _made_by_package(d: Path) -> bool:
    """Whether ``d`` is a cache directory of this package: its name (:data:`_OURS`), a real
    directory, and either the :data:`MARKER` file or nothing but what numba and strategies/user.py
    write into such a directory (no link anywhere)."""
    if not _OURS.match(d.name) or d.is_symlink() or not d.is_dir():
        return False
    if (d / MARKER).is_file() and not (d / MARKER).is_symlink():
        return True
    for root, dirs, files in os.walk(d):
        rel = Path(root).relative_to(d).parts
        for name in dirs:
            if os.path.islink(os.path.join(root, name)):
                return False
            # top: numba's subdirectories, "user" (functions_cached_in) and __pycache__
            if not rel and not (_NUMBA_SUB.match(name) or name in ("user", "__pycache__")):
                return False
        for name in files:
            path = os.path.join(root, name)
            if os.path.islink(path):
                return False
            if rel == ("__pycache__",):
                ok = name.startswith("tranca_sim_dispatch_") and name.endswith(".pyc")
            elif not rel:
                ok = bool(_SWITCH.match(name))
            else:
                ok = bool(_NUMBA_FILE.match(name))
            if not ok:
                return False
    return True


def prune_engine_caches(base: str | os.PathLike, keep: str, now: float | None = None) -> list[Path]:
    """Remove the cache directories of other source hashes than ``keep`` (16 hex digits) from
    ``base`` that this package made and that are stale; the policy is in the module's docstring:
    removed when unused for :data:`MAX_IDLE_DAYS` days, or unused for :data:`SAFE_IDLE_S`
    seconds and not among the :data:`KEEP_OTHERS` most recently used other hashes.

    Parameters
    ----------
    base : path
        The cache base (``$TRANCA_SIM_CACHE_DIR`` or its default), holding ``<hash>*``
        directories.
    keep : str
        The current source hash: its directories are never touched.
    now : float, optional
        The time (seconds since the epoch) to judge by; default ``time.time()``.

    Returns
    -------
    list of pathlib.Path
        The directories removed (as they were named before being set aside). Nothing is raised:
        a directory that cannot be read, renamed or deleted is left.
    """
    base = Path(base)
    now = time.time() if now is None else now
    try:
        entries = list(os.scandir(base))
    except OSError:
        return []
    families: dict[str, list[Path]] = {}
    for e in entries:
        m = _OURS.match(e.name)
        if m and m.group(1) != keep:
            families.setdefault(m.group(1), []).append(base / e.name)
        elif e.name.startswith(_ASIDE):  # a removal cut short: finish it once it is old
            with contextlib.suppress(OSError):
                if now - e.stat(follow_symlinks=False).st_mtime > SAFE_IDLE_S and e.is_dir(follow_symlinks=False):
                    shutil.rmtree(e.path, ignore_errors=True)
    used = {h: max(_last_used(d) for d in ds) for h, ds in families.items()}
    ranked = sorted(used, key=lambda h: (-used[h], h))
    removed = []
    for rank, h in enumerate(ranked):
        idle = now - used[h]
        if not (idle > MAX_IDLE_DAYS * 86400 or (rank >= KEEP_OTHERS and idle > SAFE_IDLE_S)):
            continue
        for d in sorted(families[h]):
            if not _made_by_package(d):
                continue
            aside = base / f"{_ASIDE}{d.name}-{os.getpid()}"
            try:
                os.rename(d, aside)
            except OSError:
                continue
            shutil.rmtree(aside, ignore_errors=True)
            removed.append(d)
    return removed


def _prune_now(base: Path, keep: str) -> None:
    """:func:`prune_engine_caches` on ``base`` unless a process did in the last
    :data:`PRUNE_EVERY_S` seconds (the stamp file); nothing is raised."""
    stamp = base / _STAMP
    try:
        if time.time() - stamp.stat().st_mtime < PRUNE_EVERY_S:
            return
    except FileNotFoundError:
        pass
    except OSError:
        return
    try:
        stamp.write_text("the last time tranca-sim pruned this cache base (tranca_sim/_cache.py)\n")
    except OSError:
        return
    try:
        prune_engine_caches(base, keep)
    except Exception:  # noqa: BLE001 (pruning is housekeeping: never stop a run for it)
        pass


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
    _mark_used(target)
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
    """Point numba's cache at a per-source-hash directory, mark it used and return it; at most
    once an hour, first remove the stale directories of other sources (:func:`prune_engine_caches`).

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
            _mark_used(target)
            _prune_now(cand, digest)
            _point_numba_at(target)
            return str(target)
    warnings.warn(
        f"tranca-sim: no writable numba cache directory ({candidates[0]}); kernels are cached beside the sources",
        stacklevel=2,
    )
    return None
