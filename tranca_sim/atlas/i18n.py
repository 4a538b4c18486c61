"""The atlas's words: one message catalogue per language (``locale/LANG/LC_MESSAGES/atlas.po``),
compiled at run time with Babel (``babel.messages``) into gettext's binary form and read by the
standard :mod:`gettext` machinery, so a fresh ``pip install -e .`` needs no build step.

Every label, title, legend and sentence a reader sees goes through :class:`Words`; the message
identifiers are the English text (English needs no catalogue of its own, but has one so a
missing identifier shows up the same way in every language: :func:`missing`).  Numbers are
written the language's way (``57,3`` in Portuguese and Spanish) by :meth:`Words.num`.
"""

from __future__ import annotations

import gettext
import io
from functools import cache
from pathlib import Path

from . import vocab

LOCALE_DIR = Path(__file__).parent / "locale"
DOMAIN = "atlas"
#: language tag -> Babel/gettext locale name
LOCALES = {"pt-BR": "pt_BR", "es": "es", "en": "en"}


class MissingCatalogue(RuntimeError):
    """A language without its catalogue file (an installation that left out package data)."""


@cache
def _translations(lang: str) -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    po = LOCALE_DIR / LOCALES[lang] / "LC_MESSAGES" / f"{DOMAIN}.po"
    if not po.is_file():
        raise MissingCatalogue(f"no message catalogue for {lang!r} ({po}): reinstall tranca-sim")
    with po.open("rb") as f:
        cat = read_po(f, locale=LOCALES[lang])
    buf = io.BytesIO()
    write_mo(buf, cat, use_fuzzy=False)
    buf.seek(0)
    return gettext.GNUTranslations(buf)


def catalogue(lang: str):
    """The Babel catalogue of ``lang`` (for the tests and :func:`missing`)."""
    from babel.messages.pofile import read_po

    with (LOCALE_DIR / LOCALES[lang] / "LC_MESSAGES" / f"{DOMAIN}.po").open("rb") as f:
        return read_po(f, locale=LOCALES[lang])


class Words:
    """The words of one language: ``w("Tip")``, ``w.n("deck", "decks", 3)``, ``w.num(57.25, 1)``."""

    def __init__(self, lang: str):
        if lang not in LOCALES:
            raise ValueError(f"language must be one of {', '.join(LOCALES)}, got {lang!r}")
        self.lang = lang
        self.locale = LOCALES[lang]
        self._t = _translations(lang)
        self.used: set[str] = set()

    def __call__(self, msgid: str, **fmt) -> str:
        self.used.add(msgid)
        text = self._t.gettext(msgid)
        return text.format(**fmt) if fmt else text

    def n(self, singular: str, plural: str, count: int, **fmt) -> str:
        self.used.add(singular)
        text = self._t.ngettext(singular, plural, count)
        return text.format(count=self.int(count), **fmt)

    def num(self, x: float, digits: int = 1, sign: bool = False) -> str:
        """``x`` with ``digits`` decimals, the language's separators (``+`` first when ``sign``)."""
        from babel.numbers import format_decimal

        pattern = "#,##0" + ("." + "0" * digits if digits else "")
        if sign:
            pattern = "+" + pattern + ";-" + pattern
        x = 0.0 if round(x, digits) == 0 else x  # no "-0,0"
        return format_decimal(x, format=pattern, locale=self.locale)

    def int(self, n: int) -> str:
        from babel.numbers import format_decimal

        return format_decimal(int(n), format="#,##0", locale=self.locale)

    def pct(self, x: float, digits: int = 0, sign: bool = False) -> str:
        """``x`` (a share, 0.25) as a percentage in the language's way."""
        return self.num(100 * x, digits, sign) + ("\u00a0%" if self.lang != "en" else "%")

    # ---- the codes in words (:mod:`.vocab`) ----
    def _named(self, table: dict, code: str) -> str:
        return self(table[code]) if code in table else code

    def preset_name(self, code: str) -> str:
        return self._named(vocab.PRESET_NAMES, code)

    def end_name(self, code: str) -> str:
        return self._named(vocab.END_NAMES, code)

    def strength_name(self, label: str) -> str:
        return self._named(vocab.STRENGTH_NAMES, label.split(":", 1)[0])

    def strength_about(self, label: str) -> str:
        return self._named(vocab.STRENGTH_ABOUT, label.split(":", 1)[0])

    def tip_title(self, param: str) -> str:
        return self(vocab.TIP_WORDS[param][0])

    def tip_play(self, param: str) -> str:
        return self(vocab.TIP_WORDS[param][1])

    def quote(self, ref: str) -> str:
        return self(vocab.SEED_QUOTES[ref])

    def source(self, ref: str) -> str:
        return self(vocab.SOURCES[ref[:3]])


def missing(lang: str, msgids) -> list[str]:
    """The identifiers of ``msgids`` the catalogue of ``lang`` leaves untranslated."""
    cat = catalogue(lang)
    out = []
    for m in sorted(set(msgids)):
        msg = cat.get(m)
        if msg is None or not msg.string or (isinstance(msg.string, tuple) and not all(msg.string)):
            out.append(m)
    return out
