"""Reading an experiment file field by field: the checker whose every refusal is one line
``PATH: FIELD: what is wrong`` (:class:`SpecError`).  The file itself: :mod:`.spec`."""

from __future__ import annotations

import math

from ..._plural import spelled


class SpecError(ValueError):
    """An experiment file that cannot be run: ``PATH: FIELD: reason``."""


class _Checker:
    preset: str | None = None  # the experiment's preset, once read (strategies such as tuned depend on it)
    rules = None  # the experiment's rules, once read: every strategy is checked against them

    def __init__(self, path):
        self.path = str(path)

    def fail(self, field: str, msg: str):
        raise SpecError(f"{self.path}: {field}: {msg}" if field else f"{self.path}: {msg}")

    def keys(self, table: dict, allowed: set, where: str):
        extra = sorted(set(table) - allowed)
        if extra:
            field = f"{where}.{extra[0]}" if where else extra[0]
            self.fail(field, f"unknown field; allowed: {', '.join(sorted(allowed))}")

    def text(self, table: dict, key: str, where: str, default=None, required=False) -> str | None:
        field = f"{where}.{key}" if where else key
        if key not in table:
            if required:
                self.fail(field, "missing (a text is required)")
            return default
        v = table[key]
        if not isinstance(v, str) or not v.strip():
            self.fail(field, f"must be a non-empty text, got {spelled(v)}")
        return v.strip()

    def integer(self, table: dict, key: str, default: int, lo: int, hi: int) -> int:
        v = table.get(key, default)
        if isinstance(v, bool) or not isinstance(v, int):
            self.fail(key, f"must be a whole number, got {spelled(v)}")
        if not lo <= v <= hi:
            self.fail(key, f"must be between {lo} and {hi}, got {v}")
        return v

    def number(self, table: dict, key: str, where: str, lo: float, hi: float, default=None):
        field = f"{where}.{key}"
        if key not in table:
            return default
        v = table[key]
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            self.fail(field, f"must be a number, got {spelled(v)}")
        if not lo < v < hi:
            below = f" and less than {hi:g}" if math.isfinite(hi) else ""
            self.fail(field, f"must be greater than {lo:g}{below}, got {spelled(v)}")
        return float(v)

    def strategy(self, text: str, params, field: str) -> str:
        """Canonical strategy text of ``text`` with ``params`` (a table) applied."""
        from tranca_sim.strategies import StrategyError, check_rules, resolve

        if params is not None and not isinstance(params, dict):
            self.fail(
                field.rsplit(".", 1)[0] + ".params",
                f"must be a table of name = number, got {spelled(params)}",
            )
        overrides = {}
        for k, v in (params or {}).items():
            if isinstance(v, bool) or not isinstance(v, int | float):
                self.fail(f"{field.rsplit('.', 1)[0]}.params.{k}", f"must be a number, got {spelled(v)}")
            overrides[k] = repr(float(v))
        try:
            spec = resolve(text, preset=self.preset, **overrides)
            if self.rules is not None:  # a strategy that cannot play the preset (search in buraco)
                check_rules([spec], self.rules)
            return spec.text
        except StrategyError as e:
            self.fail(field, str(e))


def _missing_fields(doc: dict) -> list[tuple[str, str]]:
    """Every required field the file leaves out, in file order: ``(field, what it takes)``; so one
    message names them all (fields of the wrong type are left to the checks that follow)."""
    out = [(k, "a text") for k in ("title", "question") if k not in doc]
    if "baseline" not in doc:
        out.append(("baseline", 'a strategy, e.g. "basic"'))
    if doc.get("design") == "fixed-opponent" and "opponent" not in doc:
        out.append(("opponent", "the fixed-opponent design's opponent strategy"))
    variants = doc.get("variants", [])
    for i, v in enumerate(variants if isinstance(variants, list) else []):
        if isinstance(v, dict) and "strategy" not in v and v.get("null") is not True:
            out.append((f"variants[{i}].strategy", "the variant's strategy"))
    sweep = doc.get("sweep")
    if isinstance(sweep, dict):
        out += [(f"sweep.{k}", what) for k, what in (("strategy", "a strategy"), ("param", "a parameter name"),
                                                      ("grid", "a list of values")) if k not in sweep]  # fmt: skip
    if variants == [] and sweep is None:
        out.append(("variants", "[[variants]] or a [sweep]: a variant to compare"))
    return out


def _fmt(v: float) -> str:
    return f"{v:g}"
