"""Melding on the replayed table: new melds (the pile's capture meld included), the black-3 set,
extensions, a wild replaced, and each side's minimum first meld in a match (E25).

:class:`tranca_sim.referee.actions._Replay` plays the rest of a turn on top of it.
"""

from __future__ import annotations

from collections import Counter

from .cards import SIDES, _black3, _value
from .questions import MeldCheck, _meld_check
from .table import _Foul, _Meld, _Table


class _Melding(_Table):
    """The table's melding acts, checked against the rules as they are replayed."""

    def _capture_meld_check(self, a: dict) -> None:
        """The action right after take_pile melds the top card (000 Gameplay 3, VARIANTS 4, E10)."""
        top, before = self.capture
        if a["act"] == "extend":
            if a["card"] != top:
                raise _Foul(
                    "closed_pile",
                    f"the pile's top card {top} must be melded at once, not {a['card']} "
                    "(000 Gameplay 3, VARIANTS 4, E10)",
                )
            return
        cards = a["cards"]
        if top not in cards:
            raise _Foul(
                "closed_pile",
                f"the pile's top card {top} must be melded at once (000 Gameplay 3, VARIANTS 4, E10)",
            )
        rest = list(cards)
        rest.remove(top)
        if len(rest) < 2:
            raise _Foul(
                "closed_pile",
                f"the capture meld is the top card {top} with two or more cards from the hand, got {len(cards)} "
                "cards (000 Gameplay 3, VARIANTS 4, E10)",
            )
        for c, k in Counter(rest).items():
            if before[c] < k:
                raise _Foul(
                    "closed_pile",
                    f"the capture meld takes two cards from the hand held before the capture; {c} came from "
                    "the pile (000 Gameplay 3, E10)",
                )

    def _new_meld(self, a: dict, going_out: bool) -> tuple[list[str], MeldCheck]:
        side = self.side(self.seat)
        if self.phase == "start":
            raise _Foul(
                "sequence", f"{a['act']} before the draw: a turn is draw, meld, discard (000 Gameplay 1)"
            )
        if self.phase == "discarded":
            raise _Foul(
                "sequence", f"{a['act']} after the discard: a turn is draw, meld, discard (000 Gameplay 1)"
            )
        if a["meld"] != len(self.melds[side]):
            raise _Foul(
                "sequence",
                f"new meld numbered {a['meld']}, but side {SIDES[side]} has {len(self.melds[side])} melds "
                "(numbered in creation order)",
            )
        cards = a["cards"]
        chk, code = _meld_check(cards, self.r, going_out, run=bool(a.get("run")))
        if not chk.legal:
            raise _Foul(code, chk.reason)
        return cards, chk

    def act_meld(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        if self.capture is not None:
            self._capture_meld_check(a)
        cards, chk = self._new_meld(a, going_out=False)
        if not self.r.several_melds_per_rank and any(
            m.kind == "set" and m.rank == chk.rank for m in self.melds[side]
        ):
            raise _Foul(
                "illegal_meld",
                f"side {SIDES[side]} already has a meld of {chk.rank}s: one meld per rank in this rule set "
                "(VARIANTS 5)",
            )
        if (
            chk.kind == "run"
            and not self.r.several_runs_per_suit
            and any(m.kind == "run" and m.suit == chk.suit for m in self.melds[side])
        ):
            raise _Foul(
                "illegal_meld",
                f"side {SIDES[side]} already has a run of {chk.suit}: one run a suit in this rule set "
                "(several_runs_per_suit off, E19)",
            )
        self.take_from_hand(seat, cards)
        if chk.kind == "run":
            self.melds[side].append(_Meld("run", None, list(cards), suit=chk.suit, low=chk.low))
            self.settle_run(self.melds[side][-1])
        else:
            self.melds[side].append(_Meld("set", chk.rank, list(cards)))
        self.after_meld(seat)

    def act_black3(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        if not (self.r.threes_special and self.r.black3_on_going_out):
            raise _Foul("black3", "black 3s are never melded in this rule set (VARIANTS 8)")
        if not a["cards"] or not all(_black3(c) for c in a["cards"]):
            raise _Foul(
                "black3",
                "the black-3 set is a pure set of 3 or 4 black 3s, no wilds (000 Gameplay 6, VARIANTS 8)",
            )
        if not self.can_go_out(side):
            need = "its morto" if self.morto_state[side] == "waiting" else self.canasta_word()
            raise _Foul(
                "black3",
                f"black 3s may be melded only on the turn the side goes out (000 Gameplay 6, VARIANTS 8, E9); "
                f"side {SIDES[side]} cannot go out yet (it needs {need})",
            )
        cards, _ = self._new_meld(a, going_out=True)
        self.take_from_hand(seat, cards)
        if self.n_hand(seat) > 1:
            raise _Foul(
                "black3",
                f"black 3s may be melded only when going out: the player keeps {self.n_hand(seat)} cards, at "
                "most one may be left to discard (000 Gameplay 6, E9)",
            )
        self.melds[side].append(_Meld("black3", "3", list(cards)))
        self.black3_committed = True
        self.after_meld(seat)

    def act_extend(self, a: dict) -> None:
        seat, side = self.seat, self.side(self.seat)
        if self.capture is not None:
            self._capture_meld_check(a)
        if self.phase == "start":
            raise _Foul("sequence", "extend before the draw: a turn is draw, meld, discard (000 Gameplay 1)")
        if self.phase == "discarded":
            raise _Foul(
                "sequence", "extend after the discard: a turn is draw, meld, discard (000 Gameplay 1)"
            )
        i, c = a["meld"], a["card"]
        if not 0 <= i < len(self.melds[side]):
            raise _Foul(
                "sequence",
                f"side {SIDES[side]} has no meld {i} (it has {len(self.melds[side])}); a player adds only to "
                "the own side's melds (000 Gameplay 9)",
            )
        m = self.melds[side][i]
        if m.kind == "run":
            end = a.get("end")
            if end not in ("low", "high"):
                raise _Foul(
                    "illegal_meld",
                    f"{c} onto run {i} ({' '.join(m.cards)}): a card added to a run names its end, "
                    '"low" or "high" (docs/log-format.md)',
                )
            cards, why = self.run_extension(m, c, end)
            if why is not None:
                raise _Foul("illegal_meld", f"{c} onto meld {i} ({' '.join(m.cards)}): {why}")
            self.lay_on_run(seat, m, c, end, cards)
            return
        if "end" in a:
            raise _Foul(
                "illegal_meld", f"{c} onto meld {i}: an end is named only for a run, meld {i} is a set"
            )
        chk, code = _meld_check(m.cards + [c], self.r, going_out=True, run=False)
        if not chk.legal:
            raise _Foul(code, f"{c} onto meld {i} ({' '.join(m.cards)}): {chk.reason}")
        self.take_from_hand(seat, [c])
        m.cards.append(c)
        self.after_meld(seat)

    def act_replace_wild(self, a: dict) -> None:
        """E21 (``run_wild_moves``): the natural of the place a wild stands for in one of the side's
        runs is laid there, and the wild moves to the run's ``end``."""
        seat, side = self.seat, self.side(self.seat)
        if self.phase in ("start", "discarded"):
            raise _Foul(
                "sequence",
                "replace_wild outside the meld phase: a turn is draw, meld, discard (000 Gameplay 1)",
            )
        if not self.r.run_wild_moves:
            raise _Foul(
                "illegal_meld",
                "a wild in a run keeps its place: it is never moved (E18; switch run_wild_moves off)",
            )
        i, c, end = a["meld"], a["card"], a.get("end")
        if not 0 <= i < len(self.melds[side]) or self.melds[side][i].kind != "run":
            raise _Foul("illegal_meld", f"replace_wild: side {SIDES[side]} has no run {i}")
        m = self.melds[side][i]
        cards, why = self.wild_replaced(m, c, end)
        if why is not None:
            raise _Foul("illegal_meld", f"{c} for a wild of run {i} ({' '.join(m.cards)}): {why}")
        self.lay_on_run(seat, m, c, end, cards)

    def lay_on_run(self, seat: int, m, c: str, end, cards: list) -> None:
        """Card ``c`` from ``seat``'s hand laid on run ``m``, which holds ``cards`` after it (one
        place more at ``end``: an extension, or a wild moved there by E21)."""
        self.take_from_hand(seat, [c])
        m.cards = cards
        if end == "low":
            m.low -= 1
        self.settle_run(m)
        self.after_meld(seat)

    def after_meld(self, seat: int) -> None:
        if self.first_meld_turn[seat] is None:
            self.first_meld_turn[seat] = self.turn
        if self.open_turn[seat % 2] is None:
            self.open_turn[seat % 2] = self.turn
        self.capture = None
        self.keep_check(seat)
        if self.n_hand(seat) == 0:
            self.pending_empty = "meld"

    def set_match(self, match: dict | None) -> None:
        """The match facts of the deal (log field ``match``): each side's match score before it sets
        its minimum first meld -- 004 Variations "Minimum points to lay down": a team at 1,500 or
        more in a game to 3,000 lays at least 75 card points in its first meld of the round; the
        options ``first_meld_min`` (the points, 0 = off) and ``first_meld_from`` (the score, 0 = half
        the match target), E25."""
        if not match:
            return
        scores = match.get("scores")
        n = self.n_sides
        if not (isinstance(scores, list) and len(scores) == n and all(isinstance(x, int) for x in scores)):
            raise _Foul("format", f"field match.scores must be the {n} sides' match scores (integers)")
        frm = self.r.first_meld_from or -(-self.r.match_target // 2)
        self.meld_min = [self.r.first_meld_min if (self.r.first_meld_min and x >= frm) else 0 for x in scores]

    def first_meld_check(self, side: int) -> None:
        """A side that first melded in this turn has laid its minimum in card points (E25)."""
        need = self.meld_min[side]
        if not need or self.open_turn[side] != self.turn:
            return
        pts = sum(_value(c, self.r) for m in self.melds[side] for c in m.cards)
        if pts < need:
            raise _Foul(
                "first_meld_min",
                f"side {SIDES[side]}'s first meld of the deal lays {pts} card points, the minimum is {need} "
                "(004 Variations 'Minimum points to lay down', E25: the melds of that turn count together)",
            )
