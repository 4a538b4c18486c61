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

On a system without ``fcntl`` (Windows) or an output whose directory cannot hold the lock file
(missing, read-only: the run's own checks name that), nothing is locked.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import functools
import inspect
import os
import stat
import sys
from pathlib import Path

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
        except OSError:
            return None  # a missing or read-only directory: the run's checks say so
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
    started = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
    command = " ".join(["tranca-sim", *sys.argv[1:]]) if sys.argv else ""
    os.ftruncate(fd, 0)
    os.pwrite(fd, f"{os.getpid()}\n{started}\n{command}\n".encode(), 0)
    return fd


@contextlib.contextmanager
def output_lock(out):
    """Hold the lock of output ``out`` for the block (see the module doc).

    Raises
    ------
    OutputBusyError
        Another live process holds it: the message names its pid, start time and command.
    """
    if fcntl is None or not _lockable(out):
        yield
        return
    lp = lock_path(out)
    key = str(lp)
    if key in _HELD:  # this process holds it already
        _HELD[key][1] += 1
        try:
            yield
        finally:
            _HELD[key][1] -= 1
        return
    fd = _acquire(out, lp)
    if fd is None:
        yield
        return
    _HELD[key] = [fd, 1]
    try:
        yield
    finally:
        del _HELD[key]
        with contextlib.suppress(OSError):
            os.unlink(lp)  # while still locked: a run waiting on this file sees it gone and retries
        os.close(fd)


def locked_output(param: str):
    """Decorator: the call holds :func:`output_lock` of its argument ``param`` (the output)."""

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
            with output_lock(out):
                return func(*args, **kwargs)

        return wrapper

    return deco
