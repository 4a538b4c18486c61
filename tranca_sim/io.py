"""Parquet I/O of simulation runs.

A *run file* holds one row per (deal, side) with the columns of
:data:`tranca_sim.schema.COLUMNS`, in that order, and the run's metadata as
JSON under the Parquet key-value metadata key ``tranca_sim``.

:func:`write_run` streams column chunks into the file (one row group per
chunk, so memory does not grow with the number of deals), writing to a
temporary file in the target directory that is renamed over the target only
when every chunk is written.  Every reader of run files (:func:`load_run`,
:func:`load_meta`, and through them ``summarize``, ``check`` and ``replay``)
first passes :func:`verify_run`, which reads the whole file once with the
Parquet page checksums on and turns every kind of unreadable, damaged or
foreign file into a :class:`RunFileError`.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from .schema import COLUMNS, MATCH_COLUMNS

#: Parquet key-value metadata key holding the run metadata (JSON)
META_KEY = "tranca_sim"

#: copy of :data:`tranca_sim.engine.state.END_REASONS` (kept equal by a test, so reading
#: and writing files does not import numba)
END_REASONS = ("playing", "went_out", "stock_out", "turn_limit")

#: columns added by :func:`write_run` from the run metadata
RUN_COLUMNS = ("preset", "master_seed", "strategy", "strategy_params", "version")

#: columns every chunk passed to :func:`write_run` must carry
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


# ---------------------------------------------------------------------------
# writing
# ---------------------------------------------------------------------------
def _temp_name(kind: str) -> str:
    """A short hidden name for a temporary or probe file (at most ~40 characters, so any
    valid target name in the same directory can have one)."""
    return f".{kind}-tranca-{os.getpid()}-{secrets.token_hex(4)}"


#: A temporary file of an interrupted run is removed by a later write in its directory once its
#: process is gone and it has not changed for this many seconds (guards a live writer on another
#: host of a shared file system, whose process id means nothing here).
STALE_TEMP_SECONDS = 300.0

_TEMP_RE = re.compile(r"^\.(?:tmp|probe)-tranca-(\d+)-[0-9a-f]{8}$")


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True  # exists (another user's) or cannot tell: keep its file
    return True


def remove_stale_temporaries(directory) -> list[Path]:
    """Remove the hidden temporary files ``.tmp-tranca-<pid>-<hex>`` (and probe files) that a
    killed run (SIGKILL, power loss) left in ``directory``.

    A file is removed only when its name is exactly one of ours, its process ``pid`` is not
    running on this machine, and it has not been modified for :data:`STALE_TEMP_SECONDS`.
    Errors (a file vanishing meanwhile, no permission) are ignored.

    Returns
    -------
    list of pathlib.Path
        The files removed.
    """
    d = Path(directory) if str(directory) else Path(".")
    removed: list[Path] = []
    try:
        names = [x for x in d.iterdir() if x.name.startswith((".tmp-tranca-", ".probe-tranca-"))]
    except OSError:
        return removed
    now = time.time()
    for x in names:
        m = _TEMP_RE.match(x.name)
        if m is None or int(m.group(1)) == os.getpid() or _pid_alive(int(m.group(1))):
            continue
        with contextlib.suppress(OSError):
            st = x.lstat()
            if stat.S_ISREG(st.st_mode) and now - st.st_mtime >= STALE_TEMP_SECONDS:
                x.unlink()
                removed.append(x)
    return removed


#: a hidden output directory in the making (``.NAME.tmp-<pid>-<hex>``) or the previous output moved
#: aside while the new one is renamed into place (``.NAME.old-<pid>-<hex>``)
_TEMP_DIR_RE = re.compile(r"^\..+\.(?:tmp|old)-(\d+)-[0-9a-f]{8}$")


def temp_dir_path(out, kind: str = "tmp") -> Path:
    """The hidden name ``.NAME.<kind>-<pid>-<hex>`` next to the output directory ``out`` under which
    an experiment, tune or ladder writes its output before renaming it to ``out`` (``kind``
    ``"old"``: the previous output, moved aside while the new one is renamed into place).

    Leftovers of killed runs in ``out``'s parent are removed first
    (:func:`remove_stale_temp_dirs`).  Nothing is created.
    """
    out = Path(out)
    remove_stale_temp_dirs(out.parent)
    return out.parent / f".{out.name}.{kind}-{os.getpid()}-{secrets.token_hex(4)}"


def _newest_mtime(d: Path) -> float:
    """The latest modification time of directory ``d`` and of everything under it."""
    newest = d.lstat().st_mtime
    for root, dirs, files in os.walk(d):
        for name in dirs + files:
            with contextlib.suppress(OSError):
                newest = max(newest, os.lstat(os.path.join(root, name)).st_mtime)
    return newest


def remove_stale_temp_dirs(directory) -> list[Path]:
    """Remove the hidden output directories ``.NAME.tmp-<pid>-<hex>`` (and ``.NAME.old-<pid>-<hex>``)
    that a killed ``experiment``, ``tune`` or ``ladder`` (SIGKILL, power loss) left in
    ``directory``: the same rule as :func:`remove_stale_temporaries` for files.

    A directory is removed only when its name is exactly one of these, it is a real directory (not
    a link), its process ``pid`` is not running on this machine, and nothing in it has been
    modified for :data:`STALE_TEMP_SECONDS` (guards a live run on another host of a shared file
    system).  Errors (a directory vanishing meanwhile, no permission) are ignored.

    Returns
    -------
    list of pathlib.Path
        The directories removed.
    """
    import shutil

    d = Path(directory) if str(directory) else Path(".")
    removed: list[Path] = []
    try:
        names = [x for x in d.iterdir() if x.name.startswith(".") and _TEMP_DIR_RE.match(x.name)]
    except OSError:
        return removed
    now = time.time()
    for x in names:
        pid = int(_TEMP_DIR_RE.match(x.name).group(1))
        if pid == os.getpid() or _pid_alive(pid):
            continue
        with contextlib.suppress(OSError):
            if not stat.S_ISDIR(x.lstat().st_mode) or now - _newest_mtime(x) < STALE_TEMP_SECONDS:
                continue
            shutil.rmtree(x)
            removed.append(x)
    return removed


def _reason(e: OSError) -> str:
    """The system's one-line reason of an ``OSError`` (``"No space left on device"``)."""
    if e.errno:
        return os.strerror(e.errno)
    return e.strerror or _first_line(e)


