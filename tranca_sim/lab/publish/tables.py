"""Tables of a finished experiment, as polars (default) or pandas DataFrames (LAB-CONTRACT.md).

>>> from tranca_sim.lab.experiments.experiment import load_experiment
>>> from tranca_sim.lab.publish.tables import comparison_table, sweep_table, deal_table
>>> exp = load_experiment("reports/tranca-tips")         # doctest: +SKIP
>>> comparison_table(exp)                                 # doctest: +SKIP

Everything is recomputed from the run files and ``experiment.json`` (the
looks each variant took are stored there), so a report can be regenerated
without replaying a deal.

Which interval: when the experiment stopped by looking at the data in
batches (``spec["stopping"]["sequential"]``), ``lo``/``hi`` and ``p_value``
are those of the confidence sequence over the looks taken
(:func:`tranca_sim.lab.statistics.inference.sequential_interval`): valid at the
data-dependent stopping time. Otherwise (one look, a fixed number of deals)
they are the Student t interval and t test. ``t_lo``/``t_hi`` always give the
fixed-n t interval for comparison; after sequential stopping it is *not* a
valid 95% interval. ``interval`` names the one in ``lo``/``hi``.
"""

from __future__ import annotations

import math

import numpy as np

from ...io import load_run
from ...rules import Rules
from ..statistics.decision import deck_outcome_classes, effect_size, replay
from ..statistics.designs import DEALS_PER_UNIT, DESIGN_COLUMNS, Paired, duplicate_units, fixed_opponent_units
from ..statistics.inference import adjust_p, cs_rho2, match_win_prob, sequential_interval, t_test

#: columns of :func:`comparison_table`, in order (the LAB-CONTRACT columns, then extras)
COMPARISON_COLUMNS = (
    "variant",
    "strategy",
    "baseline",
    "design",
    "unit",
    "n_units",
    "n_deals",
    "mean",
    "lo",
    "hi",
    "sd",
    "p_value",
    "p_holm",
    "p_bh",
    "holm_significant",
    "win_share_diff",
    "win_p",
    "going_out_variant",
    "going_out_baseline",
    "match_win_prob",
    "match_win_lo",
    "match_win_hi",
    "match_method",
    "var_ratio_design",
    # extras
    "var_ratio_plain",
    "var_ratio_vs_plain",
    "own_gain",
    "own_lo",
    "own_hi",
    "var_ratio_own",
    "match_win_baseline",
    "corr_swap",
    "interval",
    "half_width",
    "t_lo",
    "t_hi",
    "looks",
    "stopped_by",
    "param",
    "value",
    "note",
    # decisions (experiments with [decision]; else null) and the deck outcome
    "effect_size",
    "decision",
    "decision_units",
    "decision_llr",
    "outcome_mean",
    "outcome_lo",
    "outcome_hi",
    "outcome_p",
    "outcome_p_holm",
    "outcome_effect_size",
    "outcome_decision",
    "outcome_decision_units",
    "deck_won",
    "deck_drawn",
    "deck_lost",
    "outcome_classes",
)

_TEXT = {
    "decision",
    "outcome_decision",
    "outcome_classes",
    "variant",
    "strategy",
    "baseline",
    "design",
    "unit",
    "match_method",
    "interval",
    "stopped_by",
    "param",
    "note",
}

SWEEP_COLUMNS = ("param", "value", "variant", "n_units", "mean", "lo", "hi", "p_value", "p_holm")


def _frame(rows: list[dict], columns, backend: str):
    import polars as pl

    if backend not in ("polars", "pandas"):
        raise ValueError(f"backend must be 'polars' or 'pandas', got {backend!r}")

    def dtype(c):
        if c in _TEXT:
            return pl.Utf8
        if c in ("n_units", "n_deals", "looks", "decision_units", "outcome_decision_units"):
            return pl.Int64
        return pl.Boolean if c == "holm_significant" else pl.Float64

    schema = {c: dtype(c) for c in columns}
    df = pl.DataFrame([{c: r.get(c) for c in columns} for r in rows], schema=schema, orient="row")
    return df.to_pandas() if backend == "pandas" else df


def _runs_of(exp, label: str) -> dict:
    return {r.role: r for r in exp.runs if r.label == label}


def _load(path):
    return load_run(path, columns=list(DESIGN_COLUMNS))


def _shared_run(exp):
    """The run every variant shares (fixed-opponent: the baseline against the opponent; rotation:
    the all-baseline control table), loaded; None in the duplicate design."""
    design = exp.spec["design"]
    if design == "duplicate":
        return None
    role = "control" if design == "rotation" else "baseline"
    return _load(_runs_of(exp, "baseline")[role].path)


