"""A run's options checked before anything is simulated: counts, rule options, where the chunks
run, which deals are logged and where their log goes.

Every check raises one readable error (:class:`RunOptionError`, :class:`~tranca_sim.rules.RulesError`,
:class:`~tranca_sim.run_format.RunFileError`) before the engine is imported, so a typo fails at once.
"""

from __future__ import annotations

import dataclasses
import os
import stat
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from ._plural import spelled
from .output import check_output_path
from .rules import Rules, RulesError
from .run_format import OutputExistsError

#: rule fields that are labels, not options
NOT_OPTIONS = ("name", "description")

INT64_MAX = 2**63 - 1

#: most deals one run may have (10**12: about 12 days of simulation even at a million deals/s)
MAX_DEALS = 10**12
#: most deals (or matches) of one chunk: a chunk's outputs are held in memory before they are written
MAX_CHUNK = 10**7


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
        Option name to value; strings are parsed (bool: ``true/false/1/0/yes/no/on/off``;
        int: a decimal integer), the integers 0 and 1 are accepted for a switch (as on the
        command line), other values are passed through and checked by :meth:`Rules.replace`.

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
        if isinstance(current, bool) and type(value) is int and value in (0, 1):
            out[key] = bool(value)  # TOML ``lock_by_wild = 1`` as the CLI's ``lock_by_wild=1``
        elif not isinstance(value, str):
            out[key] = value
        elif isinstance(current, bool):
            out[key] = _parse_bool(key, value)
        elif isinstance(current, int):
            try:
                out[key] = int(value.strip())
            except ValueError:
                raise RulesError(f"rule option {key} takes an integer, got {spelled(value)}") from None
        else:
            out[key] = value
    return out


def parse_rule_args(items) -> dict:
    """``["key=value", ...]`` (the CLI's ``--rule``) to a dict of strings.

    Raises
    ------
    RulesError
        For an item without ``=`` or with an empty key, or one option given twice with
        different values (the last one silently winning would hide a typo).
    """
    out = {}
    for item in items or ():
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise RulesError(f"--rule takes OPTION=VALUE, got {item!r}")
        key = key.strip()
        if key in out and out[key] != value.strip():
            raise RulesError(
                f"--rule {key} given twice ({key}={out[key]} and {key}={value.strip()}); give it once"
            )
        out[key] = value.strip()
    return out



def strategy_meta(side: str, spec) -> dict:
    """The run metadata entry of one side's strategy (``side`` "A" or "B"): name, text, label,
    id, parameters, and a user strategy's file and sha256, to find it again (replay, check)."""
    return {
        "side": side,
        "name": spec.name,
        "text": spec.text,
        "label": spec.label,
        "sid": int(spec.sid),
        "param_names": list(spec.param_names),
        "params": [float(x) for x in spec.params[: len(spec.param_names)]],
        **spec.origin,
    }


def max_processes() -> int:
    """The most local worker processes a run may start (``processes`` or a LocalCluster's
    ``cluster``): the cores ``os.cpu_count()`` reports (at least 1).  CPU-bound chunks gain nothing
    from more processes than cores."""
    from .parallel import max_local_workers

    return max_local_workers()


def check_where(processes: int | None, cluster: int | None, scheduler: str | None) -> bool:
    """Check where a run's chunks are to be played (:func:`tranca_sim.parallel.pool`); True when
    on workers (processes or Dask), False in this process.

    Raises
    ------
    RunOptionError
        For ``processes`` or ``cluster`` outside 1 .. the cores, or more than one
        of them with ``scheduler``.
    """
    if processes is not None:
        check_int("processes", processes, 1, max_processes())
    if cluster is not None:
        check_int("cluster", cluster, 1, max_processes())
    if sum(x is not None for x in (processes, cluster, scheduler)) > 1:
        raise RunOptionError(
            "give one of processes, cluster (a LocalCluster) or scheduler (an existing cluster)"
        )
    return processes is not None or cluster is not None or scheduler is not None


