"""Text in the charts of :mod:`tranca_sim.lab.publish.charts`: the footnote wrapped
between its items, titles and subtitles wrapped to fit inside the figure (every chart the
package saves goes through :func:`fit_titles`, in :func:`tranca_sim.lab.publish.charts.save_figure`)."""

from __future__ import annotations

import functools
import textwrap

from matplotlib.figure import Figure

#: textwrap.wrap that keeps a hyphenated word whole ("all-baseline", "morto_stock=-1")
_wrap = functools.partial(textwrap.wrap, break_on_hyphens=False)

#: what separates the items of a footnote; a footnote is wrapped between items, never inside one
FOOT_SEP = " · "


def wrap_items(text: str, width: int, sep: str = FOOT_SEP) -> list[str]:
    """``text`` in lines of at most ``width`` characters, broken only between its items (the parts
    between ``sep``), so an item such as "tranca-sim 0.1.0" or "2 000 decks" stays whole; an item
    longer than a line is wrapped on its own."""
    lines: list[str] = []
    for item in text.split(sep):
        if lines and len(lines[-1]) + len(sep) + len(item) <= width:
            lines[-1] += sep + item
        else:
            lines += _wrap(item, width) or [item]
    return lines


def _title(ax, title: str, subtitle: str = "", width: int = 120, within_axes: bool = False) -> None:
    """The axes' title (left) and a smaller subtitle under it, wrapped at ``width`` characters;
    :func:`fit_titles` narrows the subtitle where it would run past the figure's right edge, or
    with ``within_axes`` past the axes' right end (where the forest plot heads its numbers)."""
    lines = _balanced(subtitle, width) if subtitle else []  # no last line of one word
    ax.set_title("\n".join(_wrap(title, 80)), fontsize=11, loc="left", pad=6 + 10 * len(lines))
    if lines:
        t = ax.text(
            0, 1.01, "\n".join(lines), transform=ax.transAxes, fontsize=8, color="#444444", va="bottom"
        )
        entry = (ax, t, subtitle, width, within_axes)
        ax.figure._subtitles = [*getattr(ax.figure, "_subtitles", []), entry]


#: the least room between a title or subtitle and the figure's edges, as a share of the figure's
#: width (about 0.2 inch on the 8-inch charts): text that ends closer is wrapped again
EDGE_MARGIN = 0.025


def _rewrap(text: str, chars: int) -> str:
    """``text`` with each of its lines longer than ``chars`` wrapped at ``chars`` (the lines it
    already has stay: they may be meant, such as a title over its parenthesis)."""
    out: list[str] = []
    for line in text.split("\n"):
        out += _balanced(line, chars) if len(line) > chars else [line]
    return "\n".join(out)


def _balanced(text: str, width: int) -> list[str]:
    """``text`` wrapped at most ``width`` characters a line, in as few lines as that takes but with
    the lines about equally long (no last line of one word)."""
    k = len(_wrap(text, width))
    for w in range(max(1, -(-len(text) // k)), width):
        if len(lines := _wrap(text, w)) <= k:
            return lines
    return _wrap(text, width)


def _title_texts(fig: Figure) -> list:
    """The figure's titles: its suptitle and every axes title (left, centre, right) that has text."""
    texts = [t for t in (getattr(fig, "_suptitle", None),) if t is not None and t.get_text()]
    for ax in fig.axes:
        texts += [t for t in (ax.title, ax._left_title, ax._right_title) if t.get_text()]
    return texts


def fit_titles(fig: Figure, margin: float = EDGE_MARGIN) -> Figure:
    """Wrap each title and subtitle short enough to end inside the figure with ``margin`` (a share
    of the figure's width) to spare on both sides: the subtitles of :func:`_title` (their axes may
    start far right of the figure's edge, after long tick labels; some end at their axes' right
    end), the axes titles and the
    suptitle. The layout is done again after each change. Returns ``fig``."""
    subs = getattr(fig, "_subtitles", [])
    for _ in range(6):
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        left, right = fig.bbox.x0 + margin * fig.bbox.width, fig.bbox.x1 - margin * fig.bbox.width
        changed = False
        for i, (ax, t, subtitle, width, within_axes) in enumerate(subs):
            box = t.get_window_extent(renderer)
            end = min(right, ax.get_window_extent(renderer).x1) if within_axes else right
            if box.x1 <= end or width <= 20:
                continue
            width = max(20, min(width - 1, int(width * (end - box.x0) / box.width) - 1))
            lines = _balanced(subtitle, width)
            t.set_text("\n".join(lines))
            ax.set_title(ax.get_title(loc="left"), fontsize=11, loc="left", pad=6 + 10 * len(lines))
            subs[i] = (ax, t, subtitle, width, within_axes)
            changed = True
        for t in _title_texts(fig):
            box = t.get_window_extent(renderer)
            ha = t.get_ha()
            over = (
                box.x1 > right
                if ha == "left"
                else box.x0 < left
                if ha == "right"
                else box.x1 > right or box.x0 < left
            )
            if not over or box.width <= 0:
                continue
            text = t.get_text()
            longest = max(len(x) for x in text.split("\n"))
            room = right - box.x0 if ha == "left" else box.x1 - left if ha == "right" else right - left
            chars = max(20, min(longest - 1, int(longest * room / box.width) - 1))
            if chars >= longest or longest <= 20:
                continue
            t.set_text(_rewrap(text, chars))
            changed = True
        if not changed:
            break
    return fig


def _fitted(chart):
    """A chart function whose figure comes back with its subtitles fitted (:func:`fit_titles`)."""

    @functools.wraps(chart)
    def wrapper(*args, **kwargs) -> Figure:
        return fit_titles(chart(*args, **kwargs))

    return wrapper
