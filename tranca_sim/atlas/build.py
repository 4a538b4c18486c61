"""``tranca-sim atlas``: plan the experiments, play or reuse them, and write the guide in each
language: ``OUT/LANG/*.html`` (charts in ``OUT/LANG/img/``), ``OUT/LANG/atlas-LANG.pdf`` and a
language chooser ``OUT/index.html``.  Finished experiments are kept in the cache (``OUT/.cache``
by default) and reused by a later run with the same inputs (:mod:`.cache`)."""

from __future__ import annotations

import time
from pathlib import Path

from .plan import DEFAULT_PRESETS, FULL, QUICK, plan

#: each language's name in itself (the chooser page)
LANGUAGE_NAMES = {"pt-BR": "Português (Brasil)", "es": "Español", "en": "English"}


class AtlasError(ValueError):
    """A bad request (one readable line)."""


def check_presets(presets) -> tuple[str, ...]:
    from ..rules import PRESETS

    for p in presets:
        if p not in PRESETS:
            raise AtlasError(f"--preset {p!r}: not a preset; choose from {', '.join(PRESETS)}")
        if PRESETS[p].n_seats == 3:
            raise AtlasError(
                f"--preset {p!r}: the atlas measures tips on duplicate decks, which need two sides; "
                f"{p} seats three solo players"
            )
    return tuple(presets)


def play_all(items, cache: Path, threads, progress, say=print) -> tuple[list[dict], int, int]:
    from . import cache as _cache
    from .figures import read_record

    entries, played, reused = [], 0, 0
    for it in items:
        t0 = time.time()
        say(
            f"atlas: {it.name}: {'reusing' if _cache.is_finished(_cache.entry_dir(cache, it)) else 'playing'} ..."
        )
        d, was_played = _cache.obtain(cache, it, threads=threads, progress=progress)
        played += was_played
        reused += not was_played
        rec = read_record(d)
        entries.append({"name": it.name, "kind": it.kind, "preset": it.preset, "dir": d, "text": it.text,
                        "key": _cache.input_key(it), "deals": int(rec.get("deals_total") or 0),
                        "seconds": time.time() - t0})  # fmt: skip
    return entries, played, reused


def read_data(entries: list[dict], quick: bool) -> dict:
    from ..rules import PRESETS
    from .equity import applies, deal_pool, equity_table
    from .figures import rules_figures, tip_figures

    data: dict[str, dict] = {}
    for e in entries:
        if e["kind"] == "tips":
            fig = tip_figures(e["dir"])
        else:
            fig = rules_figures(e["dir"])
            rules, sc = PRESETS[e["preset"]], fig["scores"]
            fig["equity"] = None if applies(rules) else equity_table(
                deal_pool(sc[:, 0], sc[:, 1]), rules.match_target, 200 if quick else 4000
            )  # fmt: skip
        data.setdefault(e["preset"], {})[e["kind"]] = fig
    return data


def build_language(out: Path, lang: str, presets, data: dict, entries, quick: bool) -> dict:
    from . import book, html, pdf
    from .i18n import Words
    from .method import method_page

    w = Words(lang)
    d = out / lang
    img = d / "img"
    pages = [book.index_page(w, list(presets), data, quick)]
    for p in presets:
        tips = data[p].get("tips")
        pages.append(book.rules_page(w, p, data[p]["rules"], tips, img, quick))
        for param in (tips or {}).get("tips", {}):
            pages.append(book.tip_page(w, p, tips, param, img, quick))
    pages.append(method_page(w, list(presets), data, entries, "quick" if quick else "full"))
    pdf_name = f"atlas-{lang}.pdf"
    nav = [(w("Contents"), "index.html"), (w("Method appendix"), "method.html"), (w("PDF"), pdf_name),
           (w("Languages"), "../index.html")]  # fmt: skip
    files = html.write_site(pages, d, lang, nav)
    pdf_path = pdf.write_pdf(pages, img, d / pdf_name, pages[0].title, lang)
    return {"pages": files, "pdf": pdf_path, "words": w, "page_objects": pages}


def write_chooser(out: Path, languages) -> Path:
    from html import escape

    from .files import write_text

    items = "".join(
        f'<li><a href="{escape(lang)}/index.html">{escape(LANGUAGE_NAMES[lang])}</a> · '
        f'<a href="{escape(lang)}/atlas-{escape(lang)}.pdf">PDF</a></li>'
        for lang in languages
    )
    return write_text(
        out / "index.html",
        '<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n<title>Tip Atlas</title>\n'
        "</head>\n<body style=\"font-family:'DejaVu Sans',Verdana,sans-serif;max-width:40rem;margin:2rem auto;"
        f'padding:0 1rem">\n<h1>Tip Atlas</h1>\n<ul>{items}</ul>\n</body>\n</html>\n',
    )


#: the file that marks a directory as an atlas's output (``tranca_sim.lab.output_dir.OUTPUT_KINDS``)
MARK = "atlas.json"


def write_mark(out: Path, languages, presets) -> Path:
    """Mark ``out`` as the atlas's output before anything is played, so an interrupted atlas is
    an earlier atlas output too: ``--force`` rebuilds it, reusing the finished experiments of its
    cache, and never another command's or a user's directory."""
    import json

    from .files import write_text

    mark = {"tranca_sim": "atlas", "languages": list(languages), "presets": list(presets)}
    return write_text(Path(out) / MARK, json.dumps(mark, indent=1) + "\n")


def build_atlas(out: Path, languages=("pt-BR",), presets=None, quick=False, cache_dir=None, threads=None,
                progress=True, say=print, size=None, only=None) -> dict:  # fmt: skip
    """Play or reuse the atlas's experiments and write it into ``out``; returns ``out``, ``cache``,
    ``played``, ``reused`` (experiments), ``pages`` (HTML files) and ``pdfs``.  ``size`` (a
    :class:`.plan.Size`) and ``only`` (tip parameters) make a smaller atlas (the tests')."""
    presets = check_presets(presets or DEFAULT_PRESETS)
    out = Path(out)
    cache = Path(cache_dir) if cache_dir else out / ".cache"
    write_mark(out, languages, presets)
    items = plan(presets, size or (QUICK if quick else FULL), only)
    entries, played, reused = play_all(items, cache, threads, progress, say)
    return write_atlas(out, languages, presets, entries, quick or size is not None) | {"cache": str(cache), "played": played,
                                                                    "reused": reused}  # fmt: skip


def write_atlas(out: Path, languages, presets, entries: list[dict], quick: bool) -> dict:
    """The pages and PDFs of every language from finished experiments (``entries`` of :func:`play_all`)."""
    data = read_data(entries, quick)
    pages, pdfs, built = [], [], {}
    for lang in languages:
        r = build_language(out, lang, presets, data, entries, quick)
        pages += r["pages"]
        pdfs.append(r["pdf"])
        built[lang] = r
    pages.append(write_chooser(out, languages))
    return {"out": str(out), "pages": pages, "pdfs": pdfs, "built": built}
