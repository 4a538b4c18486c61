"""The looks of a running experiment: the sequential decision's two families
(:func:`decision_families`), one look of both (:func:`decide_look`) and why a variant stops
(:func:`stop_reason`); shared by the experiment runner and the strengths runner.
"""

from __future__ import annotations

import numpy as np


def decision_families(spec: dict) -> dict | None:
    """The sequential Holm procedures of an experiment with ``[decision]``: ``{"points": ...,
    "outcome": ...}`` over all its variants (:mod:`tranca_sim.lab.statistics.decision`); None without."""
    from ..statistics.decision import SequentialHolm

    d = spec.get("decision")
    if not d:
        return None
    k = len(spec["variants"])
    return {
        "points": SequentialHolm(k, d["delta"], d["alpha"], d["beta"], 0.0, min_units=d.get("min_decks", 0)),
        "outcome": SequentialHolm(k, d["delta_outcome"], d["alpha"], d["beta"], 0.5, min_units=d.get("min_decks", 0)),
    }


def decide_look(judges: dict, active: dict) -> None:
    """One look of both families: ``active`` maps a variant's index to its state (``units``,
    ``outcomes``: lists of arrays in play order, ``n_units``); a variant already decided in a family
    is left out of it."""
    for family, attr in (("points", "units"), ("outcome", "outcomes")):
        proc = judges[family]
        stats = {}
        for i, v in active.items():
            chunks = getattr(v, attr)
            if proc.decisions.get(i) is not None and proc.decisions[i].decided or not chunks:
                continue
            val, eff = proc.statistic(np.concatenate(chunks), i)
            stats[i] = (val, eff, v.n_units)
        if stats:
            proc.look(stats)


def stop_reason(v, stop: dict, judges) -> str | None:
    """Why the variant ``v`` stops after this look (``"decision"``, ``"half-width"``, both joined
    by "and"), or None: it stops once every rule the experiment sets is met."""
    if not stop["sequential"]:
        return None
    reasons = []
    if judges is not None:
        if not all(j.decisions.get(v.index) is not None and j.decisions[v.index].decided for j in judges.values()):
            return None
        reasons.append("decision")
    if stop["half_width"] is not None:
        if not v.half_width <= stop["half_width"]:
            return None
        reasons.append("half-width")
    return " and ".join(reasons) or None
