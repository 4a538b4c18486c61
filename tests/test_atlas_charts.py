"""The atlas's tip strength chart: the words of a row that is not measured (the tip's check failed)
stay inside the chart's frame in every language, wherever the other rows put the axis, and the
dashed zero line does not run through them (a quick atlas's morto_rush chart showed the label
centred on x = 0, across the zero line and past the frame)."""

from __future__ import annotations

import pytest


def _row(check="passes", mean=55.0, lo=50.0, hi=60.0):
    return {"check": check, "mean": mean, "lo": lo, "hi": hi, "confirmed": False}


@pytest.mark.parametrize("lang", ["en", "pt-BR", "es"])
@pytest.mark.parametrize(
    "rows",
    [
        {"basic": _row("FAILS"), "tuned": _row()},  # the axis runs 0..60: x = 0 is the frame's left edge
        {"basic": _row(mean=-55.0, lo=-60.0, hi=-50.0), "tuned": _row("FAILS")},  # 0 is the right edge
        {"basic": _row("FAILS"), "tuned": _row("FAILS")},  # nothing drawn but the words
    ],
    ids=["zero-at-left", "zero-at-right", "all-flagged"],
)
def test_the_not_measured_words_fit_inside_the_frame_clear_of_the_zero_line(lang, rows):
    import matplotlib.pyplot as plt

    from tranca_sim.atlas.charts import strength_figure
    from tranca_sim.atlas.i18n import Words

    w = Words(lang)
    fig = strength_figure({"param": "morto_rush", "rows": rows}, list(rows), w)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    ax = fig.axes[0]
    frame = ax.get_window_extent(r)
    label = w("not measured: the tip did not do what it says")
    words = [t for t in ax.texts if t.get_text().replace("\n", " ") == label]
    assert len(words) == sum(x["check"] == "FAILS" for x in rows.values())
    zero = next(ln for ln in ax.lines if ln.get_linestyle() == "--")
    zx = ax.transData.transform((0, 0))[0]
    for t in words:
        box = t.get_window_extent(r)
        assert frame.x0 <= box.x0 and box.x1 <= frame.x1, (lang, box, frame)
        assert frame.y0 <= box.y0 and box.y1 <= frame.y1, (lang, box, frame)
        if box.x0 < zx < box.x1:  # crossing the zero line's place: drawn on white, above it
            patch = t.get_bbox_patch()
            assert patch is not None and patch.get_facecolor()[:3] == (1.0, 1.0, 1.0)
            assert t.get_zorder() > zero.get_zorder()
    plt.close(fig)
