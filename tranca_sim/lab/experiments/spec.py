"""Experiment files: ``experiments/NAME.toml`` read and checked field by field.

An experiment file declares one question::

    name = "tranca-tips"                 # default: the file name without .toml
    title = "Which Tranca tips win points?"
    question = "How many points a deal does each tip of the rule guides win or lose against basic?"
    preset = "tranca"                    # default tranca ('tranca-sim presets')
    baseline = "basic"                   # strategy text ('tranca-sim strategies')
    design = "duplicate"                 # or "fixed-opponent" (then: opponent = "random");
                                         # three players (tranca-3p): "rotation", the default there
    seed = 20261130                      # master seed of every run; default 1
    batch = 2000                         # deals per variant between two looks at the data; default 2000
    budget = 200000                      # most deals per variant; default 100000

    [rules]                              # optional changes to the preset (docs/rules.md)
    max_wilds = 1

    [stopping]                           # optional: without it every variant plays its budget
    half_width = 5.0                     # stop a variant when its interval's half-width is below this
    alpha = 0.05                         # 1 - confidence level; default 0.05
    tune = 20000                         # deals per variant where the interval is tightest (optional)

    [decision]                           # optional: a sequential test with both error rates fixed
    delta = 10.0                         # H1: a gain or loss of this many points a deal (H0: none)
    delta_outcome = 0.02                 # H1 of the deck outcome: its score 1/2 +- this
    alpha = 0.05                         # false gains and losses, family-wise (Holm); default 0.05
    beta = 0.05                          # missed effects of delta, family-wise; default 0.05
    min_decks = 200                      # no decision before this many decks (units); default 0

    [[variants]]                         # any number; label defaults to the strategy text
    label = "never go out early"
    strategy = "basic"
    params = { go_out = 0 }              # or strategy = "basic:go_out=0"
    note = "000 tip ..."                 # optional, shown in the report

    [[variants]]                         # a null: the baseline against itself, the deck's other
    null = true                          # plays on other cards (true difference exactly 0)

    [sweep]                              # optional: one parameter over a grid (a curve)
    strategy = "basic"
    param = "take_pile_min"
    grid = [1, 2, 3, 5, 8]
    params = { wild_reserve = 0 }        # optional fixed parameters
    note = "take the pile when ..."      # optional: what the parameter means (sweep chart subtitle)

Deals are counted per variant: in the duplicate design a deck is played twice
(once each way), so ``batch`` and ``budget`` must be even and a variant plays
``budget / 2`` decks at most.  At three solo players (``tranca-3p``) the design
is ``rotation`` (:mod:`tranca_sim.lab.statistics.rotation`): a deck is played three
times, the variant once in each seat, so ``batch`` and ``budget`` must be
multiples of 3 (defaults 2100 and 99900) and a variant plays ``budget / 3``
decks at most; ``duplicate`` and ``fixed-opponent`` compare two sides and are
refused there, as ``rotation`` is at two sides.

With ``[decision]`` every variant is decided by the sequential test of
:mod:`tranca_sim.lab.statistics.decision` (a gain, a loss, or no effect of ``delta``), on its points and on
its deck outcome, Holm over the variants in each; a variant stops once both are decided (and its
interval is narrow enough, when ``[stopping]`` sets ``half_width`` too) or its budget is spent.

A ``null = true`` variant is the baseline itself, played so that the true difference is exactly 0
but the units are not: the runs that would repeat a deck (the duplicate's second way round, the
fixed opponent's variant run, the rotation's second and third seats) deal other cards (another
master seed, :func:`tranca_sim.lab.statistics.designs.null_seed`); a check of the lab's calibration
(docs/statistics.md).

Every problem raises :class:`SpecError` with one line ``PATH: FIELD: what is wrong``.
"""

from __future__ import annotations

import math
import tomllib
from pathlib import Path

from ..._plural import spelled
from ..statistics.designs import DEALS_PER_UNIT, DESIGNS, DESIGNS_BY_SIDES

#: defaults of batch and budget (deals per variant): whole units of each design
_DEFAULT_BATCH = {"duplicate": 2000, "fixed-opponent": 2000, "rotation": 2100}
_DEFAULT_BUDGET = {"duplicate": 100_000, "fixed-opponent": 100_000, "rotation": 99_900}
_MULTIPLE = {1: "a whole number", 2: "even", 3: "a multiple of 3"}
_WHY = {
    "duplicate": "each deck is played twice, once each way",
    "fixed-opponent": "each deal is one unit",
    "rotation": "each deck is played three times, the variant once in each seat",
}

