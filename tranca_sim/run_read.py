"""Reading one run file: its footer, its metadata, and every row group verified.

The checks every reader of a run file passes (:func:`tranca_sim.io.verify_run` for a file or a
dataset, whose chunk files are each read here): a regular, readable Parquet file, every column
of :data:`tranca_sim.schema.COLUMNS` in its schema type, parseable metadata, every page's
checksum, no null.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from .output import os_reason
from .run_format import MATCH_ARROW_SCHEMA, META_KEY, RunFileError, first_line, is_match_meta
from .schema import COLUMNS, MATCH_COLUMNS


def _open(path) -> tuple[Path, pq.ParquetFile]:
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise RunFileError(f"run file {str(p)!r} does not exist") from None
    except OSError as e:
        raise RunFileError(f"cannot read {str(p)!r}: {os_reason(e)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise RunFileError(f"run file {str(p)!r} is a directory")
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise RunFileError(f"run file {str(p)!r} is not a regular file")
    try:
        return p, pq.ParquetFile(p, page_checksum_verification=True)
    except OSError as e:
        if e.errno:  # permission denied, I/O error: the file, not its format
            raise RunFileError(f"cannot read {str(p)!r}: {os_reason(e)}") from None
        raise RunFileError(f"{str(p)!r} is not a readable Parquet file ({first_line(e)})") from None
    except pa.ArrowException as e:  # any unreadable footer
        raise RunFileError(f"{str(p)!r} is not a readable Parquet file ({first_line(e)})") from None


def check_columns(p: Path, names) -> None:
    missing = [n for n, _, _ in COLUMNS if n not in set(names)]
    if missing:
        shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
        raise RunFileError(
            f"{str(p)!r} is not a tranca-sim run file: {len(missing)} column(s) missing ({shown})"
        )


def _type_ok(found: pa.DataType, expected: pa.DataType) -> bool:
    """Exact schema type, except that large and view variants of strings and lists are accepted
    (a run file rewritten by polars stores ``large_string``)."""
    if found == expected:
        return True
    if pa.types.is_string(expected):
        return pa.types.is_large_string(found) or pa.types.is_string_view(found)
    if pa.types.is_list(expected):
        return (pa.types.is_large_list(found) or pa.types.is_list_view(found)) and _type_ok(
            found.value_type, expected.value_type
        )
    return False


def check_types(p: Path, schema: pa.Schema) -> None:
    for name, typ, _ in COLUMNS + MATCH_COLUMNS:
        if name not in schema.names:  # the match columns: only in a match run
            continue
        found = schema.field(name).type
        if not _type_ok(found, MATCH_ARROW_SCHEMA.field(name).type):
            raise RunFileError(
                f"{str(p)!r} is not a valid tranca-sim run file: column {name!r} has type {found}, "
                f"expected {typ}"
            )


def _check_nulls(p: Path, table: pa.Table) -> None:
    for name in table.column_names:
        k = table.column(name).null_count
        if k:
            raise RunFileError(
                f"{str(p)!r} is not a valid tranca-sim run file: column {name!r} has {k} null value(s)"
            )


#: files :func:`read_verified_file` passed in this process: (path, device, inode, size, mtime) -> metadata
_VERIFIED: dict[tuple, dict | None] = {}
_VERIFIED_MAX = 16


def _identity(p: Path) -> tuple:
    st = os.stat(p)
    return (os.path.realpath(p), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def meta_of(p: Path, pf: pq.ParquetFile) -> dict | None:
    """The ``tranca_sim`` metadata of an open file; None if it has none."""
    raw = (pf.metadata.metadata or {}).get(META_KEY.encode())
    if raw is None:
        return None
    try:
        meta = json.loads(raw)
    except ValueError:
        raise RunFileError(f"{str(p)!r} has corrupt {META_KEY!r} metadata (not JSON)") from None
    if not isinstance(meta, dict):
        raise RunFileError(f"{str(p)!r} has corrupt {META_KEY!r} metadata (not a JSON object)")
    check_meta_counts(repr(str(p)), meta)
    return meta


def peek_meta(path) -> dict | None:
    """The ``tranca_sim`` metadata of a run file read from its footer alone (no row is read or
    verified: :func:`tranca_sim.io.verify_run` does that); None when the file has none.

    Raises
    ------
    RunFileError
        As :func:`tranca_sim.io.verify_run` for a missing, special, unreadable or non-Parquet file, or corrupt
        metadata.
    """
    p, pf = _open(path)
    with contextlib.closing(pf):
        return meta_of(p, pf)


def run_diagnostics(meta: Mapping | None) -> tuple[int, list[int]] | None:
    """``(invariant_errors, illegal_choices per side)`` recorded for a run: a run file's
    ``diagnostics`` metadata (written by ``simulate`` and ``experiment``), or a dataset's
    chunks' (its manifest; ``meta`` as :func:`tranca_sim.io.load_meta` gives it, with ``chunks``); None when
    the run records none (files of earlier versions).  ``invariant_errors`` counts the deals'
    failed invariant checks (``--check``), ``illegal_choices`` the strategy's answers outside the
    legal choices, which the engine overruled."""
    if not isinstance(meta, Mapping):
        return None
    parts = []
    if isinstance(meta.get("diagnostics"), Mapping):
        parts.append(meta["diagnostics"])
    for c in meta.get("chunks") or ():
        if isinstance(c, Mapping) and isinstance(c.get("diagnostics"), Mapping):
            parts.append(c["diagnostics"])
    if not parts:
        return None
    errors, illegal = 0, []
    for d in parts:
        v = d.get("invariant_errors")
        errors += v if isinstance(v, int) and not isinstance(v, bool) else 0
        sides = d.get("illegal_choices")
        for i, k in enumerate(sides if isinstance(sides, list) else ()):
            if i >= len(illegal):
                illegal.append(0)
            illegal[i] += k if isinstance(k, int) and not isinstance(k, bool) else 0
    return errors, illegal


#: run-metadata counts and their least value (a hand-edited file or manifest may hold anything)
META_COUNTS = (("deals", 1), ("matches", 1), ("chunk_size", 1), ("master_seed", 0))


def check_meta_counts(where: str, meta: Mapping) -> None:
    """Refuse run metadata whose ``deals``, ``matches``, ``chunk_size`` or ``master_seed`` (when
    present) is not a whole number of at least 1 (0 for the seed): every reader trusts them.
    (A match run's ``deals`` may be null: its matches are counted.)

    Raises
    ------
    RunFileError
        Naming ``where`` (the file or manifest), the key and its value.
    """
    for key, least in META_COUNTS:
        if key not in meta:
            continue
        v = meta[key]
        if v is None and key == "deals" and is_match_meta(meta):  # a match run counts matches
            continue
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            raise RunFileError(
                f"{where} has corrupt {META_KEY!r} metadata: {key} is {json.dumps(v)}, "
                f"not a whole number of at least {least} (a hand-edited file?)"
            )


def _scan(p: Path, pf: pq.ParquetFile, columns: list[str] | None):
    """Read every row group whole (each page's checksum verified, every column checked for
    nulls); yield each row group's ``columns`` (nothing when ``columns`` is None)."""
    try:
        for i in range(pf.num_row_groups):
            part = pf.read_row_group(i)
            _check_nulls(p, part)
            if columns is not None:
                yield part.select(columns)
    except (pa.ArrowException, OSError) as e:
        raise RunFileError(f"{str(p)!r} is corrupt or truncated ({first_line(e)})") from None


def read_verified_file(path, columns: list[str] | None) -> tuple[dict | None, pa.Table | None]:
    """:func:`tranca_sim.io.verify_run` of one run file, and the table of ``columns`` (None: no
    table) read in the same pass when the file was not verified before."""
    p, pf = _open(path)
    with contextlib.closing(pf):
        try:
            ident = _identity(p)
        except OSError as e:
            raise RunFileError(f"cannot read {str(p)!r}: {os_reason(e)}") from None
        if ident in _VERIFIED:
            if columns is None:
                return _VERIFIED[ident], None
            try:
                return _VERIFIED[ident], pf.read(columns=columns)
            except (pa.ArrowException, OSError) as e:
                raise RunFileError(f"{str(p)!r} is corrupt or truncated ({first_line(e)})") from None
        check_columns(p, pf.schema_arrow.names)
        check_types(p, pf.schema_arrow)
        meta = meta_of(p, pf)
        parts = list(_scan(p, pf, columns))
        table = None
        if columns is not None:
            table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table().select(columns)
    if len(_VERIFIED) >= _VERIFIED_MAX:
        _VERIFIED.pop(next(iter(_VERIFIED)))
    _VERIFIED[ident] = meta
    return meta, table
