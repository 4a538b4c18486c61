"""Counts in messages and reports: ``1 deck``, ``2 decks`` (never ``1 decks``)."""

from __future__ import annotations


def noun(n, word: str, many: str | None = None) -> str:
    """``word`` for a count of ``n`` (1: the singular), else ``many`` (default ``word + "s"``)."""
    return word if n == 1 else (many or word + "s")


def plural(n, word: str, many: str | None = None, fmt: str = "") -> str:
    """``n`` formatted with ``fmt`` and the noun that fits it: ``plural(1, "deck")`` is
    ``"1 deck"``, ``plural(2000, "match", "matches", ",")`` is ``"2,000 matches"``."""
    return f"{format(n, fmt)} {noun(n, word, many)}"
