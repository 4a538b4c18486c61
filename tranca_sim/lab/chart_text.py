"""Text in the charts of :mod:`tranca_sim.lab.charts`: the footnote wrapped
between its items, titles and subtitles wrapped to fit inside the figure."""

from __future__ import annotations

import functools
import textwrap

from matplotlib.figure import Figure

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
            lines += textwrap.wrap(item, width) or [item]
    return lines


def _title(ax, title: str, subtitle: str = "", width: int = 120) -> None:
    """The axes' title (left) and a smaller subtitle under it, wrapped at ``width`` characters;
    :func:`fit_titles` narrows the subtitle where it would run past the figure's right edge."""
    lines = textwrap.wrap(subtitle, width)
    ax.set_title("\n".join(textwrap.wrap(title, 80)), fontsize=11, loc="left", pad=6 + 10 * len(lines))
    if lines:
        t = ax.text(
            0, 1.01, "\n".join(lines), transform=ax.transAxes, fontsize=8, color="#444444", va="bottom"
        )
        ax.figure._subtitles = [*getattr(ax.figure, "_subtitles", []), (ax, t, subtitle, width)]


def fit_titles(fig: Figure, margin_px: float = 4.0) -> Figure:
    """Wrap each subtitle of :func:`_title` short enough to end inside the figure (its axes may
    start far right of the figure's edge, after long tick labels); the layout is done again after
    each change.  Returns ``fig``."""
    subs = getattr(fig, "_subtitles", [])
    for _ in range(4):
        if not subs:
            break
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        right = fig.bbox.x1 - margin_px
        changed = []
        for i, (ax, t, subtitle, width) in enumerate(subs):
            box = t.get_window_extent(renderer)
            if box.x1 <= right or width <= 20:
                continue
            width = max(20, int(width * (right - box.x0) / box.width) - 1)
            lines = textwrap.wrap(subtitle, width)
            t.set_text("\n".join(lines))
            ax.set_title(ax.get_title(loc="left"), fontsize=11, loc="left", pad=6 + 10 * len(lines))
            changed.append((i, (ax, t, subtitle, width)))
        if not changed:
            break
        for i, sub in changed:
            subs[i] = sub
    return fig


def _fitted(chart):
    """A chart function whose figure comes back with its subtitles fitted (:func:`fit_titles`)."""

    @functools.wraps(chart)
    def wrapper(*args, **kwargs) -> Figure:
        return fit_titles(chart(*args, **kwargs))

    return wrapper