def paired_units(exp, label: str, _base=None) -> Paired:
    """The :class:`~tranca_sim.lab.statistics.designs.Paired` differences of the variant ``label``, from its run files."""
    runs = _runs_of(exp, label)
    design = exp.spec["design"]
    if design == "duplicate":
        return duplicate_units(_load(runs["ab"].path), _load(runs["ba"].path))
    base = _base if _base is not None else _shared_run(exp)
    if design == "rotation":
        from ..statistics.rotation import rotation_units

        return rotation_units(*(_load(runs[f"s{k}"].path) for k in range(3)), base)
    return fixed_opponent_units(_load(runs["variant"].path), base)


def interval_name(spec: dict) -> str:
    stop = spec["stopping"]
    pc = round(100 * (1 - stop["alpha"]))
    if stop.get("sequential"):
        return f"{pc}% confidence sequence over the looks taken (valid under repeated looks)"
    return f"{pc}% Student t interval (fixed number of deals)"


def comparison_table(exp, backend: str = "polars", match_seed: int | None = None):
    """One row per variant against the baseline (the tip table), sorted as in the experiment file.

    Parameters
    ----------
    exp : Experiment
        From :func:`tranca_sim.lab.experiments.experiment.load_experiment`.
    backend : {"polars", "pandas"}
    match_seed : int, optional
        Seed of the match resampling (default: the experiment's seed).

    Returns
    -------
    DataFrame
        Columns :data:`COMPARISON_COLUMNS`: ``mean`` (points per deal, variant
        minus baseline), ``lo``/``hi`` (the interval named in ``interval``),
        ``sd`` (per unit), ``p_value`` (two-sided, mean 0), ``p_holm``,
        ``p_bh`` (Holm and Benjamini-Hochberg over all variants),
        ``holm_significant`` (``p_holm <= alpha``), ``win_share_diff``
        (variant's share of its non-tie deals won minus the baseline's),
        ``win_p`` (paired exact sign test; :mod:`designs`), going-out shares
        (0..1), ``match_win_prob`` with ``match_win_lo``/``hi`` (a match to the
        preset's ``match_target``, by resampled deals: the variant against the
        baseline in the duplicate design, against the opponent in the
        fixed-opponent design), ``match_win_baseline`` (fixed-opponent: the
        baseline's own match-win probability against the opponent in the variant's deals, with
        the same draws: identical scores give identical figures; NaN in the other designs), ``var_ratio_design``, ``var_ratio_plain``,
        ``var_ratio_vs_plain`` (duplicate: design / plain pairing at equal deals), ``corr_swap`` (see :mod:`tranca_sim.lab.statistics.designs`),
        ``own_gain`` with ``own_lo``/``own_hi`` and ``var_ratio_own`` (rotation design only, else NaN:
        the variant's own score minus the baseline's in the same seat at the all-baseline table,
        points per deal, an interval of the same kind as ``lo``/``hi``;
        :mod:`tranca_sim.lab.statistics.rotation`), ``half_width``
        (of the final look's interval), ``t_lo``/``t_hi`` (fixed-n t interval),
        ``looks``, ``stopped_by`` (``"half-width"`` or ``"budget"``), ``param``
        and ``value`` (sweep points, else null), ``note``.
    """
    key = ("comparison", match_seed)
    cache = exp.__dict__.setdefault("_tables", {})
    if key not in cache:
        cache[key] = _comparison_rows(exp, match_seed)
    return _frame([dict(r) for r in cache[key]], COMPARISON_COLUMNS, backend)


