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
from .spec_fields import SpecError, _Checker, _missing_fields
from .spec_stopping import _STOPPING, DECISION_METHOD, _decision, _rule  # noqa: F401  (re-exported)
from .spec_variants import IdleVariantWarning, _check_inert, _drop_idle, read_sweep, read_variants  # noqa: F401

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
    variants = read_variants(c, doc, baseline)
    sweep, points = read_sweep(c, doc)
    variants += points
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
