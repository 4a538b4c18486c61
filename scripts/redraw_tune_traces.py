"""Redraw the committed tuning traces (``reports/tune-*/trace.png``/``.svg``) with the current chart
code, from the data their committed files hold, without playing a deal.

Their ``trials.parquet`` were not committed (``*.parquet`` is ignored; replaying a tuning run takes
12 to 23 minutes and the engine has changed since). The data the trace draws are in the committed
``trace.svg`` itself: matplotlib writes every candidate's dot (``<use x= y=>``, 6 decimals of a
point) and the axis ticks with their labels, so each candidate's mean comes back through the y
axis's tick positions to about 1e-5 points a deal. A search mean is the mean of 2,000 decks whose
per-deck values are multiples of 2.5 points (scores are multiples of 5; a deck is the mean of its
two deals), so it is a multiple of 2.5 / 2,000 and rounding to that grid gives it back exactly;
likewise the selection mean (10,000 decks) and the confirmation mean (20,000 decks). The
confirmation interval is read from the band the chart draws (to about 1e-5). The rest comes from
``report.md`` (opponents, winners, verdicts) and ``params.toml`` (the final run).

Every value read is checked against ``report.md``'s table (same digits), and the redrawn chart's
panel titles and "N of M candidates lie below" notes against the old chart's: the script stops
before writing anything if one differs. With ``--check-trials DIR/trials.parquet`` (tranca-paulista's
was kept outside the repository) the read-back search means are also compared with the saved ones.

    python scripts/redraw_tune_traces.py reports/tune-tranca reports/tune-tranca-aberta \\
        reports/tune-tranca-paulista --check-trials reports/tune-tranca-paulista=/tmp/trials.parquet
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

SVG = "{http://www.w3.org/2000/svg}"
#: per-deck values are multiples of 2.5 points a deal: a mean over n decks is a multiple of 2.5 / n
DECK_STEP = 2.5


def _labels(text: str) -> dict[str, str]:
    """Tick group id -> its label (matplotlib writes a comment with each text it draws as paths)."""
    return {
        m.group(1): m.group(3).replace("\u2212", "-")
        for m in re.finditer(r'<g id="([xy]tick_\d+)">(.*?)<!-- (.*?) -->', text, re.DOTALL)
    }


def _tick_positions(axis: ET.Element, kind: str) -> list[tuple[str, float]]:
    out = []
    for g in axis.iter(f"{SVG}g"):
        if g.get("id", "").startswith(f"{kind}tick_"):
            use = next(u for u in g.iter(f"{SVG}use") if u.get("x") is not None)
            out.append((g.get("id"), float(use.get(kind))))
    return out


def _path_ys(d: str) -> list[float]:
    nums = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", d)]
    return nums[1::2]


def read_svg(path: Path) -> list[dict]:
    """Per panel (round): the search means in play order (unrounded), the selection mean, the
    confirmation mean and the band's ends, in points a deal; and the texts of the panel."""
    text = path.read_text(encoding="utf-8")
    labels = _labels(text)
    root = ET.fromstring(text)
    panels = []
    for ax in root.iter(f"{SVG}g"):
        if not re.fullmatch(r"axes_\d+", ax.get("id", "")):
            continue
        kids = list(ax)
        axes = [g for g in kids if g.get("id", "").startswith("matplotlib.axis_")]
        xaxis = next(a for a in axes if any(c.get("id", "").startswith("xtick_") for c in a))
        yaxis = next(a for a in axes if a is not xaxis)
        yt = [(float(labels[i]), p) for i, p in _tick_positions(yaxis, "y")]
        xt, x_named = [], {}
        for i, p in _tick_positions(xaxis, "x"):
            try:
                xt.append((float(labels[i]), p))
            except ValueError:
                x_named[labels[i]] = p  # 'selection', 'confirmation' (the current chart)
        ya, yb = np.polyfit([p for _, p in yt], [v for v, _ in yt], 1)
        xa, xb = np.polyfit([p for _, p in xt], [v for v, _ in xt], 1)
        resid = max(abs(ya * p + yb - v) for v, p in yt)
        assert resid < 1e-4, f"{path}: the y ticks are not on one line ({resid})"
        colls = [g for g in kids if g.get("id", "").startswith("PathCollection")]
        dots = [(float(u.get("x")), float(u.get("y"))) for u in colls[0].iter(f"{SVG}use")]
        xs = np.array([xa * x + xb for x, _ in dots])
        assert np.allclose(xs, np.arange(1, len(xs) + 1), atol=1e-3), f"{path}: dots not at 1..N"
        (diamond,) = [(float(u.get("x")), float(u.get("y"))) for u in colls[1].iter(f"{SVG}use")]
        band = next(
            g
            for g in kids
            if g.get("id", "").startswith("patch_") and "opacity: 0.18" in ET.tostring(g, "unicode")
        )
        b_ys = _path_ys(band.find(f"{SVG}path").get("d"))
        lo, hi = sorted(ya * y + yb for y in (min(b_ys), max(b_ys)))
        # the errorbar's marker: a <use> in a line2d at the confirmation x, between the caps
        marks = []
        for g in kids:
            if g.get("id", "").startswith("line2d_"):
                marks += [(float(u.get("x")), float(u.get("y"))) for u in g.iter(f"{SVG}use")]
        x_conf = max(x for x, _ in marks)
        inner = sorted({ya * y + yb for x, y in marks if abs(x - x_conf) < 1e-3})
        mean = [v for v in inner if lo + 1e-3 < v < hi - 1e-3]
        assert len(mean) == 1, f"{path}: confirmation marker not found ({inner}, {lo}, {hi})"
        panels.append(
            {
                "search": np.array([ya * y + yb for _, y in dots]),
                "selection": ya * diamond[1] + yb,
                "confirmation": (mean[0], lo, hi),
            }
        )
    # every text drawn, a comment a line: joined, a wrapped title reads as one line again
    panels[0]["texts"] = " | ".join(
        " ".join(t.split()) for t in re.findall(r"<!-- (.*?) -->", text, re.DOTALL)
    )
    return panels