def write_error(path, e: OSError) -> RunFileError:
    """The :class:`RunFileError` ``cannot write PATH: <reason>`` for an ``OSError`` raised while writing."""
    return RunFileError(f"cannot write {str(path)!r}: {_reason(e)}")


@contextlib.contextmanager
def writing(path):
    """Turn any ``OSError`` raised in the block (disk full, I/O error) into :func:`write_error`."""
    try:
        yield
    except OSError as e:
        raise write_error(path, e) from None


_KINDS = (
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISSOCK, "a socket"),
)


def _refuse_special(p: Path, st: os.stat_result | None) -> None:
    """Refuse an existing output path that is a symbolic link or not a regular file."""
    if st is None or stat.S_ISREG(st.st_mode):
        return
    if stat.S_ISLNK(st.st_mode):
        raise RunFileError(f"output path {str(p)!r} is a symbolic link; give the file's real path")
    if stat.S_ISDIR(st.st_mode):
        raise RunFileError(f"output path {str(p)!r} is a directory")
    kind = next((text for test, text in _KINDS if test(st.st_mode)), "a special file")
    raise RunFileError(f"output path {str(p)!r} is not a regular file ({kind}); it is never replaced")


def _lstat(p: Path) -> os.stat_result | None:
    try:
        return os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise RunFileError(f"cannot write {str(p)!r}: {_reason(e)}") from None


