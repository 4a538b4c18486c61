"""An experiment's output directory, and those of ``tune`` and ``ladder``: checked before any deal
is played (:func:`check_out_dir`), its run files written batch by batch (:class:`RunWriter`), the
finished directory swapped into place (:func:`swap_into_place`) and read back with every run file
checked against its record (:func:`load_experiment`).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .. import io as _io
from .. import output as _output
from .statistics.designs import RunPlan


class ExperimentError(ValueError):
    """A problem with an experiment's output directory or its files (one readable line)."""


@dataclass(frozen=True)
class RunRef:
    """One run file of an experiment: ``label`` (variant label or ``"baseline"``), ``path``,
    ``side_a``, ``side_b`` (strategy texts), ``seed``, ``role`` (see :class:`designs.RunPlan`),
    ``side_c`` (the third player's strategy text at a three-player table, else None), ``deals``
    (the deals experiment.json records for it; None in a record without them)."""

    label: str
    path: Path
    side_a: str
    side_b: str
    seed: int
    role: str
    side_c: str | None = None
    deals: int | None = None


@dataclass
class Experiment:
    """A finished experiment: ``spec`` (the dict of experiment.json), ``dir``, ``runs``."""

    spec: dict
    dir: Path
    runs: list[RunRef]


def load_experiment(out_dir) -> Experiment:
    """Read an experiment's output directory (``experiment.json`` and its run files).

    Every run file's ``tranca_sim`` metadata (its footer; the rows are verified by the readers)
    must agree with experiment.json's record of that run: :func:`check_run_meta`.

    Raises
    ------
    ExperimentError
        If the directory or ``experiment.json`` is missing or malformed, or a
        run file it names is missing, unreadable, has no ``tranca_sim`` metadata or metadata
        of another run (another preset, rules, strategy, seed, deal count, label or role).
    """
    d = Path(out_dir)
    p = d / "experiment.json"
    try:
        spec = json.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ExperimentError(f"{str(d)!r} holds no experiment.json: not an experiment output") from None
    except (OSError, ValueError) as e:
        raise ExperimentError(f"cannot read {str(p)!r}: {e}") from None
    try:
        runs = [
            RunRef(
                r["label"],
                d / r["path"],
                r["side_a"],
                r["side_b"],
                int(r["seed"]),
                r["role"],
                r.get("side_c"),
                int(r["deals"]) if r.get("deals") is not None else None,
            )
            for r in spec["runs"]
        ]
    except (KeyError, TypeError, ValueError, AttributeError) as e:
        raise ExperimentError(f"{str(p)!r} is malformed: {e!r}") from None
    for r in runs:
        if not r.path.is_file():
            raise ExperimentError(f"{str(p)!r} names the run file {str(r.path)!r}, which is missing")
    for r in runs:
        check_run_meta(spec, r)
    return Experiment(spec, d, runs)


def _strategy_difference(found: str, expected: str) -> str:
    """How two canonical strategy texts (``name:k=v,...``) differ, briefly: the name, or the
    parameters whose values differ (``morto_rush=1, not 0``)."""
    fn, _, fr = str(found).rpartition(":") if "=" in str(found) else (str(found), "", "")
    en, _, er = str(expected).rpartition(":") if "=" in str(expected) else (str(expected), "", "")
    if fn != en:
        return f"{fn!r}, not {en!r}"
    fv = dict(kv.split("=", 1) for kv in fr.split(",") if "=" in kv)
    ev = dict(kv.split("=", 1) for kv in er.split(",") if "=" in kv)
    keys = dict.fromkeys([*ev, *fv])
    diff = [f"{k}={fv.get(k, '(none)')}, not {ev.get(k, '(none)')}" for k in keys if fv.get(k) != ev.get(k)]
    return f"{fn} with " + "; ".join(diff[:3]) + (f" (and {len(diff) - 3} more)" if len(diff) > 3 else "")