def check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RunOptionError(f"{name} must be an integer, got {spelled(value)}")
    if value < lo or (hi is not None and value > hi):
        rng = f"at least {lo}" if hi is None else f"between {lo} and {hi}"
        raise RunOptionError(f"{name} must be {rng}, got {value}")
    return value


def log_path_for(out) -> Path:
    """Where the deal logs of run file ``out`` go, beside it: the ``.parquet`` suffix replaced by
    ``.log.jsonl`` (``run.parquet`` -> ``run.log.jsonl``); any other name gets ``.log.jsonl``
    appended (``run.pq`` -> ``run.pq.log.jsonl``)."""
    p = Path(out)
    return p.with_name((p.stem if p.suffix == ".parquet" else p.name) + ".log.jsonl")


def parse_log_deals(spec, deals: int, seed: int, name: str = "log_deals") -> list[int]:
    """The deal indices to log, sorted.

    ``spec`` is ``None`` (none), an int or ``"K"`` (the first K deals),
    ``"I,J,..."`` or a sequence of ints (those deals), or ``"sample:K"`` (K
    distinct deals drawn with the run's seed); ``K`` is 1 to ``deals``.
    ``name`` is how errors call the option (the CLI passes ``--log-deals``).

    Raises
    ------
    RunOptionError
        For a malformed or empty spec, a count outside 1..``deals`` or an index
        outside the run.
    """
    if spec is None:
        return []
    form = "K (the first K deals), I,J,... (those deals) or sample:K (K deals drawn with the seed)"
    if isinstance(spec, bool):
        raise RunOptionError(f"{name} takes {form}, got {spec!r}")
    if isinstance(spec, int):
        spec = str(spec)
    if isinstance(spec, str):
        text = spec.strip()
        sample = text.startswith("sample:")
        try:
            if sample or "," not in text:
                k = int(text.split(":", 1)[1] if sample else text)
            else:
                idx = [int(x) for x in text.split(",") if x.strip()]
        except ValueError:
            raise RunOptionError(f"{name} takes {form}, got {spec!r}") from None
        if sample or "," not in text:
            if not 1 <= k <= deals:
                raise RunOptionError(
                    f"{name} {text}: the count must be from 1 to {deals} (the run's deals), got {k}"
                )
            if not sample:
                return list(range(k))
            rng = np.random.default_rng(seed)
            return sorted(int(i) for i in rng.choice(deals, size=k, replace=False))
    else:
        try:
            idx = [int(x) for x in spec]
        except (TypeError, ValueError):
            raise RunOptionError(f"{name} takes {form}, got {spec!r}") from None
    if not idx:
        raise RunOptionError(f"{name} {spec!r} names no deal; give {form}")
    bad = [i for i in idx if not 0 <= i < deals]
    if bad:
        shown = spec if isinstance(spec, str) else ",".join(str(i) for i in idx)
        raise RunOptionError(f"{name} {shown}: deal {bad[0]} is not in the run (deals 0..{deals - 1})")
    return sorted(set(idx))


def check_log_path(out, logging: bool, force: bool) -> Path | None:
    """Check the deal-log file beside run file ``out`` (:func:`log_path_for`) before a run.

    The log belongs to the run beside it: it is written when ``logging``;
    either way an existing one is replaced (``logging``) or removed (not
    ``logging``) when the run is written with ``force``, so a new run never
    sits beside an older run's logs.

    Returns
    -------
    pathlib.Path or None
        The log path when it is to be written or removed, else None.

    Raises
    ------
    tranca_sim.io.OutputExistsError
        If the log file exists and ``force`` is false.
    tranca_sim.io.RunFileError
        If the log path is a link, directory or special file, or cannot be written.
    """
    lp = log_path_for(out)
    if not logging:  # only an older run's log (a regular file) matters
        try:
            st = os.lstat(lp)
        except OSError:
            return None
        if not stat.S_ISREG(st.st_mode):
            return None
    try:
        check_output_path(lp, force)
    except OutputExistsError:
        raise OutputExistsError(
            f"deal-log file {str(lp)!r} beside the run file already exists (from an earlier run); "
            "pass force=True to replace the run and its deal logs",
            lp,
        ) from None
    return lp
