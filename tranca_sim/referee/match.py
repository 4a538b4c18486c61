"""Matches, refereed: who wins a match from its deal scores, in plain Python.

The rule (seed ``000_95ec226e9cdd732e.txt`` Objective, Scoring "Match target", "Winning";
``004_083ae37bb3863d19.txt`` "End of the game"; VARIANTS.md decision 15): each side's deal scores
add up to its match score; after a deal in which some side's match score reaches the target, the
side with the highest match score wins the match ("If both partnerships cross the threshold on the
same deal, the higher score wins"); a dead tie for the highest score is broken by another deal.
At a three-player table (``tranca-3p``, target halved to 1500, docs/rules.md E27, E28) the same
sentences are read with three sides: the match ends after the first deal that leaves one player
strictly highest with the highest score at or above the target.

Shares no code with the engine's match kernel (:mod:`tranca_sim.engine.match`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .cards import SIDES


def match_outcome(deal_scores: Sequence[Sequence[int]], target: int) -> tuple[int, int | None]:
    """The deals a match takes and its winner, from its deal scores in order.

    Parameters
    ----------
    deal_scores : sequence of sequences of int
        Deal after deal, each side's deal score (2 sides, or 3 at three solo players).
    target : int
        The match target (``Rules.match_target``).

    Returns
    -------
    (deals, winner)
        ``deals``: the deals played up to the one that decided the match (all of them when none
        did); ``winner``: the winning side's index, or ``None`` when no deal given decided it.
    """
    totals: list[int] = []
    for d, row in enumerate(deal_scores):
        if not totals:
            totals = [0] * len(row)
        totals = [t + int(x) for t, x in zip(totals, row, strict=True)]
        top = max(totals)
        if top >= target and totals.count(top) == 1:
            return d + 1, totals.index(top)
    return len(deal_scores), None


def check_match_rows(cols, target: int, max_deals: int, n_seats: int) -> list[tuple[int, str]]:
    """Check every match of a match run's rows against the rule above.

    ``cols``: a mapping or data frame with the columns ``match_index``, ``deal_in_match``,
    ``side``, ``score``, ``match_score``, ``match_deals``, ``match_winner`` and ``first_seat``
    (docs/schema.md), one row per (match, deal, side).  Checked per match: the deals are
    0..k-1 with every side once each; ``match_score`` is the running sum of ``score``; the match
    stops at the first deal that decides it (:func:`match_outcome`), or after ``max_deals``
    undecided deals (``match_winner`` -1, the engine's safety net); ``match_deals`` is k; the deal
    rotates clockwise (000 Setup 1): the first seat of deal d of match m is
    ``(m + d) % n_seats``.

    Returns
    -------
    list of (match_index, problem)
        Empty when every match follows the rule.
    """
    names = ("match_index", "deal_in_match", "side", "score", "match_score", "match_deals", "match_winner")
    a = {n: np.asarray(cols[n]).astype(np.int64) for n in names + ("first_seat",)}
    order = np.lexsort((a["side"], a["deal_in_match"], a["match_index"]))
    a = {n: v[order] for n, v in a.items()}
    bad: list[tuple[int, str]] = []
    cuts = np.flatnonzero(np.diff(a["match_index"])) + 1
    for rows in np.split(np.arange(len(order)), cuts):
        if not len(rows):
            continue
        m = int(a["match_index"][rows[0]])
        n_sides = int(a["side"][rows].max()) + 1
        k = len(rows) // n_sides
        deal = a["deal_in_match"][rows].reshape(-1, n_sides) if len(rows) == k * n_sides else None
        if deal is None or list(deal[:, 0]) != list(range(k)) or (deal != deal[:, :1]).any():
            bad.append((m, f"its rows are not deals 0..{k - 1} with each of {n_sides} sides once"))
            continue
        sides = a["side"][rows].reshape(k, n_sides)
        if (sides != np.arange(n_sides)).any():
            bad.append((m, f"its rows are not deals 0..{k - 1} with each of {n_sides} sides once"))
            continue
        score = a["score"][rows].reshape(k, n_sides)
        running = a["match_score"][rows].reshape(k, n_sides)
        totals = np.cumsum(score, axis=0)
        if (running != totals).any():
            d = int(np.flatnonzero((running != totals).any(axis=1))[0])
            msg = (
                f"deal {d}: match_score {list(running[d])} is not the running sum of the deal scores "
                f"{list(totals[d])} (000 Scoring 'Match target')"
            )
            bad.append((m, msg))
            continue
        deals, winner = match_outcome(score.tolist(), target)
        want_w = -1 if winner is None else winner
        if winner is None and k < max_deals:
            bad.append((m, f"it stops after {k} deals, undecided, before max_match_deals ({max_deals})"))
        elif deals != k:
            bad.append((m, f"it is decided after deal {deals - 1} (000 Winning) but plays {k} deals"))
        elif set(a["match_winner"][rows].tolist()) != {want_w}:
            who = "undecided" if winner is None else f"side {SIDES[winner]}"
            msg = (
                f"match_winner {sorted(set(a['match_winner'][rows].tolist()))}, the rule gives {who} "
                f"(match scores {list(totals[-1])}, target {target}; 000 Winning)"
            )
            bad.append((m, msg))
        elif set(a["match_deals"][rows].tolist()) != {k}:
            bad.append((m, f"match_deals {sorted(set(a['match_deals'][rows].tolist()))}, it played {k}"))
        else:
            seats = a["first_seat"][rows].reshape(k, n_sides)[:, 0]
            want = (m + np.arange(k)) % n_seats
            if (seats != want).any():
                d = int(np.flatnonzero(seats != want)[0])
                msg = (
                    f"deal {d} is led by seat {int(seats[d])}, the rotation gives {int(want[d])} "
                    f"((match + deal) % {n_seats}; 000 Setup 1, E25)"
                )
                bad.append((m, msg))
    return bad


__all__ = ["check_match_rows", "match_outcome"]
