"""The experiment file's ``strength`` and ``blocks`` keys, read and checked (:mod:`.spec` calls it).

``strength`` plays every tip at several playing strengths, each tip against the same player
without it (restricted play: Jaffe, Miller, Andersen, Liu, Karlin, Popović and Popović, "Evaluating
competitive game balance with restricted play", AIIDE 2012: a tactic's value is a player against
the same player forbidden it)::

    baseline = "basic"
    strength = ["basic", "tuned", "search"]           # strategy texts
    # or a table to give a strength its own budget (slow players):
    # strength = ["basic", "tuned", { strategy = "search:worlds=8,turns=12", budget = 2000, batch = 200 }]
    blocks = 2                                        # blocks of fresh decks (default 1)

    [[variants]]
    strategy = "basic:black3_lock=1"                  # the tip: what it changes against the baseline

A variant's *tip* is the parameters of ``basic`` its strategy sets to other values than the
baseline's.  At the strength ``basic`` or ``tuned`` (or any of their texts with parameters) the
player with the tip is that player with the tip's values, the player without it the same player
with the baseline's values of those parameters.  At the search player (``search``) the tip
constrains its own choices (:func:`tranca_sim.strategies.pimc.tip_params`): where its rollout policy's answer
with the tip's values and with the values without differ it plays the tip's answer (the player
without the tip: the other answer), elsewhere it searches.

``blocks = N`` plays the whole experiment on ``N`` blocks of fresh decks: block ``b`` of preset
``P`` deals from the seed :func:`tranca_sim.lab.statistics.blocks.block_seed` ``(seed, P, b)``, so no deck is
shared between blocks or presets (every strength of a block plays the same decks: its differences
between strengths are paired).  A figure is confirmed when the blocks agree
(:mod:`tranca_sim.lab.statistics.blocks`).
"""

from __future__ import annotations

import math

#: the strengths a tip can be played at: players whose parameters are basic's, and the search player
BASIC_FAMILY = ("basic", "tuned")
SEARCH = "search"
MAX_BLOCKS = 20
_STRENGTH_TABLE = {"strategy", "budget", "batch", "label", "delta"}


def _fail_list(c, value):
    c.fail(
        "strength",
        'must be a list of strategies, e.g. strength = ["basic", "tuned", "search"], '
        f"got {value!r}",
    )


def read_blocks(c, doc: dict, design: str = "duplicate") -> int:
    """``blocks`` (default 1): a whole number from 1 to :data:`MAX_BLOCKS`; two or more play the
    duplicate design (the rotation at three solo players), not the fixed opponent's."""
    v = doc.get("blocks", 1)
    if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v <= MAX_BLOCKS:
        c.fail(
            "blocks",
            f"must be a whole number from 1 to {MAX_BLOCKS} (blocks of fresh decks; 2 or more to confirm), got {v!r}",
        )
    if v > 1 and design == "fixed-opponent":
        c.fail("blocks", "blocks of fresh decks play the duplicate design, not fixed-opponent; leave out blocks")
    return v


def _tip(variant_text: str, baseline_text: str, preset: str) -> tuple[dict, dict]:
    """(tip, without): the parameters of ``basic`` the variant sets to other values than the
    baseline, with the variant's values and the baseline's."""
    from tranca_sim.strategies import resolve

    v, b = resolve(variant_text, preset=preset), resolve(baseline_text, preset=preset)
    on, off = {}, {}
    for k, x in v.param_dict.items():
        y = b.param_dict.get(k)
        if y is not None and x != y:
            on[k], off[k] = x, y
    return on, off


def _kind(text: str) -> str | None:
    name = text.split(":", 1)[0]
    if name in BASIC_FAMILY:
        return "basic"
    if name == SEARCH:
        return "search"
    return None


def player_text(strength: dict, params: dict, preset: str) -> str:
    """The strength's player with ``params`` (basic's parameters; at the search player, the tip
    against its values without: ``params`` is then ``{"tip": ..., "without": ...}``)."""
    from tranca_sim.strategies import resolve

    if strength["kind"] == "search":
        from tranca_sim.strategies.pimc import tip_params

        extra = tip_params(params["tip"], params["without"])
    else:
        extra = params
    return resolve(strength["strategy"], preset=preset, **{k: repr(float(x)) for k, x in extra.items()}).text