def _comparison_rows(exp, match_seed) -> list[dict]:
    spec = exp.spec
    stop = spec["stopping"]
    alpha = stop["alpha"]
    design = spec["design"]
    dup = design == "duplicate"
    rot = design == "rotation"
    rho2 = cs_rho2(stop["tune"] / DEALS_PER_UNIT[design], alpha)
    target = Rules(**spec["rules"]).match_target
    base = _shared_run(exp)
    seed0 = spec["seed"] if match_seed is None else match_seed
    # fixed-opponent: the match column is each strategy against the opponent, so the baseline's own
    # probability is given beside each variant's, from the same deals (the baseline run's first
    # n_deals, paired with the variant's) and the same draws (one seed for every variant and the
    # baseline: common random numbers), so identical deal scores give identical figures
    mseed = seed0 % 2**63
    mw_base_by_units: dict[int, float] = {}  # the baseline's figure depends only on how many deals
    rows = []
    units, outcomes = [], []
    for v in spec["variants"]:
        pu = paired_units(exp, v["label"], base)
        units.append(pu.units)
        outcomes.append(pu.outcomes)
        tt = t_test(pu.units, 1 - alpha)
        if stop.get("sequential"):
            si = sequential_interval(pu.units, v.get("looks") or [len(pu.units)], rho2, alpha)
            lo, hi, p, half = si["lo"], si["hi"], si["p_value"], si["half_width"]
        else:
            lo, hi, p = tt["lo"], tt["hi"], tt["p_value"]
            half = (hi - lo) / 2 if math.isfinite(hi - lo) else math.nan
        mp = match_win_prob(
            pu.match_a, pu.match_b, target, level=1 - alpha, seed=mseed, c_units=pu.match_c, twins=dup
        )
        mw_base = math.nan
        if pu.match_base_a is not None:  # the baseline run's first n deals: the same for equal n
            nb = len(pu.match_base_a)
            if nb not in mw_base_by_units:
                mw_base_by_units[nb] = match_win_prob(
                    pu.match_base_a, pu.match_base_b, target, level=1 - alpha, seed=mseed
                )[0]
            mw_base = mw_base_by_units[nb]
        own = _own_interval(pu, v, stop, rho2, alpha)
        rows.append(
            {
                "variant": v["label"],
                "strategy": v["strategy"],
                "baseline": spec["baseline"],
                "design": spec["design"],
                "unit": pu.unit,
                "n_units": len(pu.units),
                "n_deals": pu.n_deals,
                "mean": tt["mean"],
                "lo": lo,
                "hi": hi,
                "sd": tt["sd"],
                "p_value": p,
                "win_share_diff": pu.win_share_diff,
                "win_p": pu.win_p,
                "going_out_variant": pu.v_out,
                "going_out_baseline": pu.b_out,
                "match_win_prob": mp[0],
                "match_win_lo": mp[1],
                "match_win_hi": mp[2],
                "match_method": f"resampled deals (target {target}; "
                + (
                    "variant vs baseline"
                    if dup
                    else "variant vs two baseline players, fair share 1/3"
                    if rot
                    else f"variant vs opponent {spec['opponent']}"
                )
                + ")",
                "var_ratio_design": pu.var_ratio_design,
                "var_ratio_plain": pu.var_ratio_plain,
                "var_ratio_vs_plain": _div(pu.var_ratio_design, pu.var_ratio_plain) if dup else math.nan,
                "match_win_baseline": mw_base,
                "own_gain": own[0],
                "own_lo": own[1],
                "own_hi": own[2],
                "var_ratio_own": pu.var_ratio_own,
                "corr_swap": pu.corr_swap,
                "interval": interval_name(spec),
                "half_width": half,
                "t_lo": tt["lo"],
                "t_hi": tt["hi"],
                "looks": len(v.get("looks") or [1]),
                "stopped_by": v.get("stopped_by"),
                "param": v.get("param"),
                "value": v.get("value"),
                "note": v.get("note"),
                "effect_size": effect_size(pu.units),
                **_outcome_cells(pu, v, stop, rho2, alpha, DEALS_PER_UNIT[design]),
            }
        )
    holm, bh, sig = adjust_p([r["p_value"] for r in rows], alpha)
    for r, a, b, s in zip(rows, holm, bh, sig):
        r["p_holm"], r["p_bh"], r["holm_significant"] = float(a), float(b), bool(s)
    o_holm = adjust_p([r["outcome_p"] for r in rows], alpha)[0]
    for r, a in zip(rows, o_holm):
        r["outcome_p_holm"] = float(a)
    _decision_cells(rows, spec, units, outcomes)
    return rows


def _outcome_cells(pu: Paired, v: dict, stop: dict, rho2: float, alpha: float, deals: int) -> dict:
    """The deck outcome's cells of a row (:mod:`tranca_sim.lab.statistics.decision`): its mean score (1/2: no
    difference) with an interval of the same kind as the points', p of a mean 1/2, the standardised
    effect, the shares of units won, drawn and lost (score above, at, below 1/2) and the class counts."""
    y = pu.outcomes
    if y is None or not len(y):
        return {"outcome_mean": math.nan, "outcome_lo": math.nan, "outcome_hi": math.nan, "outcome_p": math.nan,
                "outcome_effect_size": math.nan, "deck_won": math.nan, "deck_drawn": math.nan,
                "deck_lost": math.nan, "outcome_classes": None}  # fmt: skip
    z = y - 0.5
    if stop.get("sequential"):
        si = sequential_interval(z, v.get("looks") or [len(z)], rho2, alpha)
        lo, hi, p = si["lo"], si["hi"], si["p_value"]
    else:
        tt = t_test(z, 1 - alpha)
        lo, hi, p = tt["lo"], tt["hi"], tt["p_value"]
    counts = deck_outcome_classes(y, deals)
    return {
        "outcome_mean": float(y.mean()),
        "outcome_lo": lo + 0.5,
        "outcome_hi": hi + 0.5,
        "outcome_p": p,
        "outcome_effect_size": effect_size(y, 0.5),
        "deck_won": float((y > 0.5).mean()),
        "deck_drawn": float((y == 0.5).mean()),
        "deck_lost": float((y < 0.5).mean()),
        "outcome_classes": " / ".join(str(int(c)) for c in counts),
    }


