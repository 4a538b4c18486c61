"""The text of ``report.md`` and the charts' footnote (see :mod:`tranca_sim.lab.publish.reports`).

Everything here reads the experiment spec (``experiment.json``) and the tables
already computed; nothing is measured again.  The output contains no date of
its own making, so regenerating a report gives the same bytes.
"""

from __future__ import annotations

import json
import math
import shlex

import polars as pl

from ..._plural import noun, plural
from .checks_md import check_section
from .report_tables_md import _f, _int, decision_markdown, tip_table_markdown


class ReportError(ValueError):
    """An experiment directory that cannot be reported: one sentence naming the path."""

DESIGNS = {
    "duplicate": (
        "duplicate deals: every deck is played twice with the sides swapped (same seed, same deal "
        "index), so the variant and the baseline each hold each hand once; the unit is the deck and "
        "its value the mean of the two score differences (variant − baseline)"
    ),
    "fixed-opponent": (
        "fixed opponent: the variant and the baseline each play the same opponent on the same seeds "
        "(common random numbers); the unit is the deal and its value the variant's score minus the "
        "baseline's score on that deal"
    ),
    "rotation": (
        "three-player rotation: every deck is played three times (same seed, same deal index, the same "
        "seat first), the variant in seat 0, then 1, then 2 and the baseline in the other two seats, so "
        "the variant holds each of the deck's three hands once (common random numbers); the unit is the "
        "deck and its value the variant's margin, its score minus the mean of the two baseline players' "
        "scores at the same table, averaged over the three seats. An all-baseline table on the same decks "
        "(one run shared by every variant) gives the own-score gain beside it: the variant's score minus "
        "the baseline's in the same seat"
    ),
}



# how the resampled matches' draws are paired (tables._comparison_rows, inference.match_win_prob)
_MATCH_DRAWS = {
    "duplicate": "every variant's matches draw the same deals (one seed, common random numbers), and each "
    "drawn match is played a second time on the deck twins of its deals (the same cards, sides swapped), "
    "so a variant that plays as the baseline gets exactly 50%",
    "fixed-opponent": "the baseline's probability is computed on the deals the variant's is built from (the "
    "baseline run's first deals, paired with the variant's), with the same draws of deals and of bootstrap "
    "units (one seed for the baseline and every variant: common random numbers), so a variant that plays "
    "as the baseline gets the same figure",
    "rotation": "every variant's matches draw the same deals (one seed, common random numbers)",
}

def _get(spec: dict, *names, default=None):
    for n in names:
        cur = spec
        for part in n.split("."):
            if not isinstance(cur, dict) or part not in cur:
                cur = None
                break
            cur = cur[part]
        if cur is not None:
            return cur
    return default


def _deals_text(comparison: pl.DataFrame) -> str:
    if comparison.height == 0:
        return "no deals"
    units = comparison["n_units"].to_list()
    deals = comparison["n_deals"].to_list()
    unit = comparison["unit"][0] if "unit" in comparison.columns else "deal"
    u = _int(min(units)) if min(units) == max(units) else f"{_int(min(units))}-{_int(max(units))}"
    d = _int(min(deals)) if min(deals) == max(deals) else f"{_int(min(deals))}-{_int(max(deals))}"
    one = lambda x: 1 if x == "1" else 2  # a range or a count above 1 takes the plural
    if unit == "deal":
        return f"{d} {noun(one(d), 'deal')} per variant"
    return f"{u} {noun(one(u), unit)} ({d} {noun(one(d), 'deal')}) per variant"


