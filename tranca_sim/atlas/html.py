"""The atlas's static HTML site: one file per page (``ID.html``), charts under ``img/``, one style
sheet inlined so a page reads alone; narrow screens get one column, wide tables scroll."""

from __future__ import annotations

from html import escape
from pathlib import Path

from .files import write_text
from .pages import Page

CSS = """
body{font-family:"DejaVu Sans",Verdana,sans-serif;margin:0 auto;max-width:52rem;padding:0 1rem 3rem;
line-height:1.5;color:#111;background:#fff}
h1{font-size:1.6rem;margin:1.2rem 0 .6rem}h2{font-size:1.2rem;margin:1.6rem 0 .4rem;border-bottom:1px solid #999}
nav.top{font-size:.9rem;margin-top:.8rem}nav.top a{margin-right:1rem}
.note{border:2px solid #111;padding:.6rem .8rem;margin:1rem 0;background:#f2f2f2}
blockquote{margin:.8rem 0;padding:.2rem 1rem;border-left:4px solid #555;font-style:italic}
blockquote footer{font-style:normal;font-size:.85rem;color:#333}
.table{overflow-x:auto}table{border-collapse:collapse;margin:.6rem 0;font-size:.9rem}
th,td{border:1px solid #888;padding:.3rem .5rem;text-align:left;vertical-align:top}th{background:#e6e6e6}
figure{margin:1rem 0}figure img{max-width:100%;height:auto;border:1px solid #ccc}
figcaption{font-size:.85rem;color:#222}
pre{white-space:pre-wrap;font-size:.75rem;background:#f4f4f4;padding:.5rem;overflow-x:auto}
ul.links{list-style:none;padding:0}ul.links li{margin:.3rem 0}
@media print{nav.top{display:none}.note{background:none}}
"""


def _cell(c, tag: str) -> str:
    if isinstance(c, tuple) and c and c[0] == "link":
        return f'<{tag}><a href="{escape(c[2])}.html">{escape(c[1])}</a></{tag}>'
    return f"<{tag}>{escape(str(c))}</{tag}>"


def block_html(b: tuple) -> str:
    kind = b[0]
    if kind == "h2":
        return f"<h2>{escape(b[1])}</h2>"
    if kind == "p":
        return f"<p>{escape(b[1])}</p>"
    if kind == "note":
        return f'<p class="note">{escape(b[1])}</p>'
    if kind == "quote":
        return f"<blockquote><p>{escape(b[1])}</p><footer>{escape(b[2])}</footer></blockquote>"
    if kind == "table":
        head = "".join(_cell(h, "th") for h in b[1])
        body = "".join("<tr>" + "".join(_cell(c, "td") for c in r) + "</tr>" for r in b[2])
        return f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    if kind == "img":
        return (f'<figure><img src="img/{escape(b[1])}" alt="{escape(b[2])}">'
                f"<figcaption>{escape(b[3])}</figcaption></figure>")  # fmt: skip
    if kind == "links":
        items = "".join(f'<li><a href="{escape(pid)}.html">{escape(t)}</a></li>' for t, pid in b[1])
        return f'<ul class="links">{items}</ul>'
    if kind == "pre":
        return f"<h3>{escape(b[1])}</h3><pre>{escape(b[2])}</pre>"
    raise ValueError(f"unknown block {kind!r}")


def page_html(page: Page, lang: str, nav: list[tuple[str, str]]) -> str:
    """One page; ``nav``: the links at its top, ``(text, href)``."""
    links = "".join(f'<a href="{escape(href)}">{escape(t)}</a>' for t, href in nav)
    body = "\n".join(block_html(b) for b in page.blocks)
    return (
        f'<!DOCTYPE html>\n<html lang="{escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(page.title)}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f'<nav class="top">{links}</nav>\n<h1>{escape(page.title)}</h1>\n{body}\n</body>\n</html>\n'
    )


def write_site(pages: list[Page], out: Path, lang: str, nav: list[tuple[str, str]]) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for p in pages:
        f = out / f"{p.id}.html"
        write_text(f, page_html(p, lang, nav))
        written.append(f)
    return written