def check_run_meta(spec: dict, run: RunRef) -> None:
    """Check that the run file ``run.path`` is the run experiment.json (``spec``) records: its
    ``tranca_sim`` metadata (read from the footer) must name the experiment's preset, rules and
    rule options, the record's seed, deal count and strategy of each side, and (when recorded)
    the record's label and role.  A key the metadata or the record leaves out is not compared
    (files of older versions).

    Raises
    ------
    ExperimentError
        One line naming the file and the first differences (a buraco run copied over a tranca
        variant's, one variant's file under another's name, a file rewritten without its
        metadata by another tool).
    """
    where = f"run file {str(run.path)!r}"
    try:
        meta = _io.peek_meta(run.path)
    except _io.RunFileError as e:
        raise ExperimentError(str(e)) from None
    if meta is None:
        raise ExperimentError(
            f"{where} has no {_io.META_KEY!r} metadata: not a run written by 'tranca-sim experiment' "
            "(rewritten by another tool?); play the experiment again with --force"
        )
    diffs: list[str] = []

    def differs(what: str, found, expected) -> None:
        if found is not None and expected is not None and found != expected:
            diffs.append(f"{what} {found!r}, not {expected!r}")

    differs("preset", meta.get("preset"), spec.get("preset"))
    if meta.get("preset") == spec.get("preset") or meta.get("preset") is None:
        mr, sr = meta.get("rules"), spec.get("rules")
        if isinstance(mr, dict) and isinstance(sr, dict) and mr != sr:
            keys = [k for k in dict.fromkeys([*sr, *mr]) if mr.get(k) != sr.get(k)]
            diffs.append("rules differ in " + ", ".join(keys[:4]) + (", ..." if len(keys) > 4 else ""))
        differs("rule options", meta.get("rule_options"), spec.get("rule_options"))
    differs("seed", meta.get("master_seed"), run.seed)
    differs("deals", meta.get("deals"), run.deals)
    sides = [run.side_a, run.side_b] + ([run.side_c] if run.side_c is not None else [])
    strategies = meta.get("strategies")
    if isinstance(strategies, list):
        if len(strategies) != len(sides):
            diffs.append(f"{len(strategies)} sides, not {len(sides)}")
        else:
            for name, s, text in zip("ABC", strategies, sides):
                found = s.get("text") if isinstance(s, dict) else None
                if found is not None and found != text:
                    diffs.append(f"side {name} plays {_strategy_difference(found, text)}")
    tag = meta.get("experiment")
    if isinstance(tag, dict):
        differs("experiment", tag.get("name"), spec.get("name"))
        differs("label", tag.get("label"), run.label)
        differs("role", tag.get("role"), run.role)
    if diffs:
        raise ExperimentError(
            f"{where} is not the run experiment.json records for {run.label!r} ({run.role}): its "
            + "; ".join(diffs[:4])
            + ("; ..." if len(diffs) > 4 else "")
            + " (a file copied from another run?)"
        )


# ---------------------------------------------------------------------------
# writing run files batch by batch
# ---------------------------------------------------------------------------
class RunWriter:
    """A run file written batch by batch (one Parquet row group each), metadata added on close."""

    def __init__(self, path: Path, meta: dict):
        import pyarrow.parquet as pq

        self.path, self.meta, self.deals = path, meta, 0
        self.errors, self.illegal = 0, [0] * (len(meta.get("strategies") or ()) or 2)
        with _io.writing(path):
            self._w = pq.ParquetWriter(path, _io.ARROW_SCHEMA, compression="zstd", write_page_checksum=True)

    def write(self, cols: dict) -> None:
        with _io.writing(self.path):
            self._w.write_table(_io.chunk_table(cols, self.meta))
        self.deals += len(cols["side"]) // len(self.illegal)  # rows a deal: one per side (2, or 3)
        if "invariant_errors" in cols and "deal_index" in cols:  # per deal, repeated on its rows
            _, first = np.unique(np.asarray(cols["deal_index"]), return_index=True)
            self.errors += int(np.asarray(cols["invariant_errors"])[first].sum())
        if "illegal_choices" in cols:  # per side
            side, n = np.asarray(cols["side"]), np.asarray(cols["illegal_choices"])
            for s in range(len(self.illegal)):
                self.illegal[s] += int(n[side == s].sum())

    def close(self) -> None:
        meta = dict(
            self.meta,
            deals=self.deals,
            diagnostics={"invariant_errors": self.errors, "illegal_choices": self.illegal},
        )
        with _io.writing(self.path):
            self._w.add_key_value_metadata({_io.META_KEY: json.dumps(meta, sort_keys=True)})
            self._w.close()

    def abort(self) -> None:
        with contextlib.suppress(Exception):
            self._w.close()


