"""Counts and values in messages and reports: ``1 deck``, ``2 decks`` (never ``1 decks``), and a
value as the user typed it (``true``, not Python's ``True``)."""

from __future__ import annotations


def noun(n, word: str, many: str | None = None) -> str:
    """``word`` for a count of ``n`` (1: the singular), else ``many`` (default ``word + "s"``)."""
    return word if n == 1 else (many or word + "s")


def plural(n, word: str, many: str | None = None, fmt: str = "") -> str:
    """``n`` formatted with ``fmt`` and the noun that fits it: ``plural(1, "deck")`` is
    ``"1 deck"``, ``plural(2000, "match", "matches", ",")`` is ``"2,000 matches"``."""
    return f"{format(n, fmt)} {noun(n, word, many)}"


def spelled(v) -> str:
    """A value in a user's message as a TOML file or ``--rule`` takes it: ``true``/``false`` (numpy
    bools too), ``inf``, ``"text"``, ``[1, 2]``, ``{ a = 1 }``; never Python's ``True`` or
    ``'text'``."""
    import math
    from numbers import Real

    if isinstance(v, bool) or (type(v).__module__ == "numpy" and type(v).__name__ in ("bool", "bool_")):
        return "true" if v else "false"
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, Real) and not isinstance(v, int) and not math.isfinite(float(v)):
        return "nan" if math.isnan(float(v)) else ("inf" if v > 0 else "-inf")
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(spelled(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{k} = {spelled(x)}" for k, x in v.items()) + " }" if v else "{}"
    return repr(v)
