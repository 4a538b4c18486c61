"""Manipulation checks: does each tip do what its seed text says? (issue 22, item 1)

A tip of ``basic`` (``tranca_sim.strategies.basic.TIPS``) is measured only once it is shown to change play
the way its seed sentence predicts: the early morto is taken earlier and at least as often, the
black-3 lock locks more piles while a card would feed the opponents, the wild in reserve is held
longer, and so on.  ``tranca_sim.strategies.basic.CHECKS`` declares, for each tip parameter, the statistics
(names of :data:`STATISTICS`) and the direction its text predicts; this module computes each one
from an experiment's run files, variant against baseline in the same deals and seats, with a
95% interval, and gives the verdict.

Estimate: for each statistic a ratio of means per strategy (a plain mean has a denominator of
1 a row; a stratum keeps only the rows it names), the variant's minus the baseline's, over the
design's units (duplicate: the deck, both sides' positions; fixed-opponent: the deal; rotation:
the deck, the three seats), with a delta-method standard error on the units and a normal 95%
interval at the deals played (a fixed-n interval; the checks are far from their bounds where
they pass).  Verdict: ``passes`` when the interval lies wholly on the side the text predicts
(for "at least as often", above minus the margin), ``no change`` when the variant and the baseline
have the same value in every unit (the tip changes no play the statistic sees: the baseline already
plays that way, or the rule set leaves it nothing to do), ``FAILS`` otherwise.  Only ``passes``
lets a variant's row stand as the tip's value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...io import load_run

Z95 = 1.959963984540054

#: statistic -> (plain description, unit, columns read)
STATISTICS: dict[str, tuple[str, str, tuple[str, ...]]] = {
    "morto_time": (
        "turn the morto was taken (the deal's last turn when it never was)",
        "turns",
        ("morto_turn", "n_turns"),
    ),
    "morto_taken": ("share of deals the side took its morto", "share", ("morto_taken",)),
    "black3_guard_locks": (
        "black-3 locks made while the hand held a card that fits an opposing meld, per deal",
        "locks",
        ("black3_guard_locks",),
    ),
    "feeding_discards": (
        "discards that fit a meld of the next player's side, per deal",
        "discards",
        ("feeding_discards",),
    ),
    "canastas_clean": ("clean canastas per deal", "canastas", ("canastas_clean",)),
    "clean_meld_kept": (
        "share of deals ending with at least one meld free of wilds",
        "share",
        ("clean_melds",),
    ),
    "wild_turns": ("turns ending with a wild still in hand, per deal", "turns", ("wild_turns",)),
    "pile_captures_red3": (
        "piles taken per deal, in deals dealt at least N red 3s (N = red3_pace)",
        "piles",
        ("pile_captures", "hand0_red3", "hand1_red3"),
    ),
    "red3_count_effect": (
        "piles taken per deal: effect where at least N red 3s were dealt minus where fewer were",
        "piles",
        ("pile_captures", "hand0_red3", "hand1_red3"),
    ),
    "second_melds": (
        "second same-rank melds of a rank the side already had, per deal",
        "melds",
        ("second_melds",),
    ),
    "mean_meld_length": ("mean cards a meld at the end", "cards", ("meld_cards", "n_melds")),
    "three_card_melds": ("melds of exactly three cards at the end, per deal", "melds", ("three_card_melds",)),
    "pile_cards": ("cards taken from the pile, per deal", "cards", ("pile_cards",)),
    "hand_penalty": ("points left in hand at the end (0 or less), per deal", "points", ("hand_penalty",)),
}

#: column order of :func:`check_table`
CHECK_COLUMNS = (
    "variant",
    "param",
    "statistic",
    "description",
    "expected",
    "variant_value",
    "baseline_value",
    "diff",
    "lo",
    "hi",
    "units",
    "verdict",
    "text",
)


@dataclass(frozen=True)
class Check:
    """One declared prediction: ``statistic`` (a key of :data:`STATISTICS`), ``direction``
    (``"<"`` lower, ``">"`` higher, ``">="`` not lower by more than ``margin``), the tip's
    words it checks (``text``)."""

    statistic: str
    direction: str
    text: str
    margin: float = 0.0


def declared_checks(strategy: str):
    """The checks of a variant's strategy text (``basic:morto_rush=1``): ``(param, value, checks)``
    for the one tip parameter it sets that :data:`tranca_sim.strategies.basic.CHECKS` declares, else None."""
    from tranca_sim.strategies import basic

    name, _, rest = strategy.partition(":")
    if name not in ("basic", "tuned") or not rest:
        return None
    params = {}
    for part in rest.split(","):
        k, _, v = part.partition("=")
        try:
            params[k.strip()] = float(v)
        except ValueError:
            return None
    default = {row[0]: row[1] for row in basic.PARAMS}
    # the tip parameters set away from the baseline's value (a full parameter list names every one)
    found = [(p, v) for p, v in params.items() if p in basic.CHECKS and v != default[p]]
    if len(found) != 1:
        return None
    p, v = found[0]
    return p, v, params, tuple(Check(*c) for c in basic.CHECKS[p])


def _arm_values(stat: str, df: dict, params: dict) -> tuple[np.ndarray, np.ndarray]:
    """(numerator, denominator) per row of one arm for ``stat``."""
    if stat == "morto_time":
        t = df["morto_turn"]
        return np.where(t >= 0, t, df["n_turns"]).astype(float), np.ones(len(t))
    if stat == "clean_meld_kept":
        return (df["clean_melds"] > 0).astype(float), np.ones(len(df["clean_melds"]))
    if stat == "mean_meld_length":
        return df["meld_cards"].astype(float), df["n_melds"].astype(float)
    col = STATISTICS[stat][2][0] if stat in STATISTICS else stat  # a statistic, or a plain column
    return df[col].astype(float), np.ones(len(df[col]))


def _red3_dealt(df: dict, n_sides: int, own: bool) -> np.ndarray:
    """Red 3s seen at the start (the dealt ones are laid at once): the side's own, or the deal's."""
    mine = np.maximum(df["hand0_red3"], 0) + np.maximum(df["hand1_red3"], 0)
    if own or n_sides != 2:  # the deal's count needs both sides' rows: the duplicate design's
        return mine
    per_deal = mine.reshape(-1, n_sides).sum(axis=1)
    return np.repeat(per_deal, n_sides)


def _pairs(exp, label: str, cols: list[str]):
    """The variant's and the baseline's rows in the same deals and seats, as dicts of arrays,
    and the unit of each row (``(variant, baseline, unit, n_sides)``)."""
    runs = {r.role: r for r in exp.runs if r.label == label}
    design = exp.spec["design"]
    need = sorted(set(cols) | {"deal_index", "side"})

    def load(path):
        df = load_run(path, columns=need).sort(["deal_index", "side"])
        return {c: df[c].to_numpy() for c in need}

    if design == "duplicate":
        return duplicate_pairs(load(runs["ab"].path), load(runs["ba"].path))
    if design == "fixed-opponent":
        base = [r for r in exp.runs if r.label == "baseline" and r.role == "baseline"][0]
        vv, bb = load(runs["variant"].path), load(base.path)
        # the shared baseline run may hold more deals than a variant that stopped sooner: its deals only
        keep_v, keep_b = vv["side"] == 0, (bb["side"] == 0) & np.isin(bb["deal_index"], vv["deal_index"])
        v = {c: vv[c][keep_v] for c in need}
        b = {c: bb[c][keep_b] for c in need}
        return v, b, v["deal_index"], 1
    control = load([r for r in exp.runs if r.label == "baseline" and r.role == "control"][0].path)
    parts_v, parts_b = [], []
    for k in range(3):
        s = load(runs[f"s{k}"].path)
        m = s["side"] == k
        parts_v.append({c: s[c][m] for c in need})
        mb = (control["side"] == k) & np.isin(control["deal_index"], s["deal_index"])  # the variant's decks
        parts_b.append({c: control[c][mb] for c in need})
    v = {c: np.concatenate([p[c] for p in parts_v]) for c in need}
    b = {c: np.concatenate([p[c] for p in parts_b]) for c in need}
    return v, b, v["deal_index"], 3


def duplicate_pairs(ab: dict, ba: dict):
    """:func:`_pairs` of a duplicate deck's two runs given as dicts of arrays, rows in (deal, side)
    order: the variant is side A of ``ab`` and side B of ``ba``, the baseline the other."""
    a_side = ab["side"] == 0
    v = {c: np.where(a_side, ab[c], ba[c]) for c in ab}
    b = {c: np.where(a_side, ba[c], ab[c]) for c in ab}
    return v, b, ab["deal_index"], 2


def evaluate(strategy: str, label: str, pairs) -> list[dict]:
    """The check rows of one variant ``strategy`` from its :func:`_pairs` (or
    :func:`duplicate_pairs`); [] when it declares no tip check."""
    found = declared_checks(strategy)
    if found is None:
        return []
    param, value, params, checks = found
    var, base, units, n_sides = pairs
    rows = []
    for c in checks:
        tv, tb, d, z = _estimate(var, base, units, c.statistic, params, n_sides)
        n = len(z)
        se = float(np.std(z, ddof=1) / math.sqrt(n)) if n > 1 else math.nan
        lo, hi = d - Z95 * se, d + Z95 * se
        desc = STATISTICS[c.statistic][0].replace("N = red3_pace", f"N = {value:g}")
        if c.statistic == "red3_count_effect":
            desc = desc.replace("at least N", f"at least {value:g}")
        rows.append(
            {
                "variant": label,
                "param": param,
                "statistic": c.statistic,
                "description": desc,
                "expected": expected_text(c),
                "variant_value": float(tv),
                "baseline_value": float(tb),
                "diff": float(d),
                "lo": float(lo),
                "hi": float(hi),
                "units": n,
                "verdict": _verdict(c, lo, hi),
                "text": c.text,
            }
        )
    return rows


def columns_needed(strategy: str) -> list[str]:
    """The run-file columns the checks of ``strategy`` read (besides deal_index and side)."""
    found = declared_checks(strategy)
    if found is None:
        return []
    return sorted({col for c in found[3] for col in STATISTICS[c.statistic][2]} | {"n_turns"})


def _ratio_terms(num, den, units):
    """Per-unit sums of ``num`` and ``den``, the ratio of their totals and its linearised values."""
    _, inv = np.unique(units, return_inverse=True)
    n_u = inv.max() + 1 if len(inv) else 0
    nu = np.bincount(inv, weights=num, minlength=n_u)
    du = np.bincount(inv, weights=den, minlength=n_u)
    tot = du.sum()
    if tot <= 0:
        return math.nan, np.full(n_u, math.nan)
    theta = nu.sum() / tot
    return theta, (nu - theta * du) / (tot / n_u)


def _contrast(v, b, units, stat, params, n_sides, stratum=None):
    """(variant value, baseline value, diff, linearised per-unit values of the diff)."""
    vn, vd = _arm_values(stat, v, params)
    bn, bd = _arm_values(stat, b, params)
    if stratum is not None:
        vn, vd, bn, bd = vn * stratum, vd * stratum, bn * stratum, bd * stratum
    tv, zv = _ratio_terms(vn, vd, units)
    tb, zb = _ratio_terms(bn, bd, units)
    return tv, tb, tv - tb, zv - zb


def _estimate(v, b, units, stat, params, n_sides):
    if stat in ("pile_captures_red3", "red3_count_effect"):
        n = max(1.0, params.get("red3_pace", 1.0))
        dealt = _red3_dealt(v, n_sides, params.get("red3_own", 0.0) != 0.0)
        hi = (dealt >= n).astype(float)
        tv, tb, d_hi, z_hi = _contrast(v, b, units, "pile_captures", params, n_sides, hi)
        if stat == "pile_captures_red3":
            return tv, tb, d_hi, z_hi
        tv0, tb0, d_lo, z_lo = _contrast(v, b, units, "pile_captures", params, n_sides, 1.0 - hi)
        return d_hi, d_lo, d_hi - d_lo, z_hi - z_lo
    return _contrast(v, b, units, stat, params, n_sides)


def _verdict(c: Check, lo: float, hi: float) -> str:
    if math.isnan(lo) or math.isnan(hi):
        return "no data"
    if lo == 0.0 and hi == 0.0:
        return "no change"  # the variant played every deal as the baseline did on this statistic
    ok = {"<": hi < 0, ">": lo > 0, ">=": lo > -c.margin}[c.direction]
    return "passes" if ok else "FAILS"


def expected_text(c: Check) -> str:
    """The predicted direction in words."""
    if c.direction == ">=":
        return f"not lower (by more than {c.margin:g})" if c.margin else "not lower"
    return "lower" if c.direction == "<" else "higher"


def check_rows(exp) -> list[dict]:
    """One row per (variant, declared check) of an experiment; variants without a declared
    tip check give no row."""
    rows = []
    for v in exp.spec.get("variants", []):
        cols = columns_needed(v["strategy"])
        if cols:
            rows += evaluate(v["strategy"], v["label"], _pairs(exp, v["label"], cols))
    return rows


def check_table(exp):
    """:func:`check_rows` as a polars DataFrame (columns :data:`CHECK_COLUMNS`)."""
    import polars as pl

    rows = check_rows(exp)
    schema = {c: (pl.Int64 if c == "units" else pl.Float64) for c in CHECK_COLUMNS}
    for c in ("variant", "param", "statistic", "description", "expected", "verdict", "text"):
        schema[c] = pl.Utf8
    return pl.DataFrame([{c: r.get(c) for c in CHECK_COLUMNS} for r in rows], schema=schema, orient="row")


def verdicts(checks) -> dict[str, str]:
    """variant -> ``"passes"`` (every check of the variant passes), ``"no change"`` (a check saw no
    change at all) or ``"FAILS"``."""
    out: dict[str, str] = {}
    for r in checks.iter_rows(named=True):
        prev = out.get(r["variant"], "passes")
        if prev == "FAILS" or r["verdict"] == "FAILS" or r["verdict"] == "no data":
            out[r["variant"]] = "FAILS"
        elif prev == "no change" or r["verdict"] == "no change":
            out[r["variant"]] = "no change"
        else:
            out[r["variant"]] = "passes"
    return out