def pooled_note(data, short: bool = False) -> str:
    """Why the baseline's row differs from every variant's in the score, morto, red-3 and
    deal-ending tables: in the duplicate design it pools its deals against every variant (each
    variant plays only its own); in the rotation design it is the all-baseline table, and the
    baseline players beside a variant are a row of their own; empty in the fixed-opponent design
    (the baseline plays only the opponent there, as each variant does) or with one variant."""
    b = data.baseline_label
    if data.spec.get("design") == "rotation":
        base = b.removesuffix(" (baseline)")
        if short:
            return f"{b}: at an all-baseline table"
        return (
            f"The `{b}` row is the all-baseline control table on the same decks (the baseline in every "
            f"seat); `opponent: {base} (beside a variant)` pools the two baseline players at every "
            "variant's tables; each variant's row is the variant's own seat at its three tables."
        )
    if data.spec.get("design") == "fixed-opponent" or data.comparison.height < 2:
        return ""
    if short:
        return f"{b}: its deals against every variant, pooled"
    return (
        f"The `{b}` row pools the baseline's deals against every variant (in the duplicate design it "
        "plays each variant on the same decks), so it mixes all its opponents and differs from each "
        "variant's row for that reason too; each variant against the baseline on the same decks is the "
        "tip table."
    )


def footnote(data) -> str:
    """The line under every chart: preset (and changed rules), design, deals, seed, version."""
    spec = data.spec
    rules = _get(spec, "rule_options", "rules_changed", default={}) or {}
    extra = "".join(f", {k}={v}" for k, v in rules.items()) if isinstance(rules, dict) else ""
    parts = [
        f"preset {_get(spec, 'preset', default='?')}{extra}",
        f"design {_get(spec, 'design', default='?')}",
        _deals_text(data.comparison),
        f"seed {_get(spec, 'seed', 'master_seed', default='?')}",
        f"tranca-sim {_get(spec, 'version', 'package_version', default='?')}",
    ]
    name = _get(spec, "name")
    return " · ".join(([f"experiment {name}"] if name else []) + parts)


def _decision_lines(spec: dict, unit: str, deals: int) -> list[str]:
    """The Design section's bullets on the decision rule and the deck outcome."""
    d = spec.get("decision")
    out = []
    if d:
        out.append(
            f"- **Decision:** per variant, H0 no effect against H1 an effect of ±{_f(d['delta'], 'g')} points a "
            f"deal (and, for the {unit} outcome, a score of 1/2 against 1/2 ± {_f(d['delta_outcome'], 'g')}); "
            f"false gains and losses at most {d['alpha']:g} and missed effects at most {d['beta']:g}, each "
            "family-wise over the variants; "
            + str(d.get("method", ""))
            + ". H0 accepted is the futility stop: no effect as large as δ. A variant undecided when its "
            "budget is spent has no decision."
        )
    if unit == "deck" and deals == 2:
        what = (
            "each deal scores 1 won, 1/2 drawn (nobody won), 0 lost for the variant, and the deck scores the "
            "mean of its two deals: lost both (0), lost one and drawn one (1/4), won one and lost one or drawn "
            "both (1/2), won one and drawn one (3/4), won both (1), the pentanomial classes of fishtest"
        )
    elif unit == "deck":
        what = (
            "in each seat the variant's margin is above (1), equal to (1/2) or below (0) the baseline's margin "
            "in that seat at the all-baseline table, and the deck scores the mean over its three seats"
        )
    else:
        what = (
            "the deal scores the mean of the variant's result against the opponent and one minus the "
            "baseline's (each 1 won, 1/2 drawn, 0 lost)"
        )
    out.append(
        f"- **{unit.capitalize()} outcome (robust to the size of the points):** {what}; 1/2 is no difference. Its "
        "interval and p are of the same kind as the points', Holm over the variants on its own."
    )
    out.append(
        f"- **Effect size:** d = mean difference / standard deviation of the {unit} differences (Cohen's d of "
        f"paired units, per {unit}; for the outcome, (score − 1/2) / its standard deviation)."
    )
    return out