def check_output_path(path, force: bool = False) -> Path:
    """Check that an output file (run, deal logs, HTML) can be written at ``path``; call it
    before doing the work.

    Parameters
    ----------
    path : str or os.PathLike
        Target file.
    force : bool
        Allow replacing an existing regular file.

    Returns
    -------
    pathlib.Path
        ``path`` as a ``Path``.

    Raises
    ------
    RunFileError
        If ``path`` is a symbolic link, a directory, a device, FIFO or socket
        (even with ``force``), exists and ``force`` is false, or its directory
        does not exist or does not accept new files (tested by creating and
        removing a probe file).
    """
    p = Path(path)
    st = _lstat(p)
    _refuse_special(p, st)
    if st is not None and not force:
        raise OutputExistsError(f"output file {str(p)!r} already exists; pass force=True to overwrite it", p)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise RunFileError(f"cannot write {str(p)!r}: {str(parent)!r} {why}")
    probe = parent / _temp_name("probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise RunFileError(
            f"cannot write {str(p)!r}: no file can be created in the directory {str(parent)!r} ({_reason(e)})"
        ) from None
    return p


@contextlib.contextmanager
def atomic_output(path, force: bool = False):
    """Write a file atomically: yields a temporary path beside ``path`` to write.

    ``path`` is checked first (:func:`check_output_path`); when the block ends
    normally the temporary file is renamed to ``path``.  Temporary files that killed runs left in
    the directory are removed first (:func:`remove_stale_temporaries`).  On any exception
    (``KeyboardInterrupt`` and termination included) the temporary file is
    removed, ``path`` is left as it was, and the exception propagates.  Wrap
    the writing itself in :func:`writing` to report ``OSError`` as
    :class:`RunFileError`.

    Raises
    ------
    RunFileError
        From :func:`check_output_path`; if ``path`` appeared (without ``force``)
        or became a link or special file meanwhile; if the rename fails.
    """
    p = check_output_path(path, force)
    remove_stale_temporaries(p.parent)
    tmp = p.parent / _temp_name("tmp")
    try:
        yield tmp
        st = _lstat(p)
        _refuse_special(p, st)
        if st is not None and not force:
            raise RunFileError(f"output file {str(p)!r} appeared while it was written; not replaced")
        with writing(p):
            os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


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


def _run_constants(run_meta: Mapping) -> tuple[pa.Array, pa.Array, pa.Array, pa.Array, pa.Array]:
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
    preset, seed, names, params, version = _run_constants(run_meta)
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
    return _meta_json_plain(meta)


def _meta_json_plain(meta: Mapping) -> bytes:
    """``meta`` as the JSON stored under :data:`META_KEY`, nothing added (a dataset's chunk files
    carry no time stamp, so their bytes do not depend on when they were written)."""
    return json.dumps(meta, default=_json_default, sort_keys=True).encode()


