"""Reading a dataset directory: its manifest, and every listed chunk checked against it (size,
sha256, identity, deal range) and as a run file."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from ._plural import plural
from .dataset_layout import (
    _VOLATILE,
    FORMAT,
    IDENTITY,
    MANIFEST,
    _sha256,
    chunk_file,
    chunk_plan,
    identity,
    run_units,
)
from .output import os_reason
from .run_format import MATCH_ARROW_SCHEMA, RunFileError, first_line, is_match_meta
from .run_read import check_columns, check_meta_counts, check_types, meta_of, read_verified_file

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
