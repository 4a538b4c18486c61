"""What every chart of :mod:`tranca_sim.lab.publish.charts` shares: :class:`ChartInfo`, the figure with
its footnote, the strategies' row labels, legend anchors, the marks of an untested mean, and
:func:`save_figure` (PNG and SVG, atomic and byte-for-byte reproducible).

All score axes are in **points per deal** (the score of one side in one deal,
``score`` of docs/schema.md); differences are variant minus baseline.
"""

from __future__ import annotations

import contextlib
import textwrap
from dataclasses import dataclass
from pathlib import Path

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg  # drawn with Agg; no pyplot, no display
from matplotlib.figure import Figure
from matplotlib.layout_engine import ConstrainedLayoutEngine
from matplotlib.lines import Line2D
from matplotlib.transforms import Bbox, offset_copy

from .chart_text import fit_titles, wrap_items

#: resolution of the PNG files (modest: the reports are committed)
PNG_DPI = 110
#: binned means (morto, red 3s) from fewer side-deals than this are not drawn (their intervals
#: would set the scale); the tables keep them
MIN_BIN_N = 30
#: width of every chart in inches
WIDTH = 8.0
_FOOT_IN = 0.3  # inches kept free at the bottom for the footnote
_SIG = "#c0392b"  # Holm-significant
_NOT = "#5d6d7e"  # not significant
_FAILED = "#b0b0b0"  # a tip whose manipulation check fails (tranca_sim/lab/statistics/checks.py)
_SERIES = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
#: inches kept free between each side edge of a chart and its outermost text or frame (row labels,
#: y labels, the numbers right of the axes, the footnote): about 16 pixels in the PNG files
EDGE_IN = 0.15


def layout_room(fig: Figure, bottom_in: float = 0.0) -> None:
    """Keep :data:`EDGE_IN` free at the left and right of ``fig`` (constrained layout) and
    ``bottom_in`` inches at the bottom (for the footnote and a figure legend)."""
    w, h = fig.get_size_inches()
    fig.get_layout_engine().set(rect=(EDGE_IN / w, bottom_in / h, 1 - 2 * EDGE_IN / w, 1 - bottom_in / h))


def footnote(fig: Figure, text: str) -> None:
    """``text`` (lines) at the bottom left of ``fig``, :data:`EDGE_IN` from its left edge, small and grey."""
    x = EDGE_IN / fig.get_figwidth()
    fig.text(x, 0.012, text or " ", fontsize=7, color="#555555", ha="left", va="bottom")


@dataclass(frozen=True)
class ChartInfo:
    """What every chart of one experiment shares.

    Attributes
    ----------
    footnote : str
        One line (wrapped when long) with preset, design, deals, seed and
        package version, printed at the bottom of every chart.
    baseline : str
        Label of the baseline strategy in titles and legends.
    pooled : str
        Said in the subtitle of the charts that show the baseline's own deals (score
        distribution, deal endings, morto turn) when those pool its deals against every
        variant (duplicate design), e.g. "basic (baseline): its deals against every variant,
        pooled"; empty otherwise.
    design : str
        The experiment's design; ``"rotation"`` (three players) makes the forest plot's
        effect the variant's margin over the two baseline players at its table.
    seats : int
        Seats at the table (4; 2 or 3 at the solo tables): the turns of one round.
    alpha : float
        The experiment's ``[stopping] alpha``: its comparisons' intervals are ``1 - alpha``
        intervals and a variant (or sweep point) is significant when its Holm-adjusted p-value
        is at most ``alpha`` (:func:`tranca_sim.lab.statistics.inference.adjust_p`); the forest and sweep
        charts mark and say so.
    """

    footnote: str
    baseline: str = "baseline"
    pooled: str = ""
    design: str = ""
    seats: int = 4
    alpha: float = 0.05

    @property
    def level(self) -> str:
        """The comparisons' interval level in percent, as the tables write it: ``"95%"``."""
        return f"{round(100 * (1 - self.alpha)):d}%"


def _baseline_row(info: ChartInfo, legend: bool = False) -> str | None:
    """How the baseline's own row (or series) is labelled where it is not a variant's opponent
    like the others: pooled over every variant's decks (duplicate design) or the all-baseline
    control table (rotation); None where it is like the others (``info.pooled`` empty)."""
    if not info.pooled:
        return None
    rotation = info.design == "rotation"
    if legend:
        what = "control table" if rotation else "pooled"
        b = info.baseline
        return f"{b[:-1]}, {what})" if b.endswith(")") else f"{b} ({what})"
    return f"{info.baseline}\n" + ("the all-baseline table" if rotation else "pooled over the variants")


def _row_labels(labels: list[str], info: ChartInfo) -> list[str]:
    """Tick labels of the strategies' rows, each line shortened; the baseline's row says it is
    pooled (or the control table) on a second line (:func:`_baseline_row`)."""
    base = _baseline_row(info)
    out = []
    for lab in labels:
        text = base if base is not None and lab == info.baseline else lab
        out.append("\n".join(textwrap.shorten(x, 42, placeholder="…") for x in text.split("\n")))
    return out


def _mark_baseline_row(ax, labels: list[str], pos, info: ChartInfo) -> None:
    """A rule under the baseline's row when it is the pooled (or control-table) row, drawn once,
    on top, apart from the variants' rows."""
    if _baseline_row(info) is not None and len(labels) > 1 and labels[0] == info.baseline:
        ax.axhline(pos[0] - 0.5, color="#999999", lw=0.8, ls="--")


