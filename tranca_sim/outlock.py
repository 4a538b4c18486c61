"""One run at a time per output: a lock file beside the output, held while a run writes it.

Two runs writing the same ``--out`` (a run file, a dataset directory, or an experiment's, tune's or
ladder's directory) would damage it: two writers of one dataset's chunks and manifest, or one
run's rename replacing the other's output.  Each run therefore holds an exclusive
:func:`fcntl.flock` on ``.NAME.tranca-sim.lock`` in the output's directory (beside the output, so
an output directory that is replaced whole keeps its lock) for as long as it writes; the file
holds the run's pid, start time and command line, which a refused run names.

The kernel drops a ``flock`` when its process ends, however it ends (SIGKILL too), so the file
of a dead run is only a stale name: the next run takes it over.  The lock file is removed when
its run ends.  A process takes a lock it already holds again (the command line locks the output
before its checks, the run function again), and the descriptor is not inherited by worker
processes (``O_CLOEXEC``).

The output's directory, as each command treats it:

- missing: ``simulate`` refuses an output whose directory does not exist (the run's own check
  says so, one line), so nothing is locked or written; ``experiment``, ``tune`` and ``ladder``
  create the missing directories of their ``--out`` (as they would to write it) before they take
  the lock, and remove the ones they made, if still empty, when the run fails before writing;
- read-only (no file can be created in it): :class:`OutputDirError`, one line (the command line
  exits with status 2), since the output could not be written there either; ``report`` (which
  writes inside its directory, not beside it) then redraws unlocked.

On a system without ``fcntl`` (Windows) or a file system without ``flock``, nothing is locked.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import functools
import inspect
import os
import stat
import sys
from pathlib import Path

from . import stop_request
from .io import RunFileError

try:
    import fcntl
except ImportError:  # pragma: no cover - not on Linux or macOS
    fcntl = None

#: the lock file of output ``NAME`` is ``.NAME`` + this, in the output's directory
LOCK_SUFFIX = ".tranca-sim.lock"

#: locks this process holds: lock path -> [descriptor, depth]
_HELD: dict[str, list[int]] = {}


class OutputBusyError(RunFileError):
    """Another live run is writing the output; ``pid`` is that run's process id (None when the
    lock file does not say), ``holder`` that run in words ("another tranca-sim run (pid 4242,
    started ...: tranca-sim experiment ...)") and ``stop`` how to stop it ("stop it first (kill
    4242)"), for a message of a command that does not write (``report``)."""

    def __init__(self, message: str, path, pid: int | None, holder: str = "", stop: str = ""):
        super().__init__(message)
        self.path = path
        self.pid = pid
        self.holder = holder
        self.stop = stop


class OutputDirError(RunFileError):
    """The output's directory cannot hold the lock file (read-only, not permitted), or its missing
    directories cannot be created; the message names the output, the directory and why."""


#: errors of a directory that accepts no new file
_READ_ONLY = (errno.EACCES, errno.EPERM, errno.EROFS)


def lock_path(out) -> Path:
    """``.NAME.tranca-sim.lock`` beside output ``out`` (a trailing ``/`` names the directory)."""
    p = Path(os.path.abspath(os.fspath(out)))
    return p.parent / f".{p.name}{LOCK_SUFFIX}"


def _lockable(out) -> bool:
    """An output that a run may write: missing, a regular file or a directory (a link, device or
    FIFO is refused by the run's checks; no lock file is made beside it)."""
    try:
        st = os.lstat(os.fspath(out).rstrip("/") or "/")
    except OSError:
        return True
    return stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)


def _holder(fd: int) -> tuple[int | None, str]:
    """The pid and the rest of what the lock file of descriptor ``fd`` says about its run."""
    try:
        text = os.pread(fd, 4096, 0).decode("utf-8", "replace")
    except OSError:
        return None, ""
    first, _, rest = text.partition("\n")
    try:
        return int(first), rest.strip()
    except ValueError:
        return None, ""


def _busy(out, fd: int) -> OutputBusyError:
    pid, about = _holder(fd)
    started, _, command = about.partition("\n")
    who = f"pid {pid}" if pid is not None else "its pid unknown"
    if started:
        who += f", started {started}"
    text = f"another tranca-sim run ({who}"
    text += f": {command})" if command else ")"
    stop = f"stop it first (kill {pid})" if pid is not None else "stop it first"
    return OutputBusyError(
        f"{os.fspath(out)!r} is being written by {text}; wait for it to end or {stop}: two runs "
        "writing one output would damage it",
        out,
        pid,
        text,
        stop,
    )


