"""A cache of finished experiments, keyed by a hash of their inputs, so an interrupted atlas
resumes without playing a finished experiment again.

The key of an experiment is the SHA-256 of its experiment file's text, the package version and a
fingerprint of the code that plays and measures it (every ``.py`` and ``.toml`` file of the
``strategies`` package and of ``tranca_sim`` outside the atlas and the command line): the same
inputs find the same directory; a changed tip, rule or runner plays it again.  A directory is in
the cache only once finished: the lab's runner builds it under a temporary name and renames it into
place (:func:`tranca_sim.lab.experiments.experiment.run_experiment`), so an interrupt leaves no half entry.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

from .files import write_text
from .plan import Planned


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over the source files that decide an experiment's numbers (path and bytes)."""
    import tranca_sim
    from tranca_sim import strategies

    h = hashlib.sha256()
    roots = [Path(tranca_sim.__file__).parent, Path(strategies.__file__).parent]
    for root in roots:
        files = sorted(p for ext in ("*.py", "*.toml") for p in root.rglob(ext))
        for p in files:
            rel = p.relative_to(root.parent).as_posix()
            if rel.startswith(("tranca_sim/atlas/", "tranca_sim/cli")):
                continue
            h.update(rel.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def input_key(item: Planned) -> str:
    """The hash of an experiment's inputs (its file, the version, the code)."""
    from ..io import package_version

    h = hashlib.sha256()
    for part in (item.text, package_version(), code_fingerprint()):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def entry_dir(cache: Path, item: Planned) -> Path:
    return cache / f"{item.name}-{input_key(item)[:16]}"


def is_finished(d: Path) -> bool:
    return (d / "experiment.json").is_file()


def obtain(cache: Path, item: Planned, threads=None, progress=True) -> tuple[Path, bool]:
    """The finished experiment of ``item``: reused from ``cache`` or played now.  Returns its
    directory and whether it was played."""
    from ..lab.experiments.experiment import run_experiment

    d = entry_dir(cache, item)
    if is_finished(d):
        return d, False
    cache.mkdir(parents=True, exist_ok=True)
    spec = cache / f"{d.name}.toml"
    write_text(spec, item.text)
    run_experiment(spec, d, force=d.exists(), threads=threads, progress=progress, report=False)
    return d, True