def _with_pooled(text: str, info: ChartInfo) -> str:
    return f"{text}; {info.pooled}" if info.pooled else text


def _figure(height: float, info: ChartInfo, legend_in: float = 0.0) -> Figure:
    """A figure with the footnote at the bottom; ``legend_in`` inches above it are kept free
    for a figure legend (:func:`tranca_sim.lab.publish.charts.red3_plot` has one)."""
    fig = Figure(figsize=(WIDTH, height), layout="constrained")
    FigureCanvasAgg(fig)
    layout_room(fig, _FOOT_IN + legend_in)
    footnote(fig, "\n".join(wrap_items(info.footnote, 150)))
    return fig


def _below(fig: Figure, ax, x: float = 0.5) -> dict:
    """Legend anchor under the axes' x label, a fixed 34 points below the axes at any size."""
    return {
        "bbox_to_anchor": (x, 0),
        "bbox_transform": offset_copy(ax.transAxes, fig=fig, y=-34, units="points"),
    }


def _empty(ax, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", transform=ax.transAxes, color="#555555")
    ax.set_xticks([])
    ax.set_yticks([])


#: a mean without an interval (too few units, e.g. one deck): no test, so neither red nor grey square
_UNTESTED, _UNTESTED_MARK, _UNTESTED_LABEL = "#7f8c8d", "D", "not tested (too few deals)"


def _untested_handle() -> Line2D:
    return Line2D([], [], color=_UNTESTED, marker=_UNTESTED_MARK, mfc="white", ls="", label=_UNTESTED_LABEL)


def _mean_ci_text(mean: float, lo: float, hi: float) -> str:
    """``+1.2 [-3.4, +5.6]``; "n/a" for a value that could not be computed (too few units)."""
    f = lambda v: f"{v:+.1f}" if np.isfinite(v) else "n/a"
    return f"{f(mean)} [{f(lo)}, {f(hi)}]" if np.isfinite(lo) and np.isfinite(hi) else f"{f(mean)} [n/a]"


def _series_legend(fig: Figure, ax, x: float = 0.5) -> None:
    """One legend for the strategies, under the axes' x label (never over the data)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(
            handles, labels, loc="upper center", **_below(fig, ax, x),
            ncol=min(4, len(handles)), fontsize=8, frameon=False,
        )  # fmt: skip


# ---- files --------------------------------------------------------------------------
_SVG_RC = {"svg.hashsalt": "tranca-sim", "svg.fonttype": "path"}


@contextlib.contextmanager
def _reproducible():
    """Fixed SVG ids for the block, restored after (not ``rc_context``: copying every rcParam
    resolves the backend and so imports pyplot)."""
    old = {k: matplotlib.rcParams[k] for k in _SVG_RC}
    matplotlib.rcParams.update(_SVG_RC)
    try:
        yield
    finally:
        matplotlib.rcParams.update(old)


def _freeze_layout(fig: Figure) -> None:
    """Lay ``fig`` out once more (at :data:`PNG_DPI`), round each axes' position to 2**-20 of the
    figure (a thousandth of a pixel) and drop the layout engine, so that saving draws exactly these
    positions.

    Constrained layout's solver leaves rounding noise (about 1e-16) in the positions that
    changes from one run to the next; the SVG's clip-path ids are hashed from the clip boxes, so
    without this the same chart was not always the same bytes (seen in two runs of ``tranca-sim
    report reports/example`` and in tests/test_reports.py's regeneration test). A figure laid
    out otherwise (the tune trace: tight_layout, no solver) is left as it is."""
    if not isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        return
    dpi = fig.dpi
    fig.set_dpi(PNG_DPI)  # laid out at the resolution it is saved at, as savefig would
    try:
        fig.draw_without_rendering()
    finally:
        fig.set_dpi(dpi)
    q = 2**20
    for ax in fig.axes:
        x0, y0, x1, y1 = (round(v * q) / q for v in ax.get_position().extents)
        ax.set_position(Bbox.from_extents(x0, y0, x1, y1))
    fig.set_layout_engine("none")


def save_figure(fig: Figure, out_dir, name: str) -> list[Path]:
    """Write ``fig`` to ``out_dir/name.png`` (at :data:`PNG_DPI`) and ``out_dir/name.svg``, its
    titles and subtitles first wrapped to end inside the figure (:func:`fit_titles`).

    Each file is written to a temporary name and renamed (an existing file is replaced);
    no date or random id is stored, so the same figure gives the same bytes.

    Returns
    -------
    list of pathlib.Path
        The PNG and SVG paths.

    Raises
    ------
    tranca_sim.io.RunFileError
        If a file cannot be written (the message names it).
    """
    from ...io import atomic_output, writing

    fit_titles(fig)  # every saved chart: titles and subtitles end inside the figure
    _freeze_layout(fig)
    out = []
    for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None, "Creator": None})):
        path = Path(out_dir) / f"{name}.{ext}"
        with atomic_output(path, force=True) as tmp, writing(path), _reproducible():
            fig.savefig(tmp, format=ext, dpi=PNG_DPI, metadata=meta)
        out.append(path)
    return out