def _json_default(o):
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
    iterable is exhausted (:func:`atomic_output`).  On any exception,
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
        :func:`load_meta` reads the footer; the Arrow schema's copy keeps ``run_meta``.

    Returns
    -------
    pathlib.Path
        The written path.

    Raises
    ------
    RunFileError
        If the path is not writable, exists without ``force``, is a link or
        not a regular file (see :func:`check_output_path`), or an ``OSError``
        (disk full, I/O error) happens while writing: ``cannot write PATH: reason``.
    ValueError
        For a malformed chunk or ``run_meta``.
    """
    p = check_output_path(path, force)
    _run_constants(run_meta)  # fail before creating anything
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


# ---------------------------------------------------------------------------
# reading
# ---------------------------------------------------------------------------
def _open(path) -> tuple[Path, pq.ParquetFile]:
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise RunFileError(f"run file {str(p)!r} does not exist") from None
    except OSError as e:
        raise RunFileError(f"cannot read {str(p)!r}: {_reason(e)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise RunFileError(f"run file {str(p)!r} is a directory")
    if not stat.S_ISREG(st.st_mode):  # a FIFO or device would block or never end
        raise RunFileError(f"run file {str(p)!r} is not a regular file")
    try:
        return p, pq.ParquetFile(p, page_checksum_verification=True)
    except OSError as e:
        if e.errno:  # permission denied, I/O error: the file, not its format
            raise RunFileError(f"cannot read {str(p)!r}: {_reason(e)}") from None
        raise RunFileError(f"{str(p)!r} is not a readable Parquet file ({_first_line(e)})") from None
    except pa.ArrowException as e:  # any unreadable footer
        raise RunFileError(f"{str(p)!r} is not a readable Parquet file ({_first_line(e)})") from None


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def _check_columns(p: Path, names) -> None:
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


def _check_types(p: Path, schema: pa.Schema) -> None:
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


#: files :func:`verify_run` passed in this process: (path, device, inode, size, mtime) -> metadata
_VERIFIED: dict[tuple, dict | None] = {}
_VERIFIED_MAX = 16


def _identity(p: Path) -> tuple:
    st = os.stat(p)
    return (os.path.realpath(p), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _meta_of(p: Path, pf: pq.ParquetFile) -> dict | None:
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
    verified: :func:`verify_run` does that); None when the file has none.

    Raises
    ------
    RunFileError
        As :func:`verify_run` for a missing, special, unreadable or non-Parquet file, or corrupt
        metadata.
    """
    p, pf = _open(path)
    with contextlib.closing(pf):
        return _meta_of(p, pf)


def run_diagnostics(meta: Mapping | None) -> tuple[int, list[int]] | None:
    """``(invariant_errors, illegal_choices per side)`` recorded for a run: a run file's
    ``diagnostics`` metadata (written by ``simulate`` and ``experiment``), or a dataset's
    chunks' (its manifest; ``meta`` as :func:`load_meta` gives it, with ``chunks``); None when
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
    _, table = _read_verified(path, ["deal_index", "side"])
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
        raise RunFileError(f"{str(p)!r} is corrupt or truncated ({_first_line(e)})") from None


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
    return _read_verified(path, None)[0]


def _read_verified(path, columns: list[str] | None) -> tuple[dict | None, pa.Table | None]:
    """:func:`verify_run`, and the table of ``columns`` (None: no table) read in the same pass
    when the file was not verified before; a directory is read as a dataset
    (:func:`tranca_sim.dataset.read_verified`)."""
    if os.path.isdir(path):
        from .dataset import read_verified

        return read_verified(path, columns)
    p, pf = _open(path)
    with contextlib.closing(pf):
        try:
            ident = _identity(p)
        except OSError as e:
            raise RunFileError(f"cannot read {str(p)!r}: {_reason(e)}") from None
        if ident in _VERIFIED:
            if columns is None:
                return _VERIFIED[ident], None
            try:
                return _VERIFIED[ident], pf.read(columns=columns)
            except (pa.ArrowException, OSError) as e:
                raise RunFileError(f"{str(p)!r} is corrupt or truncated ({_first_line(e)})") from None
        _check_columns(p, pf.schema_arrow.names)
        _check_types(p, pf.schema_arrow)
        meta = _meta_of(p, pf)
        parts = list(_scan(p, pf, columns))
        table = None
        if columns is not None:
            table = pa.concat_tables(parts) if parts else pf.schema_arrow.empty_table().select(columns)
    if len(_VERIFIED) >= _VERIFIED_MAX:
        _VERIFIED.pop(next(iter(_VERIFIED)))
    _VERIFIED[ident] = meta
    return meta, table


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
    _, table = _read_verified(path, list(columns) if columns is not None else known)
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
        ``created``; in runs made by :func:`tranca_sim.run.run_simulation`
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