#: the most deals per variant an experiment may ask for
MAX_BUDGET = 10**10

_TOP = {
    "name",
    "title",
    "question",
    "preset",
    "rules",
    "baseline",
    "design",
    "opponent",
    "seed",
    "batch",
    "budget",
    "stopping",
    "decision",
    "variants",
    "sweep",
    "strength",
    "blocks",
}
_STOPPING = {"half_width", "alpha", "tune"}
_DECISION = {"delta", "delta_outcome", "alpha", "beta", "min_decks"}
_VARIANT = {"label", "strategy", "params", "note", "null", "play_anyway"}
_SWEEP = {"strategy", "param", "grid", "params", "label", "note"}


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
                field.rsplit(".", 1)[0] + ".params", f"must be a table of name = number, got {spelled(params)}"
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


def _check_inert(c, variants: list[dict], baseline: str, rules, path) -> None:
    """Refuse a variant or sweep that changes, against the baseline, a parameter that cannot change
    play under the experiment's rules (a rule it acts on is off: ``black3_lock`` in Buraco); warn
    (:class:`tranca_sim.strategies.inert.InertParameterWarning`, one line) for one only measured to change
    nothing there (:mod:`tranca_sim.strategies.inert`)."""
    from tranca_sim.strategies.inert import inert_changes, warn

    warned = set()
    for i, v in enumerate(variants):
        for param, reason, ruled in inert_changes(v["strategy"], baseline, rules, rules.name):
            if v["param"] is None:
                where = f"variants[{i}].strategy"
            else:
                where = "sweep.param" if param == v["param"] else "sweep.params"
            if ruled:
                c.fail(where, f"{reason}; the variant would play exactly as the baseline")
            if (where, param) not in warned:
                warned.add((where, param))
                warn(f"{path}: {where} ({v['label']}): {reason}")


def _null_strategy(c, v: dict, where: str, baseline: str) -> tuple[str, str]:
    """``(text shown, canonical text)`` of a ``null = true`` variant: the baseline; a strategy or
    parameters given beside it must be the baseline's."""
    if "strategy" not in v and not v.get("params"):
        return "baseline", baseline
    given = c.text(v, "strategy", where, default=baseline)
    text = c.strategy(given, v.get("params"), f"{where}.strategy")
    if text != baseline:
        c.fail(
            f"{where}.null",
            f"a null variant plays the baseline ({baseline}) against itself; its strategy is {text}: "
            "leave out strategy and params, or drop null = true",
        )
    return given, text


def _decision(c, table) -> dict | None:
    """The ``[decision]`` table checked: ``delta`` and ``delta_outcome`` (required), ``alpha`` and
    ``beta`` (default 0.05 each); None without the table."""
    if table is None:
        return None
    if not isinstance(table, dict):
        c.fail("decision", f"must be a table, got {spelled(table)}")
    c.keys(table, _DECISION, "decision")
    for key, what in (
        ("delta", "the effect H1 names, points a deal (e.g. delta = 10)"),
        ("delta_outcome", "the deck outcome's effect H1 names, a score above or below 1/2 (e.g. 0.02)"),
    ):
        if key not in table:
            c.fail(f"decision.{key}", f"missing: {what}")
    v = table["delta"]
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v) or v <= 0:
        c.fail("decision.delta", f"must be a positive number of points a deal, got {spelled(v)}")
    delta = float(v)
    delta_outcome = c.number(table, "delta_outcome", "decision", 0, 0.5)
    alpha = c.number(table, "alpha", "decision", 0, 0.5, default=0.05)
    beta = c.number(table, "beta", "decision", 0, 0.5, default=0.05)
    m = table.get("min_decks", 0)
    if isinstance(m, bool) or not isinstance(m, int) or m < 0:
        c.fail("decision.min_decks", f"must be a whole number of decks, 0 or more, got {spelled(m)}")
    return {
        "method": DECISION_METHOD,
        "delta": delta,
        "delta_outcome": delta_outcome,
        "alpha": alpha,
        "beta": beta,
        "min_decks": m,
    }


#: the decision rule's name, as experiment.json and the reports give it
DECISION_METHOD = (
    "generalised SPRT on the unit (normal approximation of fishtest's pentanomial GSPRT), two-sided, "
    "Wald's boundaries, sequential Holm over the variants (Bartroff & Song 2014)"
)


