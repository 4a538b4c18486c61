"""Matches: deal after deal to the match target (numba kernel over matches, and its wrapper).

A match (seed ``000_95ec226e9cdd732e.txt`` Objective, Scoring "Match target", "Winning";
``004_083ae37bb3863d19.txt`` "End of the game"; VARIANTS.md decision 15) is played deal after
deal; each side's deal scores add up to its match score; after a deal in which a side's match
score reaches ``match_target`` the side with the highest match score wins; a dead tie for the
highest score (000: "a dead tie is broken by an extra deal") plays another deal.  The deal rotates
clockwise (000 Setup 1): deal ``d`` of match ``m`` is led by seat ``(m + d) % n_seats`` (the player to
the dealer's left; the first dealer rotates with the match index, so over many matches each seat
leads first equally often).  Before each deal the match scores set the minimum first meld of each
side (004 Variations, E25) and are shown to the strategies (``PUB_MATCH_SCORE``).

Seeding: deal ``d`` of match ``m`` has the deal key ``m * MATCH_STRIDE + d`` and uses the streams
of :mod:`tranca_sim.engine.rng` keyed by ``(master_seed, key)`` exactly as deal ``key`` of a
plain run (cards: stream 0; each seat's strategy: stream ``1 + seat``).  So every deal of every
match depends only on the seed, the rules, the strategies and (match, deal) -- never on the
thread count, the chunking or the other matches -- and ``deal_index`` in a match run's rows is
that key.  A match still undecided after ``max_match_deals`` deals (an engine safety net, at most
``MATCH_STRIDE``) ends undecided (``match_winner`` -1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import schema as S
from ..rules import R_MATCH_TARGET, R_MAX_MATCH_DEALS, R_N_JOKERS, R_N_SEATS, Rules
from .cards import N_KINDS
from .contract import SeatStrategy
from .jit import njit
from .kernel import (
    _check_seed,
    _pack_counts,
    _play_one,
    _seat_arrays,
    columns_from_outputs,
    in_threads,
    record,
    shuffle_deck,
)
from .obs import PUB_LEN
from .rng import STREAM_SHUFFLE, seed_stream
from .state import new_state_nb

#: deal key of deal d of match m: m * MATCH_STRIDE + d (so max_match_deals <= MATCH_STRIDE)
MATCH_STRIDE = 1024
#: matches per kernel call: the output arrays hold max_match_deals deals of each
SUB_BATCH = 1024
MAX_MATCHES = 2**63 // MATCH_STRIDE - 1


def deal_key(match_index: int, deal_in_match: int) -> int:
    """The deal key (``deal_index`` of the rows, the key of the deal's random streams) of deal
    ``deal_in_match`` (0-based) of match ``match_index``."""
    return int(match_index) * MATCH_STRIDE + int(deal_in_match)


def match_first_seat(match_index: int, deal_in_match: int, n_seats: int = 4) -> int:
    """Seat that leads deal ``deal_in_match`` of match ``match_index`` (the deal rotates clockwise)."""
    return (int(match_index) + int(deal_in_match)) % n_seats


@njit(cache=True, _nrt=False)
def match_decided(score):
    """The side that has won the match with match scores ``score`` (``int64[n_sides]``, after a
    deal), or -1: some side at the target (``target`` = the caller's check) and one side strictly
    highest.  Returns the highest side and the number of sides sharing the highest score."""
    best = score[0]
    who = 0
    ties = 1
    for s in range(1, score.shape[0]):
        if score[s] > best:
            best = score[s]
            who = s
            ties = 1
        elif score[s] == best:
            ties += 1
    return who, ties, best


@njit(cache=True, nogil=True)  # nogil: threads play ranges side by side (kernel.in_threads)
def _simulate_matches_nb(rp, sids, prm, master_seed, start, lo, hi, check, out_side, out_deal, out_match):
    """Play matches ``start + lo .. start + hi - 1`` into rows ``lo .. hi - 1``;
    ``out_side int32[count, cap, n_sides, OS_LEN]``, ``out_deal int32[count, cap, OD_LEN]``,
    ``out_match int64[count, 2]`` (deals played, winner or -1)."""
    pack_n = 104 + rp[R_N_JOKERS]
    target = rp[R_MATCH_TARGET]
    cap = min(rp[R_MAX_MATCH_DEALS], out_side.shape[1])
    n_sides = out_side.shape[2]
    n_seats = rp[R_N_SEATS]
    for i in range(lo, hi):
        m = start + i
        st = new_state_nb(1, n_sides)
        scr = new_state_nb(1, n_sides)
        deck = np.zeros(pack_n, np.int16)
        srng = np.zeros(4, np.uint64)
        rngs = np.zeros((4, 4), np.uint64)
        acts = np.zeros(512, np.int32)
        acts2 = np.zeros(512, np.int32)
        pub = np.zeros(PUB_LEN, np.int32)
        hidden = np.zeros((n_sides, N_KINDS), np.int16)
        pack = _pack_counts(rp)
        mscore = np.zeros(st.ss.shape[0], np.int64)
        winner = -1
        played = 0
        for d in range(cap):
            key = m * MATCH_STRIDE + d
            seed_stream(srng, master_seed, key, STREAM_SHUFFLE)
            shuffle_deck(srng, pack_n, deck)
            _play_one(
                st, rp, sids, prm, master_seed, key, deck, (m + d) % n_seats, rngs, acts, pub, hidden, pack, check,
                scr, acts2, mscore, d,
            )  # fmt: skip
            record(st, rp, out_side[i, d], out_deal[i, d])
            for s in range(n_sides):
                mscore[s] += out_side[i, d, s, S.OS_SCORE]
            played = d + 1
            who, ties, best = match_decided(mscore[:n_sides])
            if best >= target and ties == 1:
                winner = who
                break
        out_match[i, 0] = played
        out_match[i, 1] = winner


def simulate_match_chunk(
    rules: Rules,
    strategies: Sequence[str | SeatStrategy] | str,
    master_seed: int,
    start: int,
    count: int,
    check: bool = False,
) -> dict[str, np.ndarray]:
    """Play matches ``start .. start+count-1`` of a match run in parallel.

    Parameters are those of :func:`tranca_sim.engine.simulate_chunk`, counted in matches; the
    match target is ``rules.match_target``, the safety net ``rules.max_match_deals``.

    Returns
    -------
    dict of numpy arrays, one row per (match, deal, side), match-major then deal then side:
    the columns of :func:`tranca_sim.engine.simulate_chunk` (``deal_index`` is the deal key
    :func:`deal_key`) plus :data:`tranca_sim.schema.MATCH_COLUMNS` (``match_index`` int64,
    ``deal_in_match`` int16, ``match_score`` int32: the side's match score after the deal,
    ``match_deals`` int16: deals the match took, ``match_winner`` int8: the winning side or -1
    when the safety net ended it, ``won_match`` bool).

    Raises
    ------
    RulesError, StrategyError, ValueError
        For bad rules, strategies, seed, start or count.
    """
    rp = rules.to_array()
    sids, prm, _ = _seat_arrays(strategies, rules)
    seed = _check_seed(master_seed)
    if int(count) < 1 or int(start) < 0 or int(start) + int(count) > MAX_MATCHES:
        raise ValueError(
            f"need 0 <= start, count >= 1 and start + count <= {MAX_MATCHES}, got {start}, {count}"
        )
    cap = min(int(rules.max_match_deals), MATCH_STRIDE)
    n_sides = rules.n_sides  # solo players: one side a seat
    parts = []
    for s0 in range(int(start), int(start) + int(count), SUB_BATCH):
        n = min(SUB_BATCH, int(start) + int(count) - s0)
        out_side = np.zeros((n, cap, n_sides, S.OS_LEN), dtype=np.int32)
        out_deal = np.zeros((n, cap, S.OD_LEN), dtype=np.int32)
        out_match = np.zeros((n, 2), dtype=np.int64)
        in_threads(
            lambda lo, hi, s0=s0, o=(out_side, out_deal, out_match): _simulate_matches_nb(
                rp, sids, prm, np.uint64(seed), np.int64(s0), np.int64(lo), np.int64(hi), bool(check), *o
            ),
            n,
            1,
        )
        parts.append(_match_columns(s0, out_side, out_deal, out_match))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def _match_columns(s0, out_side, out_deal, out_match) -> dict[str, np.ndarray]:
    n, _, n_sides = out_side.shape[:3]
    played = out_match[:, 0]
    # fancy indexing touches only the deals played (the arrays hold cap deals a match, mostly untouched)
    rows = np.repeat(np.arange(n), played)
    first = np.cumsum(played) - played  # row of each match's first deal in the compacted arrays
    d_idx = np.arange(int(played.sum()), dtype=np.int64) - np.repeat(first, played)
    side_rows = out_side[rows, d_idx]  # (deals, n_sides, OS_LEN)
    cols = columns_from_outputs(side_rows, out_deal[rows, d_idx], 0)
    m_idx = np.repeat(np.arange(s0, s0 + n, dtype=np.int64), played)
    cols["deal_index"] = np.repeat(m_idx * MATCH_STRIDE + d_idx, n_sides)
    total = np.cumsum(side_rows[:, :, S.OS_SCORE].astype(np.int64), axis=0)
    before = np.zeros((n, n_sides), dtype=np.int64)  # the cumulated total before each match
    before[1:] = total[first[1:] - 1]
    running = total - np.repeat(before, played, axis=0)
    winner = np.repeat(out_match[:, 1], played)
    cols["match_index"] = np.repeat(m_idx, n_sides)
    cols["deal_in_match"] = np.repeat(d_idx, n_sides).astype(np.int16)
    cols["match_score"] = running.reshape(-1).astype(np.int32)
    cols["match_deals"] = np.repeat(np.repeat(played, played), n_sides).astype(np.int16)
    cols["match_winner"] = np.repeat(winner, n_sides).astype(np.int8)
    cols["won_match"] = cols["match_winner"] == cols["side"]
    return cols


__all__ = ["MATCH_STRIDE", "deal_key", "match_first_seat", "simulate_match_chunk"]
