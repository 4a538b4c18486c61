"""One simulation run from Python: validate, simulate in chunks, write Parquet, summarise.

>>> from tranca_sim.run import run_simulation
>>> result = run_simulation("tranca", 10_000, 1, "basic", "random", "run.parquet", force=True)
>>> result["summary"]["diff"]["mean"]          # doctest: +SKIP

Every option is checked before the engine is imported, so a typo fails at
once; the chunks stream from :func:`tranca_sim.engine.simulate_chunk`
through :func:`tranca_sim.io.write_run`, so memory does not grow with the
number of deals.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import platform
import time
from collections.abc import Mapping

import numpy as np

from . import io as _io
from .rules import Rules, RulesError, get_preset
from .stats import RunningSummary

#: rule fields that are labels, not options
NOT_OPTIONS = ("name", "description")

INT64_MAX = 2**63 - 1


class RunOptionError(ValueError):
    """A bad run option (deal count, seed, threads, chunk size)."""


def _parse_bool(key: str, text: str) -> bool:
    t = text.strip().lower()
    if t in ("true", "1", "yes", "on"):
        return True
    if t in ("false", "0", "no", "off"):
        return False
    raise RulesError(f"rule option {key} takes true/false (or 1/0), got {text!r}")


def coerce_rule_options(base: Rules, options: Mapping | None) -> dict:
    """Rule options with string values converted to the types of ``base``'s fields.

    Parameters
    ----------
    base : Rules
        The preset the options change.
    options : mapping of str to str, bool or int, optional
        Option name to value; strings are parsed (bool: ``true/false/1/0/yes/no``;
        int: a decimal integer), other values are passed through.

    Returns
    -------
    dict
        Typed options for :meth:`Rules.replace`.

    Raises
    ------
    RulesError
        For an unknown option name, ``name``/``description``, or a value that
        does not parse as the option's type.
    """
    fields = {f.name for f in dataclasses.fields(base)} - set(NOT_OPTIONS)
    out = {}
    for key, value in (options or {}).items():
        if key not in fields:
            raise RulesError(f"unknown rule option {key!r}; known: {', '.join(sorted(fields))}")
        current = getattr(base, key)
        if not isinstance(value, str):
            out[key] = value
        elif isinstance(current, bool):
            out[key] = _parse_bool(key, value)
        elif isinstance(current, int):
            try:
                out[key] = int(value.strip())
            except ValueError:
                raise RulesError(f"rule option {key} takes an integer, got {value!r}") from None
        else:
            out[key] = value
    return out


def parse_rule_args(items) -> dict:
    """``["key=value", ...]`` (the CLI's ``--rule``) to a dict of strings.

    Raises
    ------
    RulesError
        For an item without ``=`` or with an empty key.
    """
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesError(f"--rule takes OPTION=VALUE, got {item!r}")
        out[key.strip()] = value.strip()
    return out


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RunOptionError(f"{name} must be an integer, got {value!r}")
    if value < lo or (hi is not None and value > hi):
        rng = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
        raise RunOptionError(f"{name} must be {rng}, got {value}")
    return value


def run_simulation(
    preset: str,
    deals: int,
    seed: int,
    side_a: str,
    side_b: str,
    out,
    force: bool = False,
    threads: int | None = None,
    chunk_size: int = 50_000,
    rule_options: Mapping | None = None,
    check: bool = False,
    progress: bool = True,
) -> dict:
    """Simulate ``deals`` deals and write them to a run file.

    Parameters
    ----------
    preset : str
        Rule preset name (``tranca-sim presets``).
    deals : int
        Number of deals, >= 1; the file gets ``2 * deals`` rows.
    seed : int
        Master seed, 0 .. 2**63 - 1; ``(seed, deal_index)`` fixes a deal.
    side_a, side_b : str
        Strategy specs, e.g. ``"basic"`` or ``"basic:wild_reserve=1"``.
    out : str or os.PathLike
        Output Parquet path.
    force : bool
        Replace an existing ``out``.
    threads : int, optional
        numba threads (default: numba's default, all cores).
    chunk_size : int
        Deals simulated and written per chunk (one Parquet row group).
    rule_options : mapping, optional
        Changes to the preset (see :func:`coerce_rule_options`).
    check : bool
        Run the engine's invariant checks (slower).
    progress : bool
        Show a tqdm progress bar on stderr.

    Returns
    -------
    dict
        ``path`` (str), ``deals``, ``seconds`` (wall time of simulation and
        writing), ``deals_per_s``, ``threads``, ``warmup_seconds`` (one
        throw-away deal before the timing: numba compilation on a first run,
        loading the cached kernels afterwards),
        ``meta`` (the stored run metadata), ``summary``
        (:func:`tranca_sim.stats.summarize` layout) and ``diagnostics``:
        totals over deals of the engine's ``invariant_errors`` (counted with
        ``check``) and ``meld_full`` (refused melds), 0 in a sound run; these
        two columns are not written to the file.

    Raises
    ------
    RunOptionError
        For a bad ``deals``, ``seed``, ``threads`` or ``chunk_size``.
    tranca_sim.rules.RulesError
        For an unknown preset or a bad rule option.
    strategies.StrategyError
        For an unknown strategy or parameter.
    tranca_sim.io.RunFileError
        If ``out`` exists (without ``force``) or cannot be written.

    All of these are raised before any deal is simulated; on any later
    error or interrupt no file is left at ``out``.
    """
    _check_int("deals", deals, 1)
    _check_int("seed", seed, 0, INT64_MAX)
    _check_int("chunk_size", chunk_size, 1)
    rules = get_preset(preset)
    opts = coerce_rule_options(rules, rule_options)
    rules = rules.replace(**opts) if opts else rules.validate()

    from strategies import resolve

    specs = (resolve(side_a), resolve(side_b))
    path = _io.check_output_path(out, force)

    import numba

    if threads is not None:
        _check_int("threads", threads, 1, numba.config.NUMBA_NUM_THREADS)
    n_threads = threads if threads is not None else numba.get_num_threads()

    from .engine import simulate_chunk

    meta = {
        "preset": rules.name,
        "rules": dataclasses.asdict(rules),
        "rule_options": opts,
        "master_seed": seed,
        "deals": deals,
        "strategies": [
            {
                "side": label,
                "name": spec.name,
                "text": spec.text,
                "sid": int(spec.sid),
                "param_names": list(spec.param_names),
                "params": [float(x) for x in spec.params[: len(spec.param_names)]],
            }
            for label, spec in zip("AB", specs)
        ],
        "version": _io.package_version(),
        "threads": n_threads,
        "chunk_size": chunk_size,
        "check": bool(check),
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "numba": numba.__version__,
    }
    diagnostics = {"invariant_errors": 0, "meld_full": 0}
    acc = RunningSummary(labels=[spec.text for spec in specs])

    from tqdm.auto import tqdm

    bar = tqdm(total=deals, unit="deal", unit_scale=True, disable=not progress, desc="loading the engine")

    def chunks():
        start = 0
        while start < deals:
            count = min(chunk_size, deals - start)
            cols = simulate_chunk(rules, specs, master_seed=seed, start=start, count=count, check=check)
            acc.update(cols)
            for key in diagnostics:  # per-deal counters, repeated on both rows of a deal
                if key in cols:
                    diagnostics[key] += int(np.asarray(cols[key])[::2].sum())
            bar.update(count)
            start += count
            yield cols

    threads_before = numba.get_num_threads()
    numba.set_num_threads(n_threads)  # restored below: a Python caller's later runs are not affected
    try:
        t0 = time.perf_counter()
        # one throw-away deal compiles (first run) or loads the cached kernels, so `seconds` is simulation only
        simulate_chunk(rules, specs, master_seed=seed, start=0, count=1, check=check)
        warmup = time.perf_counter() - t0
        bar.set_description("simulating")
        t0 = time.perf_counter()
        _io.write_run(path, chunks(), run_meta=meta, force=force)
        seconds = time.perf_counter() - t0
    finally:
        bar.close()
        numba.set_num_threads(threads_before)
    return {
        "path": str(path),
        "deals": deals,
        "seconds": seconds,
        "deals_per_s": deals / seconds if seconds > 0 else float("inf"),
        "threads": n_threads,
        "warmup_seconds": warmup,
        "meta": meta,
        "summary": acc.result(),
        "diagnostics": diagnostics,
    }