def pair_texts(strength: dict, tip: dict, without: dict, preset: str) -> tuple[str, str]:
    """(player with the tip, the same player without it) at ``strength``."""
    if strength["kind"] == "search":
        return (
            player_text(strength, {"tip": tip, "without": without}, preset),
            player_text(strength, {"tip": without, "without": tip}, preset),
        )
    return player_text(strength, tip, preset), player_text(strength, without, preset)


def read_strength(c, doc: dict, spec: dict) -> list[dict] | None:
    """The ``strength`` list checked against the rest of the file (``spec``: :func:`.spec.load_spec`'s
    dict so far); None without the key.  Each entry: ``label``, ``strategy`` (canonical text),
    ``kind`` (``"basic"`` or ``"search"``), ``budget`` and ``batch`` (deals per variant), and for
    every variant its ``pairs`` entry in ``spec["variants"]`` (``tip``, ``without``) is set."""
    if "strength" not in doc:
        return None
    raw = doc["strength"]
    if not isinstance(raw, list) or not raw:
        _fail_list(c, raw)
    if spec["design"] != "duplicate":
        c.fail("strength", f"plays each tip against the same player without it: the duplicate design, not {spec['design']}")
    base_kind = _kind(spec["baseline"])
    if base_kind != "basic":
        c.fail(
            "strength",
            f"the tips are parameters of basic: the baseline must be basic (or tuned), not {spec['baseline']}",
        )
    out, seen = [], set()
    for i, entry in enumerate(raw):
        where = f"strength[{i}]"
        budget, batch = spec["budget"], spec["batch"]
        delta = (spec.get("decision") or {}).get("delta")
        if isinstance(entry, dict):
            c.keys(entry, _STRENGTH_TABLE, where)
            text = c.text(entry, "strategy", where, required=True)
            label = c.text(entry, "label", where)
            for key in ("budget", "batch"):
                if key in entry:
                    v = entry[key]
                    if isinstance(v, bool) or not isinstance(v, int) or v < 2 or v % 2:
                        c.fail(f"{where}.{key}", f"must be an even whole number of deals (each deck twice), got {v!r}")
            if "delta" in entry:
                if not spec.get("decision"):
                    c.fail(f"{where}.delta", "an effect for the sequential test needs a [decision] table")
                delta = c.number(entry, "delta", where, 0, math.inf)
            budget = min(entry.get("budget", budget), spec.get("deals_cap") or math.inf)  # --deals caps it too
            batch = min(entry.get("batch", batch), budget)
        elif isinstance(entry, str) and entry.strip():
            text, label = entry.strip(), None
        else:
            c.fail(where, f"must be a strategy text such as \"tuned\" or a table {{ strategy = ..., budget = ... }}, got {entry!r}")
        kind = _kind(text)
        if kind is None:
            c.fail(
                where,
                f"{text!r} cannot play a tip of basic; a strength is basic, tuned or search (with parameters if wanted)",
            )
        canon = c.strategy(text, None, where)
        if canon in seen:
            c.fail(where, f"{text!r} is listed twice")
        seen.add(canon)
        out.append(
            {"label": label or text, "strategy": canon, "kind": kind, "budget": budget, "batch": batch,
             "delta": delta}
        )
    from tranca_sim.strategies import StrategyError

    for j, v in enumerate(spec["variants"]):
        if v.get("null"):
            c.fail(f"variants[{j}].null", "a null variant has no tip to play at each strength; leave it out with strength")
        tip, without = _tip(v["strategy"], spec["baseline"], spec["preset"])
        if not tip:
            c.fail(f"variants[{j}].strategy", "sets no parameter of basic to another value than the baseline: no tip")
        v["tip"], v["without"] = tip, without
        for i, s in enumerate(out):
            try:
                pair_texts(s, tip, without, spec["preset"])
            except StrategyError as e:
                c.fail(f"strength[{i}]", f"{s['label']} cannot play variants[{j}] ({v['label']}): {e}")
    return out
