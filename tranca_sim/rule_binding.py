"""Rule options that cannot bind: a change the rule set or the kind of run leaves without effect.

A user's ``--rule OPTION=VALUE`` (``simulate``, ``tune``) or an experiment's ``[rules]`` entry that
changes nothing would be recorded in the run's header as if it had been played.  Two kinds, each
refused with one line naming the option, as :mod:`tranca_sim.strategies.inert` refuses a strategy parameter
that a rule keeps from acting:

- **by another rule** (:data:`RULE_GATES`): the option acts only when another option has a given
  value (``red3_value`` with plain 3s, ``em_cima_bonus`` with em cima off).  The same cases are
  measured in ``tests/test_rule_switches.py`` (``dead``): flipped, they change no deal.
- **by the kind of run** (:data:`MODE_GATES`): the match rules act only where matches are played
  (``simulate --matches``); ``match_target`` also where an experiment turns its deals into match
  chances.  A run of deals (``simulate --deals``, ``tune``, an experiment's deals) plays every deal
  from a match score of 0, so ``first_meld_min`` never applies there (docs/rules.md 3.29, E25).

Only options whose value differs from the preset's are checked: restating a preset's own value
changes nothing and says nothing wrong.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from .rules import Rules

#: the kinds of run: simulate --deals (and a dataset of deals), simulate --matches, an experiment,
#: tune; each with the words that say what it plays
MODES: dict[str, str] = {
    "deals": "a run of deals (--deals) plays no match: each deal alone, from a match score of 0",
    "matches": "",
    "experiment": "an experiment plays no match: each deal alone, from a match score of 0",
    "tune": "tune plays no match: each deal alone, from a match score of 0",
}

#: option -> (acts under these rules?, why not)
RULE_GATES: dict[str, tuple[Callable[[Rules], bool], str]] = {
    "red3_value": (lambda r: r.threes_special, "3s are plain cards here (threes_special off; 004 Card "
                   "values), so no red 3 is laid aside and scored"),
    "black3_on_going_out": (lambda r: r.threes_special, "3s are plain cards here (threes_special off), "
                            "so there is no black-3 set to meld (VARIANTS 8)"),
    "em_cima_bonus": (lambda r: r.em_cima, "em cima is off here (em_cima off; VARIANTS 11), so its bonus "
                      "is never paid"),
    "morto_stock_side": (lambda r: r.stock_out == 1, "with stock_out=0 no morto ever becomes the stock "
                         "(E22)"),
    "morto_stock_taken": (lambda r: r.stock_out == 1, "with stock_out=0 no morto ever becomes the stock "
                          "(E23)"),
    "rediscard_one_card_pile": (lambda r: not r.pile_closed, "the pile is closed here (pile_closed on): "
                                "its top card is melded at once, never thrown back (E13)"),
    "several_runs_per_suit": (lambda r: r.meld_runs, "no runs are melded here (meld_runs off; E19)"),
    "run_wild_moves": (lambda r: r.meld_runs, "no runs are melded here (meld_runs off; E21)"),
    "several_melds_per_rank": (lambda r: r.meld_sets, "no same-rank melds are played here (meld_sets "
                               "off; VARIANTS 5)"),
    "lock_by_black3": (lambda r: not (r.pile_closed and r.threes_special), "a black 3 can never be "
                       "melded here (000 Gameplay 6), so a closed pile with a black 3 on top cannot be "
                       "taken whether or not it locks (docs/rules.md 3.7)"),
    "first_meld_from": (lambda r: r.first_meld_min > 0, "there is no minimum first meld (first_meld_min "
                        "is 0), so no score starts it (E25)"),
}  # fmt: skip

#: option -> the kinds of run where it acts
MODE_GATES: dict[str, tuple[str, ...]] = {
    "match_target": ("matches", "experiment"),  # an experiment's match-win chances resample deals to it
    "first_meld_min": ("matches",),
    "first_meld_from": ("matches",),
    "max_match_deals": ("matches",),  # the safety net of a match run: a match undecided after it
}


def unbound_reason(option: str, rules: Rules, mode: str) -> str | None:
    """Why a change of ``option`` cannot bind under ``rules`` (the changed rule set) in a run of
    kind ``mode`` (a key of :data:`MODES`); None when it may act."""
    if mode not in MODES:
        raise ValueError(f"unknown kind of run {mode!r}; one of {', '.join(MODES)}")
    where = MODE_GATES.get(option)
    if where is not None and mode not in where:
        return (
            f"it acts only in matches (simulate --matches N): {MODES[mode]}, so it would change nothing"
        )
    gate = RULE_GATES.get(option)
    if gate is not None and not gate[0](rules):
        return f"it cannot change play under these rules: {gate[1]}"
    return None


def unbound_options(base: Rules, options: Mapping[str, object], mode: str) -> list[tuple[str, str]]:
    """The options of ``options`` (name -> value, as :func:`tranca_sim.run.coerce_rule_options`
    returns) that change ``base`` but cannot bind in a run of kind ``mode``: ``[(option, reason)]``,
    in the order given.  The rule gates are read on the changed rule set, so an option made idle by
    another change in the same list is named too."""
    changed = {k: v for k, v in options.items() if getattr(base, k) != v}
    if not changed:
        return []
    rules = base.replace(**options)
    out = []
    for k in changed:
        why = unbound_reason(k, rules, mode)
        if why is not None:
            out.append((k, why))
    return out