def _decision_cells(rows: list[dict], spec: dict, units: list, outcomes: list) -> None:
    """The decisions of an experiment with ``[decision]``, replayed from the units and each variant's
    looks exactly as the runner made them (:func:`tranca_sim.lab.statistics.decision.replay`); None without."""
    d = spec.get("decision")
    for r in rows:
        r.update(decision=None, decision_units=None, decision_llr=math.nan, outcome_decision=None,
                 outcome_decision_units=None)  # fmt: skip
    if not d:
        return
    k = len(rows)
    looks = {i: v.get("looks") or [len(units[i])] for i, v in enumerate(spec["variants"])}
    m = d.get("min_decks", 0)
    points = replay(dict(enumerate(units)), looks, k, d["delta"], d["alpha"], d["beta"], 0.0, min_units=m)
    outs = {i: y for i, y in enumerate(outcomes) if y is not None}
    outcome = replay(outs, {i: looks[i] for i in outs}, k, d["delta_outcome"], d["alpha"], d["beta"], 0.5, min_units=m)
    for i, r in enumerate(rows):
        if i in points.decisions:
            p = points.decisions[i]
            r.update(decision=p.verdict, decision_units=p.units, decision_llr=p.llr)
        if i in outcome.decisions:
            o = outcome.decisions[i]
            r.update(outcome_decision=o.verdict, outcome_decision_units=o.units)


def _own_interval(pu: Paired, v: dict, stop: dict, rho2: float, alpha: float) -> tuple[float, float, float]:
    """The rotation design's own-score gain (:mod:`tranca_sim.lab.statistics.rotation`): mean and interval of
    the same kind as the effect's (the confidence sequence over the same looks after sequential
    stopping, else the t interval); NaNs in the other designs."""
    if pu.own_units is None:
        return (math.nan, math.nan, math.nan)
    g = pu.own_units
    if stop.get("sequential"):
        si = sequential_interval(g, v.get("looks") or [len(g)], rho2, alpha)
        return (float(np.mean(g)) if len(g) else math.nan, si["lo"], si["hi"])
    tt = t_test(g, 1 - alpha)
    return (tt["mean"], tt["lo"], tt["hi"])


def sweep_table(exp, backend: str = "polars"):
    """The sweep's curve: one row per grid value, or ``None`` if the experiment has no sweep.

    Columns :data:`SWEEP_COLUMNS` (``value`` ascending); ``mean``, ``lo``,
    ``hi``, ``p_value`` and ``p_holm`` as in :func:`comparison_table`: Holm-adjusted over all
    the experiment's variants (tips and grid points), one family with the tip table and the
    Design section's family-wise error.
    """
    sweep = exp.spec.get("sweep")
    if not sweep:
        return None
    import polars as pl

    df = comparison_table(exp).filter(pl.col("param") == sweep["param"]).sort("value")
    df = df.select(list(SWEEP_COLUMNS))
    return df.to_pandas() if backend == "pandas" else df


