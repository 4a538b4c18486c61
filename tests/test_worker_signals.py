"""Local worker processes (``--processes N``) leave Ctrl-C and hangups to the command: they are
born holding them, so one that reaches the process group while a worker still starts up (imports
numpy, before it can ignore it) prints no traceback of that worker."""

from __future__ import annotations

import signal

import pytest

from tranca_sim import parallel

pytestmark = pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")


def _hold_nothing():
    """An initializer of this test's own (a fresh loky executor, none reused from other tests)."""


def test_a_local_worker_process_is_born_holding_ctrl_c_and_hangup():
    from joblib import Parallel, delayed
    from joblib.parallel import LokyBackend

    parallel._spawn_holding()
    backend = LokyBackend(initializer=_hold_nothing)  # no die_with_parent: the mask it was born with
    # two workers (joblib runs one job in this process)
    for held in Parallel(n_jobs=2, backend=backend)(delayed(signal.pthread_sigmask)(signal.SIG_BLOCK, []) for _ in range(2)):
        assert signal.SIGINT in held and signal.SIGHUP in held
        assert signal.SIGTERM not in held  # a termination still ends a worker (the parent's stop uses it)
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # this process still answers Ctrl-C


def test_a_started_local_worker_ignores_ctrl_c_and_holds_nothing():
    import os

    from joblib import Parallel, delayed
    from joblib.parallel import LokyBackend

    parallel._spawn_holding()
    backend = LokyBackend(initializer=parallel.die_with_parent, initargs=(os.getpid(),))
    run = Parallel(n_jobs=2, backend=backend)  # two workers: joblib runs one job in this process
    assert run(delayed(signal.getsignal)(signal.SIGINT) for _ in range(2)) == [signal.SIG_IGN] * 2
    for held in run(delayed(signal.pthread_sigmask)(signal.SIG_BLOCK, []) for _ in range(2)):
        assert signal.SIGINT not in held and signal.SIGHUP not in held
