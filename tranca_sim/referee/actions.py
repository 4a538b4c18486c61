"""The table replayed action by action: one method per act of the log (the melding acts: :mod:`.melding`)."""

from __future__ import annotations

from collections import Counter

from .cards import SIDES, _black3, _red3, _wild
from .melding import _Melding
from .table import _Foul


class _Replay(_Melding):
    """The table, replayed action by action."""

    # ---- one action -------------------------------------------------------------------
    def step(self, a: dict) -> None:
        act = a["act"]
        if self.phase == "over":
            raise _Foul("sequence", "an action after the end of the deal")
        if act in ("turn_up", "bury"):
            return self.setup_card(a)
        if act == "turn":
            return self.start_turn(a)
        if act == "end":
            return self.end(a)
        if self.phase == "setup":
            raise _Foul("out_of_turn", f"{act} by seat {a['seat']} before the first turn")
        if a["seat"] != self.seat or a["turn"] != self.turn:
            raise _Foul(
                "out_of_turn",
                f"{act} by seat {a['seat']} (turn {a['turn']}) during seat {self.seat}'s turn {self.turn} "
                "(000 Gameplay 1; seats play in turn clockwise, E1)",
            )
        seat = self.seat
        # an emptied hand is resolved at once: morto or going out
        if self.pending_empty is not None and act not in ("morto", "go_out"):
            side = self.side(seat)
            if self.morto_state[side] == "waiting":
                raise _Foul(
                    "morto",
                    f"seat {seat}'s hand is empty: side {SIDES[side]}'s morto must be taken now "
                    "(000 Gameplay 10, VARIANTS 9)",
                )
            raise _Foul("sequence", f"seat {seat}'s hand is empty: the player goes out (000 Gameplay 11)")
        if self.capture is not None and act not in ("meld", "extend"):
            raise _Foul(
                "closed_pile",
                f"the pile was taken: its top card {self.capture[0]} must be melded at once "
                "(000 Gameplay 3, VARIANTS 4, E10)",
            )
        if act == "morto_stock":
            return self.morto_stock(a)
        if act == "red3":
            return self.red3_act(a)
        if act == "draw":
            return self.draw(a)
        if self.phase == "redraw":
            raise _Foul(
                "redraw",
                f"{act} after the redraw: the first player threw the drawn card on the pile and now draws a "
                "second card from the stock (003 O jogo, VARIANTS 13, E20)",
            )
        # every other action: red 3s laid and replaced first (000 Gameplay 5, VARIANTS 7, E4)
        if self.r.threes_special:
            if act == "discard" and _red3(a["card"]):
                raise _Foul(
                    "red3",
                    f"a red 3 ({a['card']}) is never discarded: it goes face up to the side's area at once "
                    "(000 Gameplay 5, VARIANTS 7)",
                )
            reds = sorted(c for c in self.hands[seat] if _red3(c))
            if reds:
                raise _Foul(
                    "red3",
                    f"seat {seat} holds {reds[0]}: a red 3 is laid in the side's area at once, dealt ones "
                    "before the draw (000 Gameplay 5, VARIANTS 7, E4)",
                )
        if self.repl_owed:
            if self.stock or self.morto_can_refill():
                raise _Foul(
                    "red3",
                    "a red 3 laid is replaced from the stock at once (000 Gameplay 5, VARIANTS 7, E4)"
                    + (
                        " (the stock is empty: an untaken morto becomes the stock first, 004, E22)"
                        if not self.stock
                        else ""
                    ),
                )
            self.repl_owed = 0  # stock empty: no replacement (E4)
        getattr(self, "act_" + act)(a)

    def setup_card(self, a: dict) -> None:
        act, c = a["act"], a["card"]
        if self.phase != "setup":
            raise _Foul("setup", f"{act} after the first turn started (000 Setup 6-7)")
        if a["turn"] != -1 or a["seat"] is not None:
            raise _Foul("out_of_turn", f"{act} is a setup action: turn -1, seat null")
        if not self.r.turn_up_first_discard:
            raise _Foul(
                "setup", "this rule set starts with an empty pile: no card is turned up (VARIANTS 13)"
            )
        if self.pile:
            raise _Foul("setup", "the first discard is already turned up (000 Setup 6)")
        if not self.stock or self.stock[0] != c:
            top = self.stock[0] if self.stock else "nothing"
            raise _Foul("wrong_card", f"{act} {c}, but the top of the stock is {top} (000 Setup 6, E2)")
        special = _wild(c) or (self.r.threes_special and _red3(c))
        if act == "turn_up":
            if special:
                raise _Foul(
                    "setup",
                    f"{c} turned up as the first discard: a wild or red 3 is buried in the stock and another "
                    "card turned (000 Setup 7, VARIANTS 13)",
                )
            self.pile.append(self.stock.pop(0))
        else:
            if not special:
                raise _Foul(
                    "setup", f"{c} buried: only a wild or a red 3 is buried (000 Setup 7, VARIANTS 13)"
                )
            self.stock.pop(0)
            h = len(self.stock) // 2  # E3: floor(n/2) of the n remaining cards above it
            self.stock.insert(h, c)

    def start_turn(self, a: dict) -> None:
        if self.phase == "setup":
            if self.r.turn_up_first_discard and not self.pile:
                raise _Foul(
                    "setup", "the first turn starts before a first discard was turned up (000 Setup 6)"
                )
            want = (0, self.first_seat)
        elif self.phase == "discarded":
            if self.pending_empty is not None:
                side = self.side(self.seat)
                if self.morto_state[side] == "waiting":
                    raise _Foul(
                        "morto",
                        f"seat {self.seat} emptied the hand by the discard: side {SIDES[side]}'s morto is "
                        "taken at once (000 Gameplay 10, VARIANTS 9)",
                    )
                raise _Foul(
                    "sequence", f"seat {self.seat}'s hand is empty: the player goes out (000 Gameplay 11)"
                )
            if (
                self.r.threes_special
                and any(_red3(c) for c in self.hands[self.seat])
                and self.void_seat[self.side(self.seat)] != self.seat
            ):
                # only a morto just taken by the discard keeps its red 3s until the next turn (E4)
                raise _Foul(
                    "red3", "a red 3 is laid in the side's area at once (000 Gameplay 5, VARIANTS 7, E4)"
                )
            if self.repl_owed and (self.stock or self.morto_can_refill()):
                raise _Foul("red3", "a red 3 laid is replaced from the stock at once (000 Gameplay 5, E4)")
            want = (self.turn + 1, self.next_seat(self.seat))
        elif self.phase == "out":
            raise _Foul("sequence", "a turn after going out: going out ends the deal (000 Gameplay 11)")
        else:
            raise _Foul(
                "sequence",
                f"turn {a['turn']} starts before seat {self.seat} discarded: a turn ends with a discard "
                "(000 Gameplay 1)",
            )
        if (a["turn"], a["seat"]) != want:
            raise _Foul(
                "out_of_turn",
                f"turn {a['turn']} by seat {a['seat']}: expected turn {want[0]} by seat {want[1]} "
                "(seats play in turn clockwise from the first seat, E1)",
            )
        if want[0] >= self.r.max_turns:
            raise _Foul(
                "end", f"turn {want[0]}: the deal ends at the turn limit of {self.r.max_turns} turns (E12)"
            )
        self.turn, self.seat = want
        self.phase = "start"
        self.repl_owed = 0
        self.capture = None
        self.pending_empty = None
        self.black3_committed = False
        self.no_discard = None
        self.drawn = None
        self.drew_stock = False
        side = self.side(self.seat)
        if self.void_seat[side] == self.seat:
            self.void_seat[side] = None  # the indirectly taken morto is now in play

    def red3_act(self, a: dict) -> None:
        c, seat = a["card"], self.seat
        if not self.r.threes_special:
            raise _Foul("red3", "3s are plain cards in this rule set: there is no red-3 area")
        if not _red3(c):
            raise _Foul("red3", f"{c} is not a red 3: only red 3s go to the side's area (000 Gameplay 5)")
        if self.phase == "discarded":
            raise _Foul(
                "red3",
                f"{c} laid after the discard: a morto taken by the discard is used only from the taker's "
                "next turn, so its red 3s are laid at the start of that turn "
                "(002 Cierre Directo y Cierre Indirecto, VARIANTS 9, E4)",
            )
        self.take_from_hand(seat, [c])
        self.red3[self.side(seat)].append(c)
        if self.stock or self.morto_can_refill():
            self.repl_owed += 1

    def morto_can_refill(self) -> bool:
        """``stock_out = 1`` and an untaken morto is left to become the stock (004, E22)."""
        return self.r.stock_out == 1 and "waiting" in self.morto_state

    def morto_stock(self, a: dict) -> None:
        """``stock_out = 1``: the stock is empty and the player to move must draw (the turn's draw,
        or a red 3's replacement): an untaken morto becomes the stock, in the order it was dealt
        (``004_083ae37bb3863d19.txt`` How to play, VARIANTS 14; which one: E22)."""
        seat = self.seat
        if self.r.stock_out != 1:
            raise _Foul(
                "stock_out",
                "a morto becomes the stock only with stock_out=1 (004); this rule set plays on without "
                "drawing (000 Gameplay 12, VARIANTS 14)",
            )
        if self.stock:
            raise _Foul(
                "stock_out",
                f"a morto becomes the stock when the stock runs out; it still has {len(self.stock)} cards "
                "(004 How to play)",
            )
        if not self.repl_owed:
            if self.phase != "start":
                raise _Foul(
                    "stock_out",
                    "a morto becomes the stock when a card must be drawn from the empty stock: at the draw or "
                    "for a red 3's replacement (004 How to play, E22)",
                )
            if self.r.threes_special and any(_red3(c) for c in self.hands[seat]):
                raise _Foul(
                    "red3",
                    "a red 3 held at the start of the turn is laid before the draw (000 Gameplay 5, E4)",
                )
        want = self.stock_morto_side(seat)
        if want is None:
            raise _Foul(
                "stock_out",
                "no morto is left to become the stock: the deal ends there (004 How to play, VARIANTS 14)",
            )
        if a["side"] != SIDES[want]:
            both = all(m == "waiting" for m in self.morto_state)
            why = (
                f"with both mortos untaken the {'drawing' if self.r.morto_stock_side == 0 else 'other'} "
                f"side's goes first (morto_stock_side={self.r.morto_stock_side}, E22)"
                if both
                else f"side {SIDES[want]}'s is the only morto left"
            )
            raise _Foul("stock_out", f"side {a['side']}'s morto became the stock, but {why}")
        self.stock = list(self.mortos[want])
        self.morto_state[want] = "stock"

    def draw(self, a: dict) -> None:
        c, seat = a["card"], self.seat
        if self.repl_owed:
            kind = "replacement of a red 3"
        else:
            if self.phase not in ("start", "redraw"):
                why = "after the discard" if self.phase == "discarded" else "after the draw"
                raise _Foul("double_draw", f"a second draw {why}: a turn has one draw (000 Gameplay 1-2)")
            if self.r.threes_special:
                reds = sorted(x for x in self.hands[seat] if _red3(x))
                if reds:
                    raise _Foul(
                        "red3",
                        f"seat {seat} holds {reds[0]}: a red 3 held at the start of the turn (dealt, or in a "
                        "morto taken by the discard) is laid before the draw (000 Gameplay 5, VARIANTS 7, E4)",
                    )
            kind = "draw"
        if not self.stock:
            raise _Foul("wrong_card", f"{kind} of {c} from an empty stock (000 Gameplay 12, VARIANTS 14)")
        if self.stock[0] != c:
            raise _Foul("wrong_card", f"{kind} of {c}, but the top of the stock is {self.stock[0]}")
        self.hands[seat][self.stock.pop(0)] += 1
        self.drawn = c
        self.drew_stock = True
        if self.repl_owed:
            self.repl_owed -= 1
        else:
            self.phase = "play"

    def act_redraw(self, a: dict) -> None:
        """003 O jogo (VARIANTS 13, E20): the first player, on the deal's first turn only, may throw
        the card drawn from the stock on the pile ("lixo"), where it stays, and draw a second card
        from the stock, before melding anything."""
        c, seat = a["card"], self.seat
        src = "(003 O jogo, VARIANTS 13, E20)"
        if not self.r.first_player_redraw:
            raise _Foul("redraw", f"the first-player redraw is not played in this rule set {src}")
        if self.turn != 0 or seat != self.first_seat:
            raise _Foul("redraw", f"only the first player, on the deal's first turn, may redraw {src}")
        if self.redrawn:
            raise _Foul("redraw", f"the redraw is used once: the second card is kept {src}")
        if self.phase != "play" or not self.drew_stock:
            raise _Foul(
                "redraw", f"the redraw throws back a card drawn from the stock, right after the draw {src}"
            )
        if self.first_meld_turn[seat] is not None:
            raise _Foul("redraw", f"the redraw comes before any meld of the turn {src}")
        if c != self.drawn:
            raise _Foul("redraw", f"{c} thrown back, but the card drawn is {self.drawn} {src}")
        if not self.stock:
            raise _Foul("redraw", f"the stock is empty: no second card to draw {src}")
        self.take_from_hand(seat, [c])
        self.pile.append(c)
        self.redrawn = True
        self.phase = "redraw"

    def act_take_pile(self, a: dict) -> None:
        seat = self.seat
        if self.phase != "start":
            when = "after the discard" if self.phase == "discarded" else "after the draw"
            raise _Foul("double_draw", f"taking the pile {when}: a turn has one draw (000 Gameplay 1-2)")
        if not self.pile:
            raise _Foul("wrong_card", "taking an empty pile")
        top, n = a["top"], a["n"]
        if self.pile[-1] != top or len(self.pile) != n:
            raise _Foul(
                "wrong_card",
                f"take_pile top {top}, n {n}, but the pile has {len(self.pile)} cards, top {self.pile[-1]}",
            )
        lock = self.locked_by()
        if lock:
            raise _Foul(
                "locked_pile",
                f"pile is locked by {lock} ({top} on top) and cannot be taken (000 Gameplay 4, VARIANTS 3)",
            )
        if self.r.pile_closed and self.r.threes_special and (_red3(top) or _black3(top)):
            raise _Foul(
                "closed_pile",
                f"{top} on top cannot start or extend a meld, so the closed pile cannot be taken "
                "(000 Gameplay 3, VARIANTS 4, E10)",
            )
        if self.r.stock_out == 1 and not self.stock:
            raise _Foul(
                "stock_out",
                "the stock is empty: an untaken morto becomes the stock, and with none left the deal ends "
                "there; the pile is not taken (004 How to play, VARIANTS 14, E22)",
            )
        if not self.r.pile_closed and not self.stock:
            raise _Foul(
                "open_pile",
                "the stock is empty: with an open pile the deal ends, the pile is not taken "
                "(004 How to play, VARIANTS 14, E14)",
            )
        before = Counter(self.hands[seat])
        self.hands[seat].update(self.pile)
        self.pile = []
        self.phase = "play"
        if self.r.pile_closed:
            self.capture = (top, before)
        elif n == 1 and not self.r.rediscard_one_card_pile:
            self.no_discard = top  # E13: not discarded again this turn

    def act_morto(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        if self.morto_state[side] == "stock":
            raise _Foul(
                "morto",
                f"side {SIDES[side]}'s morto became the stock: there is none to take (004 How to play, E23)",
            )
        if self.morto_state[side] != "waiting":
            raise _Foul(
                "morto",
                f"side {SIDES[side]} already took its morto: one morto a side per deal (000 Gameplay 10)",
            )
        if self.pending_empty is None:
            raise _Foul(
                "morto",
                f"the morto is taken when the hand is emptied; seat {seat} holds {self.n_hand(seat)} cards "
                "(000 Gameplay 10)",
            )
        direct = self.pending_empty == "meld"
        if a["direct"] != direct:
            how = "by melding (direct)" if direct else "by the discard (indirect)"
            raise _Foul(
                "morto",
                f"the hand was emptied {how}, the log says direct={a['direct']} (000 Gameplay 10, VARIANTS 9)",
            )
        self.hands[seat].update(self.mortos[side])
        self.morto_state[side] = "direct" if direct else "indirect"
        if not direct:
            self.void_seat[side] = seat
        self.pending_empty = None

    def act_discard(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        if self.phase == "start":
            raise _Foul("sequence", "discard before the draw: a turn is draw, meld, discard (000 Gameplay 1)")
        self.first_meld_check(side)
        if self.phase == "discarded":
            raise _Foul("sequence", "a second discard: one discard ends the turn (000 Gameplay 1)")
        c = a["card"]
        if c == self.no_discard and any(x != c for x in self.hands[seat]):
            raise _Foul(
                "open_pile",
                f"{c} was just taken from a one-card pile: it may not be discarded again this turn while the "
                "hand holds another card (E13; switch rediscard_one_card_pile)",
            )
        self.take_from_hand(seat, [c])
        if self.n_hand(seat) == 0:
            if self.morto_state[side] != "waiting" and not self.can_go_out(side):
                raise _Foul(
                    "no_canasta",
                    f"going out needs {self.canasta_word()} (000 Gameplay 11, VARIANTS 10): side {SIDES[side]} has "
                    "none, so the player may not discard the last card (E6)",
                )
            self.pending_empty = "discard"
        elif self.black3_committed:
            raise _Foul(
                "black3", "black 3s were melded, so the player must go out this turn (000 Gameplay 6, E9)"
            )
        self.pile.append(c)
        self.phase = "discarded"

    def act_go_out(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        self.first_meld_check(side)
        if self.n_hand(seat) > 0:
            raise _Foul(
                "sequence",
                f"going out with {self.n_hand(seat)} cards in hand: the player must get rid of every card "
                "(000 Gameplay 11)",
            )
        if self.morto_state[side] == "waiting":
            raise _Foul(
                "no_morto",
                f"going out needs the side's morto taken (000 Gameplay 11, VARIANTS 10): side {SIDES[side]} has "
                "not taken it, and an emptied hand takes the morto (000 Gameplay 10)",
            )
        if not self.morto_counts_taken(side):
            raise _Foul(
                "no_morto",
                f"side {SIDES[side]}'s morto became the stock, so it never took one and cannot go out "
                "(004 How to play, E21)",
            )
        if not self.can_go_out(side):
            raise _Foul("no_canasta", f"going out needs {self.canasta_word()} (000 Gameplay 11, VARIANTS 10)")
        fm = self.first_meld_turn[seat]
        em = bool(self.r.em_cima) and (fm is None or fm == self.turn)
        if a["em_cima"] != em:
            why = (
                "melded nothing before this turn" if fm is None or fm == self.turn else f"melded in turn {fm}"
            )
            if not self.r.em_cima:
                why = "em cima is off in this rule set"
            raise _Foul(
                "em_cima",
                f"em cima is {str(em).lower()}: seat {seat} {why} (000 Scoring: Going out bonus, VARIANTS 11, E7)",
            )
        self.em_cima = em
        self.out_seat = seat
        self.pending_empty = None
        self.phase = "out"

    def end(self, a: dict) -> None:
        reason, out = a["reason"], a["out_seat"]
        if a["seat"] is not None:
            raise _Foul("out_of_turn", "end: seat must be null")
        if self.phase == "setup":
            raise _Foul("end", "the deal ends before any turn was played")
        if a["turn"] not in (self.turn, self.turn + 1):
            raise _Foul("out_of_turn", f"end tagged turn {a['turn']}, the last turn was {self.turn}")
        if self.seat is not None:
            self.first_meld_check(self.seat % 2)
        if reason == "went_out":
            if self.phase != "out":
                raise _Foul("end", "end went_out, but nobody went out (000 Gameplay 11)")
            if out != self.out_seat:
                raise _Foul("end", f"end out_seat {out}, but seat {self.out_seat} went out")
        else:
            if self.phase == "out":
                raise _Foul("end", f"seat {self.out_seat} went out: the end reason is went_out")
            if out not in (-1, None):
                raise _Foul("end", f"end {reason} names out_seat {out}, but nobody went out")
            if reason == "turn_limit":
                if self.phase != "discarded" or self.turn + 1 < self.r.max_turns:
                    raise _Foul(
                        "end",
                        f"end turn_limit after {self.turn + 1} turns; the limit is {self.r.max_turns} finished "
                        "turns (E12)",
                    )
                if self.pending_empty is not None or (self.repl_owed and self.stock):
                    raise _Foul("sequence", "the deal ends in the middle of the last turn")
            else:
                self.check_stock_out()
        self.end_reason = reason
        self.phase = "over"
        self.lay_red3s_at_end()

    def lay_red3s_at_end(self) -> None:
        """E4: red 3s still held when the deal ends (dealt to a seat whose first turn never came,
        or in a morto taken by the discard and not played since) are laid in the side's area,
        without replacement; a void morto keeps its red 3s and scores nothing (002 Detalle, E5).
        Sets ``end_red3``: the (seat, card) pairs laid."""
        self.end_red3 = []
        if not self.r.threes_special:
            return
        for seat in range(self.players):
            side = self.side(seat)
            if seat == self.void_morto_seat(side):
                continue
            for c in sorted(c for c in self.hands[seat].elements() if _red3(c)):
                self.take_from_hand(seat, [c])
                self.red3[side].append(c)
                self.end_red3.append((seat, c))

    def check_stock_out(self) -> None:
        """E8: the deal ends by stock exhaustion when the player to move cannot play."""
        seat = self.seat
        side = self.side(seat)
        if self.phase not in ("start", "play") or self.capture is not None or self.pending_empty is not None:
            raise _Foul(
                "end",
                "end stock_out must come when the player to move cannot play: at the draw, or holding one card "
                "that may not be discarded (000 Gameplay 12, VARIANTS 14, E8)",
            )
        if self.r.threes_special and any(_red3(c) for c in self.hands[seat]):
            raise _Foul("red3", "a red 3 is laid in the side's area at once (000 Gameplay 5, E4)")
        if self.stock:
            raise _Foul(
                "end",
                f"end stock_out with {len(self.stock)} cards in the stock (000 Gameplay 12, VARIANTS 14, E8)",
            )
        if self.r.stock_out == 1 and "waiting" in self.morto_state:
            raise _Foul(
                "end",
                "end stock_out while a morto is untaken: it becomes the stock (004 How to play, VARIANTS 14)",
            )
        if self.phase == "start":
            if self.r.stock_out == 1:
                return  # 004: stock and mortos out, the deal ends there, the pile is not taken
            if self.capture_possible(seat):
                raise _Foul(
                    "end",
                    f"end stock_out, but seat {seat} can take the pile (top {self.pile[-1]}): with the stock "
                    "empty play goes on while the pile can be taken (000 Gameplay 12, VARIANTS 14, E8)",
                )
        elif not (self.n_hand(seat) == 1 and not self.can_empty(side)):
            raise _Foul(
                "end",
                f"end stock_out after the draw: seat {seat} holds {self.n_hand(seat)} cards and can discard "
                "(E8: only a one-card player who may not empty the hand cannot play on)",
            )