def deal_table(exp, backend: str = "polars", columns: list[str] | None = None):
    """Every row of every run file, with ``run_label`` (the variant's label, or ``"baseline"``),
    ``run`` (file stem), ``role``, ``strategy`` (full strategy text of the row's side) and
    ``is_variant`` (the row's side is the variant).

    Parameters
    ----------
    columns : list of str, optional
        Run-file columns to read (default all; ``deal_index`` and ``side`` are always read).
    """
    import polars as pl

    if backend not in ("polars", "pandas"):
        raise ValueError(f"backend must be 'polars' or 'pandas', got {backend!r}")
    cols = None if columns is None else list(dict.fromkeys(["deal_index", "side", *columns]))
    if cols is not None and "strategy" in cols:
        cols.remove("strategy")
    parts = []
    for r in exp.runs:
        df = load_run(r.path, columns=cols)
        if "strategy" in df.columns:
            df = df.drop("strategy")
        var_side = {"ab": 0, "ba": 1, "variant": 0, "s0": 0, "s1": 1, "s2": 2}.get(r.role, -1)
        strategy = pl.when(pl.col("side") == 0).then(pl.lit(r.side_a))
        if r.side_c is not None:
            strategy = strategy.when(pl.col("side") == 2).then(pl.lit(r.side_c))
        df = df.with_columns(
            run_label=pl.lit(r.label),
            run=pl.lit(r.path.stem),
            role=pl.lit(r.role),
            strategy=strategy.otherwise(pl.lit(r.side_b)),
            is_variant=pl.col("side").cast(pl.Int64) == var_side,
        )
        parts.append(df)
    out = pl.concat(parts, how="vertical_relaxed") if parts else pl.DataFrame()
    return out.to_pandas() if backend == "pandas" else out


def largest_differences(exp, label: str, k: int = 5, backend: str = "polars"):
    """The units (decks or deals) where the variant ``label`` differs most from the baseline.

    To explain a result before publishing it: replay these deals with
    ``tranca-sim replay RUN --deal I`` (``run_ab``/``run_ba`` or ``run`` name the files).

    Returns
    -------
    DataFrame
        ``k`` rows, largest ``|difference|`` first: ``deal_index``, ``difference``
        (the unit's estimate, points per deal), ``diff_ab`` and ``diff_ba`` (the
        deck's two differences, duplicate design), ``margin_s0``, ``margin_s1``,
        ``margin_s2`` and ``own_gain`` (rotation design: the variant's margin over the
        two baseline players with the variant in seat 0, 1, 2, and the deck's own-score
        gain), ``change_s0``, ``change_s1``, ``change_s2`` (rotation: each margin minus the
        baseline's margin in that seat at the control table, whose mean is ``difference``:
        the seat whose deal to replay), and the run paths.

    Raises
    ------
    KeyError
        For a label that is not a variant of the experiment.
    """
    import numpy as np
    import polars as pl

    labels = [v["label"] for v in exp.spec["variants"]]
    if label not in labels:
        raise KeyError(f"no variant {label!r}; variants: {', '.join(labels)}")
    runs = _runs_of(exp, label)
    pu = paired_units(exp, label)
    order = np.argsort(-np.abs(pu.units), kind="stable")[:k]
    idx = np.unique(_load(next(iter(runs.values())).path)["deal_index"].to_numpy())
    cols = {"deal_index": idx[order], "difference": pu.units[order]}
    if pu.match_c is not None:  # rotation
        m = pu.match_a - (pu.match_b + pu.match_c) / 2
        cols.update({f"margin_s{k}": m[order, k] for k in range(3)})
        if pu.own_units is not None:
            cols["own_gain"] = pu.own_units[order]
            # the change of the margin in each seat against the control table (whose seat margins sum
            # to 0): the rotation whose deal to replay
            c = _shared_run(exp)
            cs = np.asarray(c["score"], dtype=np.float64).reshape(-1, 3)[: len(pu.units)]
            cm = np.column_stack([cs[:, k] - (cs[:, (k + 1) % 3] + cs[:, (k + 2) % 3]) / 2 for k in range(3)])
            cols.update({f"change_s{k}": (m[:, k] - cm[:, k])[order] for k in range(3)})
        cols.update({f"run_s{k}": [str(runs[f"s{k}"].path)] * len(order) for k in range(3)})
        cols["run_control"] = [str(_runs_of(exp, "baseline")["control"].path)] * len(order)
    elif pu.unit == "deck":
        d_ab = pu.match_a[:, 0] - pu.match_b[:, 0]
        d_ba = pu.match_a[:, 1] - pu.match_b[:, 1]
        cols.update(diff_ab=d_ab[order], diff_ba=d_ba[order])
        cols.update(run_ab=[str(runs["ab"].path)] * len(order), run_ba=[str(runs["ba"].path)] * len(order))
    else:
        base = _runs_of(exp, "baseline")["baseline"].path
        cols.update(run=[str(runs["variant"].path)] * len(order), run_baseline=[str(base)] * len(order))
    df = pl.DataFrame(cols)
    return df.to_pandas() if backend == "pandas" else df


def _div(a: float, b: float) -> float:
    return a / b if math.isfinite(a) and math.isfinite(b) and b > 0 else math.nan


__all__ = [
    "comparison_table",
    "deal_table",
    "largest_differences",
    "paired_units",
    "sweep_table",
]
