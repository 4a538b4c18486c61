"""numba's ``njit`` with the package's default options: every kernel module imports ``njit`` from here.

Issue 9 (first compile, benchmarks/LOG.md "The first compile made smaller"): numba builds two
wrappers beside every function it compiles, in the function's own library, optimised and turned
into machine code with it: the CPython wrapper (a call from Python: unboxing the arguments) and a
C-ABI wrapper (``cfunc`` address, for first-class function values and ``ctypes``).  The package
calls its kernels from Python but never takes a C address of one, so the C wrapper is left out
(``no_cfunc_wrapper=True``, a numba jit option); a caller may still pass the option explicitly.
Strategies written by users (``strategies/user.py``) decorate with numba's own ``njit``.
"""

from __future__ import annotations

import numba


def njit(*args, **options):
    """:func:`numba.njit` with ``no_cfunc_wrapper=True`` unless ``options`` say otherwise; used
    as ``@njit`` or ``@njit(cache=True, ...)``."""
    options.setdefault("no_cfunc_wrapper", True)
    return numba.njit(*args, **options)


__all__ = ["njit"]
