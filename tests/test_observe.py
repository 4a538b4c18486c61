"""The observation later in a turn (issue 9): :func:`tranca_sim.engine.observe.refresh_pub` writes
again only what a turn can change, on top of the turn's :func:`fill_pub`; the engine gives it to
the meld and discard choices, and :func:`~tranca_sim.engine.observe.refresh_pub_meld` (only what a
meld can change) to those after a meld of the same meld phase.  Each test changes a hand-made position the way a turn does (a
capture, a meld that empties the hand and takes the morto, a morto that becomes the stock) and
checks the refreshed facts against a fresh :func:`fill_pub` and against values worked out by hand
from the seeds (``000_95ec226e9cdd732e.txt`` Gameplay 3, 7, 10; ``004_083ae37bb3863d19.txt`` How
to play, stock_out)."""

from __future__ import annotations

import numpy as np

from tranca_sim.engine.cards import N_KINDS, parse
from tranca_sim.engine.deal import fill_pub, setup_deal
from tranca_sim.engine.kernel import _deal_deck_nb
from tranca_sim.engine.melds import apply_meld_action, list_meld_actions
from tranca_sim.engine.obs import (
    A_CAP_NEW,
    A_NEW,
    A_RUN_EXT,
    A_RUN_NEW,
    A_RUN_SWAP,
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
    PUB_RED3,
    PUB_STOCK_N,
)
from tranca_sim.engine.observe import refresh_pub, refresh_pub_meld
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import apply_run_action, list_run_actions
from tranca_sim.engine.state import (
    MS_DIRECT,
    MS_STOCK,
    MS_WAITING,
    SC_DECK_N,
    SC_NO_DISCARD,
    SC_SEAT,
    SC_STOCK_PTR,
    SC_TURN,
    SE_MELDED,
    SE_MELDED_NOW,
    new_state,
)
from tranca_sim.engine.turn import after_meld, discard, draw_stock, legal_discard, morto_to_stock, place_red3s, take_pile
from tranca_sim.rules import PRESETS, R_MELD_RUNS, R_MELD_SETS, R_THREES_SPECIAL, get_preset

TRANCA = get_preset("tranca")


def _pubs(st, rp, seat, start, refresh=refresh_pub):
    """``start`` (the turn's fill_pub) refreshed by ``refresh`` (:func:`refresh_pub`, or
    :func:`refresh_pub_meld` for the meld phase), and a fresh fill_pub of the same state."""
    refreshed = start.copy()
    refresh(st, rp, seat, refreshed)
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


def test_meld_refresh_after_the_morto_brings_a_red3_and_the_stock_runs_out():
    """The meld phase's cheaper refresh (:func:`refresh_pub_meld`, issue 9) after a meld that
    empties the hand: seat 0 lays QH QC QS, takes its side's morto 3D 4S 5S at once (000 Gameplay
    10, direct), lays the red 3D in the side's area and replaces it from the stock (Gameplay 5);
    the stock is empty, so with ``stock_out = 1`` and ``morto_stock_side = 1`` (004 How to play,
    E22) side 1's waiting morto 7H 8H becomes the stock and 7H is drawn.  Worked by hand: side 0's
    morto MS_DIRECT, side 1's MS_STOCK, stock 1 card (8H), side 0 one red 3 and one meld, hand 3
    (4S 5S 7H), seat 0 melded this turn.  Everything equals a fresh :func:`fill_pub`, though the
    meld refresh writes neither the pile nor side 1's melds."""
    rules = TRANCA.replace(stock_out=1, morto_stock_side=1)
    rp = rules.to_array()
    st = make_position(
        rules,
        hands={0: "QH QC QS", 1: "5D 6D", 2: "6C 7C", 3: "8C 9C"},
        pile="KD",
        stock=[],
        mortos={0: "3D 4S 5S", 1: "7H 8H"},
    )
    start = np.zeros(PUB_LEN, np.int32)
    fill_pub(st, rp, 0, start)  # the meld phase's first refresh: everything
    apply_meld_action(st, rp, 0, A_NEW, 12, NEW_3NAT)
    assert not after_meld(st, rp, 0)
    pub, fresh = _pubs(st, rp, 0, start, refresh_pub_meld)
    assert pub.tolist() == fresh.tolist()
    assert (pub[PUB_MORTO + 0], pub[PUB_MORTO + 1], pub[PUB_STOCK_N]) == (MS_DIRECT, MS_STOCK, 1)
    assert (pub[PUB_RED3 + 0], pub[PUB_N_MELDS + 0], pub[PUB_HAND_N + 0], pub[PUB_MELDED_NOW]) == (1, 1, 3, 1)
    assert st.hand[0, parse("7H")] == 1


