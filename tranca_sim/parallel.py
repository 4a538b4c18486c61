"""Where the chunks of a run are simulated: in this process, on local processes, or on Dask.

A chunk is fully determined by ``(seed, rules, strategies, first deal, count)``
(:class:`ChunkTask`), so it gives the same rows wherever it runs:

- ``threads`` (default): one chunk after another in this process, each chunk's
  deals spread over ``numba.get_num_threads()`` threads (:func:`tranca_sim.engine.kernel.in_threads`);
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

import contextlib
import dataclasses
import os
import signal
import socket
import threading
import time

#: environment variables a worker must share with the process that plans the run
SHARED_ENV = ("TRANCA_SIM_USER_STRATEGIES", "TRANCA_SIM_SEARCH")
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
    strategies: tuple[str, ...]  # one per side: 2, or 3 in tranca-3p
    seed: int
    check: bool
    threads: int | None
    version: str
    env: tuple[tuple[str, str], ...] = ()
    matches: bool = False  # start/count count matches (tranca_sim.engine.simulate_match_chunk)


# ---------------------------------------------------------------------------
# worker side
# ---------------------------------------------------------------------------
_WORKER: dict = {}  # this process's engine: env it was loaded with, load time, chunks run


def _load_engine(env: tuple) -> None:
    if "env" in _WORKER:
        if _WORKER["env"] != env and _WORKER["env"] != _with_search(env):  # a search engine plays all
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


#: seconds between a worker's checks that the process that started it is still there
PARENT_CHECK_SECONDS = 0.2


def die_with_parent(parent_pid: int) -> None:
    """Worker initializer of the local processes (``--processes N``): a daemon thread ends this
    worker (``os._exit``) within :data:`PARENT_CHECK_SECONDS` of its parent ``parent_pid`` going
    away, a SIGKILL included (no handler of the parent runs then, and loky's own idle timeout would
    keep the worker alive for minutes; the kernel releases the GIL, so the check runs during a
    chunk too).  The worker ignores Ctrl-C and hangups, which its parent answers."""

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(PARENT_CHECK_SECONDS)
        os._exit(1)

    # a terminal's Ctrl-C and hangup reach the whole process group: the parent answers them and
    # ends this worker (a hangup killed it first, and the parent said "a worker died")
    for sig in WORKER_IGNORES:
        signal.signal(sig, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # born holding them (_spawn_holding): one that came meanwhile is dropped
        signal.pthread_sigmask(signal.SIG_UNBLOCK, WORKER_IGNORES)

    threading.Thread(target=watch, name="tranca-parent-watch", daemon=True).start()


#: the signals a local worker process ignores (:func:`die_with_parent`) and is born holding
WORKER_IGNORES = tuple(getattr(signal, n) for n in ("SIGINT", "SIGHUP") if hasattr(signal, n))


def _spawn_holding() -> None:
    """Make loky start its worker processes holding :data:`WORKER_IGNORES` (a blocked signal
    stays blocked through ``fork`` and ``exec``) until :func:`die_with_parent` ignores them.
    Without it a Ctrl-C sent to the process group while a worker was still importing numpy
    printed that worker's ``KeyboardInterrupt`` traceback before the command's one line.  The
    spawning thread holds them only for the moment of the spawn.  Loky spawns in one method of
    its executor; a loky without it is left as it is."""
    try:
        from joblib.externals.loky import process_executor as pe
    except ImportError:
        return
    cls = pe.ProcessPoolExecutor
    spawn = getattr(cls, "_adjust_process_count", None)
    if spawn is None or getattr(spawn, "_tranca_holds", False) or not hasattr(signal, "pthread_sigmask"):
        return

    def adjust_process_count(self):
        _start_trackers()  # started meanwhile, the stdlib's would unblock SIGINT in this thread
        before = signal.pthread_sigmask(signal.SIG_BLOCK, WORKER_IGNORES)
        try:
            spawn(self)
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, before)

    adjust_process_count._tranca_holds = True
    cls._adjust_process_count = adjust_process_count


def _with_search(env: tuple) -> tuple:
    """``env`` with ``TRANCA_SIM_SEARCH=1`` (the engine with the search player, strategies/user.py)."""
    out = dict(env)
    out["TRANCA_SIM_SEARCH"] = "1"
    return tuple((k, out[k]) for k in SHARED_ENV + LOCAL_ENV if k in out)


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
        and ``cache_misses`` (numba's, of the batch kernel in this process: a miss is a compile),
        ``kernel_seconds`` (the chunk's time in :func:`tranca_sim.engine.simulate_chunk`).

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
    from . import engine  # looked up per chunk: tests replace engine.simulate_chunk

    play = engine.simulate_match_chunk if task.matches else engine.simulate_chunk
    cols = play(
        Rules(**task.rules),
        task.strategies,
        master_seed=task.seed,
        start=task.start,
        count=task.count,
        check=task.check,
    )
    t1 = time.perf_counter()
    _WORKER["chunks"] += 1
    stats = kernel._simulate_nb.stats
    note = {
        "host": _WORKER["host"],
        "pid": _WORKER["pid"],
        "first": first,
        "load_seconds": (_WORKER["import_seconds"] + time.perf_counter() - t0) if first else 0.0,
        "cache_hits": sum(stats.cache_hits.values()),
        "cache_misses": sum(stats.cache_misses.values()),
        "kernel_seconds": t1 - t0,
    }
    return task.index, cols, note


# ---------------------------------------------------------------------------
# backends
# ---------------------------------------------------------------------------
def task_env(local: bool) -> tuple[tuple[str, str], ...]:
    """The environment a worker needs (:data:`SHARED_ENV`, plus :data:`LOCAL_ENV` on this machine)."""
    names = SHARED_ENV + (LOCAL_ENV if local else ())
    return tuple((k, os.environ[k]) for k in names if k in os.environ)


def max_local_workers() -> int:
    """The most worker processes a run may start on this machine (``--processes N``, ``--cluster
    local:N``): the cores ``os.cpu_count()`` reports (at least 1).  CPU-bound chunks gain nothing
    from more processes than cores."""
    return max(1, os.cpu_count() or 1)


def parse_cluster(text: str) -> int:
    """``local`` or ``local:N`` -> the number of workers (``local``: 2, or the cores when fewer);
    ``ValueError`` for another text or N < 1.  N above :func:`max_local_workers` is refused where
    ``--processes`` is (``tranca_sim.run.check_where`` and the CLI), with the same message."""
    name, _, n = str(text).partition(":")
    if name != "local":
        raise ValueError(f"--cluster takes local or local:N (N workers), got {text!r}")
    if not n:
        return min(2, max_local_workers())
    if not n.isdigit() or int(n) < 1:
        raise ValueError(f"--cluster local:N takes a whole number N of at least 1, got {text!r}")
    return int(n)


#: the address schemes of a Dask scheduler that ``--scheduler`` takes
SCHEDULER_SCHEMES = ("tcp", "tls", "ucx")


def parse_scheduler(text: str) -> str:
    """``[tcp|tls|ucx://]HOST:PORT`` (an IPv6 host in brackets, ``[::1]:8786``) -> the address
    as given; ``ValueError`` (its message begins ``--scheduler``) for another scheme, a missing
    host or port, or a port outside 1-65535, so a bad address is refused before Dask is imported
    (Dask printed ~45 lines of traceback, or waited its 30 s timeout for port 99999)."""
    text = str(text).strip()
    form = "--scheduler takes [tcp://]HOST:PORT (e.g. tcp://127.0.0.1:8786)"
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    if scheme not in SCHEDULER_SCHEMES:
        raise ValueError(
            f"{form}; the scheme must be one of {', '.join(s + '://' for s in SCHEDULER_SCHEMES)}, got {text!r}"
        )
    if rest.startswith("["):
        host, close, port = rest[1:].partition("]")
        if not close or not port.startswith(":"):
            raise ValueError(f"{form}; an IPv6 host is written [HOST]:PORT, got {text!r}")
        port = port[1:]
    else:
        host, colon, port = rest.rpartition(":")
        if not colon:
            raise ValueError(f"{form}; the port is missing, got {text!r}")
        if ":" in host:
            raise ValueError(f"{form}; an IPv6 host is written in brackets, [HOST]:PORT, got {text!r}")
    if not host or "/" in host or any(c.isspace() for c in host):
        raise ValueError(f"{form}; the host is missing or not a host name, got {text!r}")
    if not port.isdigit() or not 1 <= int(port) <= 65535:
        raise ValueError(f"--scheduler takes a port between 1 and 65535, got {text!r}")
    return text


def warm_worker(task: ChunkTask) -> dict:
    """Load the engine in this worker and play one deal (numba's cache loaded, or compiled when
    this machine has none); the worker's note as :func:`run_chunk` gives it."""
    t = dataclasses.replace(task, index=-1, start=0, count=1)
    return run_chunk(t)[2]


class _InProcess:
    """This process: each chunk plays on a helper thread (the kernel releases the GIL) while the
    caller writes the chunk before it, so the Parquet writing and the summary overlap the
    simulation; chunks come back in task order, at most one played ahead."""

    workers = 1

    def warm(self, task):
        return []

    def run(self, tasks, ordered):
        import concurrent.futures as cf

        import numba

        # numba's thread count is per calling thread: the helper thread takes the caller's
        ex = cf.ThreadPoolExecutor(1, "tranca-chunk", initializer=numba.set_num_threads,
                                   initargs=(numba.get_num_threads(),))  # fmt: skip
        try:
            ahead = None
            for t in tasks:
                nxt = ex.submit(run_chunk, t)
                if ahead is not None:
                    yield ahead.result()
                ahead = nxt
            if ahead is not None:
                yield ahead.result()
        finally:
            ex.shutdown(wait=False, cancel_futures=True)


class _Processes:
    """joblib's loky processes; the executor (and its warm workers) is reused between calls.  Each
    worker ends when this process does, however it ends (:func:`die_with_parent`)."""

    def __init__(self, n: int):
        self.workers = n

    def _backend(self):
        from joblib.parallel import LokyBackend

        _spawn_holding()
        # the same initializer arguments every call: joblib reuses the executor and its workers
        return LokyBackend(initializer=die_with_parent, initargs=(os.getpid(),))

    def warm(self, task):
        from joblib import Parallel, delayed

        return Parallel(n_jobs=self.workers, backend=self._backend())(
            delayed(warm_worker)(task) for _ in range(self.workers)
        )

    def run(self, tasks, ordered):
        from joblib import Parallel, delayed

        par = Parallel(
            n_jobs=self.workers,
            backend=self._backend(),
            return_as="generator" if ordered else "generator_unordered",
            pre_dispatch="2*n_jobs",
        )
        yield from par(delayed(run_chunk)(t) for t in tasks)


class _Dask:
    def __init__(self, client):
        self.client = client
        self.workers = max(1, len(client.scheduler_info(n_workers=-1).get("workers", {})))

    def warm(self, task):
        return list(self.client.run(warm_worker, task).values())

    def run(self, tasks, ordered):
        """Yields results as futures complete; at most two chunks per worker in flight, so the
        results waiting to be written stay few."""
        from dask.distributed import as_completed

        window = 2 * self.workers
        todo = list(tasks)
        queue = as_completed()
        for t in todo[:window]:
            queue.add(self.client.submit(run_chunk, t, pure=False))
        todo = todo[window:]
        for fut in queue:
            result = fut.result()
            fut.release()
            if todo:
                queue.add(self.client.submit(run_chunk, todo.pop(0), pure=False))
            yield result


@contextlib.contextmanager
def pool(
    *, processes: int | None = None, cluster: int | None = None, scheduler: str | None = None, info=None
):
    """Where the chunks run, for the time of the block: the pool has ``workers``, ``warm(task)``
    (load the engine on every worker; their notes) and ``run(tasks, ordered)`` (yields
    ``(index, columns, note)`` as chunks finish; in task order in this process, and on
    processes when ``ordered``).

    ``cluster``: a Dask ``LocalCluster`` of that many single-threaded worker processes (closed
    at the end); ``scheduler``: the Dask cluster of that scheduler; ``processes``: joblib (loky)
    processes; none: this process.  ``info`` receives ``workers`` and, on Dask, ``dashboard``.

    Raises
    ------
    ClusterError
        If the cluster cannot be started or the scheduler does not answer in 30 s.
    """
    info = {} if info is None else info
    if scheduler is None and cluster is None:
        if processes is not None:
            with signals_held():  # starts the resource trackers holding them
                pass
        p = _Processes(processes) if processes is not None else _InProcess()
        info["workers"] = p.workers
        yield p
        return
    import logging

    from dask.distributed import Client, LocalCluster

    for name in ("distributed", "distributed.worker", "distributed.nanny", "distributed.scheduler"):
        logging.getLogger(name).setLevel(logging.ERROR)
    with contextlib.ExitStack() as stack:
        quieted: dict = {}
        stack.callback(_restore_logs, quieted)  # the last to run: after the cluster closed
        lc = None
        try:
            try:
                if scheduler is None:
                    with signals_held():  # the cluster's threads and worker processes never see them
                        lc = LocalCluster(
                            n_workers=cluster,
                            threads_per_worker=1,
                            processes=True,
                            dashboard_address=":0",
                            # the workers' logs (their errors reach this process, which says
                            # them in one line; a stopped run's are noise) stay unprinted
                            silence_logs=logging.CRITICAL,
                        )
                        stack.enter_context(lc)  # a signal held meanwhile is raised after: lc is closed
                    client = stack.enter_context(Client(lc))
                else:
                    client = stack.enter_context(Client(scheduler, timeout="30s"))
            except (OSError, TimeoutError, ValueError, TypeError) as e:
                where = f"the Dask scheduler at {scheduler}" if scheduler else "a Dask LocalCluster"
                raise ClusterError(f"cannot reach {where}: {_first_line(e)}") from None
            p = _Dask(client)
            info.update(workers=p.workers, dashboard=client.dashboard_link)
            yield p
        except BaseException as e:
            if not isinstance(e, Exception):  # Ctrl-C, a termination: the run is abandoned
                quieted.update(_quiet_logs())
                if lc is not None:
                    _stop_workers(lc)
            raise


#: seconds a LocalCluster's worker is given to stop when its run is abandoned, before it is killed
ABANDON_SECONDS = 1.0


def _stop_workers(lc) -> None:
    """Stop the worker processes of LocalCluster ``lc`` at once, their chunks half played: each
    nanny closes its worker, killing it after :data:`ABANDON_SECONDS` (the closing of the cluster
    gives a busy worker 4 s, a user who pressed Ctrl-C waited that long).  Nothing is raised."""
    import asyncio

    async def close_all():
        nannies = list(lc.workers.values())
        await asyncio.gather(*(n.close(timeout=ABANDON_SECONDS) for n in nannies), return_exceptions=True)

    with contextlib.suppress(Exception):
        lc.sync(close_all)


#: the loggers of Dask and of the libraries under it
_DASK_LOGGERS = ("distributed", "dask", "tornado", "asyncio")


def _quiet_logs() -> dict:
    """Silence this process's loggers of :data:`_DASK_LOGGERS` (their previous levels): an
    abandoned run's cluster is closed with its chunks half played, which Dask reports as errors
    (a scheduler's broadcast to a closing worker failed, a cancelled task) that say nothing to the
    user, who asked for the stop and is told it in one line."""
    import logging

    names = [n for n in logging.root.manager.loggerDict if n.split(".")[0] in _DASK_LOGGERS]
    before = {}
    for name in {*names, *_DASK_LOGGERS}:
        log = logging.getLogger(name)
        before[name] = log.level
        log.setLevel(logging.CRITICAL + 1)
    return before


def _restore_logs(before: dict) -> None:
    import logging

    for name, level in before.items():
        logging.getLogger(name).setLevel(level)


#: the signals the command line answers (Ctrl-C, termination, hangup), which a Dask LocalCluster's
#: threads and worker processes must leave to it
HELD_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n))


