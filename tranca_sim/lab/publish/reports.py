"""Reports of an experiment: ``report.md`` and its charts, regenerated from the Parquet files.

An experiment directory (``tranca-sim experiment experiments/NAME.toml --out
reports/NAME/``; layout in :mod:`tranca_sim.lab.experiments.experiment`) holds
``experiment.json`` and ``runs/*.parquet``.  :func:`write_report` reads them
(no deal is played again), computes the tables below and writes into the same
directory ``report.md`` and, as PNG and SVG, the charts of
:mod:`tranca_sim.lab.publish.charts`:

========================  ===========================================================
file                      what it shows
========================  ===========================================================
``tip_effects``           forest plot: each variant minus the baseline, points per deal,
                          95% interval, Holm-significant ones marked
``score_distribution``    per-deal score of each strategy (violin, box, mean)
``sweep``                 the difference along a swept parameter with its band (sweeps only)
``morto_turn``            mean final score by the turn the morto was taken, "never taken" apart
``deal_endings``          how each strategy's deals ended (going out, stock out, turn limit)
``red3``                  mean final score by red 3s held, with and without a canasta
========================  ===========================================================

Python API: every table as a polars DataFrame (``backend="pandas"`` for
pandas): :func:`comparison_table`, :func:`sweep_table`, :func:`deal_table`
(from :mod:`tranca_sim.lab.publish.tables`), and here :func:`score_table`,
:func:`morto_turn_table`, :func:`end_reason_table`, :func:`red3_table`.
Each accepts an experiment directory, an ``Experiment`` or a
:class:`ReportData`.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from ..statistics.stats import t_interval, wilson_interval
from . import charts
from .report_md import ReportError, footnote, pooled_note, render_markdown

__all__ = [
    "ReportData",
    "ReportError",
    "comparison_table",
    "deal_table",
    "end_reason_table",
    "load_report_data",
    "morto_turn_table",
    "red3_table",
    "score_table",
    "sweep_table",
    "write_report",
]

#: most strategies drawn as series in the morto and red-3 charts: the baseline and, when there
#: are more variants, the MAX_SERIES - 1 with the largest effects (absolute mean difference)
MAX_SERIES = 4


@dataclass
class ReportData:
    """Everything a report needs, read once from an experiment directory.

    Attributes
    ----------
    dir : pathlib.Path
        The experiment directory (report files are written here).
    spec : dict
        ``experiment.json``.
    comparison : polars.DataFrame
        :func:`tranca_sim.lab.publish.tables.comparison_table`, one row per variant.
    sweep : polars.DataFrame or None
        :func:`tranca_sim.lab.publish.tables.sweep_table`, None without a sweep.
    deals : polars.DataFrame
        :func:`tranca_sim.lab.publish.tables.deal_table` with a ``label`` column added (variant
        label, ``"<baseline> (baseline)"`` or ``"opponent: <strategy>"``).
    checks : polars.DataFrame or None
        :func:`tranca_sim.lab.statistics.checks.check_table`: each tip variant's manipulation checks (does it
        do what its seed text says?); ``comparison`` then has a ``check`` column, ``"passes"``,
        ``"FAILS"`` or null (no tip check declared for the variant).
    """

    dir: Path
    spec: dict
    comparison: pl.DataFrame
    sweep: pl.DataFrame | None
    deals: pl.DataFrame
    checks: pl.DataFrame | None = None

    @property
    def baseline_label(self) -> str:
        b = (
            self.comparison["baseline"][0]
            if self.comparison.height
            else self.spec.get("baseline", "baseline")
        )
        return f"{short_strategy(b)} (baseline)"


# ---- loading ------------------------------------------------------------------------
def _check_dir(out_dir) -> Path:
    d = Path(out_dir)
    if not d.exists():
        raise ReportError(f"experiment directory {str(d)!r} does not exist")
    if not d.is_dir():
        raise ReportError(f"{str(d)!r} is not a directory (give the directory an experiment wrote)")
    spec = d / "experiment.json"
    if not spec.is_file():
        raise ReportError(
            f"{str(d)!r} holds no experiment.json: not an experiment directory "
            "(written by 'tranca-sim experiment FILE.toml --out DIR')"
        )
    try:
        obj = json.loads(spec.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ReportError(f"cannot read {str(spec)!r}: {e}") from None
    if not isinstance(obj, dict):
        raise ReportError(f"{str(spec)!r} is not a JSON object")
    if not sorted((d / "runs").glob("*.parquet")):
        src = obj.get("source") or "the experiment file"
        raise ReportError(
            f"{str(d / 'runs')!r} holds no run files (*.parquet); play them again with "
            f"'tranca-sim experiment {src} --out {d} --force'"
        )
    return d


def _tables():
    try:
        from .. import output_dir
        from . import tables
    except ImportError as e:  # pragma: no cover - the runner ships with the package
        raise ReportError(f"the experiment runner is not available ({e})") from None
    return output_dir, tables


def short_strategy(text: str) -> str:
    """A strategy text without the parameters left at their defaults:
    ``"basic:take_pile_min=1,wild_reserve=0,...,wild_melds=1"`` -> ``"basic"``,
    ``"basic:go_out=0,..."`` -> ``"basic:go_out=0"`` (the replay's
    :func:`tranca_sim.replay.strategy_label`); a text this version cannot resolve is shown as given."""
    from ...replay import strategy_label

    return strategy_label(str(text))


def _label_deals(deals: pl.DataFrame, comparison: pl.DataFrame, spec: dict) -> pl.DataFrame:
    """Add ``label``: the variant's label for the variant's rows, ``"<baseline> (baseline)"`` for
    the baseline's, ``"opponent: <strategy>"`` for the fixed opponent's (side B of every run of
    the fixed-opponent design).  Rotation design: the baseline's rows are those of the
    all-baseline control table, and the two baseline players at a variant's table are
    ``"opponent: <baseline> (beside a variant)"``."""
    names = dict(zip(comparison["strategy"].to_list(), comparison["variant"].to_list()))
    labels = set(comparison["variant"].to_list())
    base = comparison["baseline"][0] if comparison.height else str(spec.get("baseline", "baseline"))
    base = short_strategy(base)
    if "run_label" in deals.columns:
        var = pl.when(pl.col("run_label").is_in(list(labels))).then(pl.col("run_label"))
        var = var.otherwise(pl.col("strategy").replace(names))
    else:
        var = pl.col("strategy").replace(names)
    design = spec.get("design")
    if design == "rotation":  # the baseline players beside a variant (the control table is the baseline's)
        return deals.with_columns(
            label=pl.when(pl.col("is_variant"))
            .then(var)
            .when(pl.col("role") != "control")
            .then(pl.lit(f"opponent: {base} (beside a variant)"))
            .otherwise(pl.lit(f"{base} (baseline)"))
        )
    opponent = (pl.col("side") == 1) if design == "fixed-opponent" else pl.lit(False)
    return deals.with_columns(
        label=pl.when(pl.col("is_variant"))
        .then(var)
        .when(opponent)
        .then(pl.lit("opponent: ") + pl.col("strategy").map_elements(short_strategy, return_dtype=pl.String))
        .otherwise(pl.lit(f"{base} (baseline)"))
    )


def load_report_data(out_dir) -> ReportData:
    """Read an experiment directory into a :class:`ReportData` (no deal is played).

    Raises
    ------
    ReportError
        If the directory is missing, is not a directory, has no readable ``experiment.json``
        or no run files, or a run file is missing, damaged or does not match the spec.
    """
    d = _check_dir(out_dir)
    output_dir, tables = _tables()
    try:
        exp = output_dir.load_experiment(d)
        comp = tables.comparison_table(exp)
        sweep = tables.sweep_table(exp)
        deals = tables.deal_table(exp)
        checks = _checks(exp)
    except ReportError:
        raise
    except (ValueError, KeyError, TypeError, OSError) as e:
        raise ReportError(f"cannot report {str(d)!r}: {e}") from None
    if checks is not None:
        from ..statistics.checks import verdicts

        v = verdicts(checks)
        comp = comp.with_columns(pl.col("variant").replace_strict(v, default=None, return_dtype=pl.Utf8).alias("check"))
    return ReportData(d, exp.spec, comp, sweep, _label_deals(deals, comp, exp.spec), checks)


def _checks(exp) -> pl.DataFrame | None:
    """The manipulation checks of the experiment's tip variants; None when there are none, or when
    the run files predate the columns they read (reported then without checks)."""
    from ..statistics.checks import check_table

    try:
        t = check_table(exp)
    except (KeyError, pl.exceptions.ColumnNotFoundError):
        return None
    return t if t.height else None


def _data(exp) -> ReportData:
    if isinstance(exp, ReportData):
        return exp
    if isinstance(exp, (str, Path)):
        return load_report_data(exp)
    return load_report_data(exp.dir)


def _out(df: pl.DataFrame, backend: str):
    if backend == "pandas":
        return df.to_pandas()
    if backend != "polars":
        raise ValueError(f"backend must be 'polars' or 'pandas', got {backend!r}")
    return df


# ---- re-exported tables --------------------------------------------------------------
def comparison_table(exp, backend: str = "polars"):
    """One row per variant against the baseline (:func:`tranca_sim.lab.publish.tables.comparison_table`)."""
    return _out(_data(exp).comparison, backend)


def sweep_table(exp, backend: str = "polars"):
    """The swept parameter's curve (:func:`tranca_sim.lab.publish.tables.sweep_table`); None without a sweep."""
    s = _data(exp).sweep
    return None if s is None else _out(s, backend)


