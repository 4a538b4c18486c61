"""The referee's model of the table: its state, the questions asked of it, its score.

The actions are played on it by :class:`tranca_sim.referee.actions._Replay`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations_with_replacement

from ..rules import Rules
from .cards import SIDES, _black3, _pack, _rank, _red3, _wild
from .questions import _meld_check, score_side
from .runs import _limits_reason, any_order_run, layout_at, lowest_position, pos_card


class _Foul(Exception):
    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class _Meld:
    kind: str  # "set" | "run" | "black3"
    rank: str | None
    cards: list[str] = field(default_factory=list)  # a run's in position order, low first
    suit: str | None = None  # runs
    low: int | None = None  # runs: position of cards[0] (1 = ace low ... 14 = ace high)

    @property
    def wilds(self) -> int:
        return sum(1 for c in self.cards if _wild(c))


class _Table:
    """The table: hands, mortos, stock, pile, melds, red-3 areas and the turn state."""

    def __init__(self, rules: Rules, deck: list[str], first_seat: int):
        self.r = rules
        self.pack = _pack(rules)
        self.first_seat = first_seat
        hs, ms = rules.hand_size, rules.morto_size
        # 000 Players: four players, partners opposite (side A = seats 0 and 2, side B = 1 and 3);
        # the 000 Common Variations for two and three play each for themselves, each with an own
        # morto: there a player is a side of one
        self.players = rules.n_seats
        if rules.partnerships:
            self.seats_of = [[s for s in range(self.players) if s % 2 == side] for side in range(2)]
        else:
            self.seats_of = [[s] for s in range(self.players)]
        self.n_sides = len(self.seats_of)
        self._side = {s: side for side, seats in enumerate(self.seats_of) for s in seats}
        self.hands = [Counter() for _ in range(self.players)]
        p = 0
        for j in range(self.players * hs):  # E2: one card at a time clockwise from the first seat
            self.hands[(first_seat + j) % self.players][deck[p]] += 1
            p += 1
        self.mortos = []
        for _ in range(self.n_sides):  # one morto per side, in side order (E2)
            self.mortos.append(deck[p : p + ms])
            p += ms
        self.stock = deck[p:]  # index 0 = top
        self.pile: list[str] = []  # bottom first
        self.melds: list[list[_Meld]] = [[] for _ in range(self.n_sides)]
        self.red3: list[list[str]] = [[] for _ in range(self.n_sides)]
        self.morto_state = ["waiting"] * self.n_sides  # or "direct" / "indirect" / "stock" (E22)
        # per side: the seat that took the morto by the discard and has not played a turn since
        # (the morto's red 3s wait for that turn, E4; 002 Detalle voids it, E5)
        self.void_seat: list[int | None] = [None] * self.n_sides
        self.end_red3: list[tuple[int, str]] = []  # red 3s laid when the deal ended (E4)
        self.first_meld_turn: list[int | None] = [None] * self.players
        self.open_turn: list[int | None] = [None] * self.n_sides  # per side: the turn it first melded
        self.meld_min = [0] * self.n_sides  # per side: the minimum first meld of this deal (E25; set_match)
        # turn state
        self.phase = "setup"  # setup start play discarded out over
        self.turn = -1
        self.seat: int | None = None
        self.repl_owed = 0
        self.capture: tuple[str, Counter] | None = None  # (top card, hand before the capture)
        self.pending_empty: str | None = None  # "meld" | "discard": hand emptied, morto or go_out next
        self.black3_committed = False
        self.no_discard: str | None = None  # E13: the card taken from a one-card open pile this turn
        self.drawn: str | None = None  # the last card drawn from the stock this turn (003 redraw)
        self.drew_stock = False  # this turn's draw was from the stock
        self.redrawn = False  # the first player used the 003 redraw
        self.end_reason: str | None = None
        self.out_seat: int | None = None
        self.em_cima = False

    # ---- small helpers --------------------------------------------------------------
    def side(self, seat: int) -> int:
        """The side ``seat`` plays for (a partnership, or the solo player itself)."""
        return self._side[seat]

    def next_seat(self, seat: int) -> int:
        """Play goes clockwise round the table's players (000 Setup 8, E1)."""
        return (seat + 1) % self.players

    def n_hand(self, seat: int) -> int:
        return sum(self.hands[seat].values())

    def has_canasta(self, side: int, clean_only: bool) -> bool:
        cs = self.r.canasta_size
        return any(
            m.kind != "black3" and len(m.cards) >= cs and (not clean_only or self.meld_clean(m))
            for m in self.melds[side]
        )

    def meld_clean(self, m: _Meld) -> bool:
        """No wild in the meld; in a run the suit's own 2 in its place is natural (004)."""
        if m.kind != "run":
            return m.wilds == 0
        lay = layout_at(m.cards, m.suit, m.low)
        return lay is not None and not lay.wild_at

    def morto_counts_taken(self, side: int) -> bool:
        """The side took its morto; a morto that became the stock (``stock_out = 1``) counts as
        taken only with ``morto_stock_taken`` (E23: 004 "your team must have taken its morto")."""
        st = self.morto_state[side]
        return st in ("direct", "indirect") or (st == "stock" and self.r.morto_stock_taken)

    def can_go_out(self, side: int) -> bool:
        """000 Gameplay 11, VARIANTS 10: morto taken and the preset's canasta."""
        return self.morto_counts_taken(side) and self.has_canasta(side, self.r.go_out_needs_clean)

    def can_empty(self, side: int) -> bool:
        """The hand may be emptied: to take the morto, or to go out (VARIANTS 10, E6)."""
        return self.morto_state[side] == "waiting" or self.can_go_out(side)

    def locked_by(self) -> str | None:
        if not self.pile:
            return None
        t = self.pile[-1]
        if self.r.lock_by_wild and _wild(t):
            return "a wild card (2 or joker)"
        if self.r.lock_by_black3 and _black3(t):
            return "a black 3"
        return None

    def take_from_hand(self, seat: int, cards: list[str]) -> None:
        need = Counter(cards)
        h = self.hands[seat]
        for c, k in need.items():
            if h[c] < k:
                held = "" if h[c] == 0 else f" (seat {seat} holds {h[c]})"
                raise _Foul("not_in_hand", f"card {c} is not in seat {seat}'s hand{held}")
        h.subtract(need)
        for c in need:
            if h[c] == 0:
                del h[c]

    def stock_morto_side(self, seat: int) -> int | None:
        """``stock_out = 1``: the side whose untaken morto becomes the stock when ``seat`` must
        draw from an empty stock, or None when no morto is left (004 How to play, VARIANTS 14):
        with both untaken, ``seat``'s side's with ``morto_stock_side = 0``, else the other's (E22).
        At a three-player table: the player's own first then the next players' in turn order (0),
        or the next players' first and the player's own last (1)."""
        own = self.side(seat)
        if self.r.morto_stock_side:
            order = [(own + 1 + i) % self.n_sides for i in range(self.n_sides)]
        else:
            order = [(own + i) % self.n_sides for i in range(self.n_sides)]
        for side in order:
            if self.morto_state[side] == "waiting":
                return side
        return None

    def canasta_word(self) -> str:
        return "a clean canasta" if self.r.go_out_needs_clean else "a canasta"

    def keep_check(self, seat: int) -> None:
        """E6: a player whose side may not empty the hand keeps 2 cards after melding."""
        side = self.side(seat)
        n = self.n_hand(seat)
        if n >= 2 or self.can_empty(side):
            return
        if n == 0:
            raise _Foul(
                "no_canasta",
                f"going out needs {self.canasta_word()} (000 Gameplay 11, VARIANTS 10): side {SIDES[side]} has "
                "none, so the player may not empty the hand (E6)",
            )
        raise _Foul(
            "must_keep_card",
            f"side {SIDES[side]} has taken its morto and has no canasta, so it may not go out: a player must "
            "keep two cards after melding, one to discard and one to keep (VARIANTS 10, E6)",
        )

    def capture_possible(self, seat: int) -> bool:
        """May ``seat`` legally take the pile now (000 Gameplay 3-4, VARIANTS 3-4, E6, E10)?"""
        if not self.pile or self.locked_by():
            return False
        if not self.r.pile_closed:
            return bool(self.stock)  # E14: with the stock empty an open pile ends the deal
        t = self.pile[-1]
        if self.r.threes_special and (_red3(t) or _black3(t)):
            return False
        side = self.side(seat)
        hand = self.hands[seat]
        after = self.n_hand(seat) + len(self.pile) - 1  # hand after the capture, before the meld
        if _wild(t):
            return self._wild_capture_possible(seat, t, after)
        r = _rank(t)
        if self.r.meld_runs and self._run_capture_possible(seat, t, after):
            return True
        for m in self.melds[side]:
            if m.kind == "set" and m.rank == r:
                ok_after = self.can_empty(side) or (
                    len(m.cards) + 1 >= self.r.canasta_size
                    and (not self.r.go_out_needs_clean or m.wilds == 0)
                )
                if after >= 2 or ok_after:
                    return True
        if after - 2 < 2 and not self.can_empty(side):
            return False
        if not self.r.several_melds_per_rank and any(
            m.kind == "set" and m.rank == r for m in self.melds[side]
        ):
            return False
        nats = [c for c in hand.elements() if not _wild(c) and _rank(c) == r]
        wilds = [c for c in hand if _wild(c)]
        cands = []
        if len(nats) >= 2:
            cands.append([t, nats[0], nats[1]])
        if nats:
            cands += [[t, nats[0], w] for w in wilds]
        return any(_meld_check(c, self.r, False)[0].legal for c in cands)

    def _run_capture_possible(self, seat: int, t: str, after: int) -> bool:
        """A closed pile taken with a run: the top card at an end of a side run of its suit, or
        in a new run of three with two cards of the hand held before (000 Gameplay 3,
        VARIANTS 4, E10; runs E16-E18)."""
        side = self.side(seat)
        for m in self.melds[side]:
            if m.kind != "run":
                continue
            for end in ("low", "high"):
                cards, why = self.run_extension(m, t, end)
                if why is not None or layout_at(cards, m.suit, m.low - (end == "low")).wild_at != (
                    layout_at(m.cards, m.suit, m.low).wild_at
                ):
                    continue  # the top card is melded as a natural
                melds = [cards if x is m else x.cards for x in self.melds[side]]
                if after >= 2 or self._empty_ok_with(side, melds):
                    return True
        return self._new_run_with_top(seat, t, after, max_from_hand=3)

    def _new_run_with_top(self, seat: int, t: str, after: int, max_from_hand: int) -> bool:
        """A new run of the pile's top card ``t`` and two (or, where a meld holds two wilds, three:
        natural-wild-wild-natural, VARIANTS 17) cards of the hand held before, read from the cards
        alone (:func:`_meld_check`), with the keep rule (E6) and E19 (000 Gameplay 3, VARIANTS 4)."""
        side = self.side(seat)
        hand = self.hands[seat]
        kinds = sorted(hand)
        for k in range(2, max_from_hand + 1):
            if k == 3 and self.r.max_wilds < 2:
                break
            if after - k < 2 and not self.can_empty(side):
                break
            for sub in combinations_with_replacement(kinds, k):
                if any(hand[c] < sub.count(c) for c in set(sub)):
                    continue
                chk, _ = _meld_check([t, *sub], self.r, False, run=None)
                if not (chk.legal and chk.kind == "run" and self.may_open_run(side, chk.suit)):
                    continue
                if (
                    k == 3
                    and _wild(t)
                    and not (chk.suit == t[-1] and chk.low <= 2 <= chk.high and 2 not in chk.wild_at)
                ):
                    continue  # a wild on top with three cards of the hand: not played (docs/rules.md E15)
                return True
        return False

    def run_extension(self, m: _Meld, c: str, end: str) -> tuple[list[str], str | None]:
        """Run ``m`` with ``c`` added at its ``end`` (``"low"``/``"high"``): the new card list and
        None, or the reason it is not a legal run (VARIANTS 6, 004; E16-E18)."""
        cards = [c] + m.cards if end == "low" else m.cards + [c]
        low = m.low - 1 if end == "low" else m.low
        lay = layout_at(cards, m.suit, low)
        if lay is None:
            where = "below" if end == "low" else "above"
            return cards, (
                f"{c} cannot stand {where} {' '.join(m.cards)}: a run grows at its ends by the next card of "
                "its suit or a wild standing for it, the ace low before the 2 or high after the K, no "
                "wrap-around (VARIANTS 6, 004 How to play, E18)"
            )
        why = _limits_reason(lay, self.r)
        return cards, why

    def wild_replaced(self, m: _Meld, c: str, end: str | None) -> tuple[list[str], str | None]:
        """Run ``m`` with the natural ``c`` laid at the place a wild stands for and that wild moved
        to ``end`` (E21, ``run_wild_moves``): the new card list and None, or why not."""
        if end not in ("low", "high"):
            return m.cards, 'the wild moves to an end: "end" must be "low" or "high"'
        lay = layout_at(m.cards, m.suit, m.low)
        if lay is None:
            return m.cards, "not a run"
        at = [p for p in lay.wild_at if pos_card(m.suit, p) == c]
        if not at:
            return m.cards, f"no wild of this run stands for {c} (E21)"
        p = at[0]
        j = p - m.low
        wild = m.cards[j]
        cards = list(m.cards)
        cards[j] = c
        q = m.low - 1 if end == "low" else m.low + len(m.cards)
        if q == 2 or q < lowest_position(self.r) or q > 14:
            return m.cards, f"the wild cannot move to the {end} end of this run (E16, E21)"
        cards = [wild] + cards if end == "low" else cards + [wild]
        new = layout_at(cards, m.suit, q if end == "low" else m.low)
        if new is None:
            return m.cards, "the moved wild leaves no run (E21)"
        return cards, _limits_reason(new, self.r)

    def _empty_ok_with(self, side: int, melds: list[list[str]]) -> bool:
        """Could the side empty a hand if its melds were ``melds`` (VARIANTS 10, E6)?"""
        if self.morto_state[side] == "waiting":
            return True
        if not self.morto_counts_taken(side):
            return False  # E23: its morto became the stock
        cs = self.r.canasta_size
        return any(
            len(m) >= cs and (not self.r.go_out_needs_clean or _meld_check(m, self.r, True)[0].clean)
            for m in melds
        )

    def _wild_capture_possible(self, seat: int, t: str, after: int) -> bool:
        """A wild on top that does not lock (``lock_by_wild`` off) is taken by melding it as a wild
        onto a side set below the wild limit, or with two naturals of one rank from the hand
        (000 Gameplay 3, 7; VARIANTS 2, 4; E15); where runs are played also onto an end of a side
        run below the wild limit, or in a new run of three with two naturals of one suit."""
        side = self.side(seat)
        if self.r.meld_runs and self._wild_run_capture_possible(seat, t, after):
            return True
        sets = [m for m in self.melds[side] if m.kind == "set"]
        for m in sets:
            if not _meld_check(m.cards + [t], self.r, False)[0].legal:
                continue
            melds = [x.cards + [t] if x is m else x.cards for x in self.melds[side]]
            if after >= 2 or self._empty_ok_with(side, melds):
                return True
        if after - 2 < 2 and not self.can_empty(side):
            return False
        by_rank = Counter(_rank(c) for c in self.hands[seat].elements() if not _wild(c))
        for r, k in by_rank.items():
            if k < 2 or (not self.r.several_melds_per_rank and any(m.rank == r for m in sets)):
                continue
            nats = [c for c in self.hands[seat].elements() if not _wild(c) and _rank(c) == r][:2]
            if _meld_check([t] + nats, self.r, False)[0].legal:
                return True
        return False

    def _wild_run_capture_possible(self, seat: int, t: str, after: int) -> bool:
        side = self.side(seat)
        for m in self.melds[side]:
            if m.kind != "run":
                continue
            for end in ("low", "high"):
                # at the 2's place a wild stands for the suit's 2, and the suit's own 2 is the natural
                # there (004, VARIANTS 17; E26)
                cards, why = self.run_extension(m, t, end)
                if why is not None:
                    continue
                melds = [cards if x is m else x.cards for x in self.melds[side]]
                if after >= 2 or self._empty_ok_with(side, melds):
                    return True
        # a wild on top with two cards of the hand; the suit's own 2 on top, natural at its place,
        # also in natural-wild-wild-natural (2-w-w-5) where a meld holds two wilds
        return self._new_run_with_top(seat, t, after, max_from_hand=2 if t == "JK" else 3)

    def settle_run(self, m: _Meld) -> None:
        """Read a run by its cards (VARIANTS 16, 17): laid dirty in place, but with cards that read as
        a clean run (3C 4C 5C with the 2C standing for the 6C holds the cards of 2C 3C 4C 5C), it is
        that clean run, the suit's 2 natural in its place (004), as the engine keeps it."""
        if m.kind != "run":
            return
        lay = layout_at(m.cards, m.suit, m.low)
        if lay is None or not lay.wild_at:
            return
        alt, _ = any_order_run(m.cards, self.r)
        if alt is not None and not alt.wild_at:
            m.cards = [pos_card(alt.suit, p) for p in range(alt.low, alt.high + 1)]
            m.low = alt.low

    def may_open_run(self, side: int, suit: str) -> bool:
        """E19: a new run of ``suit``, unless ``several_runs_per_suit`` is off and the side has one."""
        return self.r.several_runs_per_suit or not any(
            m.kind == "run" and m.suit == suit for m in self.melds[side]
        )

    def accounting(self) -> None:
        """Every card of the pack in exactly one place (hands, waiting mortos, stock, pile,
        melds, red-3 areas)."""
        tot = Counter()
        for h in self.hands:
            tot.update(h)
        for side in range(self.n_sides):
            if self.morto_state[side] == "waiting":
                tot.update(self.mortos[side])
            tot.update(self.red3[side])
            for m in self.melds[side]:
                tot.update(m.cards)
        tot.update(self.stock)
        tot.update(self.pile)
        if tot != self.pack:
            extra = sorted((tot - self.pack).elements())
            missing = sorted((self.pack - tot).elements())
            raise _Foul("accounting", f"card accounting: extra {extra}, missing {missing}")

    # ---- score ------------------------------------------------------------------------
    def void_morto_seat(self, side: int) -> int | None:
        """The seat holding ``side``'s morto when it is void, else None: with
        ``indirect_morto_void`` (002 Detalle, VARIANTS 9, E5) a morto taken by the discard is
        paid as if never taken when the opponents go out before the taker's next turn.  That
        seat's hand is then exactly the morto (its red 3s wait for that turn, E4)."""
        if (
            not self.r.indirect_morto_void
            or self.end_reason != "went_out"
            or self.side(self.out_seat) == side
        ):
            return None
        return self.void_seat[side]

    def scores(self) -> dict:
        out = {}
        went_side = self.side(self.out_seat) if self.end_reason == "went_out" else None
        for side in range(self.n_sides):
            void = self.void_morto_seat(side)  # paid as not taken, none of its cards counted
            hand = []
            for seat in self.seats_of[side]:
                if seat != void:
                    hand += list(self.hands[seat].elements())
            out[SIDES[side]] = score_side(
                [m.cards for m in self.melds[side]],
                red3=len(self.red3[side]),
                hand_cards=hand,
                went_out=went_side == side,
                em_cima=self.em_cima,
                morto_taken=self.morto_counts_taken(side) and void is None,
                rules=self.r,
            )
        return out
