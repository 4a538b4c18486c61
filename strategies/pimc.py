"""``search`` (module ``pimc``): determinised Monte Carlo search over the draw and the discard (and, if asked, each meld).

At each searched decision the player samples ``worlds`` deals consistent with
its observation (never the hidden cards themselves), plays every legal choice
out in each with the rollout policy (``tuned`` when it exists, else ``basic``) for every seat, and keeps
the choice with the best mean score difference to the end of the deal (or to
a static evaluation after ``turns`` more turns).  Perfect information Monte
Carlo: Ginsberg (2001), JAIR 14; Long, Sturtevant, Buro & Furtak (2010), AAAI.
The worlds, rollouts and decision are :mod:`tranca_sim.strategies.pimc_search`; docs/strategies.md
"The search player" describes the method, its parameters and its cost.

It plays every preset (two partnerships or 2 or 3 solo players); :func:`check_rules`
refuses only the option it does not model (a minimum first meld).
"""

from tranca_sim.engine.jit import njit
from tranca_sim.strategies.pimc_search import (
    DEFAULT_POLICY,
    PH_DISCARD,
    PH_DRAW,
    PH_MELD,
    PH_REDRAW,
    POLICY_NAMES,
    search_choice,
)

NAME = "search"
DOC = (
    "determinised Monte Carlo (PIMC): samples worlds from what it has seen and plays each legal "
    "draw and discard out with basic; slow (tens of deals/s)"
)
_POLICIES = ", ".join(f"{i} = {n}" for i, n in enumerate(POLICY_NAMES))
PARAMS = (
    ("worlds", 8, "sampled deals per decision", 1, 1000, "int"),
    ("turns", 12, "rollout budget: turns after the decision's turn, then a static evaluation; 0 = to the end", 0, 1000, "int"),
    ("melds", 0, "1: search each meld choice too (slower); 0: the rollout policy lays the melds", 0, 1, "switch"),
    ("policy", DEFAULT_POLICY, f"rollout policy: {_POLICIES}", 0, len(POLICY_NAMES) - 1, "int"),
    ("margin", 0, "points a deal another choice must gain over the policy's own to replace it", 0, 1000),
    ("tip", -1, "a tip it follows: the index of a parameter of basic (-1: none); see tip_params", -1, 31, "int"),
    ("tip_value", 0, "that parameter's value with the tip", 0, 1000),
    ("tip_without", 0, "its value without the tip (where the two answers differ, the tip decides)", 0, 1000),
    ("tip2", -1, "a second parameter of the same tip (-1: none)", -1, 31, "int"),
    ("tip2_value", 0, "its value with the tip", 0, 1000),
    ("tip2_without", 0, "its value without the tip", 0, 1000),
)  # fmt: skip


def tip_params(tip: dict, without: dict) -> dict:
    """The search player's parameters that make it follow ``tip`` (``{basic parameter: value}``,
    at most two) against ``without`` (the same parameters' values without the tip):
    ``{"tip": index, "tip_value": ..., "tip_without": ..., "tip2": ...}``.  Where its rollout
    policy's answer with the tip's values and with the values without differ, it plays the tip's
    answer; elsewhere it searches; its own side's rollouts follow the tip
    (:func:`tranca_sim.strategies.pimc_search.search_choice`).  The player forbidden the tip is
    ``tip_params(without, tip)``."""
    from tranca_sim.strategies import StrategyError
    from tranca_sim.strategies import basic as _basic

    names = [p[0] for p in _basic.PARAMS]
    if len(tip) > 2:
        raise StrategyError(f"the search player follows a tip of at most 2 parameters, got {len(tip)}: {tip}")
    out = {}
    for j, (k, v) in enumerate(tip.items()):
        if k not in names:
            raise StrategyError(f"{k!r} is not a parameter of basic (a tip the search player can follow)")
        key = "tip" if j == 0 else "tip2"
        out[key], out[key + "_value"], out[key + "_without"] = names.index(k), float(v), float(without[k])
    return out


def check_rules(rules) -> None:
    """Refuse a rule set the search player cannot model (:class:`tranca_sim.strategies.StrategyError`): it
    plays every preset; of the options, only a minimum first meld (``first_meld_min``) is not
    played by its rollouts."""
    from tranca_sim.strategies import StrategyError

    if getattr(rules, "first_meld_min", 0) != 0:
        raise StrategyError(
            "strategy 'search' cannot play first_meld_min (a minimum first meld): its rollouts "
            "do not model it; use first_meld_min=0"
        )


@njit(cache=True, _nrt=False, inline="always")  # issue 9: no library of its own
def choose_draw(prm, obs, acts, n, rng):
    return search_choice(PH_DRAW, True, prm, obs, acts, n, rng)


@njit(cache=True, _nrt=False, inline="always")  # issue 9: no library of its own
def choose_meld(prm, obs, acts, n, rng):
    return search_choice(PH_MELD, prm[2] != 0, prm, obs, acts, n, rng)


@njit(cache=True, _nrt=False, inline="always")  # issue 9: no library of its own
def choose_discard(prm, obs, rng):
    return search_choice(PH_DISCARD, True, prm, obs, acts_none(obs), 0, rng)


@njit(cache=True, _nrt=False, inline="always")  # issue 9: no library of its own
def choose_redraw(prm, obs, rng):
    """003's first-player redraw: keep the card drawn (0) or throw it back and draw again (1),
    both searched as the discard is."""
    return search_choice(PH_REDRAW, True, prm, obs, acts_none(obs), 0, rng)


@njit(cache=True, inline="always")
def acts_none(obs):
    """An int32 array the discard's search never reads (the discard has no action list)."""
    return obs.pub
