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
import hashlib
import json
import os
import secrets
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ._plural import plural
from .output import atomic_output, lstat_or_none, os_reason, writing
from .run_format import (
    MATCH_ARROW_SCHEMA,
    META_KEY,
    OutputExistsError,
    RunFileError,
    first_line,
    is_match_meta,
)
from .run_read import check_columns, check_meta_counts, check_types, meta_of, read_verified_file
from .run_write import chunk_table, json_default, meta_json_plain

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
        probe = parent / f".probe-tranca-{os.getpid()}-{secrets.token_hex(4)}"
        try:  # a directory that accepts none (/proc, read-only): said now, as for a run file
            os.mkdir(probe)
            os.rmdir(probe)
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


#: how the command line names the fields of :data:`IDENTITY`
_OPTION = {
    "preset": "--preset",
    "master_seed": "--seed",
    "deals": "--deals",
    "matches": "--matches",
    "chunk_size": "--chunk-size",
    "check": "--check",
    "version": "tranca-sim version",
}


def _value(value) -> str:
    """A value as typed on the command line: ``true``/``false``, ``3``, ``0.25``, ``none``."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | float | str):
        return str(value)
    return json.dumps(value, default=json_default, sort_keys=True)


def _side_differences(flag: str, mine, theirs) -> list[tuple[str, str, str]]:
    """How one side's strategy entry (run metadata) differs: its strategy as the user writes it,
    or, for the same text, the parameter values, strategy file or other field that differ."""
    if not isinstance(mine, dict) or not isinstance(theirs, dict):
        return [(flag, _value((mine or {}).get("label") if isinstance(mine, dict) else mine), _value(theirs))]

    def label(x: dict) -> str:
        return str(x.get("label") or x.get("text") or x.get("name"))

    if label(mine) != label(theirs):
        return [(flag, repr(label(mine)), repr(label(theirs)))]
    out = []
    names_m, names_t = mine.get("param_names") or [], theirs.get("param_names") or []
    vals_m, vals_t = mine.get("params") or [], theirs.get("params") or []
    if names_m == names_t and len(vals_m) == len(vals_t):
        for name, a, b in zip(names_m, vals_m, vals_t):
            if a != b:  # the same text, other values: defaults that changed (tuned's file)
                out.append((f"{flag} {label(mine)}: parameter {name}", _value(a), _value(b)))
    for key in sorted(set(mine) | set(theirs)):
        if key in ("label", "params", "side") or mine.get(key) == theirs.get(key):
            continue
        what = {"sha256": "its strategy file's sha256", "param_names": "its parameters"}.get(key, key)
        a, b = _value(mine.get(key)), _value(theirs.get(key))
        if key == "sha256":
            a, b = a[:12], b[:12]
        out.append((f"{flag} {label(mine)}: {what}", a, b))
    return out or [(flag, repr(label(mine)), repr(label(theirs)))]


def identity_differences(mine: Mapping, theirs: Mapping) -> list[tuple[str, str, str]]:
    """What makes run identity ``mine`` (this run, :func:`identity`) another run than ``theirs``
    (a dataset's), each as ``(option, this run's value, the dataset's value)`` named as on the
    command line: ``("--seed", "8", "7")``, ``("--rule max_wilds", "1", "2")``,
    ``("--side-b", "'passive'", "'random'")``; a rule or strategy parameter is named alone, not
    as the whole rule set or strategy entry.  Empty when they are the same run."""
    out: list[tuple[str, str, str]] = []
    for key in IDENTITY:
        a, b = mine.get(key), theirs.get(key)
        if a == b:
            continue
        if key == "rules" and isinstance(a, dict) and isinstance(b, dict):
            if mine.get("preset") != theirs.get("preset"):
                continue  # named as --preset; its rules differ with it
            for name in sorted(set(a) | set(b)):
                if name not in ("name", "description") and a.get(name) != b.get(name):
                    out.append((f"--rule {name}", _value(a.get(name)), _value(b.get(name))))
        elif key == "strategies" and isinstance(a, list) and isinstance(b, list):
            if len(a) != len(b):
                out.append(("sides", str(len(a)), str(len(b))))
                continue
            for i, (x, y) in enumerate(zip(a, b)):
                if x != y:
                    out += _side_differences(f"--side-{'abc'[i]}", x, y)
        else:
            out.append((_OPTION.get(key, key), _value(a), _value(b)))
    return out


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
#: said after a manifest that cannot be read: how to start the run over
START_OVER = (
    "the run cannot be read or resumed without it; to start over, give 'tranca-sim simulate' the same "
    "--out with --force (instead of --resume): it replaces the manifest and the chunk files"
)


def read_manifest(path) -> dict:
    """The manifest of dataset directory ``path`` (``format``, ``meta``, ``chunks``).

    Raises
    ------
    tranca_sim.io.RunFileError
        No ``manifest.json`` (the directory is not a dataset), unreadable, not JSON, or not a
        manifest of this format.
    """
    p = Path(path)
    m = p / MANIFEST
    try:
        text = m.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise RunFileError(
            f"{str(p)!r} is a directory without {MANIFEST}: not a tranca-sim dataset"
        ) from None
    except (OSError, UnicodeDecodeError) as e:
        raise RunFileError(f"cannot read {str(m)!r}: {e}") from None
    try:
        doc = json.loads(text)
    except ValueError:
        raise RunFileError(f"{str(m)!r} is corrupt (not JSON); {START_OVER}") from None
    ok = (
        isinstance(doc, dict)
        and doc.get("format") == FORMAT
        and isinstance(doc.get("meta"), dict)
        and isinstance(doc.get("chunks"), list)
        and all(isinstance(c, dict) for c in doc["chunks"])
    )
    if not ok:
        raise RunFileError(f"{str(m)!r} is not a tranca-sim dataset manifest ({FORMAT}); {START_OVER}")
    check_meta_counts(repr(str(m)), doc["meta"])
    return doc


def _chunk_problem(root: Path, entry: Mapping, chunk_meta: Mapping | None) -> str | None:
    """What is wrong with a listed chunk file (None: it is whole and belongs to the run)."""
    try:
        name, size, digest = str(entry["file"]), int(entry["bytes"]), str(entry["sha256"])
    except (KeyError, TypeError, ValueError):
        return "its manifest entry is malformed"
    if Path(name).name != name:
        return "its manifest entry names a file outside the dataset"
    f = root / name
    try:
        found = os.path.getsize(f)
    except FileNotFoundError:
        return "the chunk file is missing"
    except OSError as e:
        return f"cannot read it ({os_reason(e)})"
    if found != size or _sha256(f) != digest:
        return _differs(f, found, size, entry.get("rows"))
    if chunk_meta is not None:
        try:
            pf = pq.ParquetFile(f)
            meta = meta_of(f, pf)
        except (pa.ArrowException, OSError, RunFileError) as e:
            return f"not a readable run file ({first_line(e)})"
        want = dict(identity(chunk_meta))
        got = identity(meta or {})
        diff = [k for k in IDENTITY if want[k] != got[k]]
        if diff:
            return f"it belongs to another run ({', '.join(diff)} differ)"
        c = (meta or {}).get("chunk") or {}
        if (c.get("index"), c.get("start"), c.get("count")) != (
            entry["index"],
            entry["start"],
            entry["count"],
        ):
            return "its deal range differs from the manifest"
    return None


def _differs(f: Path, found: int, size: int, rows) -> str:
    """What a chunk file of another size or sha256 than its manifest entry is: cut short (fewer
    bytes, no Parquet footer), not of the run-file schema, or another file (its bytes and rows
    against the manifest's ``size`` and ``rows``)."""
    try:
        n = pq.ParquetFile(f).metadata.num_rows
    except (pa.ArrowException, OSError):
        n = None
    if n is None:
        if found < size:
            return f"truncated: {found} of the {size} bytes the manifest lists, and no Parquet footer"
        return f"{found} bytes where the manifest lists {size}, and not a readable Parquet file"
    problem = _schema_problem(f)
    if problem:
        return problem
    if found == size and n == rows:
        return f"its content differs from the manifest (sha256; the same {size} bytes and {n} rows)"
    return (
        f"not the file the run wrote: {found} bytes and {n} rows where the manifest lists {size} bytes "
        f"and {rows} rows"
    )


def _schema_problem(f: Path) -> str | None:
    """Why a changed chunk file is not of the run-file schema (None: it is, or it is unreadable)."""
    try:
        schema = pq.read_schema(f)
        check_columns(f, schema.names)
        check_types(f, schema)
    except RunFileError as e:
        return f"it is not of the run-file schema ({str(e).split(': ', 1)[-1]})"
    except (pa.ArrowException, OSError) as e:
        return f"it is not a readable Parquet file ({first_line(e)})"
    return None


def read_verified_dataset(path, columns: list[str] | None) -> tuple[dict, pa.Table | None]:
    """:func:`tranca_sim.io.verify_run` and the read of ``columns`` (None: no table) for a dataset.

    Checks, naming the chunk file at fault: the manifest (:func:`read_manifest`); that the chunks
    are complete (an interrupted run is named with how to finish it); each chunk's size and
    sha256 against the manifest (a truncated or changed chunk), its identity and deal range
    against the manifest (a chunk of another run); then each chunk as a run file (schema,
    page checksums, nulls; :func:`tranca_sim.io.verify_run`).  The chunks are read in deal order.

    Returns
    -------
    (dict, pyarrow.Table or None)
        The run metadata and the rows of all chunks.

    Raises
    ------
    tranca_sim.io.RunFileError
        For any of the above.
    """
    p = Path(path)
    doc = read_manifest(p)
    meta = doc["meta"]
    try:
        plan = chunk_plan(run_units(meta), int(meta["chunk_size"]))
    except (KeyError, TypeError, ValueError):
        raise RunFileError(f"{str(p / MANIFEST)!r} lacks the run's deals and chunk_size") from None
    entries = {}
    for e in doc["chunks"]:
        entries.setdefault(e.get("index"), e)
    missing = [i for i, _, _ in plan if i not in entries]
    if missing:
        raise RunFileError(
            f"{str(p)!r} is an unfinished run: {len(plan) - len(missing)} of {plural(len(plan), 'chunk')} written "
            f"(first missing: {chunk_file(missing[0])}); finish it with the same 'tranca-sim simulate' "
            "arguments and --resume"
        )
    chunk_meta = {k: v for k, v in meta.items() if k not in _VOLATILE}
    parts = []
    for i, start, count in plan:
        e = entries[i]
        rows_ok = e.get("rows") == 2 * count or (is_match_meta(meta) and isinstance(e.get("rows"), int))
        if (e.get("start"), e.get("count")) != (start, count) or not rows_ok:
            raise RunFileError(f"{str(p / MANIFEST)!r}: the entry of {chunk_file(i)} has a wrong deal range")
        why = _chunk_problem(p, e, chunk_meta)
        if why:
            raise RunFileError(f"{str(p)!r}: chunk file {e['file']}: {why}")
        _, table = read_verified_file(p / e["file"], columns)
        if table is not None:
            parts.append(table.replace_schema_metadata(None))
    table = None
    if columns is not None:
        table = pa.concat_tables(parts) if parts else MATCH_ARROW_SCHEMA.empty_table().select(columns)
    return meta, table