def _rule(half_width, decision) -> str:
    """The stopping rule in words."""
    parts = []
    if decision is not None:
        parts.append("its points and its deck outcome are both decided (a gain, a loss or no effect)")
    if half_width is not None:
        parts.append("its own interval is narrow enough")
    return "per variant: a variant stops when " + " and ".join(parts) + " or its budget is spent; the others go on"


class IdleVariantWarning(UserWarning):
    """A variant or sweep point that plays exactly as the baseline or as an earlier variant: not
    played, not compared (one line)."""


def _drop_idle(c, variants: list[dict], baseline: str, path) -> list[dict]:
    """The variants worth playing: one that plays exactly as the baseline (the same strategy, a sweep
    value equal to the baseline's own) or as an earlier variant is said in one line
    (:class:`IdleVariantWarning`), gets no deals and stays out of the comparisons, so out of the
    Holm family (its difference is 0 by construction, or the earlier variant's).  A ``null = true``
    variant is the baseline on purpose (on other decks) and is kept.  A file whose every variant is
    idle is refused."""
    import warnings

    kept, seen = [], {}
    for i, v in enumerate(variants):
        where = f"variants[{i}]" if v["param"] is None else "sweep.grid"
        if v.get("null") or v.get("play_anyway"):  # on purpose: the baseline on other decks (a check
            kept.append(v)  # of the lab's calibration), or on the same decks (a check that the
            continue  # design gives exactly 0 on every deck)
        if v["strategy"] == baseline:
            if v["param"] is None:
                why = (
                    "plays exactly as the baseline (the same strategy and parameters; null = true plays "
                    "the baseline on other decks, as a check)"
                )
            else:
                why = f"{v['param']}={_fmt(v['value'])} is the baseline's own value"
            warnings.warn(
                IdleVariantWarning(
                    f"{path}: {where} ({v['label']}): {why}: not played and not compared "
                    "(a difference of 0 by construction)"
                    + ("; the sweep chart marks it as the baseline" if v["param"] is not None else "")
                ),
                stacklevel=3,
            )
            continue
        if v["strategy"] in seen:
            warnings.warn(
                IdleVariantWarning(
                    f"{path}: {where} ({v['label']}): plays exactly as the variant {seen[v['strategy']]!r} "
                    "(the same strategy and parameters): played and compared once"
                ),
                stacklevel=3,
            )
            continue
        seen[v["strategy"]] = v["label"]
        kept.append(v)
    if not kept:
        c.fail("variants", "every variant plays exactly as the baseline: nothing to compare")
    return kept


