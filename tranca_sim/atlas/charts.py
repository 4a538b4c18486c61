"""The atlas's charts: every word from the language's catalogue (:class:`.i18n.Words`), readable in
grey print (shapes and printed numbers carry the meaning, colour only repeats it; the heat map's
colours get lighter monotonically), and byte-identical for the same inputs (PNG without a
software or date stamp, fixed size and resolution).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

DPI = 150
GREY = "#bdbdbd"


def _plt():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams.update(
        {
            "font.family": "DejaVu Sans",
            "font.size": 9,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "svg.hashsalt": "tranca-sim-atlas",
        }
    )
    return plt


def _save(fig, path: Path) -> Path:
    from .files import whole

    with whole(path) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip(".") or "png", dpi=DPI, metadata={"Software": None})
    import matplotlib.pyplot as plt

    plt.close(fig)
    return path


def strength_chart(tip: dict, strengths: list[str], w, path: Path) -> Path:
    """The effect in points a deal at each strength with its 95% interval; a filled marker is a
    figure confirmed on both blocks, a hollow one is not; a tip whose check fails is not drawn."""
    return _save(strength_figure(tip, strengths, w), path)


def _flag_label(ax, y: float, text: str) -> None:
    """A row's "not measured" words across the middle of the frame (not at x = 0, which may lie at
    its edge), wrapped when long, on white so the zero line does not cross them."""
    import textwrap

    from matplotlib.transforms import blended_transform_factory

    ax.text(0.5, y, textwrap.fill(text, 60), transform=blended_transform_factory(ax.transAxes, ax.transData),
            ha="center", va="center", fontsize=8, style="italic", zorder=5,
            bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.5})  # fmt: skip


def strength_figure(tip: dict, strengths: list[str], w):
    """The figure of :func:`strength_chart`, not yet saved."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6.4, 0.55 * len(strengths) + 1.5))
    ys = np.arange(len(strengths))[::-1]
    for y, s in zip(ys, strengths):
        r = tip["rows"][s]
        if r["check"] not in ("passes", None):
            _flag_label(ax, y, w("not measured: the tip did not do what it says"))
            continue
        ax.plot([r["lo"], r["hi"]], [y, y], color="black", lw=1.6)
        ax.plot([r["lo"], r["lo"]], [y - 0.12, y + 0.12], color="black", lw=1.2)
        ax.plot([r["hi"], r["hi"]], [y - 0.12, y + 0.12], color="black", lw=1.2)
        face = "black" if r["confirmed"] else "white"
        ax.plot([r["mean"]], [y], marker="o", ms=8, mfc=face, mec="black", mew=1.4)
    ax.axvline(0, color="#555555", lw=0.8, ls="--")
    ax.set_yticks(ys)
    ax.set_yticklabels([w.strength_name(s) for s in strengths])
    ax.set_ylim(-0.7, len(strengths) - 0.3)
    ax.set_xlabel(w("points a deal: the player with the tip minus the same player without it"))
    ax.set_title(w("Effect of the tip at each playing strength (95% interval)"), fontsize=10, loc="left")
    from matplotlib.lines import Line2D

    handles = [
        Line2D(
            [], [], marker="o", ls="", mfc="black", mec="black", label=w("confirmed on two blocks of decks")
        ),
        Line2D([], [], marker="o", ls="", mfc="white", mec="black", label=w("not confirmed")),
    ]
    ax.legend(
        handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.32), ncol=2, frameon=False, fontsize=8
    )
    fig.tight_layout()
    return fig