def _on_grid(x, decks: int):
    step = DECK_STEP / decks
    return np.round(np.asarray(x) / step) * step


def _report_rounds(md: str) -> list[dict]:
    rows = []
    for line in md.splitlines():
        m = re.match(
            r"^\| (\d+) \| `(.+?)` \| (\d+) \((\d+)\) \| `(.+?)` \| (\S+) \| (\S+) \| (\S+) \[(\S+), (\S+)\] \| (.+?) \| (yes|no) \|$",
            line,
        )
        if m:
            g = m.groups()
            rows.append({"round": int(g[0]), "opponent": g[1], "played": int(g[2]), "trials": int(g[3]),
                         "winner": g[4], "search": g[5], "selection": g[6], "conf": g[7:10], "p": g[10],
                         "beats": g[11] == "yes"})  # fmt: skip
    return rows


def rebuild(d: Path, trials: Path | None = None) -> tuple[list[dict], dict, list[str]]:
    """``(rows, result, old texts)`` for :func:`tranca_sim.lab.tuning.tune_report.trace_figure`."""
    md = (d / "report.md").read_text(encoding="utf-8")
    meta = tomllib.loads((d / "params.toml").read_text(encoding="utf-8"))
    m = re.search(r"([\d,]+) deals \(([\d,]+) decks\) per candidate; selection of the best (\d+) on ([\d,]+) deals each; "
                  r"confirmation and final run ([\d,]+) deals", md)  # fmt: skip
    n = lambda s: int(s.replace(",", ""))
    trial_decks, sel_decks, conf_decks = n(m.group(2)), n(m.group(4)) // 2, n(m.group(5)) // 2
    panels = read_svg(d / "trace.svg")
    table = _report_rounds(md)
    assert len(panels) == len(table), f"{d}: {len(panels)} panels, {len(table)} rounds in report.md"
    f = lambda v: f"{v:+.1f}"
    rows, rounds = [], []
    for p, t in zip(panels, table):
        r = t["round"]
        search = _on_grid(p["search"], trial_decks)
        assert np.abs(search - p["search"]).max() < 1e-4, f"{d} round {r}: a search mean off the grid"
        assert len(search) == t["played"]
        sel = float(_on_grid(p["selection"], sel_decks))
        mean = float(_on_grid(p["confirmation"][0], conf_decks))
        lo, hi = p["confirmation"][1:]
        assert abs(sel - p["selection"]) < 1e-4 and abs(mean - p["confirmation"][0]) < 1e-4
        # every number read back is the one report.md printed
        got = (f(sel), (f(mean), f(lo), f(hi)))
        assert got == (t["selection"], t["conf"]), f"{d} round {r}: read {got}, report.md {t}"
        conf = {"round": r, "stage": "confirmation", "mean": mean, "lo": lo, "hi": hi, "label": t["winner"],
                "opponent": t["opponent"], "p_greater": 0.0 if t["beats"] else 1.0, "decks": conf_decks}  # fmt: skip
        rows += [{"round": r, "stage": "search", "trial": i, "mean": float(y)} for i, y in enumerate(search)]
        rows.append(conf)
        rounds.append({"round": r, "opponent_label": t["opponent"], "played": t["played"], "winner_label": t["winner"],
                       "search_mean": float(t["search"]), "selection_mean": sel, "confirmation": conf,
                       "beats_opponent": t["beats"]})  # fmt: skip
    if trials is not None:  # the saved trials: the read-back means must be theirs
        import polars as pl

        tr = pl.read_parquet(trials)
        for rd in rounds:
            r = rd["round"]
            saved = tr.filter((pl.col("round") == r) & (pl.col("stage") == "search"))["mean"].to_numpy()
            back = np.array([x["mean"] for x in rows if x["round"] == r and x["stage"] == "search"])
            assert np.abs(saved - back).max() < 1e-9, f"{d} round {r}: {np.abs(saved - back).max()}"
            c = tr.filter((pl.col("round") == r) & (pl.col("stage") == "confirmation")).row(0, named=True)
            assert abs(c["mean"] - rd["confirmation"]["mean"]) < 1e-9
            assert (
                abs(c["lo"] - rd["confirmation"]["lo"]) < 1e-4
                and abs(c["hi"] - rd["confirmation"]["hi"]) < 1e-4
            )
            s = tr.filter(
                (pl.col("round") == r) & (pl.col("stage") == "selection") & (pl.col("trial") == c["trial"])
            )
            assert abs(s["mean"][0] - rd["selection_mean"]) < 1e-9
    c = meta["confirmation"]
    champion = re.search(r"^\*\*`(.+?)`\*\* against `(.+?)`", md, re.MULTILINE)
    final = {"mean": c["effect"], "lo": c["ci95"][0], "hi": c["ci95"][1], "decks": c["decks"]}
    result = {"rounds": rounds, "final": final, "preset": meta["preset"], "base_label": meta["strategy"],
              "champion_label": champion.group(1), "opponent_label": champion.group(2)}  # fmt: skip
    old = panels[0]["texts"]
    return rows, result, old


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], allow_abbrev=False)
    ap.add_argument("dirs", nargs="+", type=Path)
    ap.add_argument("--check-trials", action="append", default=[], metavar="DIR=TRIALS.parquet")
    ap.add_argument("--dry-run", action="store_true", help="check only; write nothing")
    a = ap.parse_args(argv)
    saved = {Path(k): Path(v) for k, _, v in (x.partition("=") for x in a.check_trials)}
    from tranca_sim.lab.publish.charts import save_figure
    from tranca_sim.lab.tuning.tune_report import trace_figure

    done = []
    for d in a.dirs:
        rows, result, old = rebuild(d, saved.get(d))
        fig = trace_figure(rows, result)
        new = [t.get_text() for ax in fig.axes for t in (ax.title, ax._left_title, *ax.texts) if t.get_text()]
        new = [t for t in new if t.startswith("round ") or " candidates lie below " in t]
        assert sum(t.startswith("round ") for t in new) == len(result["rounds"])
        missing = [t for t in new if " ".join(t.split()) not in old.replace(" | ", " ")]
        assert not missing, f"{d}: texts the old chart did not draw: {missing}"
        done.append((d, fig, len(rows)))
    for d, fig, n in done:
        if not a.dry_run:
            save_figure(fig, d, "trace")
        print(
            f"{d}: {n} values read back, every number as report.md and the old chart say"
            + ("" if a.dry_run else "; trace.png/.svg redrawn")
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
