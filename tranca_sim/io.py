"""Reading runs: a run file or a dataset directory, verified before any row is used.

Every reader of runs (:func:`load_run`, :func:`load_meta`, and through them ``summarize``,
``check`` and ``replay``) first passes :func:`verify_run`, which reads the whole run once with
the Parquet page checksums on and turns every kind of unreadable, damaged or foreign file into a
:class:`RunFileError`.  One file is read by :mod:`tranca_sim.run_read`, a directory as a dataset
by :mod:`tranca_sim.dataset`.  What a run file is: :mod:`tranca_sim.run_format`; writing one:
:mod:`tranca_sim.run_write` (over :mod:`tranca_sim.output`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

import numpy as np
import pyarrow as pa

from .dataset_read import read_verified_dataset

# the names of run files' format, writing and output that callers have long imported from here
from .output import (  # noqa: F401
    STALE_TEMP_SECONDS,
    atomic_output,
    check_output_path,
    remove_stale_temp_dirs,
    remove_stale_temporaries,
    temp_dir_path,
    write_error,
    writing,
)
from .run_format import (  # noqa: F401
    ARROW_SCHEMA,
    CHUNK_COLUMNS,
    END_REASONS,
    MATCH_ARROW_SCHEMA,
    MATCH_COLUMN_NAMES,
    META_KEY,
    RUN_COLUMNS,
    OutputExistsError,
    RunFileError,
    is_match_meta,
    package_version,
    schema_for,
)
from .run_format import first_line as _first_line  # noqa: F401
from .run_read import check_meta_counts, peek_meta, read_verified_file, run_diagnostics  # noqa: F401
from .run_write import chunk_table, write_run  # noqa: F401
from .run_write import run_constants as _run_constants  # noqa: F401
from .schema import COLUMNS


def read_verified(path, columns: list[str] | None) -> tuple[dict | None, pa.Table | None]:
    """:func:`verify_run`, and the table of ``columns`` (None: no table) read in the same pass
    when the run was not verified before: a directory as a dataset
    (:func:`tranca_sim.dataset.read_verified_dataset`), else one run file
    (:func:`tranca_sim.run_read.read_verified_file`)."""
    if os.path.isdir(path):
        return read_verified_dataset(path, columns)
    return read_verified_file(path, columns)


def verify_deals(path, meta: Mapping | None) -> None:
    """Check that a verified run's rows are whole: one row per side for every deal, and (a run
    without matches) every deal from 0 to ``meta["deals"] - 1`` once a side.  summarize, check
    and replay all call this after :func:`verify_run`, so a file cut down by rows (its metadata
    kept) is refused by each alike.

    Raises
    ------
    RunFileError
        A run without rows, with a side missing or short of rows, or holding other deals than
        its metadata says (the message names the path and the counts).
    """
    meta = meta or {}
    sides = meta.get("strategies")
    n_sides = len(sides) if isinstance(sides, list) and len(sides) in (2, 3) else 2
    _, table = read_verified(path, ["deal_index", "side"])
    if table.num_rows == 0:
        raise RunFileError(f"{path}: the run holds no deal")
    side = table["side"].to_numpy()
    deal = table["deal_index"].to_numpy()
    counts = {int(k): int(v) for k, v in zip(*np.unique(side, return_counts=True))}
    rows = [counts.get(i, 0) for i in range(n_sides)]
    if len(set(rows)) != 1 or set(counts) - set(range(n_sides)):
        got = ", ".join(f"side {chr(65 + i)} {r}" for i, r in enumerate(rows))
        raise RunFileError(
            f"{path}: rows that cannot be paired ({got} rows; a run has one row per side for every "
            "deal): a damaged or edited file?"
        )
    deals = meta.get("deals")
    if not isinstance(deals, int):
        return
    whole = rows[0] == deals
    if not is_match_meta(meta):
        for i in range(n_sides):
            d = np.sort(deal[side == i])
            twice = d[1:][d[1:] == d[:-1]]
            if twice.size:
                raise RunFileError(
                    f"{path}: deal {int(twice[0])} has several rows for side {chr(65 + i)} (runs "
                    "concatenated into one file?): a damaged or edited file?"
                )
            whole = whole and np.array_equal(d, np.arange(deals))
    if not whole:
        raise RunFileError(
            f"{path}: its rows are not the run's {deals} deals ({rows[0]} rows a side; a run has one "
            "row per side for every deal): a damaged or edited file?"
        )


def verify_run(path) -> dict | None:
    """Check that ``path`` is a whole, undamaged run file or dataset; the one check every reader uses.

    A directory is a dataset (:mod:`tranca_sim.dataset`): its manifest, and each chunk file
    against the manifest (size, sha256, deal range, run identity) and as a run file below.

    The file must be a regular, readable Parquet file with every column of
    :data:`tranca_sim.schema.COLUMNS` in its schema type (string and list
    columns may also be their large variants, as a file rewritten by polars
    has), parseable ``tranca_sim`` metadata when it has any, and every page of
    every column must pass its checksum and hold no null.  The whole file is
    read once, a row group at a time (memory does not grow with the run); a
    file that passed is remembered (by path, inode, size and modification
    time) so the next reader in the same process does not read it again.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    dict or None
        The run metadata (as :func:`load_meta`), or None if the file has none.

    Raises
    ------
    RunFileError
        Naming the path and what is wrong: missing, a directory or special
        file, unreadable, not Parquet, corrupt or truncated (a failed page
        checksum), a missing column, a column of the wrong type, a null, or
        corrupt metadata.
    """
    return read_verified(path, None)[0]


def load_run(path, backend: str = "polars", columns: list[str] | None = None):
    """Read a run file or a dataset directory into a data frame, after :func:`verify_run`.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`write_run`, or a dataset directory written by
        ``tranca-sim simulate --out DIR/`` (its chunks in deal order).
    backend : {"polars", "pandas"}
        Type of the result.
    columns : list of str, optional
        Read only these columns (all of :data:`tranca_sim.schema.COLUMNS`
        by default); the whole file is verified all the same.

    Returns
    -------
    polars.DataFrame or pandas.DataFrame
        One row per (deal, side); dtypes follow the schema (``int8`` ...
        ``int64``, ``bool``, string, list of float64).

    Raises
    ------
    RunFileError
        As :func:`verify_run`: the file is missing, not a regular file,
        unreadable, not Parquet, corrupt or truncated, lacks a run-file column,
        has a column of the wrong type or a null in any column.
    ValueError
        For an unknown ``backend`` or a column name not in the schema.
    """
    if backend not in ("polars", "pandas"):
        raise ValueError(f"backend must be 'polars' or 'pandas', got {backend!r}")
    known = [n for n, _, _ in COLUMNS]
    if columns is not None:
        bad = [c for c in columns if c not in known and c not in MATCH_COLUMN_NAMES]
        if bad:
            raise ValueError(f"unknown column(s) {', '.join(bad)}; see docs/schema.md")
    elif is_match_meta(verify_run(path)):
        known += MATCH_COLUMN_NAMES
    _, table = read_verified(path, list(columns) if columns is not None else known)
    table = table.replace_schema_metadata(None)
    if backend == "pandas":
        return table.to_pandas()
    import polars as pl

    return pl.from_arrow(table)


def load_meta(path) -> dict:
    """The run metadata stored in a run file, after :func:`verify_run`.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by :func:`write_run`.

    Returns
    -------
    dict
        The ``run_meta`` given to :func:`write_run` plus ``version`` and
        ``created``; in runs made by :func:`tranca_sim.simulate.run_simulation`
        also ``rules``, ``deals``, ``threads`` and more.

    Raises
    ------
    RunFileError
        As :func:`verify_run`, and if the file carries no ``tranca_sim``
        metadata.
    """
    meta = verify_run(path)
    if meta is None:
        raise RunFileError(f"{str(path)!r} is not a tranca-sim run file: it has no {META_KEY!r} metadata")
    return meta