def situation_chart(grid: dict, w, path: Path, row_labels: list[str], col_labels: list[str]) -> Path:
    """Heat map of the effect by situation: each cell prints its mean and interval; cells with
    fewer than ``grid["thin"]`` decks are grey and print no value."""
    plt = _plt()
    mean, lo, hi, n = grid["mean"], grid["lo"], grid["hi"], grid["n"]
    ok = (n >= grid["thin"]) & np.isfinite(mean)
    vmax = max(10.0, float(np.nanmax(np.abs(mean[ok])))) if ok.any() else 10.0
    fig, ax = plt.subplots(figsize=(6.4, 0.62 * mean.shape[0] + 2.0))
    cmap = plt.get_cmap("cividis")
    for i in range(mean.shape[0]):
        for j in range(mean.shape[1]):
            if ok[i, j]:
                v = (mean[i, j] + vmax) / (2 * vmax)
                rgba = cmap(v)
                lum = 0.299 * rgba[0] + 0.587 * rgba[1] + 0.114 * rgba[2]
                ax.add_patch(plt.Rectangle((j, i), 1, 1, color=rgba))
                txt = (
                    f"{w.num(mean[i, j], 0, sign=True)}\n[{w.num(lo[i, j], 0)}; {w.num(hi[i, j], 0)}]\n"
                    + w.n("{count} deck", "{count} decks", int(n[i, j]))
                )
                ax.text(j + 0.5, i + 0.5, txt, ha="center", va="center", fontsize=7,
                        color="black" if lum > 0.5 else "white")  # fmt: skip
            else:
                ax.add_patch(plt.Rectangle((j, i), 1, 1, facecolor=GREY, edgecolor="white", hatch="///"))
                ax.text(j + 0.5, i + 0.5, w("too few decks") + "\n" + w.n("{count} deck", "{count} decks", int(n[i, j])),
                        ha="center", va="center", fontsize=7)  # fmt: skip
    ax.set_xlim(0, mean.shape[1])
    ax.set_ylim(0, mean.shape[0])
    ax.set_xticks(np.arange(mean.shape[1]) + 0.5)
    ax.set_xticklabels(col_labels)
    ax.set_yticks(np.arange(mean.shape[0]) + 0.5)
    ax.set_yticklabels(row_labels)
    ax.set_xlabel(w("red 3s dealt to the four hands"))
    ax.set_ylabel(w("wild cards dealt to the four hands"))
    ax.set_title(w("Effect by what was dealt (points a deal, 95% interval)"), fontsize=10, loc="left")
    import matplotlib as mpl

    sm = mpl.cm.ScalarMappable(norm=mpl.colors.Normalize(-vmax, vmax), cmap=cmap)
    cb = fig.colorbar(sm, ax=ax, fraction=0.05, pad=0.02)
    cb.set_label(w("points a deal"))
    fig.tight_layout()
    return _save(fig, path)


def ends_chart(ends: dict, w, path: Path) -> Path:
    """How deals end: a horizontal bar per end reason, its share printed beside it."""
    plt = _plt()
    keys = list(ends)
    fig, ax = plt.subplots(figsize=(6.4, 0.45 * len(keys) + 1.2))
    ys = np.arange(len(keys))[::-1]
    hatches = ["", "///", "..."]
    for y, k, h in zip(ys, keys, hatches * 3):
        ax.barh(y, ends[k], color="#7a7a7a" if not h else "white", edgecolor="black", hatch=h)
        ax.text(ends[k] + 0.01, y, w.pct(ends[k]), va="center", fontsize=8)
    ax.set_yticks(ys)
    ax.set_yticklabels([w.end_name(k) for k in keys])
    ax.set_xlim(0, 1.15)
    ax.set_xticks([0, 0.25, 0.5, 0.75, 1.0])
    ax.set_xticklabels([w.pct(x) for x in (0, 0.25, 0.5, 0.75, 1.0)])
    ax.set_title(w("How deals end"), fontsize=10, loc="left")
    fig.tight_layout()
    return _save(fig, path)


def equity_chart(table: dict, w, path: Path) -> Path:
    """The match equity table as a heat map (lighter = more likely to win) with contour lines at
    10, 25, 50, 75 and 90% labelled on the lines (readable in grey)."""
    plt = _plt()
    s, p = table["scores"], table["p"]
    step = s[1] - s[0] if len(s) > 1 else 100
    fig, ax = plt.subplots(figsize=(6.4, 5.6))
    im = ax.imshow(p, origin="lower", cmap="cividis", vmin=0, vmax=1, aspect="equal",
                   extent=(s[0] - step / 2, s[-1] + step / 2, s[0] - step / 2, s[-1] + step / 2))  # fmt: skip
    cs = ax.contour(s, s, p, levels=[0.1, 0.25, 0.5, 0.75, 0.9], colors="black", linewidths=0.8)
    ax.clabel(cs, fmt=lambda v: w.pct(v), fontsize=7)
    ax.set_xlabel(w("the other side's match score"))
    ax.set_ylabel(w("your side's match score"))
    ax.set_title(w("Chance of winning the match, equal players"), fontsize=10, loc="left")
    cb = fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03)
    cb.set_ticks([0, 0.25, 0.5, 0.75, 1.0])
    cb.set_ticklabels([w.pct(x) for x in (0, 0.25, 0.5, 0.75, 1.0)])
    fig.tight_layout()
    return _save(fig, path)


def finite(x) -> bool:
    return x is not None and not (isinstance(x, float) and math.isnan(x))