def _random_meld_phases(rules, deal, rng):
    """One deal played by random legal choices with the engine's pieces, as the engine's turn does
    after a draw from the stock: the draw's observation (:func:`fill_pub`) before the draw, the draw
    and its red 3s, then every set and run action listed, picked at random, until the player stops,
    then a random legal discard.  At every choice (each meld, the discard) the meld refresh of the
    pub the engine would hold must equal a fresh :func:`fill_pub`; returns the choices checked."""
    rp = rules.to_array()
    st = new_state(rules.n_sides)
    deck = _deal_deck_nb(rp, np.uint64(7), np.int64(deal))
    setup_deal(st, rp, deck, deck.shape[0], deal % rules.n_seats)
    acts = np.zeros(512, np.int32)
    pub = np.zeros(PUB_LEN, np.int32)
    sets_listed = rp[R_MELD_SETS] != 0 or rp[R_THREES_SPECIAL] != 0
    runs = rp[R_MELD_RUNS] != 0
    checked = 0
    for _ in range(400):
        if st.sc[SC_STOCK_PTR] >= st.sc[SC_DECK_N]:
            break  # stock out: the deal's end (the morto as stock is the hand-made test above)
        seat = int(st.sc[SC_SEAT])
        st.sc[SC_NO_DISCARD] = 0
        place_red3s(st, rp, seat)
        fill_pub(st, rp, seat, pub)  # the draw's observation: everything, before the draw
        draw_stock(st, seat)
        place_red3s(st, rp, seat)
        while True:  # a choice: a meld, or the discard once the player stops
            refresh_pub_meld(st, rp, seat, pub)
            fresh = np.zeros(PUB_LEN, np.int32)
            fill_pub(st, rp, seat, fresh)
            assert pub.tolist() == fresh.tolist(), (rules.name, deal, seat)
            checked += 1
            n = list_meld_actions(st, rp, seat, acts) if sets_listed else 0
            if runs:
                n = list_run_actions(st, rp, seat, acts, n)
            if n == 0 or rng.random() < 0.15:
                break
            a = int(acts[rng.integers(n)])
            t, x, y = a >> 16, (a >> 8) & 0xFF, a & 0xFF
            if t in (A_RUN_NEW, A_RUN_EXT, A_RUN_SWAP):
                apply_run_action(st, rp, seat, t, x, y)
            else:
                apply_meld_action(st, rp, seat, t, x, y)
            if after_meld(st, rp, seat):
                return checked
        ks = [k for k in range(N_KINDS) if legal_discard(st, rp, seat, k)]
        if not ks:
            break
        if discard(st, rp, seat, ks[rng.integers(len(ks))]):
            break
        st.se[seat, SE_MELDED] |= st.se[seat, SE_MELDED_NOW]
        st.se[seat, SE_MELDED_NOW] = 0
        st.sc[SC_TURN] += 1
        st.sc[SC_SEAT] = (seat + 1) % rules.n_seats
    return checked


def test_meld_refresh_equals_a_fresh_observation_in_random_deals_of_every_preset():
    """Random stock draws and legal melds in deals of every preset (sets, runs, black-3 sets where
    listed; red 3s drawn and replaced; hands emptied into the morto): at every later choice of a
    turn the meld refresh equals a fresh observation, so the cheaper refresh of the engine's meld
    and discard choices cannot go stale."""
    rng = np.random.default_rng(9)
    total = 0
    for name in sorted(PRESETS):
        rules = PRESETS[name]
        checked = sum(_random_meld_phases(rules, d, rng) for d in range(6))
        assert checked > 0, name
        total += checked
    assert total > 1000
