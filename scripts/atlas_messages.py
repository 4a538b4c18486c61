"""Gather the atlas's words into its message catalogues (Babel): every ``w("...")`` and
``w.n("...", "...", n)`` call of tranca_sim/atlas/ and every word of tranca_sim/atlas/vocab.py,
written to tranca_sim/atlas/locale/atlas.pot and merged into each language's ``atlas.po``
(translations kept; new words added untranslated, words no longer used dropped).

    python scripts/atlas_messages.py           # then translate the new entries of each .po
    python scripts/atlas_messages.py --check   # exit 1 if a catalogue lacks a word or a translation

tests/test_atlas.py checks the same for every language.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ATLAS = ROOT / "tranca_sim" / "atlas"
LOCALES = ("pt_BR", "es", "en")


def template():
    from babel.messages.catalog import Catalog
    from babel.messages.extract import extract_from_dir

    sys.path.insert(0, str(ROOT))
    from tranca_sim.atlas import vocab

    cat = Catalog(project="tranca-sim atlas", domain="atlas", charset="utf-8")
    keywords = {"w": None, "n": (1, 2)}
    for fname, lineno, message, comments, _ctx in extract_from_dir(
        str(ATLAS),
        method_map=[("**.py", "python")],
        keywords=keywords,
        comment_tags=(),
        strip_comment_tags=True,
    ):
        cat.add(message, locations=[(f"atlas/{fname}", lineno)])
    for name in (
        "PRESET_NAMES",
        "STRENGTH_NAMES",
        "STRENGTH_ABOUT",
        "END_NAMES",
        "SOURCES",
        "SEED_QUOTES",
        "CHECK_WORDS",
    ):
        for msg in getattr(vocab, name).values():
            cat.add(msg, locations=[(f"atlas/vocab.py:{name}", 0)])
    for title, play in vocab.TIP_WORDS.values():
        cat.add(title, locations=[("atlas/vocab.py:TIP_WORDS", 0)])
        cat.add(play, locations=[("atlas/vocab.py:TIP_WORDS", 0)])
    return cat


def main(argv) -> int:
    from babel.messages.catalog import Catalog
    from babel.messages.pofile import read_po, write_po

    tpl = template()
    check = "--check" in argv
    bad = 0
    if not check:
        with (ATLAS / "locale" / "atlas.pot").open("wb") as f:
            write_po(f, tpl, omit_header=False, sort_output=True, width=100, include_lineno=False)
    for loc in LOCALES:
        po = ATLAS / "locale" / loc / "LC_MESSAGES" / "atlas.po"
        if po.is_file():
            with po.open("rb") as f:
                cat = read_po(f, locale=loc)
        else:
            cat = Catalog(locale=loc, domain="atlas", project="tranca-sim atlas", charset="utf-8")
        cat.update(tpl, no_fuzzy_matching=True)
        if loc == "en":  # the identifiers are the English words
            for m in cat:
                if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string))):
                    m.string = m.id if isinstance(m.id, str) else tuple(m.id)
        empty = [
            m.id
            for m in cat
            if m.id and (not m.string or (isinstance(m.string, tuple) and not all(m.string)))
        ]
        if check:
            if empty:
                bad += 1
                print(f"{loc}: {len(empty)} untranslated: {empty[:3]}")
            continue
        po.parent.mkdir(parents=True, exist_ok=True)
        cat.obsolete.clear()
        with po.open("wb") as f:
            write_po(f, cat, sort_output=True, width=100, include_lineno=False, ignore_obsolete=True)
        print(f"{loc}: {len(cat)} words, {len(empty)} untranslated")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