@contextlib.contextmanager
def signals_held():
    """Hold (block) :data:`HELD_SIGNALS` in the calling thread for the time of the block.

    The threads started in the block inherit the held set, and so do the processes they start,
    through ``exec`` too: a Dask ``LocalCluster`` built here runs its event loop on such a thread,
    whose nannies spawn the worker processes, so these never receive the signals.  A terminal
    sends Ctrl-C (and a hangup) to its whole foreground process group, and ``timeout`` or ``kill
    -- -PGID`` send theirs to the group too: a worker process took Ctrl-C as a ``KeyboardInterrupt``
    and printed its tracebacks (dask/distributed#1925, still open).  Only this process answers
    now: it stops the run, closes the cluster (which stops the workers) and prints its one line; a
    worker whose parent is gone ends itself (distributed's parent-alive pipe).  A signal sent to
    this process while the block runs waits, and is raised as the block ends."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)
    try:
        _start_trackers()
        signal.pthread_sigmask(signal.SIG_BLOCK, HELD_SIGNALS)  # the trackers' start released some
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _start_trackers() -> None:
    """Start multiprocessing's and loky's resource trackers (helper processes that outlive a
    run's workers) now, in a thread that holds :data:`HELD_SIGNALS`: they keep them held.  Each
    blocks SIGINT and SIGTERM itself, not SIGHUP: a hangup sent to the process group (a closed
    terminal) killed them, and the next worker's start printed their "process died unexpectedly"
    warning and KeyError tracebacks.  (Started at a worker's first spawn instead, the stdlib's
    also unblocks SIGINT and SIGTERM in the spawning thread, releasing a block held there.)"""
    from multiprocessing import resource_tracker

    _tracker_warnings_off()
    resource_tracker.ensure_running()
    with contextlib.suppress(ImportError):
        from joblib.externals.loky.backend import resource_tracker as loky_tracker

        loky_tracker.ensure_running()


def _tracker_warnings_off() -> None:
    """The trackers' "resource_tracker: There appear to be N leaked ... objects to clean up at
    shutdown" warning is silenced in every interpreter this process starts from now on
    (``PYTHONWARNINGS``, read by a new interpreter; left set, so that a tracker loky starts again
    later has it too): after an interrupt the run's workers die with joblib's memory-mapping
    folder or a queue's semaphore still registered, the tracker removes them, as it says, and its
    warning came after the command's one line (a fresh user saw it in 5 of 7 interrupted
    ``--processes 2`` runs).  Nothing of ours is left: the tracker still cleans up.  Only that
    warning is filtered (its message starts with ``resource_tracker``)."""
    quiet = "ignore:resource_tracker:UserWarning"
    before = os.environ.get("PYTHONWARNINGS")
    if not before:
        os.environ["PYTHONWARNINGS"] = quiet
    elif quiet not in before.split(","):
        os.environ["PYTHONWARNINGS"] = f"{before},{quiet}"


def _first_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__
