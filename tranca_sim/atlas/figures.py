"""The numbers of the atlas's pages, read from finished experiments (no words here: codes and
numbers only; :mod:`.pages` puts them into sentences).

- :func:`tip_figures`: a tips experiment (``kind = "strengths"``) -> per tip and strength the
  confirmed effect in points a deal, the share of deals won, the manipulation check and the
  decisions of each block (:func:`tranca_sim.lab.publish.strengths_report.summarise`);
- :func:`situations`: the effect by situation of one tip at one strength, from the duplicate
  decks' deal-level rows, split by what the deck dealt (see :data:`SITUATION_METHOD`);
- :func:`rules_figures`: a rules experiment -> deal length, how deals end, the first seat's
  advantage, the skill gap and the share of the score the deck explains.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

Z95 = 1.959963984540054
#: a cell of the situation chart with fewer decks than this is left grey (not read)
THIN = 30
#: bins of the situation chart: wilds (2s and jokers) dealt to the four hands, red 3s dealt
WILD_BINS = ((0, 2), (3, 4), (5, 6), (7, 99))
RED3_BINS = ((0, 0), (1, 1), (2, 99))


def _t_interval(x: np.ndarray) -> tuple[float, float, float]:
    n = len(x)
    m = float(np.mean(x)) if n else math.nan
    if n < 2:
        return m, math.nan, math.nan
    se = float(np.std(x, ddof=1)) / math.sqrt(n)
    return m, m - Z95 * se, m + Z95 * se


def read_record(d: Path) -> dict:
    return json.loads((Path(d) / "experiment.json").read_text(encoding="utf-8"))


def tip_figures(d: Path) -> dict:
    """The tips experiment in ``d``: ``preset``, ``strengths`` (labels), ``blocks``, ``decision``,
    ``tips`` (param -> ``{"param", "on", "off", "seed", "line", "rows": {strength: row}}``), each
    row: ``verdict``, ``confirmed``, ``published``, ``check``, ``mean``, ``lo``, ``hi`` (points a
    deal, pooled over the blocks), ``win`` / ``win_lo`` / ``win_hi`` (share of deals won),
    ``cells`` (each block's figures) and ``check_rows`` (the first block's check statistics)."""
    import polars as pl

    from tranca_sim.strategies import basic

    from ..lab.publish.strengths_report import summarise

    d = Path(d)
    rec = read_record(d)
    units = pl.read_parquet(d / "units.parquet")
    summary = summarise(rec, units)
    seeds = {t[0]: t for t in basic.TIPS}
    tips: dict[str, dict] = {}
    for r in summary["rows"]:
        param = r["label"]
        t = seeds[param]
        tip = tips.setdefault(
            param, {"param": param, "on": t[1], "off": t[2], "seed": t[3], "line": t[4], "rows": {}}
        )
        part = units.filter((pl.col("label") == param) & (pl.col("strength") == r["strength"]))
        win, win_lo, win_hi = _t_interval(part["outcome"].to_numpy())
        first = r["cells"][0] if r["cells"] else {}
        tip["rows"][r["strength"]] = {
            "strength": r["strength"],
            "verdict": r["verdict"],
            "confirmed": bool(r["confirmed"]),
            "published": bool(r["published"]),
            "check": r["check"],
            "mean": float(r["mean"]),
            "lo": float(r["lo"]),
            "hi": float(r["hi"]),
            "win": win,
            "win_lo": win_lo,
            "win_hi": win_hi,
            "decks": int(sum(c["decks"] for c in r["cells"])),
            "cells": [
                {k: c[k] for k in ("block", "decks", "mean", "lo", "hi", "interval", "stopped_by")}
                | {"decision": (c.get("decision") or {}).get("points", {}).get("verdict", "no decision")}
                for c in r["cells"]
            ],
            "check_rows": [
                {
                    k: x[k]
                    for k in ("statistic", "variant_value", "baseline_value", "diff", "lo", "hi", "verdict")
                }
                | {"direction": x["expected"]}
                for x in ((first.get("check") or {}).get("rows") or [])
            ],
            "runs": [[str(d / p) for p in c["runs"]] for c in r["cells"]],
        }
    return {
        "dir": str(d),
        "preset": rec["preset"],
        "strengths": summary["strengths"],
        "blocks": rec["block_seeds"],
        "decision": rec.get("decision"),
        "stopping": rec.get("stopping"),
        "strength_specs": rec["strength"],
        "seed": rec["seed"],
        "deals_total": rec.get("deals_total"),
        "version": rec.get("version"),
        "tips": tips,
    }


SITUATION_METHOD = (
    "deck split: every duplicate deck of the tip's experiment (both blocks) falls in one cell by what "
    "was dealt to the four hands before any choice (wilds, red 3s); a cell's value is the mean of its "
    "decks' effects (points a deal, the player with the tip minus the same player without it) with a "
    "Student t 95% interval; cells with fewer than THIN decks are grey. A split by what was dealt is "
    "unbiased for each cell but says little about the moment the tip acts."
)


def _deck_rows(ab_path: str, ba_path: str):
    from ..io import load_run

    cols = ["deal_index", "side", "score", "hand0_wilds", "hand1_wilds", "hand0_red3", "hand1_red3"]
    ab = load_run(ab_path, columns=cols).sort(["deal_index", "side"])
    ba = load_run(ba_path, columns=cols).sort(["deal_index", "side"])
    s_ab, s_ba = ab["score"].to_numpy().reshape(-1, 2), ba["score"].to_numpy().reshape(-1, 2)
    unit = ((s_ab[:, 0] - s_ab[:, 1]) + (s_ba[:, 1] - s_ba[:, 0])) / 2.0
    w = (np.maximum(ab["hand0_wilds"].to_numpy(), 0) + np.maximum(ab["hand1_wilds"].to_numpy(), 0)).reshape(
        -1, 2
    )
    r = (np.maximum(ab["hand0_red3"].to_numpy(), 0) + np.maximum(ab["hand1_red3"].to_numpy(), 0)).reshape(
        -1, 2
    )
    return unit, w.sum(axis=1), r.sum(axis=1)


def _bin(x: np.ndarray, bins) -> np.ndarray:
    out = np.full(len(x), -1)
    for i, (lo, hi) in enumerate(bins):
        out[(x >= lo) & (x <= hi)] = i
    return out


def situations(row: dict) -> dict:
    """The effect by situation of one tip at one strength (``row`` of :func:`tip_figures`): a grid
    ``mean``, ``lo``, ``hi``, ``n`` (rows: :data:`WILD_BINS`, columns: :data:`RED3_BINS`)."""
    parts = [_deck_rows(ab, ba) for ab, ba in row["runs"]]
    unit = np.concatenate([p[0] for p in parts])
    wi = _bin(np.concatenate([p[1] for p in parts]), WILD_BINS)
    ri = _bin(np.concatenate([p[2] for p in parts]), RED3_BINS)
    shape = (len(WILD_BINS), len(RED3_BINS))
    mean, lo, hi = (np.full(shape, math.nan) for _ in range(3))
    n = np.zeros(shape, dtype=int)
    for i in range(shape[0]):
        for j in range(shape[1]):
            x = unit[(wi == i) & (ri == j)]
            n[i, j] = len(x)
            mean[i, j], lo[i, j], hi[i, j] = _t_interval(x)
    return {"mean": mean, "lo": lo, "hi": hi, "n": n, "thin": THIN, "decks": len(unit)}


def rules_figures(d: Path) -> dict:
    """The rules experiment in ``d``: from the baseline-against-itself run, ``deals``,
    ``turns`` (mean, lo, hi: turns a deal, every seat's turn counting one), ``ends`` (end reason ->
    share), ``first_seat`` (points a deal the side that plays first scores above the other, with
    its interval), ``first_seat_win`` (share of decided deals it wins), ``morto_taken`` (share of
    sides); from ``tuned`` against ``basic`` (when played): ``skill`` (points a deal per deck, with
    interval) and ``deck_share`` (share of the variance of a deal's margin that the deck explains)."""
    from ..io import load_run

    d = Path(d)
    rec = read_record(d)
    same = next(r for r in rec["runs"] if r["label"] == "same" and r["role"] == "ab")
    cols = ["deal_index", "side", "score", "first_seat", "n_turns", "end_reason", "won", "morto_taken"]
    df = load_run(d / same["path"], columns=cols).sort(["deal_index", "side"])
    score = df["score"].to_numpy().reshape(-1, 2).astype(float)
    first = (df["first_seat"].to_numpy().reshape(-1, 2)[:, 0] % 2).astype(int)  # side of the first seat
    won = df["won"].to_numpy().reshape(-1, 2)
    idx = np.arange(len(score))
    adv = score[idx, first] - score[idx, 1 - first]
    decided = won.any(axis=1)
    first_won = won[idx, first][decided].astype(float)
    turns = df["n_turns"].to_numpy()[0::2].astype(float)
    ends = df["end_reason"].to_list()[0::2]
    out = {
        "preset": rec["preset"],
        "seed": rec["seed"],
        "deals": len(score),
        "turns": _t_interval(turns),
        "ends": {k: ends.count(k) / len(ends) for k in sorted(set(ends))},
        "first_seat": _t_interval(adv),
        "first_seat_win": _t_interval(first_won),
        "morto_taken": float(np.mean(df["morto_taken"].to_numpy())),
        "version": rec.get("version"),
        "scores": score,  # (deals, 2): each side's points (the match equity table's pool)
        "rules": rec.get("rules") or {},
    }
    tuned = [r for r in rec["runs"] if r["label"] == "tuned"]
    if tuned:
        from ..lab.statistics.designs import duplicate_units

        ab = load_run(d / next(r for r in tuned if r["role"] == "ab")["path"]).sort(["deal_index", "side"])
        ba = load_run(d / next(r for r in tuned if r["role"] == "ba")["path"]).sort(["deal_index", "side"])
        u = duplicate_units(ab, ba).units
        out["skill"] = _t_interval(u)
        out["deck_share"] = deck_share(ab, ba)
    return out


def deck_share(ab, ba) -> float:
    """Share of the variance of a deal's margin (tuned minus basic) that the deck explains: the
    two deals of a deck hold the same cards with the players swapped, so the covariance of their
    margins (each from the same player's view) is the deck's part, the rest the players' and the
    play's (a one-way random-effects decomposition over decks)."""
    s_ab = ab["score"].to_numpy().reshape(-1, 2).astype(float)
    s_ba = ba["score"].to_numpy().reshape(-1, 2).astype(float)
    m1 = s_ab[:, 0] - s_ab[:, 1]  # side A's margin, tuned holding A's cards
    m2 = s_ba[:, 0] - s_ba[:, 1]  # side A's margin, basic holding A's cards
    total = float(np.var(np.concatenate([m1, m2]), ddof=1))
    cov = float(np.cov(m1, m2, ddof=1)[0, 1])
    return max(0.0, min(1.0, cov / total)) if total > 0 else math.nan
