"""Synthetic experiment tables with exactly the columns of the lab contract (LAB-CONTRACT:
comparison_table, sweep_table, deal_table), for testing reports without playing deals."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import polars as pl

from tranca_sim.lab.publish.reports import ReportData, _label_deals
from tranca_sim.schema import COLUMNS

BASE = "basic"
VARIANTS = [
    ("wild_reserve=1", "basic:wild_reserve=1", -40.0),
    ("safe_discard=0", "basic:safe_discard=0", 12.0),
    ("clean_patience=0", "basic:clean_patience=0", 3.0),
    ("black3_lock=0", "basic:black3_lock=0", -8.0),
    ("take_pile_min=3", "basic:take_pile_min=3", -20.0),
]

COMPARISON_COLUMNS = [
    "variant", "strategy", "baseline", "design", "unit", "n_units", "n_deals", "mean", "lo", "hi", "sd",
    "p_value", "p_holm", "p_bh", "holm_significant", "win_share_diff", "win_p", "going_out_variant",
    "going_out_baseline", "match_win_prob", "match_win_lo", "match_win_hi", "match_method", "var_ratio_design",
]  # fmt: skip
SWEEP_COLUMNS = ["param", "value", "variant", "n_units", "mean", "lo", "hi", "p_value", "p_holm"]


def spec(design: str = "duplicate", sweep: bool = False) -> dict:
    return {
        "name": "synthetic",
        "title": "Synthetic tips (test data)",
        "question": "Do the tips change the score per deal?",
        "preset": "tranca",
        "rules": {},
        "baseline": BASE,
        "variants": [{"label": lab, "strategy": s, "param": None, "value": None} for lab, s, _ in VARIANTS],
        "design": design,
        "seed": 7,
        "batch_deals": 200,
        "budget": 4000,
        "rule_options": {},
        "stopping": {
            "method": "confidence sequence (test)",
            "half_width": 5.0,
            "alpha": 0.05,
            "sequential": True,
        },
        "deals_played": {lab: 400 for lab, _, _ in VARIANTS},
        "stopped_by": {lab: "budget" for lab, _, _ in VARIANTS},
        "version": "0.1.0",
        "created": "2026-11-30T00:00:00+00:00",
        "sweep": sweep,
    }


def comparison(n_units: int = 200) -> pl.DataFrame:
    rows = []
    for i, (lab, s, eff) in enumerate(VARIANTS):
        half = 9.0
        p = 0.0001 if abs(eff) > 15 else 0.3
        rows.append(
            {
                "variant": lab, "strategy": s, "baseline": BASE, "design": "duplicate", "unit": "deck", "n_units": n_units,
                "n_deals": 2 * n_units, "mean": eff, "lo": eff - half, "hi": eff + half, "sd": 150.0, "p_value": p,
                "p_holm": min(1.0, p * (5 - i)), "p_bh": min(1.0, p * 2), "holm_significant": abs(eff) > 15,
                "win_share_diff": eff / 1000, "win_p": 0.2, "going_out_variant": 0.4, "going_out_baseline": 0.42,
                "match_win_prob": 0.5 + eff / 500, "match_win_lo": 0.45 + eff / 500, "match_win_hi": 0.55 + eff / 500,
                "match_method": "resampled deals", "var_ratio_design": 0.6 + 0.02 * i,
            }
        )  # fmt: skip
    return pl.DataFrame(rows).select(COMPARISON_COLUMNS)


def sweep() -> pl.DataFrame:
    vals = [0.0, 2.0, 4.0, 6.0, 8.0]
    return pl.DataFrame(
        {
            "param": ["morto_keep"] * 5,
            "value": vals,
            "variant": [f"morto_keep={v:g}" for v in vals],
            "n_units": [200] * 5,
            "mean": [0.0, -5.0, -12.0, -25.0, -40.0],
            "lo": [-8.0, -13.0, -20.0, -33.0, -48.0],
            "hi": [8.0, 3.0, -4.0, -17.0, -32.0],
            "p_value": [1.0, 0.2, 0.003, 0.0001, 0.0001],
            "p_holm": [1.0, 0.4, 0.009, 0.0004, 0.0004],
        }
    ).select(SWEEP_COLUMNS)


def deals(n_decks: int = 200, seed: int = 3) -> pl.DataFrame:
    """Duplicate design: per variant two runs (variant as A, as B) of n_decks deals each."""
    rng = np.random.default_rng(seed)
    parts = []
    for lab, s, eff in VARIANTS:
        for swap in (0, 1):
            n = 2 * n_decks
            side = np.tile([0, 1], n_decks).astype(np.int8)
            is_var = (side == 0) if swap == 0 else (side == 1)
            red3 = rng.integers(0, 5, n).astype(np.int16)
            canastas = rng.integers(0, 3, n).astype(np.int16)
            morto_turn = np.where(rng.random(n) < 0.3, -1, rng.integers(4, 70, n)).astype(np.int16)
            score = (
                rng.normal(700, 450, n)
                + np.where(is_var, eff, 0)
                + 100 * red3 * np.where(canastas > 0, 1, -1)
            ).astype(np.int32)
            cols = {}
            for name, typ, _ in COLUMNS:
                if typ == "string":
                    cols[name] = ["tranca"] * n if name == "preset" else ["0.1.0"] * n
                elif typ == "bool":
                    cols[name] = np.zeros(n, dtype=bool)
                elif typ.startswith("list"):
                    cols[name] = [[1.0]] * n
                else:
                    cols[name] = np.zeros(n, dtype=np.int64)
            end = rng.choice(["went_out", "went_out", "went_out", "stock_out", "turn_limit"], n_decks).repeat(
                2
            )
            out_side = rng.integers(0, 2, n_decks).repeat(2)
            cols.update(
                master_seed=np.full(n, 7),
                deal_index=np.arange(n_decks).repeat(2),
                side=side,
                score=score,
                red3_count=red3,
                canastas_clean=canastas // 2,
                canastas_dirty=canastas - canastas // 2,
                morto_turn=morto_turn,
                morto_taken=morto_turn >= 0,
                end_reason=end,
                went_out=(end == "went_out") & (out_side == side),
                n_turns=rng.integers(20, 70, n_decks).repeat(2),
            )
            df = pl.DataFrame(cols).with_columns(
                run_label=pl.lit(lab),
                role=pl.lit(("ab", "ba")[swap]),
                strategy=pl.Series(np.where(is_var, s, BASE)),
                is_variant=pl.Series(is_var),
            )
            parts.append(df)
    return pl.concat(parts)


def report_data(tmp: Path, with_sweep: bool = False) -> ReportData:
    sp = spec(sweep=with_sweep)
    comp = comparison()
    return ReportData(Path(tmp), sp, comp, sweep() if with_sweep else None, _label_deals(deals(), comp, sp))
