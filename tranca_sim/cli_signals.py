"""What ``tranca-sim`` does on Ctrl-C (SIGINT), SIGTERM and SIGHUP: one line, nothing else.

The promise: an interrupted or terminated command unwinds (its temporary files removed, a dataset
left resumable, its output locks released), prints one line ``tranca-sim: error: interrupted ...``
(or ``terminated ...``) and exits with status 130, 143 or 129; nothing else reaches the terminal,
whenever the signal comes (during the imports, the kernels' compile, the run, the writing, the
shutdown of the workers, the process's own exit).  How:

- :class:`Stop` holds the handlers of one :func:`tranca_sim.cli.main` call.  The first signal
  raises ``KeyboardInterrupt`` (SIGINT) or :class:`~tranca_sim.cli_common.Terminated` in the main
  thread; a repeat while the command unwinds is let pass (:data:`REPEAT_IGNORED_SECONDS`), so a
  second Ctrl-C cannot cut the removal of a temporary file short.
- A signal that comes while the main thread imports a module or runs a finalizer (a ``__del__``,
  which Python runs between any two steps: llvmlite's, during a compile) is sent again a moment
  later (:func:`_unsafe`; so is one inside :func:`tranca_sim.stop_request.put_off`, where an output
  lock is being taken or released): raised there, its exception would not unwind the command (an import's
  C extension turns it into another error, a finalizer swallows it and Python prints ``Exception
  ignored in ...``).  :meth:`Stop.unraisable` (``sys.unraisablehook`` for the call) catches the
  finalizers that the frames do not show the same way; once a stop began, a finalizer's error is
  the stop's side effect (a library cut short) and is not printed.
- After the line, the console script ends with ``os._exit`` (:func:`exit_stopped`): no finalizer
  and no library's exit function runs, so none can print after the line (llvmlite's
  ``ObjectRef.__del__``, seen under load as a compile was cut short), and no thread is waited
  for (a user strategy that never returns holds its kernel thread forever).  Worker processes
  end with the process (tranca_sim.parallel: ``die_with_parent``, Dask's parent-alive pipe); a
  Dask LocalCluster's workers never see the signals (:func:`tranca_sim.parallel.signals_held`).
- Before :func:`~tranca_sim.cli.main` runs (the console script imports it) and once the command
  finished (the console script exits next), a signal gets the same line and status at once
  (:func:`late_stop`, installed by :func:`early_stop` as the CLI module loads) instead of a
  ``KeyboardInterrupt`` traceback or a silent end.  Only the interpreter's own start, before
  any line of the project runs (about 0.1 s), is left to Python.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from . import stop_request
from .cli_common import PROG, Terminated, _stopped

#: the signals a command answers with its one line (those this system has)
SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))

#: seconds after the first signal in which a repeat is let pass while the command unwinds (its
#: cleanup takes well under a second, a Dask cluster's a few); a signal after that is raised
#: again (a cleanup that hangs, or a library that swallowed the first)
REPEAT_IGNORED_SECONDS = 10.0

#: most seconds the exit after an interrupt's line spends in multiprocessing's finalizers
EXIT_SECONDS = 2.0

#: most seconds a signal is put off while the main thread imports or finalizes (an import that
#: runs long, a module that does its work as it loads, would otherwise hold it off as long);
#: numba's first import takes several seconds on a busy machine
DEFER_SECONDS = 10.0

#: seconds after which a signal lost in a finalizer is sent again
RESEND_SECONDS = 0.05


class Stop:
    """The signal handlers of one command (``install`` ... ``restore``), and what it saw:
    ``signum`` (the signal being answered, 0 before one) and ``at`` (when it came)."""

    def __init__(self):
        self.signum = 0
        self.at = 0.0
        self.previous: dict = {}
        self.hook = None
        self.deferred = 0.0  # when a signal was first put off (an import, a finalizer), 0 if none
        self.pending = 0  # a signal sent again later and not answered yet, 0 if none
        self.timers: list[threading.Timer] = []

    def install(self) -> None:
        """Take SIGINT, SIGTERM and SIGHUP, except one the caller ignores (``nohup`` ignores
        SIGHUP, a shell's ``&`` SIGINT: they stay ignored), and ``sys.unraisablehook``.  Called
        outside the main thread, where handlers cannot be set, it leaves everything alone."""
        stop_request.note(0)  # a command starts unasked, whatever an earlier call in this process saw
        if threading.current_thread() is not threading.main_thread():
            return
        for sig in SIGNALS:
            if signal.getsignal(sig) is not signal.SIG_IGN:
                self.previous[sig] = signal.signal(sig, self.handler)
        self.hook = sys.unraisablehook
        sys.unraisablehook = self.unraisable

    def restore(self) -> None:
        """Give the handlers back.  A signal put off and not answered by the command (it finished
        first: on a busy machine the helper thread that sends it again can be late) is not left
        to fire later into the caller's handlers unasked: its timer is stopped, and the signal,
        which was sent to this process, is sent once more after the caller's handlers are back,
        so they answer it as if it had come a moment later."""
        for t in self.timers:
            t.cancel()
        for t in self.timers:
            t.join(1.0)  # one that had started sends before the handlers change, not after
        self.timers.clear()
        for sig, handler in self.previous.items():
            signal.signal(sig, handler)
        if self.hook is not None:
            sys.unraisablehook = self.hook
        pending, self.pending = self.pending, 0
        if pending and not self.signum and pending in self.previous:
            os.kill(os.getpid(), pending)

    def handler(self, signum, frame):
        now = time.monotonic()
        if self.signum and now - self.at < REPEAT_IGNORED_SECONDS:
            return  # the command unwinds after the first: its cleanup is not cut short
        unsafe = _unsafe(frame) or stop_request.putting_off()
        if unsafe and now - (self.deferred or now) < DEFER_SECONDS:
            self.deferred = self.deferred or now
            self.send_later(signum)  # raised there, it would be lost or turned into another error
            return
        self.signum, self.at, self.deferred, self.pending = signum, now, 0.0, 0
        stop_request.note(signum)
        if signum == signal.SIGINT:
            raise KeyboardInterrupt
        raise Terminated(signum)

    def send_later(self, signum: int) -> None:
        """Send ``signum`` to this process again in :data:`RESEND_SECONDS` (from a helper thread
        that :meth:`restore` stops if the command ends first)."""
        self.pending = signum
        self.timers = [t for t in self.timers if t.is_alive()]
        t = threading.Timer(RESEND_SECONDS, os.kill, (os.getpid(), signum))
        t.daemon = True
        self.timers.append(t)
        t.start()

    def unraisable(self, u) -> None:
        if self.signum and isinstance(u.exc_value, (KeyboardInterrupt, Terminated)):
            # raised inside a finalizer, which swallowed it: the command goes on, so send it again
            signum, self.signum = self.signum, 0
            self.send_later(signum)
            return
        if self.signum:
            return  # a finalizer of a library cut short by the stop: nothing the user can act on
        (self.hook or sys.__unraisablehook__)(u)


def _unsafe(frame) -> bool:
    """Whether the main thread, at ``frame``, runs an import or a finalizer: an exception raised
    there does not unwind the command.  An import's C extension turns it into another error (a
    Ctrl-C while pyarrow imported pandas became ``SystemError``, which pyarrow took as "no
    pandas": the run went on), a ``__del__`` swallows it."""
    depth = 0
    while frame is not None and depth < 500:
        code = frame.f_code
        if code.co_name == "__del__" or code.co_filename.startswith("<frozen importlib"):
            return True
        frame, depth = frame.f_back, depth + 1
    return False


def exit_stopped(status: int) -> None:
    """End the process after an interrupt or termination whose line is written: the output
    flushed, then ``os._exit`` (see the module's text: no finalizer, no exit function, no
    thread's join).  A further signal meanwhile ends it at once, silently."""
    for sig in SIGNALS:
        with contextlib.suppress(ValueError, OSError):
            signal.signal(sig, lambda *_: os._exit(status))
    for f in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            f.flush()
    if "multiprocessing.util" in sys.modules:
        # the semaphores of multiprocessing's (and loky's) queues are unlinked by their finalizers
        # at exit (priority 0, as multiprocessing's own exit function runs them first): without
        # that, the resource tracker process, which outlives us, warned of "leaked semaphore
        # objects" after the line.  Bounded: a finalizer that hangs does not hold the exit.
        watchdog = threading.Timer(EXIT_SECONDS, os._exit, (status,))
        watchdog.daemon = True
        watchdog.start()
        with contextlib.suppress(Exception):
            sys.modules["multiprocessing.util"]._run_finalizers(0)
    os._exit(status)


def exit_finished(status: int) -> None:
    """End the process once the command is done: the exit functions run (with the handlers of
    :func:`late_stop` in place), the output is flushed, and the process exits at once.  Python's
    own shutdown would then spend a second or so in numba's and the libraries' teardown, where no
    Python signal handler runs: a SIGTERM there ended the process silently (status 143, nothing
    said; a fresh user's find)."""
    import atexit

    # Python's own order: first the threads' exit callbacks and the joins of the other threads
    # (threading._shutdown: joblib's loky and concurrent.futures shut their workers down there),
    # then the atexit functions (multiprocessing's joins its children there: without the first
    # step it waited out loky's 300 s idle timeout after every --processes run; a fresh user's find)
    with contextlib.suppress(Exception):
        threading._shutdown()
    atexit._run_exitfuncs()
    for f in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            f.flush()
    os._exit(status or 0)


def early_stop() -> None:
    """As the console script (``tranca-sim``, ``python -m tranca_sim.cli``) loads its module, from
    the main thread: :func:`late_stop`'s handlers until :func:`~tranca_sim.cli.main` takes over
    (nothing is written yet, so the line and an immediate exit are all there is to do).  A
    signal the caller ignores stays ignored; imported from Python, nothing changes."""
    from .cli_common import _console

    if not _console(None) or threading.current_thread() is not threading.main_thread():
        return
    for sig in SIGNALS:
        if signal.getsignal(sig) is not signal.SIG_IGN:
            signal.signal(sig, late_stop({"args": None}))


def late_stop(state: dict):
    """The handler of SIGTERM, SIGHUP and Ctrl-C once the console script's command finished:
    the process is shutting down, so the line is written and the process ends at once."""

    def handler(signum, frame):
        what = "interrupted" if signum == signal.SIGINT else "terminated"
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        os.write(2, f"{PROG}: error: {_stopped(what, state)}\n".encode())
        os._exit(128 + signum)

    return handler