def _acquire(out, lp: Path) -> int | None:
    """Open and lock ``lp``; the descriptor, or None when no lock file can be made there."""
    while True:
        try:
            fd = os.open(lp, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            if e.errno in _READ_ONLY:  # the output could not be written there either
                raise OutputDirError(
                    f"cannot write {os.fspath(out)!r}: no file can be created in the directory "
                    f"{str(lp.parent)!r} ({os.strerror(e.errno)})"
                ) from None
            return None  # another failure (a name too long, ...): the run's checks say so
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            err = _busy(out, fd)
            os.close(fd)
            raise err from None
        except OSError:  # a file system without flock: run unlocked
            os.close(fd)
            return None
        try:  # the file may have been removed by its last holder between our open and flock
            same = os.stat(lp).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        started = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        command = " ".join(["tranca-sim", *sys.argv[1:]]) if sys.argv else ""
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n{started}\n{command}\n".encode(), 0)
    except BaseException:  # an interrupt (or a full disk) while it is ours: no lock file is left
        with contextlib.suppress(OSError):
            os.unlink(lp)
        os.close(fd)
        raise
    return fd


def _make_dirs(out, d: Path) -> list[Path]:
    """Create directory ``d`` and its missing parents; the ones created, deepest first."""
    missing = []
    while not os.path.lexists(d) and d != d.parent:
        missing.append(d)
        d = d.parent
    made = []
    for m in reversed(missing):
        try:
            os.mkdir(m)
        except FileExistsError:
            continue  # made meanwhile by another process
        except OSError as e:
            _remove_empty(made[::-1])
            why = os.strerror(e.errno) if e.errno else str(e)
            raise OutputDirError(
                f"cannot write {os.fspath(out)!r}: cannot create its directory {str(m)!r} ({why})"
            ) from None
        made.append(m)
    return made[::-1]


def _remove_empty(dirs: list[Path]) -> None:
    for d in dirs:
        try:
            os.rmdir(d)
        except OSError:
            return  # not empty (the output is in it) or gone: its parents stay too


@contextlib.contextmanager
def output_lock(out, make_dirs: bool = False):
    """Hold the lock of output ``out`` for the block (see the module doc).

    ``make_dirs``: create the missing directories the output goes into first (an experiment's,
    tune's or ladder's ``--out``, whose run creates them); those still empty when the block ends
    (a run that failed before writing) are removed again. Without it, an output whose directory
    does not exist is not locked (``simulate`` refuses it in its own checks).

    Raises
    ------
    OutputBusyError
        Another live process holds it: the message names its pid, start time and command.
    OutputDirError
        The directory accepts no new file (read-only, not permitted), or a missing directory
        cannot be created: the message names the directory and why.
    """
    if fcntl is None or not _lockable(out):
        yield
        return
    lp = lock_path(out)
    key = str(lp)
    made: list[Path] = []
    if key not in _HELD and not lp.parent.is_dir():
        if not make_dirs:
            yield  # the run's own check refuses the missing directory before writing anything
            return
        made = _make_dirs(out, lp.parent)
    try:
        with _locked(out, lp, key):
            yield
    finally:
        _remove_empty(made)


@contextlib.contextmanager
def _locked(out, lp: Path, key: str):
    if key in _HELD:  # this process holds it already
        _HELD[key][1] += 1
        try:
            yield
        finally:
            _HELD[key][1] -= 1
        return
    fd = None
    try:  # an interrupt at any step from here on leaves no lock file behind
        with stop_request.put_off():  # made and noted in one step
            fd = _acquire(out, lp)
            if fd is not None:
                _HELD[key] = [fd, 1]
        yield
    finally:
        with stop_request.put_off():
            if fd is not None:
                _HELD.pop(key, None)
                with contextlib.suppress(OSError):
                    os.unlink(lp)  # while still locked: a run waiting on this file sees it gone and retries
                os.close(fd)


def locked_output(param: str, make_dirs: bool = False):
    """Decorator: the call holds :func:`output_lock` of its argument ``param`` (the output);
    ``make_dirs`` as there."""

    def deco(func):
        sig = inspect.signature(func)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            bound = sig.bind_partial(*args, **kwargs).arguments
            out = bound.get(param)
            if param == "cfg":  # a run's configuration (tune's TuneConfig): its output is cfg.out
                out = getattr(out, "out", None)
            if out is None:
                return func(*args, **kwargs)
            with output_lock(out, make_dirs):
                return func(*args, **kwargs)

        return wrapper

    return deco
