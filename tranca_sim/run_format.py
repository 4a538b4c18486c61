"""What a run file is: its columns as Arrow types, the metadata key, and its errors.

A *run file* holds one row per (deal, side) with the columns of
:data:`tranca_sim.schema.COLUMNS`, in that order, and the run's metadata as
JSON under the Parquet key-value metadata key ``tranca_sim``.  Writing:
:mod:`tranca_sim.run_write`; reading and verifying: :mod:`tranca_sim.io`.
"""

from __future__ import annotations

import pyarrow as pa

from .schema import COLUMNS, MATCH_COLUMNS

#: Parquet key-value metadata key holding the run metadata (JSON)
META_KEY = "tranca_sim"

#: copy of :data:`tranca_sim.engine.state.END_REASONS` (kept equal by a test, so reading
#: and writing files does not import numba)
END_REASONS = ("playing", "went_out", "stock_out", "turn_limit")

#: columns added by :func:`tranca_sim.run_write.write_run` from the run metadata
RUN_COLUMNS = ("preset", "master_seed", "strategy", "strategy_params", "version")

#: columns every chunk passed to :func:`tranca_sim.run_write.write_run` must carry
CHUNK_COLUMNS = tuple(name for name, _, _ in COLUMNS if name not in RUN_COLUMNS)

_ARROW_TYPES = {
    "string": pa.string(),
    "bool": pa.bool_(),
    "int8": pa.int8(),
    "int16": pa.int16(),
    "int32": pa.int32(),
    "int64": pa.int64(),
    "float64": pa.float64(),
    "list<float64>": pa.list_(pa.float64()),
}

#: the Arrow schema of a run file (without metadata)
ARROW_SCHEMA = pa.schema([pa.field(name, _ARROW_TYPES[t]) for name, t, _ in COLUMNS])
#: the Arrow schema of a match run's file: :data:`ARROW_SCHEMA` and the match columns after it
MATCH_ARROW_SCHEMA = pa.schema([pa.field(name, _ARROW_TYPES[t]) for name, t, _ in COLUMNS + MATCH_COLUMNS])
MATCH_COLUMN_NAMES = tuple(name for name, _, _ in MATCH_COLUMNS)


def is_match_meta(meta) -> bool:
    """Whether run metadata ``meta`` is a match run's (``simulate --matches N``)."""
    return bool(meta) and bool(meta.get("matches"))


def schema_for(run_meta) -> pa.Schema:
    """The Arrow schema of a run with metadata ``run_meta``: a match run's has the match columns."""
    return MATCH_ARROW_SCHEMA if is_match_meta(run_meta) else ARROW_SCHEMA


class RunFileError(ValueError):
    """A run file that cannot be read or written: one readable sentence naming the path."""


class OutputExistsError(RunFileError):
    """An output file exists and ``force`` was not given; ``path`` is the file."""

    def __init__(self, message: str, path):
        super().__init__(message)
        self.path = str(path)


def package_version() -> str:
    """Version string of the installed ``tranca-sim`` package.

    Prefers ``tranca_sim.__version__`` when the package defines it, then the
    installed distribution's metadata, else ``"0+unknown"``.
    """
    from importlib import import_module, metadata

    version = getattr(import_module("tranca_sim"), "__version__", None)
    if isinstance(version, str) and version:
        return version
    try:
        return metadata.version("tranca-sim")
    except metadata.PackageNotFoundError:
        return "0+unknown"


def first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
