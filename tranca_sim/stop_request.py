"""Whether the command was asked to stop (SIGINT, SIGTERM, SIGHUP): a fact any layer may read.

The command line's signal handlers (:mod:`tranca_sim.cli_signals`) note the signal here as they
raise the interrupt.  A library running when it arrives can turn the interrupt into an error of
its own (matplotlib, cut short while laying out a chart, raised ``ValueError: Invalid affine
transformation matrix``): code that catches ``Exception`` to say "this step failed" asks
:func:`requested` first and stops as interrupted instead.
"""

from __future__ import annotations

_signum = 0


def note(signum: int) -> None:
    """The command was asked to stop by ``signum``."""
    global _signum
    _signum = signum


def requested() -> int:
    """The signal that asked the command to stop, 0 if none."""
    return _signum
