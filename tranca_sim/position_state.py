"""A :class:`~tranca_sim.position.Position` as the engine's state, the seat's observation and its
legal choices.

The position holds only what the seat to move knows, so the state made here fills every hidden
place (the other hands, the face-down mortos, the stock) with the cards nobody has seen, in a
fixed order: a stand-in, never read by the analyser, which samples its worlds from the
observation alone (:func:`tranca_sim.strategies.pimc_worlds.sample_world`).  ``tests/test_analyse.py``
checks that another stand-in gives the same analysis.
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from .engine.cards import N_KINDS, parse, to_str
from .position import MORTO_WORDS, Position, PositionError, is_red3, pack_of, parse_position

#: the engine's morto states in the order of MORTO_WORDS (MS_WAITING, MS_DIRECT, MS_INDIRECT, MS_STOCK)
_MS = dict(zip(MORTO_WORDS, range(4)))


def hidden_cards(pos: Position) -> list[str]:
    """The cards the seat to move has not seen, in a fixed order (kind order)."""
    left = pack_of(pos.rules)
    seen = list(pos.hand) + list(pos.pile)
    for side in pos.melds:
        for m in side:
            seen += m
    for r in pos.red3:
        seen += r
    for _, cards in pos.mortos:
        seen += cards
    left.subtract(Counter(seen))
    return [to_str(k) for k in range(N_KINDS) for _ in range(max(0, left[to_str(k)]))]


def read_position(text: str) -> Position:
    """The position of ``text`` (:func:`~tranca_sim.position.parse_position`), which the engine
    also takes: a position the notation allows but the engine cannot set up (a hand that the
    hidden cards cannot fill) is one more :class:`~tranca_sim.position.PositionError`."""
    pos = parse_position(text)
    try:
        to_state(pos)
    except ValueError as e:
        raise PositionError([str(e).removeprefix("position: ")]) from None
    return pos


def to_state(pos: Position, order: list[str] | None = None):
    """The engine state of ``pos``: the hidden places filled from ``order`` (default
    :func:`hidden_cards`; a test passes another shuffle of it).  Each seat's hand first gets the
    cards it was seen taking that are seen nowhere else, and red 3s go to the stock and the
    mortos (a hand never keeps one past its turn).

    Raises
    ------
    ValueError
        If the engine refuses the position (:func:`tranca_sim.engine.positions.make_position`).
    """
    from .engine.positions import make_position
    from .engine.state import MS_INDIRECT, SE_MELDED, SE_MELDED_NOW, SS_MATCH_SCORE, SS_MORTO, SS_N_MELDS

    r = pos.rules
    pool = list(hidden_cards(pos) if order is None else order)
    red = [c for c in pool if is_red3(c) and r.threes_special]
    rest = [c for c in pool if not (is_red3(c) and r.threes_special)]
    hands: dict[int, list[str]] = {pos.seat: list(pos.hand)}
    for s in range(r.n_seats):
        if s == pos.seat:
            continue
        hands[s] = []
        for c in pos.took.get(s, []):
            if len(hands[s]) < pos.hand_sizes[s] and c in rest:
                rest.remove(c)
                hands[s].append(c)
    for s in hands:
        while len(hands[s]) < pos.hand_sizes[s] and rest:
            hands[s].append(rest.pop(0))
        if len(hands[s]) < pos.hand_sizes[s]:
            raise ValueError(f"position: seat {s}'s hand of {pos.hand_sizes[s]} cards cannot be filled")
    pool = red + rest  # the red 3s first into the mortos and the stock
    mortos, taken, stock_mortos = {}, {}, set()
    for sd, (state, cards) in enumerate(pos.mortos):
        if state == "waiting":
            mortos[sd] = list(cards) if cards else [pool.pop(0) for _ in range(min(r.morto_size, len(pool)))]
        elif state == "stock":
            stock_mortos.add(sd)
        else:
            taken[sd] = next(s for s in range(r.n_seats) if r.side_of(s) == sd)
    if len(pool) != pos.stock:
        raise ValueError(f"position: {len(pool)} hidden cards left for a stock of {pos.stock}")
    melds = {sd: [list(m) for m in pos.melds[sd]] for sd in range(r.n_sides) if pos.melds[sd]}
    red3 = {sd: list(x) for sd, x in enumerate(pos.red3) if x}
    st = make_position(
        r, hands, melds=melds, pile=list(pos.pile), stock=pool, mortos=mortos, taken_mortos=taken,
        red3=red3, seat=pos.seat, turn=pos.turn, stock_mortos=stock_mortos,
    )  # fmt: skip
    for sd, (state, _) in enumerate(pos.mortos):
        if state == "taken by the discard":
            st.ss[sd, SS_MORTO] = MS_INDIRECT
        st.ss[sd, SS_MATCH_SCORE] = pos.score[sd] if pos.score else 0
    for s in range(r.n_seats):
        st.se[s, SE_MELDED] = 1 if st.ss[r.side_of(s), SS_N_MELDS] > 0 else 0
        for c in pos.took.get(s, []):
            st.taken[s, parse(c)] += 1
    st.se[pos.seat, SE_MELDED_NOW] = 1 if pos.melded_now else 0
    return st


def observation(pos: Position, st=None):
    """The seat to move's observation (:data:`tranca_sim.engine.obs.Obs`) and the rule vector."""
    from .engine.obs import PUB_LEN, Obs
    from .engine.observe import fill_pub

    if st is None:
        st = to_state(pos)
    rp = pos.rules.to_array()
    pub = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, pos.seat, pub)
    morto = st.morto.copy() if pos.rules.mortos_face_up else np.zeros_like(st.morto)
    return Obs(st.hand[pos.seat].copy(), pub, st.pile.copy(), st.mh.copy(), st.mc.copy(), st.taken.copy(), morto, rp)


def legal_choices(pos: Position, st=None) -> np.ndarray:
    """The legal choices of the phase as the engine lists them: action codes (draw: the stock and
    each way to take the pile; meld: each meld action, with -1 = stop first) or card kinds
    (discard)."""
    from .engine.melds import list_draw_actions, list_meld_actions
    from .engine.runs import list_run_actions, list_run_captures
    from .engine.turn import legal_discard

    if st is None:
        st = to_state(pos)
    rp = pos.rules.to_array()
    acts = np.zeros(512, np.int32)
    if pos.phase == "draw":
        n = list_draw_actions(st, rp, pos.seat, acts)
        if pos.rules.meld_runs:
            n = list_run_captures(st, rp, pos.seat, acts, n)
        return acts[:n].copy()
    if pos.phase == "meld":
        n = list_meld_actions(st, rp, pos.seat, acts)
        if pos.rules.meld_runs:
            n = list_run_actions(st, rp, pos.seat, acts, n)
        return np.concatenate([np.array([-1], np.int32), acts[:n]])
    return np.array([k for k in range(N_KINDS) if legal_discard(st, rp, pos.seat, k)], np.int32)