def deal_table(exp, backend: str = "polars"):
    """One row per (run, deal, side) (:func:`tranca_sim.lab.publish.tables.deal_table`) plus ``label``."""
    return _out(_data(exp).deals, backend)


# ---- tables computed for the charts ---------------------------------------------------
def _order(data: ReportData) -> list[str]:
    """Labels in chart order: the baseline, the variants by effect (largest gain first), the rest."""
    first = [data.baseline_label]
    variants = data.comparison.sort("mean", descending=True)["variant"].to_list()
    rest = sorted(set(data.deals["label"].unique().to_list()) - set(first) - set(variants))
    present = set(data.deals["label"].unique().to_list())
    return [x for x in first + variants + rest if x in present]


def _in_order(df: pl.DataFrame, order: list[str], *by: str) -> pl.DataFrame:
    rank = pl.col("label").replace_strict(order, list(range(len(order))), default=len(order))
    return df.with_columns(_rank=rank).sort("_rank", *by).drop("_rank")


def _series(data: ReportData) -> pl.DataFrame:
    """Deals of the baseline and of the variants drawn as series: all of them when there are at
    most :data:`MAX_SERIES` strategies, else the ``MAX_SERIES - 1`` variants with the largest
    absolute effect (the fixed opponent's deals are left out)."""
    d = data.deals.filter(~pl.col("label").str.starts_with("opponent: "))
    if d["label"].n_unique() > MAX_SERIES:
        keep = (
            data.comparison.with_columns(_abs=pl.col("mean").abs())
            .sort("_abs", descending=True)["variant"]
            .head(MAX_SERIES - 1)
            .to_list()
        )
        d = d.filter(~pl.col("is_variant") | pl.col("label").is_in(keep))
    return d