def run_meta(plan: RunPlan, specs, spec: dict, threads: int) -> dict:
    import numba

    from ..run import strategy_meta

    return {
        "preset": spec["preset"],
        "rules": spec["rules"],
        "rule_options": spec["rule_options"],
        "master_seed": spec["seed"],
        "deals": 0,
        "strategies": [strategy_meta(side, s) for side, s in zip("ABC", specs)],
        "version": _io.package_version(),
        "threads": threads,
        "check": False,
        "log_deals": [],
        "log_file": None,
        "experiment": {"name": spec["name"], "label": plan.label, "role": plan.role},
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "numba": numba.__version__,
    }


def _charts(*names: str) -> tuple[str, ...]:
    return tuple(f"{n}.{ext}" for n in names for ext in ("png", "svg"))


#: the output directories ``--force`` may replace, by command: the files that mark an earlier
#: output of that command (all of them must be there) and every name the command writes.
#: Other entries of an earlier output (a hand-written ``notes.md``) are kept: moved into the new one.
OUTPUT_KINDS: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {
    "experiment": (
        ("experiment.json",),
        frozenset(
            ("experiment.json", "experiment.toml", "report.md", "runs", "units.parquet", "cells.csv")
            + _charts("tip_effects", "score_distribution", "sweep", "morto_turn", "deal_endings", "red3")
            + _charts("strength_effects")
        ),
    ),
    "tune": (
        ("params.toml", "report.md"),
        frozenset(("trials.parquet", "params.toml", "report.md") + _charts("trace")),
    ),
    "ladder": (
        ("ladder.json",),
        frozenset(
            ("ladder.json", "ratings.csv", "ratings.md", "pairs.csv", "units.parquet", "report.md", "runs")
            + _charts("ladder")
        ),
    ),
    # the Tip Atlas (tranca_sim/atlas/): its mark is written first, so an interrupted atlas is its own
    # earlier output too (rebuilt with --force, it reuses the finished experiments of its .cache)
    "atlas": (
        ("atlas.json",),
        frozenset(("atlas.json", "index.html", ".cache", "pt-BR", "es", "en")),
    ),
}

#: temporaries of a running or interrupted command (io.temp_dir_path, the write probe), never foreign
_OURS = (".tmp-tranca-", ".probe-tranca-")


def _entries(d: Path) -> list[str]:
    return sorted(x.name for x in d.iterdir() if not x.name.startswith(_OURS))


def kept_entries(out: Path, kind: str) -> list[str]:
    """The entries of the earlier output ``out`` that the command ``kind`` does not write (they are
    moved into the new output when ``--force`` replaces it)."""
    names = OUTPUT_KINDS[kind][1]
    return [n for n in _entries(out) if n not in names] if out.is_dir() else []


def nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists (where missing directories would be made)."""
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def check_out_dir(out: Path, force: bool, kind: str = "experiment") -> None:
    """Check before any deal is played that the command ``kind`` (``"experiment"``, ``"tune"``,
    ``"ladder"``, ``"atlas"``) can write its output directory ``out``.

    ``force`` replaces only an empty directory or an earlier output of the same command (one
    holding the files of :data:`OUTPUT_KINDS`, e.g. ``experiment.json``), never another
    directory (``--out reports/ --force`` would have removed every report in it).

    Raises
    ------
    ExperimentError
        If ``out`` is a symbolic link, ``.`` or ``..``, or not a directory, is a non-empty
        directory that is not an earlier output of ``kind`` (the message names a few of its
        entries and does not suggest ``--force``, which would be refused), is an earlier output
        without ``force``, or its nearest existing ancestor
        (missing parents are created later) is not a directory or accepts no new directory
        (tested by creating and removing a probe directory).
    """
    if out.is_symlink():
        raise ExperimentError(f"output directory {str(out)!r} is a symbolic link; give its real path")
    if out.name in ("", ".", ".."):  # rename(2) cannot move it into place ('Device or resource busy')
        raise ExperimentError(
            f"output directory {str(out)!r} cannot be replaced (the current directory or its parent); "
            "give a new directory's name, e.g. --out results/NAME"
        )
    if out.exists():
        if not out.is_dir():
            raise ExperimentError(f"output path {str(out)!r} exists and is not a directory")
        entries = _entries(out)
        marks, _ = OUTPUT_KINDS[kind]
        if entries and not all((out / m).is_file() for m in marks):  # --force would not help: not said
            shown = ", ".join(entries[:3]) + (", ..." if len(entries) > 3 else "")
            raise ExperimentError(
                f"output directory {str(out)!r} is not empty and holds files that are not an earlier "
                f"{kind} output (no {' and '.join(marks)}; it holds {shown}); give an empty or new directory"
            )
        if entries and not force:
            raise ExperimentError(
                f"output directory {str(out)!r} holds an earlier {kind} output; use --force to replace it"
            )
    parent = nearest_existing(out.parent)  # missing parents are created later
    if not parent.is_dir():
        raise ExperimentError(f"cannot write {str(out)!r}: {str(parent)!r} is not a directory")
    try:
        _output.probe(parent, "dir")
    except OSError as e:
        why = os.strerror(e.errno) if e.errno else str(e)
        raise ExperimentError(
            f"cannot write {str(out)!r}: no directory can be created in {str(parent)!r} ({why})"
        ) from None


def swap_into_place(tmp: Path, out: Path, kind: str = "experiment") -> None:
    """Rename the finished ``tmp`` to ``out``; an earlier output there is replaced, the entries
    the command ``kind`` does not write (:func:`kept_entries`: a hand-written ``notes.md``) moved
    into the new one first."""
    old, kept = None, []
    if out.exists():
        kept = [n for n in kept_entries(out, kind) if not (tmp / n).exists()]
        old = _io.temp_dir_path(out, "old")
        os.replace(out, old)
    try:
        os.replace(tmp, out)
    except OSError:
        if old is not None:
            os.replace(old, out)
        raise
    if old is None:
        return
    try:
        for name in kept:
            os.replace(old / name, out / name)
    except OSError:  # never reached on one file system; the earlier output stays beside the new one
        return
    shutil.rmtree(old, ignore_errors=True)


def publish_output(tmp: Path, out: Path, on_written=None, kind: str = "experiment") -> None:
    """Put the finished ``tmp`` in place at ``out`` (:func:`swap_into_place`), then tell
    ``on_written`` (a callable given the output's path, or None)."""
    with _io.writing(out):
        swap_into_place(tmp, out, kind)
    if on_written is not None:
        on_written(str(out))


def discard_output(tmp: Path, writers) -> None:
    """After a failure or an interrupt: abort the run ``writers`` still open and remove ``tmp``
    (nothing of the unfinished output is left)."""
    for w in writers:
        w.abort()
    shutil.rmtree(tmp, ignore_errors=True)
