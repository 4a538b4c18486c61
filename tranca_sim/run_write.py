"""Writing run files: engine column chunks to Parquet row groups, with the run's metadata.

:func:`write_run` streams column chunks into the file (one row group per
chunk, so memory does not grow with the number of deals), writing to a
temporary file in the target directory that is renamed over the target only
when every chunk is written (:func:`tranca_sim.output.atomic_output`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .output import atomic_output, check_output_path, writing
from .run_format import (
    ARROW_SCHEMA,
    CHUNK_COLUMNS,
    END_REASONS,
    MATCH_ARROW_SCHEMA,
    MATCH_COLUMN_NAMES,
    META_KEY,
    is_match_meta,
    package_version,
    schema_for,
)
from .schema import COLUMNS


def _as_arrow(name: str, values, n: int) -> pa.Array:
    """One chunk column as an Arrow array of the schema type (``ValueError`` on a bad column)."""
    typ = MATCH_ARROW_SCHEMA.field(name).type
    a = np.asarray(values)
    if a.ndim != 1 or len(a) != n:
        raise ValueError(f"chunk column {name!r} has shape {a.shape}, expected ({n},)")
    if name == "end_reason":
        if a.dtype.kind not in "iu":
            raise ValueError(f"chunk column 'end_reason' must hold integer codes, got dtype {a.dtype}")
        if n and (a.min() < 0 or a.max() >= len(END_REASONS)):
            raise ValueError(f"chunk column 'end_reason' has codes outside 0..{len(END_REASONS) - 1}")
        return pc.take(pa.array(END_REASONS, pa.string()), pa.array(a.astype(np.int64)))
    if pa.types.is_boolean(typ):
        return pa.array(a != 0 if a.dtype != np.bool_ else a, pa.bool_())
    try:
        return pa.array(a).cast(typ, safe=True)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as e:
        raise ValueError(f"chunk column {name!r} does not fit {typ}: {e}") from None


def run_constants(run_meta: Mapping) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array, pa.Array]:
    """Length-1 (or per-side, length 2 or 3) Arrow arrays of the run-level columns."""
    try:
        preset = str(run_meta["preset"])
        seed = int(run_meta["master_seed"])
        sides = run_meta["strategies"]
        names = [str(s["name"]) for s in sides]
        params = [[float(x) for x in s["params"]] for s in sides]
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(
            "run_meta needs 'preset', 'master_seed' and 'strategies' (one dict per side, 2 or 3, with 'name' "
            "and 'params'); "
            f"problem: {e!r}"
        ) from None
    if len(names) not in (2, 3):
        raise ValueError(f"run_meta['strategies'] must describe 2 sides (3 in tranca-3p), got {len(names)}")
    version = str(run_meta.get("version") or package_version())
    return (
        pa.array([preset], pa.string()),
        pa.array([seed], pa.int64()),
        pa.array(names, pa.string()),
        pa.array(params, pa.list_(pa.float64())),
        pa.array([version], pa.string()),
    )


def chunk_table(chunk: Mapping, run_meta: Mapping) -> pa.Table:
    """Turn one chunk of engine columns into a table of the run-file schema.

    Parameters
    ----------
    chunk : mapping of str to numpy.ndarray
        Every name of :data:`CHUNK_COLUMNS`, each a 1-d array of one common
        length ``n_sides * n_deals`` (deal-major; ``side`` is 0 .. n_sides - 1, one
        strategy per side in ``run_meta``). ``end_reason``
        holds integer codes indexing :data:`END_REASONS`; bool columns may be
        bool or integer (non-zero is true). Extra keys are ignored.
    run_meta : mapping
        See :func:`write_run`.

    Returns
    -------
    pyarrow.Table
        Columns and types of :data:`ARROW_SCHEMA`, in that order.

    Raises
    ------
    ValueError
        For a missing column, columns of unequal length, a value that does not
        fit its type, an unknown ``end_reason`` code or a ``side`` without a strategy in ``run_meta``.
    """
    missing = [c for c in CHUNK_COLUMNS if c not in chunk]
    if missing:
        raise ValueError(f"chunk lacks column(s) {', '.join(missing)}")
    n = len(np.asarray(chunk["side"]))
    preset, seed, names, params, version = run_constants(run_meta)
    side = np.asarray(chunk["side"])
    if n and (side.min() < 0 or side.max() >= len(names)):
        raise ValueError(f"chunk column 'side' must be 0..{len(names) - 1} (one per strategy in run_meta)")
    side_idx = pa.array(side.astype(np.int64))
    zeros = pa.array(np.zeros(n, dtype=np.int64))
    arrays = []
    for name, _, _ in COLUMNS:
        if name == "preset":
            arrays.append(pc.take(preset, zeros))
        elif name == "master_seed":
            arrays.append(pc.take(seed, zeros))
        elif name == "version":
            arrays.append(pc.take(version, zeros))
        elif name == "strategy":
            arrays.append(pc.take(names, side_idx))
        elif name == "strategy_params":
            arrays.append(pc.take(params, side_idx))
        else:
            arrays.append(_as_arrow(name, chunk[name], n))
    if is_match_meta(run_meta):
        missing = [c for c in MATCH_COLUMN_NAMES if c not in chunk]
        if missing:
            raise ValueError(f"chunk of a match run lacks column(s) {', '.join(missing)}")
        arrays += [_as_arrow(name, chunk[name], n) for name in MATCH_COLUMN_NAMES]
        return pa.Table.from_arrays(arrays, schema=MATCH_ARROW_SCHEMA)
    return pa.Table.from_arrays(arrays, schema=ARROW_SCHEMA)


def _meta_json(run_meta: Mapping) -> bytes:
    meta = dict(run_meta)
    meta.setdefault("version", package_version())
    meta.setdefault("created", _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
    return meta_json_plain(meta)


def meta_json_plain(meta: Mapping) -> bytes:
    """``meta`` as the JSON stored under :data:`META_KEY`, nothing added (a dataset's chunk files
    carry no time stamp, so their bytes do not depend on when they were written)."""
    return json.dumps(meta, default=json_default, sort_keys=True).encode()


def json_default(o):
    if isinstance(o, np.generic):
        return o.item()
    if isinstance(o, np.ndarray):
        return o.tolist()
    if isinstance(o, Path):
        return str(o)
    raise TypeError(f"run_meta value of type {type(o).__name__} is not JSON serialisable")


def write_run(
    path, chunks: Iterable[Mapping], *, run_meta: Mapping, force: bool = False, final_meta=None
) -> Path:
    """Write a run file from an iterable of column chunks.

    Each chunk is converted with :func:`chunk_table` and written as one row
    group as soon as it arrives, to a temporary file ``.tmp-tranca-<pid>-<hex>``
    in the target's directory, renamed to ``path`` (``os.replace``) when the
    iterable is exhausted (:func:`tranca_sim.output.atomic_output`).  On any exception,
    ``KeyboardInterrupt`` included, the temporary file is removed, ``path`` is
    left as it was, and the exception propagates.

    Parameters
    ----------
    path : str or os.PathLike
        Target file.
    chunks : iterable of mapping of str to numpy.ndarray
        Engine column chunks (see :func:`chunk_table`); may be a generator
        that runs the simulation lazily.  No chunk gives an empty file.
    run_meta : mapping
        JSON-serialisable run metadata, stored under the key ``tranca_sim``.
        Required: ``preset`` (str), ``master_seed`` (int) and ``strategies``,
        a list of one dict per side (A, B; C in tranca-3p) each with ``name`` (str) and
        ``params`` (sequence of float); they fill the run-level columns.
        ``version`` and ``created`` are added when absent.
    force : bool
        Replace an existing file at ``path``.
    final_meta : callable, optional
        Called once every chunk is written; the mapping it returns is added to ``run_meta`` in
        the file's footer (the run's diagnostics, known only at the end: ``{"diagnostics":
        {"invariant_errors": int, "meld_full": int, "illegal_choices": [int per side]}}``).
        :func:`tranca_sim.io.load_meta` reads the footer; the Arrow schema's copy keeps ``run_meta``.

    Returns
    -------
    pathlib.Path
        The written path.

    Raises
    ------
    RunFileError
        If the path is not writable, exists without ``force``, is a link or
        not a regular file (see :func:`tranca_sim.output.check_output_path`), or an ``OSError``
        (disk full, I/O error) happens while writing: ``cannot write PATH: reason``.
    ValueError
        For a malformed chunk or ``run_meta``.
    """
    p = check_output_path(path, force)
    run_constants(run_meta)  # fail before creating anything
    schema = schema_for(run_meta).with_metadata({META_KEY: _meta_json(run_meta)})
    with atomic_output(p, force) as tmp:
        writer = None
        try:
            with writing(p):
                writer = pq.ParquetWriter(tmp, schema, compression="zstd", write_page_checksum=True)
            for chunk in chunks:
                table = chunk_table(chunk, run_meta)
                with writing(p):
                    writer.write_table(table)
            with writing(p):
                if final_meta is not None:  # replaces the footer's entry of the key
                    writer.add_key_value_metadata({META_KEY: _meta_json({**run_meta, **final_meta()})})
                writer.close()
            writer = None
        finally:
            if writer is not None:
                with contextlib.suppress(pa.ArrowException, OSError):
                    writer.close()
    return p