def load_spec(path, deals_cap: int | None = None) -> dict:
    """Read and check an experiment file.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.toml`` file.
    deals_cap : int, optional
        Most deals per variant (the CLI's ``--deals``): lowers ``budget`` (and
        ``batch`` if larger) for a quick look; must be even for the duplicate
        design (SpecError otherwise).

    Returns
    -------
    dict
        The resolved specification: ``name``, ``title``, ``question``,
        ``preset``, ``rules`` (the full rule set as a dict), ``rule_options``,
        ``baseline`` (canonical strategy text), ``design``, ``opponent`` (or
        None), ``seed``, ``batch``, ``budget`` (deals per variant),
        ``deals_cap``, ``stopping`` (``method``, ``half_width`` or None,
        ``alpha``, ``tune``), ``variants``: list of dicts ``label``,
        ``strategy`` (canonical text), ``param`` and ``value`` (sweep points,
        else None), ``note``; ``sweep`` (``strategy``, ``param``, ``grid``) or None.

    Raises
    ------
    SpecError
        ``PATH: FIELD: reason`` for an unreadable or malformed file, an unknown
        field, a missing or wrong value, an unknown preset, rule option,
        strategy or parameter, an odd batch or budget in the duplicate design,
        or two variants with the same label.
    """
    import dataclasses

    from ...rules import RulesError, get_preset
    from ...run import coerce_rule_options
    from ..statistics.inference import CS_METHOD

    c = _Checker(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        c.fail("", f"cannot read the experiment file ({e.strerror or e})")
    try:
        doc = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError:
        c.fail("", "not a UTF-8 text file")
    except tomllib.TOMLDecodeError as e:
        c.fail("", f"not valid TOML ({e})")
    c.keys(doc, _TOP, "")
    missing = _missing_fields(doc)
    if len(missing) > 1:
        c.fail("", f"{len(missing)} required fields missing: " + "; ".join(f"{k} ({w})" for k, w in missing))
    name = c.text(doc, "name", "", default=Path(path).stem)
    if not all(ch.isalnum() or ch in "-_." for ch in name):
        if "name" not in doc:  # the file's name gave it: say so, and how to set another
            c.fail(
                "name",
                f"the experiment's name comes from the file name, {name!r}, which has characters other "
                "than letters, digits, '-', '_' and '.'; rename the file or set one with name = \"...\"",
            )
        c.fail("name", f"use letters, digits, '-', '_' and '.' only, got {name!r}")
    title = c.text(doc, "title", "", required=True)
    question = c.text(doc, "question", "", required=True)
    preset = c.text(doc, "preset", "", default="tranca")
    try:
        rules = get_preset(preset)
    except RulesError as e:
        c.fail("preset", str(e))
    c.preset = preset
    rule_opts = doc.get("rules", {})
    if not isinstance(rule_opts, dict):
        c.fail("rules", f"must be a table of option = value, got {spelled(rule_opts)}")
    try:
        opts = coerce_rule_options(rules, rule_opts)
        rules = rules.replace(**opts) if opts else rules.validate()
    except RulesError as e:
        c.fail("rules", str(e))
    c.rules = rules
    from ...rule_binding import unbound_options

    for key, why in unbound_options(get_preset(preset), opts, "experiment")[:1]:
        c.fail(f"rules.{key}", why)
    baseline = c.strategy(c.text(doc, "baseline", "", required=True), None, "baseline")
    allowed = DESIGNS_BY_SIDES[rules.n_sides]
    design = c.text(doc, "design", "", default=allowed[0])
    if design not in DESIGNS:
        c.fail("design", f"must be one of {', '.join(allowed)} for {rules.name}, got {design!r}")
    if design not in allowed:
        if rules.n_sides == 3:
            c.fail(
                "design",
                f"{rules.name} is a table of three solo players: its design is 'rotation' (the variant in "
                "one seat against the baseline in the other two, rotated over the three seats on the same "
                f"decks; the default); {design!r} compares two sides",
            )
        c.fail(
            "design",
            f"'rotation' is the design of three solo players (tranca-3p); {rules.name} has two sides: "
            f"use {' or '.join(repr(d) for d in allowed)}",
        )
    opponent = c.text(doc, "opponent", "")
    if design == "fixed-opponent":
        if opponent is None:
            c.fail("opponent", "missing: the fixed-opponent design needs an opponent strategy")
        opponent = c.strategy(opponent, None, "opponent")
    elif opponent is not None:
        c.fail("opponent", f"only the fixed-opponent design has an opponent (design is {design})")
    seed = c.integer(doc, "seed", 1, 0, 2**63 - 1)
    per = DEALS_PER_UNIT[design]
    why = _WHY[design]
    batch = c.integer(doc, "batch", _DEFAULT_BATCH[design], 2, MAX_BUDGET)
    budget = c.integer(doc, "budget", _DEFAULT_BUDGET[design], 2, MAX_BUDGET)
    for key, v in (("batch", batch), ("budget", budget)):
        if v % per:
            c.fail(key, f"must be {_MULTIPLE[per]} in the {design} design ({why}), got {v}")
    if deals_cap is not None:
        if deals_cap < max(2, per):
            raise SpecError(f"--deals must be at least {max(2, per)}, got {deals_cap}")
        if deals_cap % per:
            down = deals_cap - deals_cap % per
            raise SpecError(
                f"--deals must be {_MULTIPLE[per]} in the {design} design ({why}), got {deals_cap}; "
                f"give {down} or {down + per}"
            )
        budget = min(budget, deals_cap)
    batch = min(batch, budget)
    stop = doc.get("stopping", {})
    if not isinstance(stop, dict):
        c.fail("stopping", f"must be a table, got {spelled(stop)}")
    c.keys(stop, _STOPPING, "stopping")
    half_width = c.number(stop, "half_width", "stopping", 0, math.inf)
    alpha = c.number(stop, "alpha", "stopping", 0, 0.5, default=0.05)
    tune = c.number(stop, "tune", "stopping", 0, math.inf)
    if tune is None:
        tune = math.sqrt(batch * budget)  # geometric middle of the first and the last possible look
    decision = _decision(c, doc.get("decision"))
    sequential = (half_width is not None or decision is not None) and budget > batch
    variants = []
    raw_vars = doc.get("variants", [])
    if not isinstance(raw_vars, list):
        c.fail("variants", "must be an array of tables ([[variants]])")
    for i, v in enumerate(raw_vars):
        where = f"variants[{i}]"
        if not isinstance(v, dict):
            c.fail(where, f"must be a table, got {spelled(v)}")
        c.keys(v, _VARIANT, where)
        null = v.get("null", False)
        if not isinstance(null, bool):
            c.fail(f"{where}.null", f"must be true or false, got {spelled(null)}")
        anyway = v.get("play_anyway", False)
        if not isinstance(anyway, bool):
            c.fail(f"{where}.play_anyway", f"must be true or false, got {spelled(anyway)}")
        if null:
            given, text = _null_strategy(c, v, where, baseline)
        else:
            given = c.text(v, "strategy", where, required=True)
            text = c.strategy(given, v.get("params"), f"{where}.strategy")
            if isinstance(v.get("params"), dict) and v["params"]:
                extra = ",".join(f"{k}={_fmt(x)}" for k, x in v["params"].items())
                given += ("," if ":" in given else ":") + extra
        label = c.text(v, "label", where, default=f"null {i + 1} (the baseline on other decks)" if null else given)
        variants.append(
            {"label": label, "strategy": text, "param": None, "value": None, "note": c.text(v, "note", where),
             "null": null, "play_anyway": anyway}
        )  # fmt: skip
    sweep = doc.get("sweep")
    if sweep is not None:
        if not isinstance(sweep, dict):
            c.fail("sweep", f"must be a table, got {spelled(sweep)}")
        c.keys(sweep, _SWEEP, "sweep")
        base = c.text(sweep, "strategy", "sweep", required=True)
        param = c.text(sweep, "param", "sweep", required=True)
        grid = sweep.get("grid")
        if not isinstance(grid, list) or len(grid) < 2:
            c.fail("sweep.grid", f"must be a list of at least 2 numbers, got {spelled(grid)}")
        fixed = sweep.get("params") or {}
        if not isinstance(fixed, dict):
            c.fail("sweep.params", f"must be a table of name = number, got {spelled(fixed)}")
        if param in fixed:
            c.fail("sweep.params", f"{param!r} is the swept parameter; do not fix it too")
        prefix = c.text(sweep, "label", "sweep", default=param)
        values = []
        for j, x in enumerate(grid):
            if isinstance(x, bool) or not isinstance(x, int | float) or not math.isfinite(x):
                c.fail(f"sweep.grid[{j}]", f"must be a number, got {spelled(x)}")
            if float(x) in values:
                c.fail(f"sweep.grid[{j}]", f"{spelled(x)} is in the grid twice")
            values.append(float(x))
            text = c.strategy(base, {**fixed, param: x}, f"sweep.grid[{j}]")
            variants.append(
                {
                    "label": f"{prefix}={_fmt(x)}",
                    "strategy": text,
                    "param": param,
                    "value": float(x),
                    "note": None,
                    "null": False,
                }
            )
        note = c.text(sweep, "note", "sweep", default="")
        sweep = {"strategy": base, "param": param, "grid": values, "note": note or None}
    if not variants:
        c.fail("variants", "no variant to compare: give [[variants]] or a [sweep]")
    _check_inert(c, variants, baseline, rules, path)
    variants = _drop_idle(c, variants, baseline, path)
    seen = {}
    for i, v in enumerate(variants):
        if v["label"] in seen:
            c.fail(f"variants[{i}].label", f"{v['label']!r} is used twice; give each variant its own label")
        seen[v["label"]] = i
    from .spec_strength import read_blocks, read_strength

    blocks = read_blocks(c, doc, design)
    strength = read_strength(
        c, doc, {"design": design, "baseline": baseline, "budget": budget, "batch": batch, "preset": rules.name,
                 "variants": variants, "deals_cap": deals_cap, "decision": decision}
    )  # fmt: skip
    return {
        "name": name,
        "title": title,
        "question": question,
        "preset": rules.name,
        "rules": dataclasses.asdict(rules),
        "rule_options": opts,
        "baseline": baseline,
        "design": design,
        "opponent": opponent,
        "seed": seed,
        "batch": batch,
        "budget": budget,
        "deals_cap": deals_cap,
        "stopping": {
            "method": CS_METHOD if sequential else "fixed number of deals (Student t interval)",
            "sequential": sequential,
            "half_width": half_width,
            "alpha": alpha,
            "tune": tune,
            "rule": _rule(half_width, decision) if sequential else "every variant plays its whole budget",
        },
        "decision": decision,
        "variants": variants,
        "sweep": sweep,
        "strength": strength,
        "blocks": blocks,
    }
