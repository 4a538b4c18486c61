"""The built-in engine's numba cache directories of earlier sources are pruned (tranca_sim/_cache.py).

Each edit of the kernels or upgrade of the package or numba made a new ``<source hash>``
directory in the cache base and left the old one (tens of MB) forever. The policy tested here,
worked out by hand: a directory of another hash that the package made is removed when unused for
30 days, or when unused for an hour and not among the 3 most recently used other hashes; the
current hash, recently used ones and anything the package did not make are kept."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tranca_sim import _cache

DAY = 86400.0
NOW = 2_000_000_000.0  # a fixed "now" (2033): the ages below are relative to it
SUB = "engine_" + "a" * 40  # numba's directory for one source directory


def _at(path: Path, t: float) -> None:
    """Every file and directory under ``path`` (and itself) last written and read at ``t``."""
    for root, dirs, files in os.walk(path, topdown=False):
        for f in files:
            os.utime(os.path.join(root, f), (t, t))
        os.utime(root, (t, t))


def _engine_dir(base: Path, name: str, t: float, marker: bool = True, extra: str = "") -> Path:
    """A cache directory as the package leaves it: numba's index and data files, the marker
    (unless ``marker`` is False: a directory made by an earlier version), every time set to ``t``."""
    d = base / name
    (d / SUB).mkdir(parents=True)
    (d / SUB / "basic.choose_meld-693.py311.nbi").write_bytes(b"index")
    (d / SUB / "basic.choose_meld-693.py311.1.nbc").write_bytes(b"code" * 100)
    if marker:
        (d / _cache.MARKER).write_text("made by tranca-sim")
    if extra:
        (d / extra).write_text("someone else's file")
    _at(d, t)
    return d


def test_stale_engine_caches_are_removed_by_age_and_rank_and_nothing_else(tmp_path):
    base = tmp_path / "cache"
    cur = "c" * 16
    h = [f"{i:x}" * 16 for i in range(1, 10)]  # other source hashes
    current = _engine_dir(base, cur, NOW - 400 * DAY)  # never used for ages, but it is this run's
    current_search = _engine_dir(base, f"{cur}-search", NOW - 400 * DAY)
    recent1 = _engine_dir(base, h[0], NOW - 1 * DAY)  # rank 1 of the others: kept
    recent2 = _engine_dir(base, h[1], NOW - 2 * DAY, marker=False)  # earlier version's, rank 2: kept
    recent2_search = _engine_dir(base, f"{h[1]}-search", NOW - 20 * DAY)  # same hash: goes with it
    # rank 3: its files were written 60 days ago, but its index was read (loaded) 3 days ago
    loaded = _engine_dir(base, h[2], NOW - 60 * DAY, marker=False)
    nbi = loaded / SUB / "basic.choose_meld-693.py311.nbi"
    os.utime(nbi, (NOW - 3 * DAY, NOW - 60 * DAY))
    fourth = _engine_dir(base, h[3], NOW - 4 * DAY)  # rank 4, idle 4 days: removed
    fourth_user = _engine_dir(base, f"{h[3]}-u{'0' * 12}-search", NOW - 5 * DAY)
    old = _engine_dir(base, h[4], NOW - 40 * DAY, marker=False)  # rank 5, idle 40 days: removed
    not_ours_file = _engine_dir(base, h[5], NOW - 50 * DAY, marker=False, extra="notes.txt")
    not_ours_name = _engine_dir(base, "my-cache", NOW - 50 * DAY, marker=False)
    elsewhere = _engine_dir(tmp_path, h[6], NOW - 50 * DAY)  # a link in the base to a directory
    (base / h[6]).symlink_to(elsewhere, target_is_directory=True)
    numba_own = _engine_dir(base, "strategies_" + "b" * 40, NOW - 50 * DAY, marker=False)
    removed = _cache.prune_engine_caches(base, cur, now=NOW)
    assert sorted(removed) == sorted([fourth, fourth_user, old])
    for d in removed:
        assert not d.exists()
    kept = (current, current_search, recent1, recent2, recent2_search, loaded, not_ours_file, not_ours_name, numba_own)
    for d in kept:
        assert d.is_dir(), d
    assert (base / h[6]).is_symlink() and (elsewhere / SUB).is_dir()
    assert sorted(p.name for p in base.iterdir()) == sorted([d.name for d in kept] + [h[6]])  # nothing set aside
    # 31 days on, even the most recently used other hash has been idle for more than 30 days
    later = _cache.prune_engine_caches(base, cur, now=NOW + 31 * DAY)
    assert sorted(later) == sorted([recent1, recent2, recent2_search, loaded])
    assert current.is_dir() and current_search.is_dir() and not_ours_file.is_dir()


def test_directories_used_within_the_hour_are_kept_whatever_their_rank(tmp_path):
    """Five other hashes used in the last 50 minutes (other checkouts running now): none removed."""
    base = tmp_path / "cache"
    dirs = [_engine_dir(base, f"{i:x}" * 16, NOW - 600 * i) for i in range(1, 6)]
    assert _cache.prune_engine_caches(base, "c" * 16, now=NOW) == []
    assert all(d.is_dir() for d in dirs)
    # two hours on, the two least recently used go (ranks 4 and 5)
    assert _cache.prune_engine_caches(base, "c" * 16, now=NOW + 7200) == dirs[3:]


def _import_in(base: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TRANCA_SIM_CACHE_DIR": str(base)}
    env.pop("NUMBA_CACHE_DIR", None)
    code = "import tranca_sim, sys; sys.stdout.write(tranca_sim.NUMBA_CACHE_DIR)"
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)


def test_importing_the_package_marks_its_directory_and_prunes_at_most_hourly(tmp_path):
    import time

    base = tmp_path / "cache"
    stale = _engine_dir(base, "1" * 16, time.time() - 40 * DAY)
    current = Path(_import_in(base).stdout)
    assert current.parent == base and current.name != stale.name
    assert (current / _cache.MARKER).is_file()
    assert time.time() - (current / _cache.MARKER).stat().st_mtime < 600
    assert not stale.exists()
    again = _engine_dir(base, "2" * 16, time.time() - 40 * DAY)
    assert Path(_import_in(base).stdout) == current
    assert again.is_dir()  # pruned less than an hour ago: not now
    os.utime(base / ".tranca-sim-pruned", (time.time() - 7200, time.time() - 7200))
    _import_in(base)
    assert not again.exists()
