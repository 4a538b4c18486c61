"""Whether the command was asked to stop (SIGINT, SIGTERM, SIGHUP): a fact any layer may read.

The command line's signal handlers (:mod:`tranca_sim.cli_signals`) note the signal here as they
raise the interrupt.  A library running when it arrives can turn the interrupt into an error of
its own (matplotlib, cut short while laying out a chart, raised ``ValueError: Invalid affine
transformation matrix``): code that catches ``Exception`` to say "this step failed" asks
:func:`requested` first and stops as interrupted instead.
"""

from __future__ import annotations

import contextlib

_signum = 0
_put_off = 0


def note(signum: int) -> None:
    """The command was asked to stop by ``signum``."""
    global _signum
    _signum = signum


def requested() -> int:
    """The signal that asked the command to stop, 0 if none."""
    return _signum


@contextlib.contextmanager
def put_off():
    """A few steps that a stop must not cut in two (a lock file made and noted as held, or the
    exit that removes it handed to the command): a signal that comes meanwhile is answered a
    moment after the block (the command line's handlers ask :func:`putting_off` and send it
    again later), so the command unwinds with nothing half done."""
    global _put_off
    _put_off += 1
    try:
        yield
    finally:
        _put_off -= 1


def putting_off() -> bool:
    """Whether the main thread is inside :func:`put_off`."""
    return _put_off > 0