def _mean_ci(df: pl.DataFrame, by: list[str]) -> pl.DataFrame:
    g = df.group_by(by, maintain_order=True).agg(
        n=pl.len(),
        mean_score=pl.col("score").cast(pl.Float64).mean(),
        sd=pl.col("score").cast(pl.Float64).std(),
    )
    ci = [
        t_interval(m, s if s is not None else math.nan, n)
        for m, s, n in g.select("mean_score", "sd", "n").rows()
    ]
    return g.with_columns(
        lo=pl.Series([c[0] for c in ci], dtype=pl.Float64), hi=pl.Series([c[1] for c in ci], dtype=pl.Float64)
    )


def score_table(exp, backend: str = "polars"):
    """Per-deal score of each strategy: ``label, n, mean, sd, p5, p25, median, p75, p95``
    (points per deal; one row per label, baseline first, variants by effect).

    ``n`` counts side-deals: each deal a strategy played counts once per side it held.
    """
    data = _data(exp)
    s = pl.col("score").cast(pl.Float64)
    t = data.deals.group_by("label").agg(
        n=pl.len(),
        mean=s.mean(),
        sd=s.std(),
        **{f"p{q}": s.quantile(q / 100, "linear") for q in (5, 25)},
        median=s.median(),
        **{f"p{q}": s.quantile(q / 100, "linear") for q in (75, 95)},
    )
    return _out(_in_order(t, _order(data)), backend)


