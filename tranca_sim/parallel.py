"""Where the chunks of a run are simulated: in this process, on local processes, or on Dask.

A chunk is fully determined by ``(seed, rules, strategies, first deal, count)``
(:class:`ChunkTask`), so it gives the same rows wherever it runs:

- ``threads`` (default): one chunk after another in this process, each chunk's
  deals spread over numba threads (``prange``);
- ``processes``: :mod:`joblib` (loky) worker processes on this machine, one chunk
  per task, each worker with ``threads`` numba threads (default 1);
- ``dask``: a :mod:`dask.distributed` cluster, a ``LocalCluster`` started here
  (``--cluster local:N``) or an existing scheduler (``--scheduler ADDRESS``).

A worker process imports and loads the kernels once (numba's disk cache, or a
compile when the worker's machine has none) on its first chunk and keeps them
for every later chunk: :func:`run_chunk` reports, per worker, how long that
load took and numba's cache hits and misses, so a run can show it happened once.

Environment variables that choose what the kernels are (the user strategies'
selection, the cache directory) are sent with every task and set in a worker
before its first import of the engine; a worker that loaded another selection
refuses the task rather than play other strategies.
"""

from __future__ import annotations

import dataclasses
import os
import socket
import time
from collections.abc import Iterator, Mapping

#: environment variables a worker must share with the process that plans the run
SHARED_ENV = ("TRANCA_SIM_USER_STRATEGIES",)
#: ... and, on this machine only (a LocalCluster or local processes), the numba cache
LOCAL_ENV = ("TRANCA_SIM_CACHE_DIR", "NUMBA_CACHE_DIR")

#: testing aid: seconds a worker sleeps before each chunk (the fault tests kill runs mid-way)
_SLEEP_ENV = "TRANCA_SIM_TEST_CHUNK_SLEEP"


class ClusterError(RuntimeError):
    """A Dask cluster that cannot be started or reached, or a worker that cannot run a chunk."""


@dataclasses.dataclass(frozen=True)
class ChunkTask:
    """Everything a worker needs to simulate one chunk (picklable, small)."""

    index: int
    start: int
    count: int
    rules: dict  # dataclasses.asdict(Rules)
    strategies: tuple[str, str]
    seed: int
    check: bool
    threads: int | None
    version: str
    env: tuple[tuple[str, str], ...] = ()


# ---------------------------------------------------------------------------
# worker side
# ---------------------------------------------------------------------------
_WORKER: dict = {}  # this process's engine: env it was loaded with, load time, chunks run


def _load_engine(env: tuple) -> None:
    if "env" in _WORKER:
        if _WORKER["env"] != env:
            raise ClusterError(
                f"worker {socket.gethostname()}:{os.getpid()} loaded the engine with other strategies "
                "or cache settings; restart the cluster's workers between runs of different user strategies"
            )
        return
    t0 = time.perf_counter()
    os.environ.update(dict(env))  # before the engine's first import: it reads them then
    from .engine import kernel

    _WORKER.update(env=env, pid=os.getpid(), host=socket.gethostname(), kernel=kernel, chunks=0)
    _WORKER["import_seconds"] = time.perf_counter() - t0


def _version() -> str:
    if "version" not in _WORKER:
        from .io import package_version

        _WORKER["version"] = package_version()
    return _WORKER["version"]


def run_chunk(task: ChunkTask) -> tuple[int, dict, dict]:
    """Simulate one chunk in this process; the function every backend runs.

    Returns
    -------
    (int, dict, dict)
        The chunk index, the engine columns (:func:`tranca_sim.engine.simulate_chunk`) and a
        note on the worker: ``host``, ``pid``, ``first`` (this process's first chunk),
        ``load_seconds`` (import and first kernel call, on the first chunk), ``cache_hits``
        and ``cache_misses`` (numba's, of the batch kernel in this process: a miss is a compile).

    Raises
    ------
    ClusterError
        If the worker runs another version of tranca-sim or loaded other strategies.
    """
    if task.version != _version():
        raise ClusterError(
            f"worker {socket.gethostname()}:{os.getpid()} runs tranca-sim {_version()}, the run needs "
            f"{task.version}; install the same version on every worker"
        )
    first = "env" not in _WORKER
    _load_engine(task.env)
    kernel = _WORKER["kernel"]
    sleep = float(os.environ.get(_SLEEP_ENV) or 0)
    if sleep:
        time.sleep(sleep)
    from .rules import Rules

    if task.threads is not None:
        import numba

        numba.set_num_threads(min(task.threads, numba.config.NUMBA_NUM_THREADS))
    t0 = time.perf_counter()
    cols = kernel.simulate_chunk(
        Rules(**task.rules),
        task.strategies,
        master_seed=task.seed,
        start=task.start,
        count=task.count,
        check=task.check,
    )
    _WORKER["chunks"] += 1
    stats = kernel._simulate_nb.stats
    note = {
        "host": _WORKER["host"],
        "pid": _WORKER["pid"],
        "first": first,
        "load_seconds": (_WORKER["import_seconds"] + time.perf_counter() - t0) if first else 0.0,
        "cache_hits": sum(stats.cache_hits.values()),
        "cache_misses": sum(stats.cache_misses.values()),
    }
    return task.index, cols, note


