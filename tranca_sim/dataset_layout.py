"""Where a dataset's files lie and what makes two runs the same run: the names in a dataset
directory, its chunk plan, the identity fields a resumed run must match, and the refusal of a
run file written inside a dataset.  :mod:`tranca_sim.dataset` describes the layout."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from .run_format import RunFileError, is_match_meta
from .run_write import json_default

MANIFEST = "manifest.json"
FORMAT = "tranca-sim-dataset/1"
LOG_NAME = "deals.log.jsonl"

#: run metadata that fixes every deal of a run: a resumed run must match all of them
IDENTITY = (
    "preset",
    "rules",
    "strategies",
    "master_seed",
    "deals",
    "matches",
    "chunk_size",
    "check",
    "version",
)

#: run metadata that says how or when a run was made; kept out of the chunk files
_VOLATILE = ("created", "threads", "processes", "cluster", "python", "numba", "log_deals", "log_file")


class DatasetMismatchError(RunFileError):
    """``--resume`` of a dataset made with other rules, strategies, seed, deals, chunk size or
    version; the message names each option that differs with both values
    (:func:`identity_differences`), also kept in ``differences``."""

    def __init__(self, message: str, differences=()):
        super().__init__(message)
        self.differences = list(differences)


def chunk_file(index: int) -> str:
    """``chunk-000007.parquet`` for chunk 7."""
    return f"chunk-{index:06d}.parquet"


def run_units(meta: Mapping) -> int:
    """What a run's chunks count: its matches (a match run) or its deals."""
    return int(meta["matches"]) if is_match_meta(meta) else int(meta["deals"])


def chunk_plan(deals: int, chunk_size: int) -> list[tuple[int, int, int]]:
    """``[(index, start, count), ...]``: the chunks of a run of ``deals`` deals."""
    return [(i, s, min(chunk_size, deals - s)) for i, s in enumerate(range(0, deals, chunk_size))]


def is_dataset(path) -> bool:
    """Whether ``path`` is a directory (a dataset, or something refused as one)."""
    return os.path.isdir(path)


def wants_dataset(out) -> bool:
    """An output path meant as a dataset: it ends with ``/`` or is a dataset directory already
    (holds ``manifest.json``); any other existing directory is refused as an output file is."""
    text = os.fspath(out)
    return text.endswith(("/", os.sep)) or os.path.isfile(os.path.join(text, MANIFEST))


def dataset_holding(path) -> Path | None:
    """The dataset directory a run file ``path`` would be written into (its directory holds
    ``manifest.json``), else None.  A run file there would replace a chunk file or mix into the
    dataset, so :func:`check_run_file_out` refuses it."""
    parent = Path(os.path.abspath(os.fspath(path))).parent
    return parent if (parent / MANIFEST).is_file() else None


def check_run_file_out(path) -> None:
    """Refuse a run file ``path`` inside a dataset directory (:func:`dataset_holding`), even with
    ``force``: it would overwrite a chunk file, or sit among the chunks, unseen by the manifest.

    Raises
    ------
    tranca_sim.io.RunFileError
        Naming the dataset, the chunk file it would replace, and what to do instead.
    """
    d = dataset_holding(path)
    if d is None:
        return
    shown = os.path.dirname(os.fspath(path)) or str(d)
    name = Path(path).name
    what = (
        f"it would overwrite the dataset's chunk file {name}"
        if name.startswith("chunk-") or (d / name).exists()
        else "a run file there would sit among its chunk files"
    )
    raise RunFileError(
        f"{os.fspath(path)!r} is inside the dataset {shown!r} (a directory with {MANIFEST}): {what}; "
        f"write the run file elsewhere, or replace the whole dataset with --out {shown}/ --force"
    )


def identity(meta: Mapping) -> dict:
    """The fields of :data:`IDENTITY` of run metadata (JSON round-tripped, so a dict read back from
    a manifest compares equal to the one a run builds)."""
    return json.loads(json.dumps({k: meta.get(k) for k in IDENTITY}, default=json_default))


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
