"""The engine's listing offers every legal meld shape (issue 21 item 1, VARIANTS 17).

The engine lays a meld as a new meld of three cards (four for natural-wild-wild-natural) and one-card
extensions in the same turn, and takes a closed pile with its top card in a new meld or on a side
meld.  What it can lay from a hand is compared with a plain enumeration written from the rules: every
sub-multiset of the hand that the referee's :func:`~tranca_sim.referee.validate_meld` (pure Python,
nothing shared with the engine) calls a legal meld.  The engine's side is a search over its own
listed actions (:func:`~tranca_sim.engine.runs.list_melds` / ``list_draws``, applied with
``apply_meld`` / ``take_pile``): every meld a new-meld action and then extensions of that meld reach.
The two sets of card multisets must be equal, over random hands of every preset (and a few rule
variants that reach more shapes: plain 3s with two wilds a meld, jokers in buraco), for:

- new melds from the hand;
- one card onto each of the side's table melds (runs: at either end; the referee's own run reading);
- a closed pile of one card taken by melding its top card, onto a table meld or in a new meld with
  two or more cards of the hand (VARIANTS 4), or nothing when the top card locks or cannot be melded.

The side's morto waits, so the keep rule (E6) never binds, and the other sides hold one card each.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from tranca_sim.engine.cards import to_str
from tranca_sim.engine.obs import (
    A_CAP_EXT,
    A_CAP_NEW,
    A_CAP_RUN,
    A_EXT,
    A_NEW,
    A_RUN_EXT,
    A_RUN_NEW,
    act_type,
    act_x,
    act_y,
)
from tranca_sim.engine.positions import make_position
from tranca_sim.engine.runs import apply_meld, list_draws, list_melds
from tranca_sim.engine.state import (
    MH_HI,
    MH_JOKERS,
    MH_LO,
    MH_N,
    MH_TYPE,
    MH_WILD,
    MH_WMASK,
    MT_RUN,
    SS_N_MELDS,
    State,
)
from tranca_sim.engine.turn import take_pile
from tranca_sim.referee import validate_meld
from tranca_sim.referee.runs import _limits_reason, layout_at, pos_card
from tranca_sim.rules import PRESETS, get_preset

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]

RULE_SETS = {name: get_preset(name) for name in sorted(PRESETS)}
_car = get_preset("tranca-carioca")
RULE_SETS["carioca, plain 3s"] = _car.replace(
    threes_special=False, black3_on_going_out=False, lock_by_black3=False
)
RULE_SETS["buraco, jokers"] = get_preset("buraco").replace(n_jokers=4)
RULE_SETS["buraco-fechado, jokers"] = get_preset("buraco-fechado").replace(n_jokers=4)


# ---- the engine's side: what its listed actions lay -------------------------------------------------


def _copy(st):
    return State(*[a.copy() for a in st])


def _acts(fn, rules, st):
    a = np.zeros(512, np.int32)
    n = fn(st, rules.to_array(), 0, a)
    return [(int(act_type(x)), int(act_x(x)), int(act_y(x))) for x in a[:n]]


def _cards_of(st, m):
    return tuple(sorted(to_str(k) for k in range(53) for _ in range(int(st.mc[0, m, k]))))


def shape(cards, rules):
    """A meld's cards up to which 2 plays a wild (the engine lays another suit's 2 first): the kind,
    the naturals (a run's own 2 at its place among them), the wild 2s and the jokers, as the referee
    reads the cards; an illegal meld keeps all its cards, so it never matches a legal one."""
    chk = validate_meld(list(cards), rules)
    if not chk.legal:
        return ("illegal", tuple(sorted(cards)))
    nat = [c for c in cards if not (c == "JK" or c.startswith("2"))]
    twos = [c for c in cards if c.startswith("2")]
    if chk.kind == "set":  # the suits of a set's naturals are no part of its shape
        return ("set", chk.rank, len(nat), len(twos), list(cards).count("JK"))
    if chk.kind == "run" and chk.low <= 2 <= chk.high and 2 not in chk.wild_at:
        twos.remove("2" + chk.suit)
        nat.append("2" + chk.suit)
    return (chk.kind, tuple(sorted(nat)), len(twos), list(cards).count("JK"))


def row_shape(st, m):
    """Table meld ``m`` of side 0 in place: a run's places and where its wilds stand, a set's size."""
    h = st.mh[0, m]
    if h[MH_TYPE] == MT_RUN:
        wm = int(h[MH_WMASK])
        return (
            m,
            int(h[MH_LO]),
            int(h[MH_HI]),
            tuple(p for p in range(15) if wm >> p & 1),
            int(h[MH_JOKERS]),
        )
    return (m, int(h[MH_N]), int(h[MH_WILD]), int(h[MH_JOKERS]))


def _grow(rules, st, m, out, seen=None):
    """Record meld row ``m`` of side 0 and every meld its listed extensions reach (visited once
    for each of its cards and layout: two layouts of the same shape grow differently)."""
    seen = set() if seen is None else seen
    cards = _cards_of(st, m)
    if (cards, row_shape(st, m)) in seen:
        return
    seen.add((cards, row_shape(st, m)))
    out.add(shape(cards, rules))
    for t, x, y in _acts(list_melds, rules, st):
        if t in (A_EXT, A_RUN_EXT) and x == m:
            nxt = _copy(st)
            apply_meld(nxt, rules.to_array(), 0, t, x, y)
            _grow(rules, nxt, m, out, seen)


def engine_new_melds(rules, st):
    out, seen = set(), set()
    for t, x, y in _acts(list_melds, rules, st):
        if t in (A_NEW, A_RUN_NEW):
            nxt = _copy(st)
            m = int(st.ss[0, SS_N_MELDS])
            apply_meld(nxt, rules.to_array(), 0, t, x, y)
            _grow(rules, nxt, m, out, seen)
    return out


def engine_extensions(rules, st):
    """{(table meld, its cards after one listed extension)}."""
    out = set()
    for t, x, y in _acts(list_melds, rules, st):
        if t in (A_EXT, A_RUN_EXT):
            nxt = _copy(st)
            apply_meld(nxt, rules.to_array(), 0, t, x, y)
            out.add(row_shape(nxt, x))
    return out


def engine_captures(rules, st):
    """({(table meld, its cards)} for the top card onto a table meld, {new melds reached})."""
    onto, new, seen = set(), set(), set()
    n0 = int(st.ss[0, SS_N_MELDS])
    for t, x, y in _acts(list_draws, rules, st):
        if t not in (A_CAP_EXT, A_CAP_NEW, A_CAP_RUN):
            continue
        nxt = _copy(st)
        take_pile(nxt, rules.to_array(), 0, t, x, y)
        if t == A_CAP_EXT:
            onto.add(row_shape(nxt, x))
        else:
            _grow(rules, nxt, n0, new, seen)
    return onto, new


# ---- the rules' side: the referee's verdict on the cards ---------------------------------------------


def sub_multisets(hand, k_min):
    cards = sorted(hand)
    seen = set()
    for k in range(k_min, len(cards) + 1):
        for sub in combinations(cards, k):
            if sub not in seen:
                seen.add(sub)
                yield sub


def legal_new_melds(rules, hand, table=(), extra=()):
    """Every sub-multiset of ``hand`` (plus the cards ``extra``, the pile's top card) that is a legal
    new meld of the side (VARIANTS 2, 5, 6; E16-E19: no new run of a suit the side holds one of
    without several_runs_per_suit, no second set of a rank without several_melds_per_rank)."""
    out = set()
    for sub in sub_multisets(hand, 3 - len(extra)):
        cards = list(extra) + list(sub)
        chk = validate_meld(cards, rules)
        if not chk.legal:
            continue
        if (
            chk.kind == "run"
            and not rules.several_runs_per_suit
            and any(m["kind"] == "run" and m["suit"] == chk.suit for m in table)
        ):
            continue
        if (
            chk.kind == "set"
            and not rules.several_melds_per_rank
            and any(m["kind"] == "set" and m["rank"] == chk.rank for m in table)
        ):
            continue
        out.add(shape(cards, rules))
    return out


def legal_onto(rules, table, cards):
    """{(meld, its cards after one of ``cards`` is added, its low place)}: a run takes the card at
    either end when the referee reads the longer run in place (layout_at) within the limits (E16,
    E17); a set takes it when the referee calls the longer set legal."""
    out = set()
    for i, m in enumerate(table):
        for c in set(cards):
            if m["kind"] == "run":
                for low, seq in ((m["low"] - 1, [c] + m["cards"]), (m["low"], m["cards"] + [c])):
                    lay = layout_at(seq, m["suit"], low)
                    if lay is not None and _limits_reason(lay, rules) is None:
                        chk = validate_meld(seq, rules)  # cards that read clean are the clean run
                        if chk.clean:  # (3H..8H with the 2H for the 9H is 2H..8H: VARIANTS 17)
                            lay = chk
                        out.add((i, lay.low, lay.high, lay.wild_at, seq.count("JK")))
            else:
                seq = m["cards"] + [c]
                chk = validate_meld(seq, rules)
                if chk.legal and chk.kind == "set":
                    wilds = [x for x in seq if x == "JK" or x.startswith("2")]
                    out.add((i, len(seq), len(wilds), seq.count("JK")))
    return out


# ---- random positions ---------------------------------------------------------------------------------


def _ok_card(rules, c):
    return not (rules.threes_special and c in ("3D", "3H"))


#: the cards :func:`position` lays elsewhere: the other seats' hands, the stock, the mortos
ELSEWHERE = Counter(["KD", "9C", "QD", "KS", "JC", "JD", "JS"])


def _pack(rules):
    pack = Counter({r + s: 2 for r in RANKS for s in "CDHS"})
    if rules.n_jokers:
        pack["JK"] = rules.n_jokers
    return pack - ELSEWHERE


def random_hand(rules, rng, size):
    """A hand leaning to runs and sets: naturals of one or two suits around a random place, a few
    of one rank, 2s (and jokers where the pack has them), and a stray card or two."""
    pack = _pack(rules)
    hand = Counter()

    def add(c):
        if pack[c] > hand[c] and _ok_card(rules, c):
            hand[c] += 1

    suits = rng.sample("CDHS", rng.choice((1, 2)))
    lo = rng.randint(0, 9)
    for _ in range(size):
        if sum(hand.values()) >= size:
            break
        u = rng.random()
        if u < 0.55:
            i = min(13, lo + rng.randint(0, 5))
            add(RANKS[i % 13] + rng.choice(suits))
        elif u < 0.75:
            add("JK" if rules.n_jokers and rng.random() < 0.4 else "2" + rng.choice("CDHS"))
        elif u < 0.9:
            add(RANKS[lo % 13] + rng.choice("CDHS"))
        else:
            add(rng.choice(RANKS) + rng.choice("CDHS"))
    return sorted(hand.elements())


def random_table(rules, rng):
    """One to three legal melds for side 0: runs (where played) and sets, some with a wild."""
    table = []
    for _ in range(rng.randint(1, 3)):
        if rules.meld_runs and (not rules.meld_sets or rng.random() < 0.7):
            s = rng.choice("CDHS")
            n = rng.randint(3, 6)
            lo_min = 4 if rules.threes_special else 1
            low = rng.randint(lo_min, 15 - n)
            cards = [pos_card(s, p) for p in range(low, low + n)]
            if rules.max_wilds and rng.random() < 0.4:
                i = rng.randrange(1, n - 1)
                if low + i != 2:
                    cards[i] = "JK" if rules.n_jokers else "2" + rng.choice("CDHS".replace(s, ""))
            lay = layout_at(cards, s, low)
            if lay is None or _limits_reason(lay, rules) is not None:
                continue
            if any(m["kind"] == "run" and m["suit"] == s for m in table) and not rules.several_runs_per_suit:
                continue
            table.append({"kind": "run", "suit": s, "low": low, "cards": cards})
        elif rules.meld_sets:
            r = rng.choice([x for x in RANKS if x != "2" and (x != "3" or not rules.threes_special)])
            cards = [r + s for s in rng.sample("CDHS", 3)]
            if rules.max_wilds and rng.random() < 0.4:
                cards[-1] = "2" + rng.choice("CDHS")
            table.append({"kind": "set", "rank": r, "cards": cards})
    return table


def position(rules, hand, table=(), pile=None):
    n = rules.n_seats
    sides = 2 if rules.partnerships else n
    others = {seat: ["KD", "9C", "QD"][seat - 1] for seat in range(1, n)}
    return make_position(
        rules,
        hands={0: hand, **others},
        melds={0: [m["cards"] for m in table]} if table else None,
        pile=pile,
        stock="KS",
        mortos={side: ["JC", "JD", "JS"][side] for side in range(sides)},
    )


def _counts_fit(rules, cards):
    pack = _pack(rules)
    return all(pack[c] >= k for c, k in Counter(cards).items())


# ---- the tests --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_new_melds_listed_are_every_legal_meld_of_the_hand(name):
    """Random hands of 7-9 cards: the melds the engine's listed new-meld actions and extensions lay
    are exactly the legal melds among the hand's cards (validate_meld over every sub-multiset)."""
    rules = RULE_SETS[name]
    rng = random.Random(f"new {name}")
    for _ in range(40):
        hand = random_hand(rules, rng, rng.randint(7, 9))
        st = position(rules, hand)
        assert engine_new_melds(rules, st) == legal_new_melds(rules, hand), hand


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_extensions_listed_are_every_legal_card_onto_a_table_meld(name):
    """Random table melds of side 0 and random hands: the one-card extensions listed are exactly
    the cards of the hand that make a legal longer meld (runs at either end, in place)."""
    rules = RULE_SETS[name]
    rng = random.Random(f"ext {name}")
    done = 0
    while done < 40:
        table = random_table(rules, rng)
        hand = random_hand(rules, rng, rng.randint(6, 8))
        if not table or not _counts_fit(rules, hand + [c for m in table for c in m["cards"]]):
            continue
        st = position(rules, hand, table)
        assert engine_extensions(rules, st) == legal_onto(rules, table, hand), (table, hand)
        done += 1


def _pile_expectation(rules, table, hand, top):
    """What taking a closed pile of the one card ``top`` can meld (000 Gameplay 3-4, VARIANTS 3-4):
    nothing when the top locks (a wild with lock_by_wild, a black 3 with lock_by_black3) or is a 3
    where 3s are special (E10); else the top card onto a table meld, or the top with two or more
    cards of the hand as a legal new meld."""
    wild = top == "JK" or top.startswith("2")
    if (wild and rules.lock_by_wild) or (top in ("3C", "3S") and rules.lock_by_black3):
        return set(), set()
    if rules.threes_special and top.startswith("3"):
        return set(), set()
    return legal_onto(rules, table, [top]), legal_new_melds(rules, hand, table, extra=(top,))


@pytest.mark.parametrize("name", [n for n, r in RULE_SETS.items() if r.pile_closed])
def test_pile_takes_listed_are_every_legal_use_of_the_top_card(name):
    """A closed pile of one card (a random card, a 2 or joker one time in four) over random tables
    and hands: the captures listed, followed by extensions of the new meld, reach exactly the legal
    melds of the top card with the hand's cards, and put the top card on exactly the table melds it
    legally extends."""
    rules = RULE_SETS[name]
    rng = random.Random(f"pile {name}")
    done = 0
    while done < 40:
        table = random_table(rules, rng) if rng.random() < 0.7 else []
        hand = random_hand(rules, rng, rng.randint(6, 8))
        if rng.random() < 0.25:
            top = "JK" if rules.n_jokers and rng.random() < 0.3 else "2" + rng.choice("CDHS")
        else:
            top = rng.choice(hand + [rng.choice(RANKS) + rng.choice("CDHS")])
            if top == "JK" or not _ok_card(rules, top):
                continue
        if not _counts_fit(rules, hand + [top] + [c for m in table for c in m["cards"]]):
            continue
        st = position(rules, hand, table, pile=[top])
        assert engine_captures(rules, st) == _pile_expectation(rules, table, hand, top), (table, hand, top)
        done += 1