def _table(df: pl.DataFrame, cols: dict[str, str], fmt: dict[str, str]) -> str:
    out = ["| " + " | ".join(cols.values()) + " |", "|" + "---|" * len(cols)]
    for r in df.iter_rows(named=True):
        cells = []
        for c in cols:
            v = r[c]
            if isinstance(v, float) and math.isnan(v):  # no test possible (too few units): as the console
                cells.append("n/a")
            elif fmt.get(c) == "p" and v is not None:  # as the tip table: "< 0.0001", never "0.0000"
                cells.append("< 0.0001" if v < 1e-4 else format(v, ".4f"))
            elif c in fmt and v is not None:
                cells.append(format(v, fmt[c]))
            else:
                cells.append("–" if v is None else str(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


_CHART_TEXT = {
    "tip_effects": (
        "Tip effects",
        (
            "Each variant's mean score difference against the baseline, points per deal, with its 95% "
            "interval; red: significant after the Holm correction over all variants."
        ),
    ),
    "score_distribution": (
        "Score distributions",
        (
            "The score of a side in one deal for each strategy: density (shaded), quartiles, 5% and 95% "
            "(whiskers) and the mean (diamond)."
        ),
    ),
    "sweep": (
        "Sweep",
        "The difference against the baseline at each value of the swept parameter, with its 95% band.",
    ),
    "morto_turn": (
        "Morto pickup turn and final score",
        (
            "Mean final score of the side by the turn it took its morto (binned by rounds), and when it "
            "never took it; under each bin, the mean length of those deals. This is observed, not an "
            "effect of timing: who takes the morto when is not chosen at random. A morto is taken late "
            "only in a long deal, and a long deal leaves more turns to meld, so later pickups come with "
            "higher scores even where holding the morto back costs points. The effect of taking it later "
            "is what a variant that changes the timing (e.g. morto_stock) measures, in the tip table and "
            "the sweep chart."
        ),
    ),
    "deal_endings": (
        "How deals end",
        (
            "Share of each strategy's deals that ended with its side going out, the other side going out, "
            "the stock running out or the turn limit."
        ),
    ),
    "red3": (
        "Red 3s and final score",
        (
            "Mean final score by the number of red 3s the side held, with and without a canasta (red 3s "
            "are +100 each with a canasta, −100 without; 000 Scoring)."
        ),
    ),
}


def _any_interval(tips: pl.DataFrame) -> bool:
    """Whether any row of the tip chart has a finite 95% interval (one deck a variant: none)."""
    if not tips.height or "lo" not in tips.columns:
        return False
    finite = pl.col("lo").cast(pl.Float64).is_finite() & pl.col("hi").cast(pl.Float64).is_finite()
    return bool(tips.select(finite.fill_null(False).any()).item())


def _score_caption(deals: pl.DataFrame) -> str:
    """The score distribution chart's caption when some strategy has too few scores for a density
    (:data:`tranca_sim.lab.publish.charts.MIN_DENSITY_N`): those are drawn as dots; "" otherwise."""
    from .charts import MIN_DENSITY_N

    if not deals.height or "label" not in deals.columns:
        return ""
    counts = deals.group_by("label").len()["len"]
    if int(counts.min()) >= MIN_DENSITY_N:
        return ""
    if int(counts.max()) < MIN_DENSITY_N:
        return (
            "The score of a side in one deal for each strategy: each score as a dot (too few, under "
            f"{MIN_DENSITY_N} a strategy, for a density or quartiles) and the mean (diamond)."
        )
    return (
        "The score of a side in one deal for each strategy: density (shaded), quartiles, 5% and 95% "
        f"(whiskers) and the mean (diamond); a strategy with fewer than {MIN_DENSITY_N} scores has each "
        "score drawn as a dot instead."
    )


def _ratios(comp: pl.DataFrame, col: str) -> str:
    """``0.52`` or ``0.48-0.55 (median 0.52)`` of the finite positive values of ``col``; "" if none."""
    vr = [v for v in comp[col].to_list() if v is not None and not math.isnan(v) and v > 0]
    if not vr:
        return ""
    return (
        f"{min(vr):.2f}"
        if len(vr) == 1
        else f"{min(vr):.2f}-{max(vr):.2f} (median {sorted(vr)[len(vr) // 2]:.2f})"
    )


def _rotation_variance(comp: pl.DataFrame) -> str:
    """The rotation design's measured variances against unpaired deals (:mod:`tranca_sim.lab.statistics.rotation`)."""
    margin, own = _ratios(comp, "var_ratio_design"), _ratios(comp, "var_ratio_own")
    if not margin:
        return "- **Variance (measured):** no variant differs from the baseline on any deck."
    vr = [v for v in comp["var_ratio_design"].to_list() if v is not None and not math.isnan(v) and v > 0]
    if max(vr) < 1:
        why = (
            "a reduction: a deck that favours one seat gives the variant a large margin in that seat and "
            "small ones in the other two, and the rotation cancels that luck"
        )
    else:
        why = "no reduction" if min(vr) >= 1 else "a reduction for some variants only"
    text = (
        f"- **Variance (measured, against unpaired deals of the same count):** the margin's is {margin} "
        f"of what unpaired deals would give ({why})"
    )
    if own:
        text += f"; the own-score gain's, against the variant's and the baseline's scores on separate decks, {own}"
    return text + "."


def render_markdown(
    data, chart_names: list[str], scores: pl.DataFrame, ends: pl.DataFrame, tips: pl.DataFrame
) -> str:
    """``report.md``: question, design, tip table, charts, other tables, how to regenerate."""
    spec, comp = data.spec, data.comparison
    base = data.baseline_label.removesuffix(" (baseline)")
    name = _get(spec, "name", default=data.dir.name)
    title = _get(spec, "title", default=f"Experiment {name}")
    design = str(_get(spec, "design", default="duplicate"))
    unit = comp["unit"][0] if comp.height and "unit" in comp.columns else "deck"
    stop = _get(spec, "stopping", default={}) or {}
    method = stop.get("method") if isinstance(stop, dict) else None
    sequential = bool(stop.get("sequential", method is not None)) if isinstance(stop, dict) else False
    target = stop.get("half_width") if isinstance(stop, dict) else None
    stopped_by = _get(spec, "stopped_by", default=None)
    if isinstance(stopped_by, dict):
        counts: dict[str, int] = {}
        for v in stopped_by.values():
            counts[str(v)] = counts.get(str(v), 0) + 1
        stopped_by = ", ".join(f"{k} ({n} variant{'s' * (n != 1)})" for k, n in sorted(counts.items()))
    budget = _get(spec, "budget", default=None)
    out = [f"# {title}", ""]
    out += [
        "## Question",
        "",
        str(_get(spec, "question", default="(the experiment file states no question)")),
        "",
    ]
    out += ["## Design", ""]
    full = _get(spec, "baseline", default="?")
    out.append(
        f"- **Preset:** {_get(spec, 'preset', default='?')}"
        + "".join(f", {k}={v}" for k, v in (_get(spec, "rule_options", default={}) or {}).items())
        + f"; baseline `{base}`"
        + (f" (in full `{full}`)" if full != base else "")
        + "."
    )
    out.append(f"- **Design:** {DESIGNS.get(design, design)}.")
    if design == "fixed-opponent":
        out.append(f"- **Opponent:** `{_get(spec, 'opponent', default='?')}`.")
    out.append(f"- **Unit:** one {unit}; {_deals_text(comp)}; seed {_get(spec, 'seed', default='?')}.")
    if comp.height and "interval" in comp.columns and comp["interval"][0]:
        interval = str(comp["interval"][0])
    elif sequential and method:
        interval = f"95% {method} (valid under repeated looks)"
    else:
        interval = "95% Student t interval (fixed number of deals)"
    what = "margin" if design == "rotation" else "difference"
    out.append(f"- **Interval:** {interval}, of the mean {what} per {unit}.")
    alpha = stop.get("alpha", 0.05) if isinstance(stop, dict) else 0.05
    alpha = alpha if isinstance(alpha, (int, float)) and not isinstance(alpha, bool) else 0.05
    out.append(
        f"- **p:** two-sided, of a mean {what} of 0: "
        + (
            "the anytime-valid p-value of the confidence sequence (the smallest level at which it "
            "excludes 0, over the looks taken), valid at the data-dependent stop"
            if sequential
            else "Student's t test on the units"
        )
        + "."
    )
    out.append(
        f"- **Many variants:** p-values adjusted with Holm's step-down method (family-wise error {alpha:.0%} "
        f"over all {plural(comp.height, 'variant')}; Holm-significant: adjusted p <= {alpha:g}); "
        "Benjamini-Hochberg adjusted p-values as a screening column."
    )
    if sequential:
        stop_txt = f"batches until the interval half-width is below {_f(target, '.1f')} points per deal"
        stop_txt += f" or the budget of {_int(budget)} deals per variant is spent" if budget else ""
        stop_txt += f" ({method})" if method else ""
        stop_txt += f"; stopped by: {stopped_by}" if stopped_by else ""
    else:
        stop_txt = "none: every variant played its fixed number of deals"
        stop_txt += f" ({_int(budget)})" if budget else ""
    if isinstance(stop, dict) and stop.get("rule") and _get(spec, "decision"):
        stop_txt = str(stop["rule"]) + (f"; stopped by: {stopped_by}" if stopped_by else "")
    out.append(f"- **Stopping rule:** {stop_txt}.")
    per = {"duplicate": 2, "rotation": 3}.get(design, 1)
    out += _decision_lines(spec, unit, per)
    if design == "rotation" and comp.height:
        out.append(_rotation_variance(comp))
    elif comp.height and "var_ratio_design" in comp.columns:
        # a variant identical to the baseline has no variance at all: left out
        vr = [v for v in comp["var_ratio_design"].to_list() if v is not None and not math.isnan(v) and v > 0]
        if vr:
            rng = (
                f"{min(vr):.2f}"
                if len(vr) == 1
                else f"{min(vr):.2f}-{max(vr):.2f} (median {sorted(vr)[len(vr) // 2]:.2f})"
            )
            out.append(
                f"- **Variance reduction (measured):** the variance of the estimate is {rng} of what "
                "unpaired deals of the same count would give, so the same interval needs that share of "
                "the deals."
            )
    out.append(
        (
            "- **Per comparison also:** the first-place share difference (the variant's seat finished first "
            "alone, against a baseline seat's share at the same tables; deals with a tie for first left out; "
            "sign test over decks), the own-score gain, the going-out shares, and the probability of winning "
            "a three-player match to the preset's target"
            if design == "rotation"
            else "- **Per comparison also:** the deal-win share difference (non-tie deals; its p an exact "
            + (
                "sign test on decks, a deck's net wins over its two deals"
                if design == "duplicate"
                else "sign test of the deals only the variant or only the baseline won against the opponent"
            )
            + "), the going-out shares, and the probability of winning a match to the preset's target"
        )
        + (f" ({comp['match_method'][0]})" if comp.height and "match_method" in comp.columns else "")
        + f"; its {1 - alpha:.0%} interval from a bootstrap of the {unit}s (the matches replayed on resampled "
        f"{unit}s) plus the Monte Carlo error of the matches; "
        + _MATCH_DRAWS.get(design, _MATCH_DRAWS["rotation"])
        + "."
    )
    out += [
        "",
        "## Tip table",
        "",
        (
            f"The variant's margin over the two `{base}` players at its table (its score minus the mean of "
            f"theirs), sorted by effect; points per deal. Holm over all {plural(comp.height, 'comparison')} of the "
            "experiment. The own-score gain is the variant's score minus the baseline's in the same seat at "
            "the all-baseline table."
            if design == "rotation"
            else f"Variant minus baseline `{base}`, sorted by effect; points per deal. Holm over all "
            f"{plural(comp.height, 'comparison')} of the experiment."
        ),
        "",
        tip_table_markdown(tips),
        "## Decisions and the " + unit + " outcome",
        "",
        (
            "Each variant's decision on its points and on its " + unit + " outcome, with the outcome's counts; "
            "the effect size is the mean difference over the standard deviation of the " + unit + " differences."
            if _get(spec, "decision")
            else "This experiment has no [decision] table: estimates only, no decision. The " + unit
            + " outcome and the effect size beside the points."
        ),
        "",
        decision_markdown(tips, spec),
    ]
    out += check_section(getattr(data, "checks", None))  # tranca_sim/lab/publish/checks_md.py
    if data.sweep is not None and data.sweep.height:
        ci = pl.format("[{}, {}]", pl.col("lo").round(1), pl.col("hi").round(1))
        sw = data.sweep.with_columns(
            ci=pl.when(pl.col("lo").is_nan() | pl.col("hi").is_nan()).then(pl.lit("n/a")).otherwise(ci)
        )
        out += [
            "## Sweep table",
            "",
            f"Variant minus baseline `{base}` at each value of the swept parameter; Holm over all "
            f"{plural(data.comparison.height, 'variant')}, the same family as the tip table.",
            "",
            _table(
                sw,
                {"param": "parameter", "value": "value", "n_units": "units", "mean": "mean diff (points/deal)",
                 "ci": "95% interval", "p_value": "p", "p_holm": "p Holm"},
                {"value": "g", "mean": "+.1f", "p_value": "p", "p_holm": "p"},
            ),
        ]  # fmt: skip
    out += ["## Charts", ""]
    for c in chart_names:
        head, text = _CHART_TEXT[c]
        if c == "tip_effects" and design == "rotation":
            text = (
                f"Each variant's margin over the two `{base}` players at its table, points per deal, with its "
                "95% interval; red: significant after the Holm correction over all variants."
            )
        if c == "tip_effects" and not _any_interval(tips):  # one deck: the chart draws the means alone
            what = f"margin over the two `{base}` players at its table" if design == "rotation" else (
                "mean score difference against the baseline"
            )
            text = (
                f"Each variant's {what}, points per deal; too few {unit}s for a 95% interval, so no "
                'variant is tested (marked "not tested").'
            )
        if c == "score_distribution":
            text = _score_caption(data.deals) or text
        if c == "sweep" and data.sweep is not None and not _any_interval(data.sweep):
            text = (
                "The difference against the baseline at each value of the swept parameter; too few "
                f'{unit}s for a 95% band, so no value is tested (marked "not tested").'
            )
        out += [
            f"### {head}",
            "",
            text,
            "",
            f"![{head}]({c}.png)",
            "",
            f"Vector version: [{c}.svg]({c}.svg)",
            "",
        ]
    pooled = pooled_note(data)
    out += [
        "## Score of each strategy",
        "",
        *([pooled, ""] if pooled else []),
        _table(
            scores,
            {
                "label": "strategy",
                "n": "side-deals",
                "mean": "mean",
                "sd": "sd",
                "p5": "5%",
                "median": "median",
                "p95": "95%",
            },
            {"mean": ".1f", "sd": ".1f", "p5": ".0f", "median": ".0f", "p95": ".0f"},
        ),
        "",
    ]
    wide = ends.pivot(on="end", index="label", values="share").fill_null(0.0)
    cols = {"label": "strategy"}
    names = {
        "side_went_out": "side went out",
        "other_went_out": "other side went out",
        "stock_out": "stock out",
        "turn_limit": "turn limit",
    }
    cols.update({k: v for k, v in names.items() if k in wide.columns})
    out += [
        "## How deals end",
        "",
        *([pooled, ""] if pooled else []),
        _table(wide, cols, {k: ".1%" for k in names}),
        "",
    ]
    out += [
        "## Regenerate",
        "",
        "From the Parquet files in `runs/` (no deal is played again):",
        "",
        "```sh",
        f"tranca-sim report {shlex.quote(data.dir.as_posix())}",
        "```",
        "",
        "Run the experiment again (plays every deal):",
        "",
        "```sh",
        f"tranca-sim experiment {shlex.quote(str(_get(spec, 'source', default=f'experiments/{name}.toml')))} "
        f"--out {shlex.quote(data.dir.as_posix())}" + (f" --deals {spec['deals_cap']}" if spec.get("deals_cap") else ""),
        "```",
        "",
        "Tables from Python:",
        "",
        "```python",
        "from tranca_sim.lab.publish import reports",
        "",
        f"d = reports.load_report_data({json.dumps(data.dir.as_posix())})",
        "reports.comparison_table(d)  # one row per variant; backend='pandas' for pandas",
        "# also sweep_table, deal_table, score_table, morto_turn_table, end_reason_table, red3_table",
        "```",
        "",
    ]
    return "\n".join(out)