def _morto_bins(turns: np.ndarray, seats: int = 4) -> tuple[list[int], list[int], list[str]]:
    """Bins of the turns a morto was taken, in whole rounds (``seats`` turns: 4, or 2 and 3 at the
    solo tables): from the round of the earliest pickup to the 95th percentile (all of them when
    fewer than 20 were taken), about 8 bins. Returns each bin's first and last turn and its label
    (``"20-23"``); the last bin is open (``"56+"``) only when later pickups fall in it."""
    if turns.size == 0:
        return [0], [0], ["0+"]
    first = seats * (int(turns.min()) // seats)
    top = float(turns.max()) if turns.size < 20 else float(np.quantile(turns, 0.95))
    width = max(seats, seats * round((top - first) / 8 / seats))
    starts = list(range(first, int(top) + 1, width)) or [first]
    ends = [s + width - 1 for s in starts]
    labels = [f"{a}-{b}" for a, b in zip(starts, ends)]
    if int(turns.max()) > ends[-1]:  # the pickups after the percentile: an open last bin
        ends[-1] = int(turns.max())
        labels[-1] = f"{starts[-1]}+"
    return starts, ends, labels


def morto_turn_table(exp, backend: str = "polars"):
    """Mean final score by the turn the side took its morto.

    Columns: ``label`` (the baseline and the variants with the largest effects, at most
    :data:`MAX_SERIES` strategies),
    ``bin`` (``"0-7"``, ..., ``"56+"``, ``"never taken"``; the bins follow the turns in the data,
    see :func:`_morto_bins`), ``bin_order`` (int),
    ``turn_lo``, ``turn_hi`` (inclusive turn range; -1 for never), ``n`` (side-deals),
    ``share`` (of the label's side-deals), ``mean_score``, ``sd``, ``lo``, ``hi`` (95% t
    interval, points per deal; it treats side-deals as independent), ``deal_turns`` (mean
    length in turns of the deals in the bin, every strategy drawn pooled: a late pickup happens
    only in a long deal, and long deals score more, the selection the chart shows).  Turns count
    every seat's turn (``morto_turn`` of docs/schema.md).
    """
    data = _data(exp)
    d = _series(data)
    taken = d.filter(pl.col("morto_turn") >= 0)["morto_turn"].to_numpy()
    seats = (data.spec.get("rules") or {}).get("n_seats", 4)
    edges, his, labels = _morto_bins(taken, int(seats) if isinstance(seats, int) and seats > 0 else 4)
    lo_e = np.array(edges)
    turn = d["morto_turn"].to_numpy()
    idx = np.where(turn < 0, len(edges), np.clip(np.searchsorted(lo_e, turn, side="right") - 1, 0, None))
    names = labels + ["never taken"]
    d = d.with_columns(bin_order=pl.Series(idx, dtype=pl.Int64))
    t = _mean_ci(d, ["label", "bin_order"])
    if "n_turns" in d.columns:  # the deals' length: a late pickup happens only in a long deal
        turns = d.group_by("bin_order").agg(deal_turns=pl.col("n_turns").cast(pl.Float64).mean())
        t = t.join(turns, on="bin_order", how="left")
    else:
        t = t.with_columns(deal_turns=pl.lit(None, dtype=pl.Float64))
    totals = d.group_by("label").agg(total=pl.len())
    t = (
        t.join(totals, on="label")
        .with_columns(
            bin=pl.col("bin_order").replace_strict(list(range(len(names))), names),
            turn_lo=pl.col("bin_order").replace_strict(list(range(len(names))), edges + [-1]),
            turn_hi=pl.col("bin_order").replace_strict(list(range(len(names))), his + [-1]),
            share=pl.col("n") / pl.col("total"),
        )
        .select(
            "label", "bin", "bin_order", "turn_lo", "turn_hi", "n", "share", "mean_score", "sd", "lo", "hi",
            "deal_turns",
        )
    )
    return _out(_in_order(t, _order(data), "bin_order"), backend)


def end_reason_table(exp, backend: str = "polars"):
    """How each strategy's deals ended: ``label, end, n, share, lo, hi`` (Wilson 95%).

    ``end`` is ``side_went_out`` (this strategy's side went out, bater), ``other_went_out``,
    ``stock_out`` or ``turn_limit`` (``end_reason`` and ``went_out`` of docs/schema.md).
    """
    data = _data(exp)
    d = data.deals.with_columns(
        end=pl.when(pl.col("end_reason") != "went_out")
        .then(pl.col("end_reason"))
        .when(pl.col("went_out"))
        .then(pl.lit("side_went_out"))
        .otherwise(pl.lit("other_went_out"))
    )
    t = d.group_by("label", "end").agg(n=pl.len())
    t = t.join(t.group_by("label").agg(total=pl.col("n").sum()), on="label")
    ci = [wilson_interval(k, n) for k, n in t.select("n", "total").rows()]
    keys = list(charts.END_LABELS)
    t = t.with_columns(
        share=pl.col("n") / pl.col("total"),
        lo=pl.Series([c[0] for c in ci], dtype=pl.Float64),
        hi=pl.Series([c[1] for c in ci], dtype=pl.Float64),
        _k=pl.col("end").replace_strict(keys, list(range(len(keys))), default=len(keys)),
    )
    t = _in_order(t, _order(data), "_k").drop("_k", "total")
    return _out(t, backend)


def red3_table(exp, backend: str = "polars"):
    """Mean final score by red 3s held: ``label, has_canasta, red3_count, n, mean_score, sd,
    lo, hi`` (points per deal, 95% t interval treating side-deals as independent).

    ``has_canasta``: the side made at least one canasta, so its red 3s count +100 each,
    else -100 each (000 Scoring; ``red3_points`` of docs/schema.md).
    """
    data = _data(exp)
    d = _series(data).with_columns(has_canasta=(pl.col("canastas_clean") + pl.col("canastas_dirty")) > 0)
    t = _mean_ci(d, ["label", "has_canasta", "red3_count"])
    t = t.select("label", "has_canasta", "red3_count", "n", "mean_score", "sd", "lo", "hi")
    return _out(_in_order(t, _order(data), pl.col("has_canasta").not_(), "red3_count"), backend)


def _strategy_params(text: str) -> tuple[str, dict[str, float]] | None:
    """``("basic", {"morto_stock": 108.0, ...})`` from a canonical strategy text
    ``name:k=v,k=v``; None if a value is not a number."""
    name, _, rest = str(text).partition(":")
    try:
        return name, {k: float(v) for k, v in (kv.split("=", 1) for kv in rest.split(",") if kv)}
    except ValueError:
        return None


def _sweep_baseline_value(data: ReportData) -> float | None:
    """The swept parameter's value in the baseline strategy: the grid value whose strategy is the
    baseline itself, else (off the grid) the baseline's own value of the parameter when the
    sweep's strategies are the baseline's with only that parameter changed; None otherwise."""
    c = data.comparison
    if data.sweep is None or not c.height or "param" not in c.columns:
        return None
    same = c.filter(pl.col("param").is_not_null() & (pl.col("strategy") == pl.col("baseline")))
    if same.height:
        return float(same["value"][0])
    pts = c.filter(pl.col("param").is_not_null())
    if not pts.height:
        return None
    param = str(pts["param"][0])
    base, point = _strategy_params(c["baseline"][0]), _strategy_params(pts["strategy"][0])
    if base is None or point is None or base[0] != point[0] or param not in base[1]:
        return None
    others = ({k: v for k, v in d.items() if k != param} for d in (base[1], point[1]))
    return base[1][param] if next(others) == next(others) else None


# ---- the report -----------------------------------------------------------------------
def tip_rows(data: ReportData) -> pl.DataFrame:
    """The comparison rows of the tips (variants), without the sweep's grid points (drawn in the
    sweep chart); all rows when the experiment is only a sweep."""
    c = data.comparison
    if data.sweep is None or "param" not in c.columns:
        return c
    params = set(data.sweep["param"].to_list())
    tips = c.filter(pl.col("param").is_null() | ~pl.col("param").is_in(list(params)))
    return tips if tips.height else c


def _kind(out_dir) -> str | None:
    """experiment.json's ``kind`` (``"strengths"``: :mod:`tranca_sim.lab.experiments.strengths`), or None."""
    try:
        return json.loads((Path(out_dir) / "experiment.json").read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return None  # load_report_data says what is wrong


def write_report(out_dir, data: ReportData | None = None, shown_dir=None) -> list[Path]:
    """Write ``report.md`` and every chart (PNG and SVG) into the experiment directory.

    Parameters
    ----------
    out_dir : str or os.PathLike
        An experiment directory (``experiment.json`` and ``runs/*.parquet``).
    data : ReportData, optional
        Already loaded tables (default: :func:`load_report_data` of ``out_dir``).
    shown_dir : str or os.PathLike, optional
        The directory named in the report's commands (default ``out_dir``): the
        experiment runner writes the report into its temporary directory and names the
        final one.

    Returns
    -------
    list of pathlib.Path
        The files written, ``report.md`` last.  Each is written to a temporary name and
        renamed; the same inputs give the same bytes.

    Raises
    ------
    ReportError
        From :func:`load_report_data`.
    tranca_sim.io.RunFileError
        If a file cannot be written.
    """
    from ...io import atomic_output, writing

    if data is None and _kind(out_dir) == "strengths":  # tips at several strengths, blocks of decks
        from .strengths_report import write_report as write_strengths

        return write_strengths(out_dir, shown_dir=shown_dir)
    data = load_report_data(out_dir) if data is None else data
    if shown_dir is not None:
        data = dataclasses.replace(data, dir=Path(shown_dir))
    d = Path(out_dir)
    seats = (data.spec.get("rules") or {}).get("n_seats", 4)
    info = charts.ChartInfo(
        footnote(data),
        data.baseline_label,
        pooled_note(data, short=True),
        str(data.spec.get("design", "")),
        seats if isinstance(seats, int) and seats > 0 else 4,
        float((data.spec.get("stopping") or {}).get("alpha", 0.05)),
    )
    figures = {
        "tip_effects": charts.forest_plot(tip_rows(data), info, family=data.comparison.height),
        "score_distribution": charts.score_distribution_plot(
            _in_order(data.deals.select("label", "score"), _order(data)), info
        ),
    }
    if data.sweep is not None and data.sweep.height:
        sw = data.spec["sweep"] if isinstance(data.spec.get("sweep"), dict) else {}
        figures["sweep"] = charts.sweep_plot(
            data.sweep, info, sw.get("note") or "", _sweep_baseline_value(data), family=data.comparison.height
        )
    n_strategies = data.deals.filter(~pl.col("label").str.starts_with("opponent: "))["label"].n_unique()
    note = (
        f"drawn: the baseline and the {MAX_SERIES - 1} variants with the largest effects"
        if n_strategies > MAX_SERIES
        else ""
    )
    figures["morto_turn"] = charts.morto_turn_plot(morto_turn_table(data), info, note)
    figures["deal_endings"] = charts.end_reason_plot(end_reason_table(data), info)
    figures["red3"] = charts.red3_plot(red3_table(data), info, note)
    written: list[Path] = []
    for name, fig in figures.items():
        written += charts.save_figure(fig, d, name)
    md = render_markdown(data, list(figures), score_table(data), end_reason_table(data), tip_rows(data))
    path = d / "report.md"
    with atomic_output(path, force=True) as tmp, writing(path):
        tmp.write_text(md, encoding="utf-8")
    return written + [path]
