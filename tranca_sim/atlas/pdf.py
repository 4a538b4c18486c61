"""The atlas as one PDF (fpdf2, a pure-Python library from the package index): the same pages as
the site, in order, each starting a new sheet, with internal links; DejaVu fonts from matplotlib's
own data (every letter of Portuguese and Spanish).  The creation date is fpdf2's reproducible
value (the epoch), so the same inputs give the same file."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from .pages import Page


def _fonts(pdf) -> None:
    import matplotlib

    d = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    pdf.add_font("DejaVu", "", str(d / "DejaVuSans.ttf"))
    pdf.add_font("DejaVu", "B", str(d / "DejaVuSans-Bold.ttf"))
    pdf.add_font("DejaVu", "I", str(d / "DejaVuSans-Oblique.ttf"))
    pdf.add_font("DejaVuMono", "", str(d / "DejaVuSansMono.ttf"))


def _image_size(pdf, path: Path) -> tuple[float, float]:
    """Width and height (mm) a chart takes: the text width, three quarters of it for a square chart."""
    from PIL import Image

    with Image.open(path) as im:
        aspect = im.size[1] / im.size[0]
    w = pdf.epw if aspect < 0.75 else pdf.epw * 0.75
    return w, w * aspect


def _text(pdf, text: str, size: float = 10, style: str = "", h: float = 5) -> None:
    pdf.set_font("DejaVu", style, size)
    pdf.multi_cell(0, h, text, new_x="LMARGIN", new_y="NEXT")


def _table(pdf, header, rows, links: dict) -> None:
    ncol = len(header)
    width = pdf.epw
    size = 8 if ncol <= 5 else 6.5
    pdf.set_font("DejaVu", "", size)
    with pdf.table(width=width, line_height=size * 0.55, text_align="LEFT", first_row_as_headings=True) as t:
        r = t.row()
        for h in header:
            r.cell(str(h))
        for row in rows:
            r = t.row()
            for c in row:
                if isinstance(c, tuple) and c and c[0] == "link":
                    r.cell(c[1], link=links.get(c[2], ""))
                else:
                    r.cell(str(c))
    pdf.ln(2)


def write_pdf(pages: list[Page], img: Path, path: Path, title: str, lang: str) -> Path:
    """One pass: a link names its page (``#ID``), a named destination fpdf2 resolves when the
    page is drawn."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    # fpdf2's own value for a reproducible file (the epoch): the PDF carries no build time
    pdf.creation_date = datetime(1969, 12, 31, 19, 0, 0, tzinfo=UTC)
    pdf.set_title(title)
    pdf.set_lang(lang)
    pdf.set_auto_page_break(True, margin=15)
    _fonts(pdf)
    links = {p.id: "#" + p.id for p in pages}
    for p in pages:
        pdf.add_page()
        pdf.set_link(name=p.id, page=pdf.page)
        _text(pdf, p.title, 16, "B", 8)
        pdf.ln(2)
        for i, b in enumerate(p.blocks):
            kind = b[0]
            if kind == "h2":
                nxt = p.blocks[i + 1] if i + 1 < len(p.blocks) else None
                room = 12 + (_image_size(pdf, img / nxt[1])[1] if nxt and nxt[0] == "img" else 50)
                if pdf.get_y() + room > pdf.h - 20:  # no heading alone at the foot of a sheet
                    pdf.add_page()
                pdf.ln(2)
                _text(pdf, b[1], 12, "B", 6)
            elif kind == "p":
                _text(pdf, b[1])
                pdf.ln(1)
            elif kind == "note":
                pdf.set_font("DejaVu", "B", 10)
                pdf.multi_cell(0, 5, b[1], border=1, padding=2, new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
            elif kind == "quote":
                _text(pdf, "“" + b[1] + "”", 10, "I")
                _text(pdf, "— " + b[2], 8)
                pdf.ln(1)
            elif kind == "table":
                _table(pdf, b[1], b[2], links)
            elif kind == "img":
                w, h = _image_size(pdf, img / b[1])
                if pdf.get_y() + h > pdf.h - 20:
                    pdf.add_page()
                pdf.image(str(img / b[1]), w=w, alt_text=b[2])
                _text(pdf, b[3], 8)
                pdf.ln(2)
            elif kind == "links":
                pdf.set_font("DejaVu", "", 9)
                for t, pid in b[1]:
                    pdf.cell(0, 5, "→ " + t, link=links.get(pid, ""), new_x="LMARGIN", new_y="NEXT")
            elif kind == "pre":
                _text(pdf, b[1], 9, "B")
                pdf.set_font("DejaVuMono", "", 6.5)
                pdf.multi_cell(0, 3.2, b[2], new_x="LMARGIN", new_y="NEXT")
            else:
                raise ValueError(f"unknown block {kind!r}")
    from .files import whole

    with whole(path) as tmp:
        pdf.output(str(tmp))
    return path
