"""A run stored as a Parquet dataset: a directory of chunk files and a manifest.

Layout of a dataset directory ``PATH/``::

    PATH/manifest.json              what the run is and which chunks are done
    PATH/chunk-000000.parquet       deals 0 .. chunk_size-1 (run-file schema, one row group)
    PATH/chunk-000001.parquet       ...
    PATH/deals.log.jsonl            deal logs (only with --log-deals)

Each chunk file is an ordinary run file (:data:`tranca_sim.schema.COLUMNS`)
holding the deals ``start .. start+count-1``; it is written under a temporary
name and renamed, and only then entered in the manifest (itself replaced
atomically), so a run killed at any moment leaves a manifest that lists only
whole chunks.  The manifest is JSON::

    {"format": "tranca-sim-dataset/1",
     "meta": {... the run metadata, as a run file's ...},
     "chunks": [{"index": 0, "start": 0, "count": 50000, "file": "chunk-000000.parquet",
                 "rows": 100000, "bytes": 1234567, "sha256": "...", "diagnostics": {...}}, ...]}

A chunk's bytes do not depend on how it was computed (threads, processes or a
Dask cluster) or when: its file carries the run's identity (:data:`IDENTITY`)
and its deal range, never a time stamp, so its sha256 is the same for every
way of running it.  :func:`read_verified_dataset` is what :func:`tranca_sim.io.verify_run`
and :func:`tranca_sim.io.load_run` do for a directory: every listed chunk is
checked against the manifest (size, sha256, row count, deal range, identity)
and then as a run file (schema, page checksums, nulls).
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .dataset_identity import identity_differences
from .dataset_layout import (  # noqa: F401  (re-exported: the dataset's names stay importable from here)
    _VOLATILE,
    FORMAT,
    IDENTITY,
    LOG_NAME,
    MANIFEST,
    DatasetMismatchError,
    _sha256,
    check_run_file_out,
    chunk_file,
    chunk_plan,
    dataset_holding,
    identity,
    is_dataset,
    run_units,
    wants_dataset,
)
from .dataset_read import START_OVER, _chunk_problem, read_manifest, read_verified_dataset  # noqa: F401
from .output import atomic_output, lstat_or_none, os_reason, probe, writing
from .run_format import META_KEY, OutputExistsError, RunFileError
from .run_write import chunk_table, json_default, meta_json_plain


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
class DatasetWriter:
    """Writes chunks of one run into a dataset directory and keeps its manifest.

    Parameters
    ----------
    path : str or os.PathLike
        The directory; created when missing (its parent must exist).
    meta : mapping
        The run metadata (as :func:`tranca_sim.run_write.write_run` takes it, with the
        fields of :data:`IDENTITY`).
    force : bool
        Replace an existing dataset (its manifest, chunk files and deal log only).
    resume : bool
        Keep the whole chunks of an existing dataset of the same run; ``done`` lists them.

    Raises
    ------
    tranca_sim.io.OutputExistsError
        A dataset exists at ``path`` and neither ``force`` nor ``resume`` is given.
    DatasetMismatchError
        ``resume`` of a dataset of another run (the fields that differ are named).
    tranca_sim.io.RunFileError
        ``path`` is a file, a link, or a directory holding other files; its parent is missing;
        the manifest is unreadable.
    """

    def __init__(self, path, meta: Mapping, *, force: bool = False, resume: bool = False, warn=None):
        self.path = Path(path)
        self.meta = dict(meta)
        self.chunk_meta = {k: v for k, v in self.meta.items() if k not in _VOLATILE}
        self.done: dict[int, dict] = {}
        self._prepare(force, resume, warn or (lambda text: None))
        self._save()

    # -- opening ---------------------------------------------------------------
    def _prepare(self, force: bool, resume: bool, warn) -> None:
        p = self.path
        state = check_dataset_out(p, force, resume)
        if state == "new":
            with writing(p):
                p.mkdir()
            return
        if state == "empty":
            return
        if resume:
            old = read_manifest(p)
            mine, theirs = identity(self.meta), identity(old["meta"])
            diff = identity_differences(mine, theirs)
            if diff:
                shown = "; ".join(f"{what}: this run {now}, the dataset {there}" for what, now, there in diff)
                raise DatasetMismatchError(
                    f"cannot resume {str(p)!r}: it is another run ({shown}); "
                    "give the same arguments as the interrupted run, or --force to replace it",
                    diff,
                )
            for entry in old["chunks"]:
                why = _chunk_problem(p, entry, self.chunk_meta)
                if why:
                    warn(f"{entry.get('file', '?')}: {why}; it is simulated again")
                else:
                    self.done[int(entry["index"])] = entry
            if old["meta"].get("log_file"):
                self.meta.setdefault("log_file", old["meta"]["log_file"])
            self._clean_temporaries()
            return
        self._remove_dataset()

    def _clean_temporaries(self) -> None:
        for x in self.path.glob(".tmp-tranca-*"):
            with contextlib.suppress(OSError):
                x.unlink()

    def _remove_dataset(self) -> None:
        """With ``force``: remove the manifest, the chunk files and the deal log, nothing else."""
        with writing(self.path):
            (self.path / MANIFEST).unlink()
            for x in self.path.iterdir():
                if x.name.startswith(("chunk-", ".tmp-tranca-")) or x.name == LOG_NAME:
                    x.unlink()

    # -- writing ---------------------------------------------------------------
    def _save(self) -> None:
        chunks = [self.done[i] for i in sorted(self.done)]
        doc = {"format": FORMAT, "meta": self.meta, "chunks": chunks}
        text = json.dumps(doc, default=json_default, sort_keys=True, indent=1)
        target = self.path / MANIFEST
        with atomic_output(target, force=True) as tmp, writing(target):
            tmp.write_text(text, encoding="utf-8")

    def add(
        self,
        index: int,
        start: int,
        cols: Mapping,
        diagnostics: Mapping | None = None,
        count: int | None = None,
    ) -> dict:
        """Write chunk ``index`` (deals ``start ..``, engine columns ``cols``) and enter it in the
        manifest; returns its manifest entry.  ``count``: the chunk's matches in a match run (its
        rows vary), by default its deals (its rows over the sides)."""
        table = chunk_table(cols, self.meta)
        n_sides = len(self.meta.get("strategies") or ()) or 2  # rows per deal: 2, or 3 in tranca-3p
        count = table.num_rows // n_sides if count is None else int(count)
        meta = dict(self.chunk_meta, chunk={"index": index, "start": start, "count": count})
        table = table.replace_schema_metadata({META_KEY: meta_json_plain(meta)})
        name = chunk_file(index)
        target = self.path / name
        with atomic_output(target, force=True) as tmp:
            with writing(target):
                pq.write_table(table, tmp, compression="zstd", write_page_checksum=True)
            digest, size = _sha256(tmp), os.path.getsize(tmp)
        entry = {
            "index": index,
            "start": start,
            "count": count,
            "file": name,
            "rows": table.num_rows,
            "bytes": size,
            "sha256": digest,
            "diagnostics": dict(diagnostics or {}),
        }
        self.done[index] = entry
        self._save()
        return entry

    def read_columns(self, index: int, columns) -> pa.Table:
        """Columns of a chunk already written (a resumed run's summary reads them)."""
        return pq.read_table(self.path / self.done[index]["file"], columns=list(columns))

    def finish(self) -> None:
        """Record that every chunk is written (``complete`` in the manifest)."""
        self.meta["complete"] = True
        self._save()


def check_dataset_out(path, force: bool = False, resume: bool = False) -> str:
    """Check that a dataset can be written at ``path`` before anything is simulated.

    Returns
    -------
    str
        ``"new"`` (nothing there; its parent exists), ``"empty"`` (an empty directory) or
        ``"dataset"`` (a dataset, to be resumed or, with ``force``, replaced).

    Raises
    ------
    tranca_sim.io.OutputExistsError
        A dataset exists and neither ``force`` nor ``resume`` is given.
    tranca_sim.io.RunFileError
        ``path`` is a file or a link, its parent is missing, or it is a directory holding files
        that are not a dataset's (never replaced, even with ``force``).
    """
    p = Path(path)
    st = lstat_or_none(p)
    if os.path.islink(p):  # as a linked run file is refused (io.check_output_path)
        raise RunFileError(
            f"output path {str(p)!r} is a symbolic link; give the dataset directory's real path"
        )
    if st is not None and not os.path.isdir(p):
        raise RunFileError(
            f"output path {str(p)!r} is not a directory; a dataset is a directory (a run file ends in .parquet)"
        )
    if st is None:
        parent = p.parent if str(p.parent) else Path(".")
        if not parent.is_dir():
            raise RunFileError(f"cannot write {str(p)!r}: {str(parent)!r} does not exist")
        try:  # a directory that accepts none (/proc, read-only): said now, as for a run file
            probe(parent, "dir")
        except OSError as e:
            raise RunFileError(
                f"cannot write {str(p)!r}: no directory can be created in {str(parent)!r} ({os_reason(e)})"
            ) from None
        return "new"
    if not os.access(p, os.W_OK | os.X_OK):
        raise RunFileError(f"cannot write {str(p)!r}: permission denied")
    if not (p / MANIFEST).exists():
        foreign = [x.name for x in p.iterdir() if not x.name.startswith(".tmp-tranca-")]
        if foreign:
            raise RunFileError(
                f"output directory {str(p)!r} holds files that are not a tranca-sim dataset "
                f"({', '.join(sorted(foreign)[:3])}); give an empty or new directory"
            )
        return "empty"
    if not (force or resume) and _holds_no_deal(p):
        return "empty"  # a run that failed before its first chunk (a cluster it could not reach): nothing to lose
    if not (force or resume):
        raise OutputExistsError(
            f"output dataset {str(p)!r} already exists; --resume finishes it, --force replaces it", p
        )
    return "dataset"


def _holds_no_deal(p: Path) -> bool:
    """Whether dataset ``p`` is a manifest listing no chunk and nothing else (temporaries aside)."""
    try:
        if read_manifest(p)["chunks"]:
            return False
    except RunFileError:
        return False
    return all(x.name == MANIFEST or x.name.startswith(".tmp-tranca-") for x in p.iterdir())
