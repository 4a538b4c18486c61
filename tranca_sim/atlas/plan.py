"""Which experiments the atlas needs, as experiment files for the lab's runner
(:func:`tranca_sim.lab.experiments.experiment.run_experiment`).

For each preset: a **tips** experiment (every seed tip of ``tranca_sim.strategies.basic.TIPS`` that can act
under the preset's rules, at each strength available, the player with the tip against the same
player without it, duplicate deals, two blocks of fresh decks, the sequential test of issue 22) and
a **rules** experiment (the baseline against itself and, where a tuned player exists, ``tuned``
against ``basic``: deal length, how deals end, first-seat advantage, the skill gap).

The files are written from constants of this module only, so the same preset and size give the
same text (the cache key of :mod:`.cache` is its hash).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

#: the presets of the seeds' games (000 Tranca, 004 Buraco) where every tip's check is declared
DEFAULT_PRESETS = ("tranca", "buraco")
#: the atlas's own seed (block b of preset P deals from tranca_sim.lab.statistics.blocks.block_seed(SEED, P, b))
SEED = 20261225
RULES_SEED = 20261226


@dataclass(frozen=True)
class Size:
    """How much each experiment plays (deals: each deck twice)."""

    name: str
    batch: int
    budget: int
    search: tuple[int, int] | None  # the search player's (budget, batch), None: not played
    rules_deals: int
    blocks: int = 2


FULL = Size("full", batch=4000, budget=100_000, search=(8000, 1000), rules_deals=40_000)
QUICK = Size("quick", batch=400, budget=800, search=None, rules_deals=2000)


@dataclass(frozen=True)
class Planned:
    """One experiment of the atlas: ``kind`` (``tips`` or ``rules``), ``preset``, ``text`` (the
    experiment file)."""

    kind: str
    preset: str
    text: str

    @property
    def name(self) -> str:
        return f"{self.kind}-{self.preset}"


def acting_tips(preset: str, only=None) -> list[tuple]:
    """The rows of ``basic.TIPS`` whose tip can act under ``preset``'s rules (those named in
    ``only`` when given: a small atlas for the tests)."""
    from tranca_sim.strategies import basic
    from tranca_sim.strategies.inert import inert_reason

    from ..rules import PRESETS

    rules = PRESETS[preset]
    return [
        t for t in basic.TIPS if inert_reason("basic", t[0], rules) is None and (only is None or t[0] in only)
    ]


def has_tuned(preset: str) -> bool:
    """Whether ``tuned`` has its own parameters for ``preset`` (strategies/tuned/PRESET.toml)."""
    from tranca_sim import strategies

    return (Path(strategies.__file__).parent / "tuned" / f"{preset}.toml").is_file()


def _q(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def tips_text(preset: str, size: Size, only=None) -> str:
    """The tips experiment of ``preset`` (an experiment file, :mod:`tranca_sim.lab.experiments.spec`)."""
    strength = ['"basic"'] + (['"tuned"'] if has_tuned(preset) else [])
    if size.search is not None:
        strength.append(f'{{ strategy = "search", budget = {size.search[0]}, batch = {size.search[1]} }}')
    lines = [
        f"# written by tranca-sim atlas ({size.name}): every seed tip that can act in {preset}",
        f"title = {_q('Atlas: the tips in ' + preset)}",
        f"question = {_q('How many points a deal does each tip win or lose, at each strength?')}",
        f"preset = {_q(preset)}",
        'baseline = "basic"',
        'design = "duplicate"',
        f"seed = {SEED}",
        f"blocks = {size.blocks}",
        f"batch = {size.batch}",
        f"budget = {size.budget}",
        f"strength = [{', '.join(strength)}]",
        "",
        "[decision]",
        "delta = 10.0",
        "delta_outcome = 0.02",
        "alpha = 0.05",
        "beta = 0.05",
    ]
    for param, on, _off, seed, line in acting_tips(preset, only):
        lines += [
            "",
            "[[variants]]",
            f"label = {_q(param)}",
            f"strategy = {_q(f'basic:{param}={on}')}",
            f"note = {_q(seed + ': ' + line)}",
        ]
    return "\n".join(lines) + "\n"


def rules_text(preset: str, size: Size) -> str:
    """The rules experiment of ``preset``: the baseline against itself (fixed number of deals)
    and, where it has its own parameters, ``tuned`` against the baseline."""
    lines = [
        f"# written by tranca-sim atlas ({size.name}): how the game goes under {preset}'s rules",
        f"title = {_q('Atlas: the rules of ' + preset)}",
        f"question = {_q('How long do deals last, how do they end, what is the first seat worth?')}",
        f"preset = {_q(preset)}",
        'baseline = "basic"',
        'design = "duplicate"',
        f"seed = {RULES_SEED}",
        f"batch = {size.rules_deals}",
        f"budget = {size.rules_deals}",
        "",
        "[[variants]]",
        'label = "same"',
        'strategy = "basic"',
        "play_anyway = true",
    ]
    if has_tuned(preset):
        lines += ["", "[[variants]]", 'label = "tuned"', 'strategy = "tuned"']
    return "\n".join(lines) + "\n"


def plan(presets, size: Size, only=None) -> list[Planned]:
    """Every experiment of the atlas, presets in the order given (``only``: these tips alone)."""
    out = []
    for p in presets:
        if acting_tips(p, only):
            out.append(Planned("tips", p, tips_text(p, size, only)))
        out.append(Planned("rules", p, rules_text(p, size)))
    return out
