"""The observation later in a turn (issue 9): :func:`tranca_sim.engine.observe.refresh_pub` writes
again only what a turn can change, on top of the turn's :func:`fill_pub`; the engine gives it to
the meld and discard choices.  Each test changes a hand-made position the way a turn does (a
capture, a meld that empties the hand and takes the morto, a morto that becomes the stock) and
checks the refreshed facts against a fresh :func:`fill_pub` and against values worked out by hand
from the seeds (``000_95ec226e9cdd732e.txt`` Gameplay 3, 7, 10; ``004_083ae37bb3863d19.txt`` How
to play, stock_out)."""

from __future__ import annotations

import numpy as np

from tranca_sim.engine.deal import fill_pub
from tranca_sim.engine.melds import apply_meld_action
from tranca_sim.engine.obs import (
    A_CAP_NEW,
    A_NEW,
    CAPNEW_2NAT,
    NEW_3NAT,
    PUB_CAN_EMPTY,
    PUB_HAND_N,
    PUB_LEN,
    PUB_LOCKED,
    PUB_MELDED_NOW,
    PUB_MORTO,
    PUB_N_MELDS,
    PUB_PILE_N,
    PUB_PILE_TOP,
    PUB_STOCK_N,
)
from tranca_sim.engine.observe import refresh_pub
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.state import MS_DIRECT, MS_STOCK, MS_WAITING
from tranca_sim.engine.turn import after_meld, morto_to_stock, take_pile
from tranca_sim.rules import get_preset

TRANCA = get_preset("tranca")


def _pubs(st, rp, seat, start):
    """``start`` (the turn's fill_pub) refreshed, and a fresh fill_pub of the same state."""
    refreshed = start.copy()
    refresh_pub(st, rp, seat, refreshed)
    fresh = np.zeros(PUB_LEN, np.int32)  # as the engine's pub (slots past the table's sides stay 0)
    fill_pub(st, rp, seat, fresh)
    return refreshed, fresh


def test_refresh_after_capture_of_closed_pile():
    """Seat 0 holds QH QC 7S 8D 9D and takes the closed pile 5C QD by melding its top card QD with
    QH QC (000 Gameplay 3): a new meld of three queens, the 5C into the hand.  Hand 5 - 2 + 1 = 4
    cards; pile empty (top -1, not locked); side 0 has 1 meld; seat 0 has melded this turn; stock
    unchanged (2 cards).  Every other fact is as a fresh observation gives it."""
    rp = TRANCA.to_array()
    st = make_position(
        TRANCA,
        hands={0: "QH QC 7S 8D 9D", 1: "5S 6S", 2: "6C 7C", 3: "8C 9C"},
        pile="5C QD",
        stock="9H 9S",
        mortos={0: "4S", 1: "4H"},
    )
    start = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, 0, start)
    assert (start[PUB_PILE_N], start[PUB_HAND_N + 0], start[PUB_N_MELDS + 0]) == (2, 5, 0)
    take_pile(st, rp, 0, A_CAP_NEW, 0, CAPNEW_2NAT)
    refreshed, fresh = _pubs(st, rp, 0, start)
    assert refreshed.tolist() == fresh.tolist()
    assert refreshed[PUB_HAND_N + 0] == 4
    assert (refreshed[PUB_PILE_N], refreshed[PUB_PILE_TOP], refreshed[PUB_LOCKED]) == (0, -1, 0)
    assert (refreshed[PUB_N_MELDS + 0], refreshed[PUB_MELDED_NOW], refreshed[PUB_STOCK_N]) == (1, 1, 2)


def test_refresh_after_meld_takes_the_morto():
    """Seat 0 holds QH QC QS and lays them as a new meld: the hand is empty and the side's morto
    is waiting, so seat 0 takes it at once (000 Gameplay 10, direct): its 3 cards 4S 5S 6S are the
    new hand.  Morto state MS_DIRECT; hand 3; side 0 has no canasta, so it may not empty the hand
    again (can_empty 0: the morto is taken, going out needs a canasta)."""
    rp = TRANCA.to_array()
    st = make_position(
        TRANCA,
        hands={0: "QH QC QS", 1: "5D 6D", 2: "6C 7C", 3: "8C 9C"},
        pile="KD",
        stock="9H 9S",
        mortos={0: "4S 5S 6S", 1: "4H 5H 6H"},
    )
    start = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, 0, start)
    assert (start[PUB_MORTO + 0], start[PUB_CAN_EMPTY]) == (MS_WAITING, 1)
    apply_meld_action(st, rp, 0, A_NEW, 12, NEW_3NAT)  # rank 12: the queen
    assert not after_meld(st, rp, 0)
    refreshed, fresh = _pubs(st, rp, 0, start)
    assert refreshed.tolist() == fresh.tolist()
    assert (refreshed[PUB_MORTO + 0], refreshed[PUB_HAND_N + 0], refreshed[PUB_CAN_EMPTY]) == (
        MS_DIRECT,
        3,
        0,
    )
    assert refreshed[PUB_MORTO + 1] == MS_WAITING


def test_refresh_after_the_other_sides_morto_becomes_the_stock():
    """``stock_out = 1`` (004 How to play: a morto still face down becomes the new stock when the
    stock runs out) with ``morto_stock_side = 1`` (E22: the other side's morto first): seat 0 faces
    an empty stock, side 0's morto already taken, so side 1's morto of 2 cards becomes the stock.
    The refreshed facts name side 1's morto MS_STOCK and 2 stock cards: a fact of the other side
    that a turn can change."""
    rules = TRANCA.replace(stock_out=1, morto_stock_side=1)
    rp = rules.to_array()
    st = make_position(
        rules,
        hands={0: "QH QC 7S", 1: "5D 6D", 2: "6C 7C", 3: "8C 9C"},
        pile="KD",
        stock=[],
        mortos={1: "4H 5H"},
        taken_mortos={0: 2},
    )
    start = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, 0, start)
    assert (start[PUB_STOCK_N], start[PUB_MORTO + 1]) == (0, MS_WAITING)
    assert morto_to_stock(st, rp, 0)
    refreshed, fresh = _pubs(st, rp, 0, start)
    assert refreshed.tolist() == fresh.tolist()
    assert (refreshed[PUB_STOCK_N], refreshed[PUB_MORTO + 1]) == (2, MS_STOCK)