# ---------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------
def task_env(local: bool) -> tuple[tuple[str, str], ...]:
    """The environment a worker needs (:data:`SHARED_ENV`, plus :data:`LOCAL_ENV` on this machine)."""
    names = SHARED_ENV + (LOCAL_ENV if local else ())
    return tuple((k, os.environ[k]) for k in names if k in os.environ)


def parse_cluster(text: str) -> int:
    """``local`` or ``local:N`` -> the number of workers (``local``: 2); ``ValueError`` otherwise."""
    name, _, n = str(text).partition(":")
    if name != "local":
        raise ValueError(f"--cluster takes local or local:N (N workers), got {text!r}")
    if not n:
        return 2
    if not n.isdigit() or not 1 <= int(n) <= 1024:
        raise ValueError(f"--cluster local:N takes N from 1 to 1024 workers, got {text!r}")
    return int(n)


def in_process(tasks: list[ChunkTask]) -> Iterator[tuple[int, dict, dict]]:
    """The chunks one after another in this process (numba threads inside each chunk)."""
    for t in tasks:
        yield run_chunk(t)


def on_processes(tasks: list[ChunkTask], processes: int, ordered: bool) -> Iterator[tuple[int, dict, dict]]:
    """The chunks on ``processes`` joblib (loky) worker processes, yielded as they finish
    (``ordered``: in task order)."""
    from joblib import Parallel, delayed

    par = Parallel(
        n_jobs=processes,
        backend="loky",
        return_as="generator" if ordered else "generator_unordered",
        pre_dispatch="2*n_jobs",
    )
    yield from par(delayed(run_chunk)(t) for t in tasks)


def on_dask(
    tasks: list[ChunkTask],
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    info: dict | None = None,
) -> Iterator[tuple[int, dict, dict]]:
    """The chunks on a Dask cluster, yielded as their futures complete.

    ``workers``: start a ``LocalCluster`` of that many single-threaded worker processes
    (closed afterwards); ``scheduler``: connect to the scheduler at that address.  At most
    two chunks per worker are in flight, so the results waiting to be written stay few.
    ``info`` receives ``dashboard`` and ``workers`` (the count).

    Raises
    ------
    ClusterError
        If the cluster cannot be started or the scheduler does not answer in 30 s.
    """
    import contextlib
    import logging

    from dask.distributed import Client, LocalCluster, as_completed

    for name in ("distributed", "distributed.worker", "distributed.nanny", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.ERROR)
    with contextlib.ExitStack() as stack:
        try:
            if scheduler is None:
                cluster = stack.enter_context(
                    LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",
                        silence_logs=logging.ERROR,
                    )
                )
                client = stack.enter_context(Client(cluster))
            else:
                client = stack.enter_context(Client(scheduler, timeout="30s"))
        except (OSError, TimeoutError) as e:
            where = f"the scheduler at {scheduler}" if scheduler else "a LocalCluster"
            raise ClusterError(f"cannot reach {where}: {e}") from None
        n = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))
        if info is not None:
            info.update(dashboard=client.dashboard_link, workers=n)
        window = 2 * n
        todo = list(tasks)
        queue = as_completed()
        for t in todo[:window]:
            queue.add(client.submit(run_chunk, t, pure=False))
        todo = todo[window:]
        for fut in queue:
            result = fut.result()
            fut.release()
            if todo:
                t = todo.pop(0)
                queue.add(client.submit(run_chunk, t, pure=False))
            yield result


def execute(
    tasks: list[ChunkTask],
    *,
    processes: int | None = None,
    cluster: int | None = None,
    scheduler: str | None = None,
    ordered: bool = False,
    info: dict | None = None,
) -> Iterator[tuple[int, dict, dict]]:
    """Run ``tasks`` on the backend the options choose (none: in this process), yielding
    ``(index, columns, worker note)`` as chunks finish; only the in-process and the
    ``ordered`` process backends keep task order."""
    if scheduler is not None or cluster is not None:
        return on_dask(tasks, workers=cluster, scheduler=scheduler, info=info)
    if processes is not None:
        return on_processes(tasks, processes, ordered)
    return in_process(tasks)


def worker_summary(notes: Mapping) -> dict:
    """Per worker (``host:pid``): chunks run, seconds to load the engine, numba cache misses."""
    return {k: dict(v) for k, v in notes.items()}
