"""Parameters of ``basic`` that cannot change play under a rule set (the eleventh fresh user's F7:
``black3_lock`` was accepted, searched and tuned in Buraco, where no pile is ever locked).

Two kinds, both measured (``basic`` against ``basic``, each parameter at its lowest, highest and
a middle value against its default, 20,000 deals of seed 11 per preset, column digests of
``simulate_chunk``; ux10, main d8184c4):

- **ruled out** (:data:`RULE_GATES`): the rule the parameter acts on is off, so it changes nothing
  by construction, whatever the deals; the measurement agrees on every preset.  An experiment
  refuses a variant or sweep that changes such a parameter, and ``tune`` leaves it out of the
  search space (``tune --params`` refuses it), each with one line naming the rule.
- **measured only** (:data:`MEASURED`): no rule says so, but every deal played the same at every
  value under that preset (``take_pile_min`` in ``tranca-sp``, ``tranca-br``, ``tranca-3p``,
  ``buraco``).  An experiment warns; ``tune`` leaves it out as well.  A parameter that acts in a
  few deals of 20,000 is not listed (``keep_clean`` in ``buraco`` acts, rarely: its row in
  reports/buraco-tips reads +0.0 over 2,000 decks).
"""

from __future__ import annotations

import warnings

#: the strategies whose parameters these are (``tuned`` plays basic's functions)
STRATEGIES = ("basic", "tuned")

#: parameter -> (rule option, the value under which the parameter acts, why it cannot act otherwise)
RULE_GATES: dict[str, tuple[str, bool, str]] = {
    "black3_lock": ("lock_by_black3", True, "a black 3 locks no pile in this rule set (lock_by_black3 off; "
                    "Buraco: 004 has no locked pile, VARIANTS 3)"),
    "red3_pace": ("threes_special", True, "3s are plain cards in this rule set (threes_special off; 004 "
                  "Card values: red 3s are not special)"),
    "red3_own": ("threes_special", True, "3s are plain cards in this rule set (threes_special off; 004 "
                 "Card values: red 3s are not special)"),
    "second_meld": ("meld_sets", True, "no same-rank melds in this rule set (meld_sets off; 004 How to play: "
                    "runs of one suit only)"),
    "partner": ("meld_sets", True, "no same-rank melds in this rule set (meld_sets off; 004 How to play: "
                "runs of one suit only), and partner is 000 tip 6 on same-rank melds"),
    "run_pile_share": ("pile_closed", False, "the pile is closed in this rule set (pile_closed on) and "
                       "run_pile_share weighs taking an open pile (004); measured: the same deals under "
                       "every closed-pile preset"),
    "morto_seen": ("mortos_face_up", True, "the mortos are dealt face down (mortos_face_up off; only "
                   "tranca-aberta deals them face up)"),
    "aberta_rush": ("mortos_face_up", True, "the mortos are dealt face down (mortos_face_up off; only "
                    "tranca-aberta deals them face up)"),
    "redraw": ("first_player_redraw", True, "no first-player redraw in this rule set (first_player_redraw "
               "off; 003 O jogo, tranca-sp only)"),
    "run_pile_min": ("go_out_needs_clean", True, "going out needs no clean canasta here "
                     "(go_out_needs_clean off), and run_pile_min acts only when it does"),
    "run_clean_first": ("go_out_needs_clean", True, "going out needs no clean canasta here "
                        "(go_out_needs_clean off), and run_clean_first acts only when it does"),
    "out_pile_max": ("go_out_needs_clean", True, "going out needs no clean canasta here "
                     "(go_out_needs_clean off), and out_pile_max acts only when it does"),
}  # fmt: skip

#: preset -> parameters measured inert there with no rule behind it (the preset's own rules only)
MEASURED: dict[str, tuple[str, ...]] = {
    "tranca-sp": ("take_pile_min",),
    "tranca-br": ("take_pile_min",),
    "tranca-3p": ("take_pile_min",),
    "buraco": ("take_pile_min",),
}


class InertParameterWarning(UserWarning):
    """A variant changes a parameter measured to change nothing under the preset (one line)."""


def inert_reason(strategy: str, param: str, rules) -> tuple[str, bool] | None:
    """Why ``param`` of ``strategy`` cannot change play under ``rules`` (a
    :class:`tranca_sim.rules.Rules`): ``(reason, ruled)`` with ``ruled`` True when a rule is off
    (:data:`RULE_GATES`), False when only measured (:data:`MEASURED`, for a preset's own rules);
    None when it may act."""
    if strategy not in STRATEGIES:
        return None
    gate = RULE_GATES.get(param)
    if gate is not None and bool(getattr(rules, gate[0])) != gate[1]:
        return f"{param} cannot change play under {rules.name}: {gate[2]}", True
    if param in MEASURED.get(rules.name, ()):
        from tranca_sim.rules import PRESETS

        if PRESETS.get(rules.name) == rules:  # measured with the preset's own rules only
            return (
                f"{param} changed no deal under {rules.name}: every one of 20,000 deals played the "
                "same at each of its values (measured, strategies/inert.py)",
                False,
            )
    return None


def inert_changes(text: str, baseline: str, rules, preset: str | None = None) -> list[tuple[str, str, bool]]:
    """The parameters in which strategy ``text`` differs from ``baseline`` (both strategy texts
    of the same strategy) that cannot change play under ``rules``: ``[(param, reason, ruled)]``;
    empty when the strategies differ in name or in no inert parameter."""
    from tranca_sim.strategies import resolve

    a, b = resolve(text, preset=preset), resolve(baseline, preset=preset)
    if a.name != b.name or a.name not in STRATEGIES:
        return []
    out = []
    for i, n in enumerate(a.param_names):
        if a.params[i] != b.params[i]:
            why = inert_reason(a.name, n, rules)
            if why is not None:
                out.append((n, *why))
    return out


def warn(message: str) -> None:
    warnings.warn(InertParameterWarning(message), stacklevel=2)
