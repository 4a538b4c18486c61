"""Writing an output file safely: check the path, write a temporary beside it, rename it over.

:func:`check_output_path` refuses what must not be written over (a link, a device, a directory,
an existing file without ``force``); :func:`atomic_output` gives a temporary file in the target's
directory that is renamed over the target only when the block ends without an exception;
:func:`writing` turns a disk-full or I/O error into one :class:`~tranca_sim.run_format.RunFileError`.
Temporaries and temporary directories of killed processes are removed by later writes
(:func:`remove_stale_temporaries`, :func:`remove_stale_temp_dirs`).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from pathlib import Path

from . import stop_request
from .run_format import OutputExistsError, RunFileError, first_line


def _temp_name(kind: str) -> str:
    """A short hidden name for a temporary or probe file (at most ~40 characters, so any
    valid target name in the same directory can have one)."""
    return f".{kind}-tranca-{os.getpid()}-{secrets.token_hex(4)}"


#: A temporary file of an interrupted run is removed by a later write in its directory once its
#: process is gone and it has not changed for this many seconds (guards a live writer on another
#: host of a shared file system, whose process id means nothing here).
STALE_TEMP_SECONDS = 300.0


def probe(parent, kind: str = "file") -> None:
    """Create and remove a hidden probe ``kind`` (``"file"`` or ``"dir"``) in ``parent``: raises
    the ``OSError`` of a directory that accepts none.  A stop that comes meanwhile is answered
    after the probe is gone (:func:`tranca_sim.stop_request.put_off`), so none is left behind."""
    path = Path(parent) / _temp_name("probe")
    with stop_request.put_off():
        try:
            if kind == "dir":
                os.mkdir(path)
            else:
                os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        finally:
            with contextlib.suppress(OSError):
                os.rmdir(path) if kind == "dir" else os.unlink(path)


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


def os_reason(e: OSError) -> str:
    """The system's one-line reason of an ``OSError`` (``"No space left on device"``)."""
    if e.errno:
        return os.strerror(e.errno)
    return e.strerror or first_line(e)


def write_error(path, e: OSError) -> RunFileError:
    """The :class:`RunFileError` ``cannot write PATH: <reason>`` for an ``OSError`` raised while writing."""
    return RunFileError(f"cannot write {str(path)!r}: {os_reason(e)}")


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


def lstat_or_none(p: Path) -> os.stat_result | None:
    try:
        return os.lstat(p)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise RunFileError(f"cannot write {str(p)!r}: {os_reason(e)}") from None


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
    st = lstat_or_none(p)
    _refuse_special(p, st)
    if st is not None and not force:
        raise OutputExistsError(f"output file {str(p)!r} already exists; pass force=True to overwrite it", p)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        why = "is not a directory" if parent.exists() else "does not exist"
        raise RunFileError(f"cannot write {str(p)!r}: {str(parent)!r} {why}")
    try:
        probe(parent)
    except OSError as e:
        raise RunFileError(
            f"cannot write {str(p)!r}: no file can be created in the directory {str(parent)!r} "
            f"({os_reason(e)})"
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
        st = lstat_or_none(p)
        _refuse_special(p, st)
        if st is not None and not force:
            raise RunFileError(f"output file {str(p)!r} appeared while it was written; not replaced")
        with writing(p):
            os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
