"""Stacked decks and hand-made positions, for rule tests and rule-guide examples.

Cards are given in notation (``"KH 10D 2C JK"`` or a list); see
:mod:`tranca_sim.engine.cards`.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from ..rules import Rules
from .cards import JOKER, N_KINDS, is_black_three, is_red_three, is_wild_kind, parse_many, rank_of
from .run_index import index_runs
from .state import (
    MAXM,
    MH_GREW,
    MH_HI,
    MH_JOKERS,
    MH_LO,
    MH_N,
    MH_NAT,
    MH_RANK,
    MH_SUIT,
    MH_TYPE,
    MH_WILD,
    MH_WMASK,
    MS_STOCK,
    MS_WAITING,
    MT_BLACK3,
    MT_RUN,
    MT_SET,
    SC_DECK_N,
    SC_FIRST_SEAT,
    SC_OUT_SEAT,
    SC_PILE_N,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_HAND_N,
    SE_MELDED,
    SS_CANASTAS,
    SS_CLEAN,
    SS_INDIRECT_SEAT,
    SS_MORTO,
    SS_MORTO_AT,
    SS_MORTO_SEAT,
    SS_MORTO_TURN,
    SS_N_MELDS,
    SS_RED3,
    State,
    new_state,
)


def _cards(x) -> list[int]:
    if x is None:
        return []
    return parse_many(x)


def stack_deck(
    rules: Rules,
    hands: dict[int, str | list[str]] | None = None,
    mortos: tuple | list | None = None,
    stock: str | list[str] | None = None,
    first_seat: int = 0,
) -> list[int]:
    """A full deck order (kinds, position 0 = top) that deals the given cards.

    ``hands[seat]``: up to ``hand_size`` cards for that seat (seats
    ``0..rules.n_seats-1``); ``mortos``: (side A, side B[, side C]) up to
    ``morto_size`` cards each (one morto per side, ``rules.n_sides``); ``stock``: the top of the
    stock after the deal, top first (its first card is the one turned up as
    the first discard).  Every unspecified place is filled from the rest of the
    pack in kind order (clubs A..K, diamonds, hearts, spades, jokers), so tests
    should give every card that matters.  Dealing follows E2 (one card at a
    time clockwise from ``first_seat``).

    Raises
    ------
    ValueError
        If a card is used more often than the pack holds it, or too many cards
        are given for a place.
    """
    pool = Counter({k: 2 for k in range(52)})
    pool[JOKER] = rules.n_jokers
    hs, ms = rules.hand_size, rules.morto_size
    n_seats, n_sides = rules.n_seats, rules.n_sides
    bad = sorted(set(hands or {}) - set(range(n_seats)))
    if bad:
        raise ValueError(f"stack_deck: {rules.name} has seats 0..{n_seats - 1}, got hands for {bad}")
    if mortos is not None and len(mortos) > n_sides:
        raise ValueError(f"stack_deck: {rules.name} has {n_sides} mortos, got {len(mortos)}")

    def take(cards: list[int], where: str) -> list[int]:
        for k in cards:
            if pool[k] <= 0:
                raise ValueError(f"stack_deck: more copies of card kind {k} than the pack holds ({where})")
            pool[k] -= 1
        return cards

    hand_cards = {s: take(_cards((hands or {}).get(s)), f"hand {s}") for s in range(n_seats)}
    morto_cards = [take(_cards(m), f"morto {i}") for i, m in enumerate(mortos or (None, None))]
    stock_cards = take(_cards(stock), "stock")
    for s, c in hand_cards.items():
        if len(c) > hs:
            raise ValueError(f"stack_deck: {len(c)} cards for hand {s}, at most {hs}")
    for i, c in enumerate(morto_cards):
        if len(c) > ms:
            raise ValueError(f"stack_deck: {len(c)} cards for morto {i}, at most {ms}")

    rest = [k for k in range(N_KINDS) for _ in range(pool[k])]
    pos = 0

    def fill(cards: list[int], n: int) -> list[int]:
        nonlocal pos
        out = list(cards)
        while len(out) < n:
            out.append(rest[pos])
            pos += 1
        return out

    full_hands = {s: fill(hand_cards[s], hs) for s in range(n_seats)}
    full_mortos = [fill(morto_cards[i] if i < len(morto_cards) else [], ms) for i in range(n_sides)]
    deck = [0] * (n_seats * hs)
    for j in range(n_seats * hs):
        seat = (first_seat + j) % n_seats
        deck[j] = full_hands[seat][j // n_seats]
    for m in full_mortos:
        deck += m
    deck += stock_cards + rest[pos:]
    assert len(deck) == rules.pack_size
    return deck


def make_position(
    rules: Rules,
    hands: dict[int, str | list[str]],
    melds: dict[int, list[str | list[str]]] | None = None,
    pile: str | list[str] | None = None,
    stock: str | list[str] | None = None,
    mortos: dict[int, str | list[str]] | None = None,
    taken_mortos: dict[int, int] | None = None,
    red3: dict[int, str | list[str]] | None = None,
    seat: int = 0,
    turn: int = 0,
    melded_before: set[int] | frozenset[int] = frozenset(),
    meld_turns: dict[int, list[int]] | None = None,
    stock_mortos: set[int] | frozenset[int] = frozenset(),
) -> State:
    """A hand-made position, ready for :func:`tranca_sim.engine.play_position`.

    Parameters
    ----------
    hands : {seat: cards}
        Each seat's hand (seats 0..n_seats-1; side = seat % 2 in partnerships,
        the seat itself for solo players).
    melds : {side: [cards, ...]}
        Melds already on the table; each is checked for legality (a set of one
        rank with its wilds, or a pure black-3 set; where the rules meld runs, a
        run in position order, low first, each wild at the place it stands for).
    pile : cards, bottom first.   stock : cards, top first.
    mortos : {side: cards} for mortos still waiting (non-empty).
    taken_mortos : {side: seat} for mortos already taken (by that seat).
    stock_mortos : sides whose morto already became the stock (``stock_out = 1``, E22); their
        cards are in ``stock``.
        A side in none of these has a waiting, empty morto: not allowed.
    red3 : {side: red 3s in the side's area}.
    seat, turn : seat to move and turns played so far.
    melded_before : seats that melded in an earlier turn (em cima).
    meld_turns : {side: [turn, ...]} the turn each of ``melds[side]`` last received a card
        (public history a strategy may read, ``MH_GREW``); default 0.

    The position need not hold the whole pack: the invariant checks of
    :func:`~tranca_sim.engine.play_position` compare with the cards it starts with.

    Raises
    ------
    ValueError
        For an illegal meld, a red 3 outside a red-3 area, an empty waiting
        morto or more copies of a card than the pack holds.
    """
    st = new_state(rules.n_sides)
    total = Counter()
    bad = sorted(set(hands) - set(range(rules.n_seats)))
    if bad:
        raise ValueError(f"position: {rules.name} has seats 0..{rules.n_seats - 1}, got hands for {bad}")
    for s, cards in hands.items():
        for k in _cards(cards):
            if is_red_three(k) and rules.threes_special:
                raise ValueError(f"position: a red 3 is never held in a hand (seat {s})")
            st.hand[s, k] += 1
            total[k] += 1
        st.se[s, SE_HAND_N] = int(st.hand[s].sum())
    for side, rows in (melds or {}).items():
        for cards in rows:
            ks = _cards(cards)
            m = int(st.ss[side, SS_N_MELDS])
            if m >= MAXM:
                raise ValueError("position: too many melds")
            st.ss[side, SS_N_MELDS] = m + 1
            mtype = _fill_meld(rules, st, side, m, ks)
            total.update(ks)
            if mtype != MT_BLACK3 and len(ks) >= rules.canasta_size:
                st.ss[side, SS_CANASTAS] += 1
                st.ss[side, SS_CLEAN] += int(st.mh[side, m, MH_WILD] == 0)
    pk = _cards(pile)
    st.pile[: len(pk)] = pk
    st.sc[SC_PILE_N] = len(pk)
    total.update(pk)
    sk = _cards(stock)
    st.deck[: len(sk)] = sk
    st.sc[SC_STOCK_PTR] = 0
    st.sc[SC_DECK_N] = len(sk)
    total.update(sk)
    mortos = mortos or {}
    taken_mortos = taken_mortos or {}
    at = len(sk)  # a waiting morto's cards follow the stock in ``deck``, in the order given (E22)
    for side in range(rules.n_sides):
        st.ss[side, SS_MORTO_TURN] = -1
        st.ss[side, SS_MORTO_SEAT] = -1
        st.ss[side, SS_INDIRECT_SEAT] = -1
        if side in stock_mortos:
            st.ss[side, SS_MORTO] = MS_STOCK
        elif side in taken_mortos:
            st.ss[side, SS_MORTO] = 1
            st.ss[side, SS_MORTO_SEAT] = taken_mortos[side]
            st.ss[side, SS_MORTO_TURN] = 0
        else:
            ks = _cards(mortos.get(side))
            if not ks:
                raise ValueError(
                    f"position: side {side}'s morto is waiting but has no cards; give it or mark it taken"
                )
            for k in ks:
                st.morto[side, k] += 1
            st.ss[side, SS_MORTO] = MS_WAITING
            st.ss[side, SS_MORTO_AT] = at
            st.deck[at : at + len(ks)] = ks
            at += len(ks)
            total.update(ks)
    for side, cards in (red3 or {}).items():
        for k in _cards(cards):
            if not is_red_three(k):
                raise ValueError("position: only red 3s go in a red-3 area")
            st.red3[side, k] += 1
            st.ss[side, SS_RED3] += 1
            total[k] += 1
    for k, n in total.items():
        cap = rules.n_jokers if k == JOKER else 2
        if n > cap:
            raise ValueError(f"position: {n} copies of card kind {k}, the pack holds {cap}")
    for s in melded_before:
        st.se[s, SE_MELDED] = 1
    for side, turns in (meld_turns or {}).items():
        if len(turns) > int(st.ss[side, SS_N_MELDS]):
            raise ValueError(f"position: meld_turns for side {side} lists more melds than it has")
        for m, t in enumerate(turns):
            st.mh[side, m, MH_GREW] = t
    st.sc[SC_SEAT] = seat
    st.sc[SC_TURN] = turn
    st.sc[SC_FIRST_SEAT] = seat
    st.sc[SC_OUT_SEAT] = -1
    if rules.meld_runs:
        index_runs(st, rules.to_array())  # the listing's run index (run_index.py)
    return st


def _fill_meld(rules: Rules, st: State, side: int, m: int, ks: list[int]) -> int:
    naturals = [k for k in ks if not is_wild_kind(k)]
    wilds = [k for k in ks if is_wild_kind(k)]
    if naturals and all(is_black_three(k) for k in naturals) and not wilds and rules.threes_special:
        mtype, r = MT_BLACK3, 3
        if len(ks) < 3:
            raise ValueError("position: a black-3 set needs 3 or 4 black 3s")
    elif rules.meld_runs and len({rank_of(k) for k in naturals}) > 1:
        return _fill_run(rules, st, side, m, ks)
    else:
        ranks = {rank_of(k) for k in naturals}
        if len(ranks) != 1:
            raise ValueError(f"position: a meld needs naturals of one rank, got {ks}")
        r = ranks.pop()
        if r == 3 and rules.threes_special:
            raise ValueError("position: 3s cannot be melded in this preset except the black-3 set")
        if len(ks) < 3 or len(naturals) < rules.min_naturals or len(wilds) > rules.max_wilds:
            raise ValueError(f"position: illegal meld {ks}")
        mtype = MT_SET
    st.mh[side, m, MH_TYPE] = mtype
    st.mh[side, m, MH_RANK] = r
    st.mh[side, m, MH_SUIT] = -1
    st.mh[side, m, MH_N] = len(ks)
    st.mh[side, m, MH_NAT] = len(naturals)
    st.mh[side, m, MH_WILD] = len(wilds)
    st.mh[side, m, MH_JOKERS] = sum(1 for k in wilds if k == JOKER)
    for k in ks:
        st.mc[side, m, k] += 1
    return mtype


def _fill_run(rules: Rules, st: State, side: int, m: int, ks: list[int]) -> int:
    """A run given in position order, low first, each wild at the place it stands for
    (positions 1 = ace low .. 14 = ace high; E16: from 4 with special 3s)."""
    n = len(ks)
    lowest = 4 if rules.threes_special else 1
    best = None
    for suit in range(4):
        for lo in range(lowest, 16 - n):
            wild = []
            for i, k in enumerate(ks):
                p = lo + i
                nat = suit * 13 + (0 if p == 14 else p - 1)
                if k == nat:
                    continue
                if not is_wild_kind(k):
                    break
                wild.append(p)
            else:
                if len(wild) < n and (best is None or len(wild) < len(best[2])):
                    best = (suit, lo, wild)
    if best is None or n < 3:
        raise ValueError(f"position: {ks} is not a run in position order")
    suit, lo, wild = best
    if len(wild) > rules.max_wilds or n - len(wild) < rules.min_naturals:
        raise ValueError(f"position: illegal run {ks} (wild and natural limits)")
    st.mh[side, m, MH_TYPE] = MT_RUN
    st.mh[side, m, MH_RANK] = 0
    st.mh[side, m, MH_SUIT] = suit
    st.mh[side, m, MH_LO] = lo
    st.mh[side, m, MH_HI] = lo + n - 1
    st.mh[side, m, MH_WMASK] = sum(1 << p for p in wild)
    st.mh[side, m, MH_N] = n
    st.mh[side, m, MH_NAT] = n - len(wild)
    st.mh[side, m, MH_WILD] = len(wild)
    st.mh[side, m, MH_JOKERS] = sum(1 for k in ks if k == JOKER)
    for k in ks:
        st.mc[side, m, k] += 1
    return MT_RUN


def counts(st: State) -> np.ndarray:
    """``int64[N_KINDS]``: every card of the position by kind (hands, waiting mortos, stock,
    pile, melds, red-3 areas)."""
    c = st.hand.sum(axis=0).astype(np.int64)
    for side in range(st.ss.shape[0]):
        if st.ss[side, SS_MORTO] == MS_WAITING:
            c += st.morto[side]
        c += st.red3[side]
        c += st.mc[side, : st.ss[side, SS_N_MELDS]].sum(axis=0)
    np.add.at(c, st.deck[st.sc[SC_STOCK_PTR] : st.sc[SC_DECK_N]].astype(np.int64), 1)
    np.add.at(c, st.pile[: st.sc[SC_PILE_N]].astype(np.int64), 1)
    return c
