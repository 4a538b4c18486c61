"""The position notation: a deal's position as one seat sees it, in plain text a person can type.

A position holds what the seat to move knows at one decision of its turn and nothing more: the
rule set, the turn, the phase (``draw``, ``meld`` or ``discard``), its own hand, every hand's
size, every side's melds, the pile in order, the red 3s laid, each morto's state, the stock's
size, the match score and the cards it saw other seats take from the pile.  The format is
documented in ``docs/reference/position-notation.md``; :func:`format_position` writes it,
:func:`parse_position` reads and validates it (every mistake on its own line, naming its line;
:func:`tranca_sim.position_state.read_position` adds the engine's own check),
:func:`tranca_sim.position_log.position_from_log` takes one from a logged deal.

Cards are in the log notation (``KH 10D 2C JK``, :mod:`tranca_sim.engine.cards`).
"""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from dataclasses import dataclass, field

from .rules import Rules, RulesError, differences, get_preset

SIDES = "ABC"
PHASES = ("draw", "meld", "discard")
#: each morto's state as written (the engine's MS_WAITING, MS_DIRECT, MS_INDIRECT, MS_STOCK)
MORTO_WORDS = ("waiting", "taken", "taken by the discard", "stock")
_RANKS = {"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}


class PositionError(ValueError):
    """A position that cannot be read or cannot be: ``problems`` holds one line per mistake."""

    def __init__(self, problems: list[str]):
        super().__init__("\n".join(problems))
        self.problems = list(problems)


@dataclass
class Position:
    """One seat's view of a deal at one decision (see the module docstring).

    ``melds[side]``: the side's melds in the order they were laid, each a list of cards (a run's
    in position order, low first, each wild at the place it stands for); ``pile`` bottom first;
    ``mortos[side]``: ``(state, cards)``, state one of :data:`MORTO_WORDS`, cards the face-up
    cards of a waiting morto (``mortos_face_up``), else empty; ``took[seat]``: the cards the
    player saw that seat take from the pile into its hand, this deal; ``score``: each side's
    match score before this deal.
    """

    rules: Rules
    seat: int
    phase: str
    turn: int
    hand: list[str]
    hand_sizes: list[int]
    melds: list[list[list[str]]]
    pile: list[str]
    red3: list[list[str]]
    mortos: list[tuple[str, list[str]]]
    stock: int
    score: list[int] = field(default_factory=list)
    took: dict[int, list[str]] = field(default_factory=dict)
    melded_now: bool = False

    def __eq__(self, other):
        if not isinstance(other, Position):
            return NotImplemented
        a, b = dataclasses.asdict(self), dataclasses.asdict(other)
        for d in (a, b):
            d["hand"] = sorted(d["hand"])
            d["took"] = {s: sorted(c) for s, c in d["took"].items() if c}
            d["red3"] = [sorted(r) for r in d["red3"]]
            d["mortos"] = [(s, sorted(c)) for s, c in d["mortos"]]
            d["rules"] = rules_line(self.rules if d is a else other.rules)
        return a == b


# ---- cards ----------------------------------------------------------------------------------


def card_word(text: str) -> str | None:
    """``text`` in canonical notation (``kh`` -> ``KH``), or None if it is not a card."""
    t = text.strip().upper()
    if t == "JK":
        return t
    if len(t) >= 2 and t[-1] in "CDHS" and t[:-1] in _RANKS:
        return t
    return None


def _rank_order(c: str) -> tuple:
    order = ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK"]
    rank = "JK" if c == "JK" else c[:-1]
    return (order.index(rank), c[-1:])


def cards_text(cards, ordered: bool = False) -> str:
    """Cards as notation; sorted by rank (3..A, 2s, jokers) unless ``ordered``; ``-`` for none."""
    cs = list(cards) if ordered else sorted(cards, key=_rank_order)
    return " ".join(cs) or "-"


def pack_of(rules: Rules) -> Counter:
    """Every card of the pack with its number of copies."""
    pack = Counter()
    for s in "CDHS":
        for r in _RANKS:
            pack[r + s] = 2
    if rules.n_jokers:
        pack["JK"] = rules.n_jokers
    return pack


def is_red3(c: str) -> bool:
    return c in ("3D", "3H")


# ---- the rules line -------------------------------------------------------------------------


def rules_line(rules: Rules) -> str:
    """``tranca`` or ``tranca max_wilds=1 em_cima=false``: the preset and the options changed."""
    try:
        base = get_preset(rules.name)
    except RulesError:
        base = get_preset("tranca")
    opts = " ".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in differences(rules, base))
    return f"{rules.name} {opts}".strip()


def parse_rules(text: str) -> Rules:
    """The rule set of a ``rules:`` line (raises :class:`RulesError`)."""
    from .run_checks import coerce_rule_options, parse_rule_args

    words = text.split()
    if not words:
        raise RulesError("no preset named (e.g. 'rules: tranca')")
    base = get_preset(words[0])
    opts = parse_rule_args(words[1:])
    return base.replace(**coerce_rule_options(base, opts)) if opts else base


# ---- writing --------------------------------------------------------------------------------


def format_position(p: Position) -> str:
    """The position as text (``docs/reference/position-notation.md``); :func:`parse_position`
    reads it back to an equal :class:`Position`."""
    r = p.rules
    n_sides = r.n_sides
    side = r.side_of(p.seat)
    out = [
        "# tranca-sim position (docs/reference/position-notation.md)",
        f"rules: {rules_line(r)}",
        f"turn: {p.turn}",
        f"to move: seat {p.seat} ({SIDES[side]}), {p.phase}",
        f"hand: {cards_text(p.hand)}",
        "hands: " + " ".join(str(n) for n in p.hand_sizes),
    ]
    if p.melded_now:
        out.append("melded this turn: yes")
    for sd in range(n_sides):
        for m in p.melds[sd]:
            out.append(f"meld {SIDES[sd]}: {cards_text(m, ordered=True)}")
    out.append(f"pile: {cards_text(p.pile, ordered=True)}")
    for sd in range(n_sides if r.threes_special else 0):  # plain 3s (Buraco): no red-3 area
        out.append(f"red 3s {SIDES[sd]}: {cards_text(p.red3[sd])}")
    for sd in range(n_sides):
        state, cards = p.mortos[sd]
        out.append(f"morto {SIDES[sd]}: {state}" + (f" {cards_text(cards)}" if cards else ""))
    out.append(f"stock: {p.stock}")
    score = p.score or [0] * n_sides
    out.append("score: " + ", ".join(f"{SIDES[sd]} {score[sd]}" for sd in range(n_sides)))
    for s in sorted(p.took):
        if p.took[s]:
            out.append(f"took {s}: {cards_text(p.took[s])}")
    return "\n".join(out) + "\n"


# ---- reading --------------------------------------------------------------------------------

_KEY = re.compile(r"^\s*([a-z][a-z0-9 ]*?)\s*:\s*(.*?)\s*$", re.I)


class _Reader:
    """Collects the problems of one text, each naming its line: one a line (a line's first
    mistake; what follows from it is not a second one), and :meth:`fine` tells a check that
    builds on other lines (the hand's size, the pack's count) whether they are worth checking."""

    def __init__(self):
        self.problems: list[tuple[int, str]] = []
        self.bad_lines: set[int] = set()
        self.unplaced = 0  # problems of no one line (a missing line)

    def bad(self, line: int | None, message: str) -> None:
        if line in self.bad_lines:
            return
        if line:
            self.bad_lines.add(line)
        else:
            self.unplaced += 1
        self.problems.append((line or 1 << 30, f"line {line}: {message}" if line else message))

    def fine(self, *lines: int | None) -> bool:
        """Whether every one of ``lines`` was given (not None) and read without a mistake."""
        return all(no is not None and no not in self.bad_lines for no in lines)

    def lines(self) -> list[str]:
        """The problems in the order of their lines (those of no one line last)."""
        return [m for _, m in sorted(self.problems, key=lambda x: x[0])]

    def cards(self, line: int, text: str, what: str) -> list[str]:
        if text.strip() in ("-", ""):
            return []
        out = []
        for w in text.replace(",", " ").split():
            c = card_word(w)
            if c is None:
                self.bad(line, f"{w!r} is not a card ({what}; cards are written like KH, 10D, 2C, JK)")
            else:
                out.append(c)
        return out

    def number(self, line: int, text: str, what: str) -> int | None:
        t = text.strip()
        if not t.isdigit():
            self.bad(line, f"{what} takes a whole number 0 or more, got {text.strip()!r}")
            return None
        return int(t)


def _side_index(word: str, n_sides: int) -> int | None:
    w = word.strip().upper()
    return SIDES.index(w) if len(w) == 1 and w in SIDES[:n_sides] else None


def parse_position(text: str) -> Position:
    """Read a position written by hand or by :func:`format_position`.

    Raises
    ------
    PositionError
        With one line per mistake (``line N: ...``): a line that is not ``field: value``, an unknown
        or repeated field, a missing one, a card the notation does not know, more copies of a card
        than the pack holds, a meld the rules forbid (the referee's
        :func:`~tranca_sim.referee.validate_meld`), counts that cannot be (the hand's size, cards
        that do not add up to the pack).
    """
    rd = _Reader()
    fields: dict[str, tuple[int, str]] = {}
    melds_raw: list[tuple[int, str, str]] = []
    per_side: dict[str, dict[str, tuple[int, str]]] = {"red 3s": {}, "morto": {}}
    took_raw: dict[str, tuple[int, str]] = {}
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _KEY.match(line)
        if not m:
            rd.bad(no, f"expected 'field: value', got {line!r}")
            continue
        key, value = " ".join(m.group(1).lower().split()), m.group(2)
        head, _, tail = key.rpartition(" ")
        if key.startswith("meld ") and len(tail) == 1 and head == "meld":
            melds_raw.append((no, tail, value))
        elif head in per_side and len(tail) == 1:
            if tail in per_side[head]:
                rd.bad(no, f"'{key}' given twice (first on line {per_side[head][tail][0]})")
            per_side[head][tail] = (no, value)
        elif head == "took" and tail.isdigit():
            took_raw[tail] = (no, value)
        elif key in ("rules", "turn", "to move", "hand", "hands", "pile", "stock", "score", "melded this turn"):
            if key in fields:
                rd.bad(no, f"'{key}' given twice (first on line {fields[key][0]})")
            fields[key] = (no, value)
        else:
            rd.bad(no, f"unknown field {key!r} (fields: docs/reference/position-notation.md)")
    if not (fields or melds_raw or took_raw or any(per_side.values())):  # not a position at all: one line
        said = any(x.split("#", 1)[0].strip() for x in text.splitlines())  # more than blanks and comments
        what = "no line of it is" if said else "it is empty, not"
        raise PositionError([f"{what} a position: lines of 'field: value' such as 'rules: tranca' and "
                             "'hand: KD 7C 2C' (docs/reference/position-notation.md)"])
    for need in ("rules", "to move", "hand", "hands", "pile", "stock"):
        if need not in fields:
            rd.bad(None, f"the '{need}:' line is missing")
    if "rules" not in fields:
        raise PositionError(rd.lines())
    no, value = fields["rules"]
    try:
        rules = parse_rules(value).validate()
    except RulesError as e:
        rd.bad(no, str(e))
        raise PositionError(rd.lines()) from None
    return _read_fields(rd, rules, fields, melds_raw, per_side, took_raw)


def _read_fields(rd, rules, fields, melds_raw, per_side, took_raw) -> Position:
    n_seats, n_sides = rules.n_seats, rules.n_sides

    def get(key, default=""):
        return fields.get(key, (None, default))

    seat, phase = 0, "draw"
    no, value = get("to move")
    m = re.match(r"^seat\s+(\d+)\s*(?:\([A-Ca-c]\))?\s*,\s*([a-z]+)$", value.strip(), re.I)
    if no and not m:
        rd.bad(no, f"'to move' takes 'seat N, PHASE' (PHASE one of {', '.join(PHASES)}), got {value!r}")
    elif m:
        seat, phase = int(m.group(1)), m.group(2).lower()
        if seat >= n_seats:
            rd.bad(no, f"seat {seat} is not at the table ({rules.name} has seats 0..{n_seats - 1})")
            seat = 0
        if phase not in PHASES:
            rd.bad(no, f"the phase is one of {', '.join(PHASES)}, got {phase!r}")
    no, value = get("turn", "0")
    turn = rd.number(no, value, "turn") or 0 if no else 0
    hand = rd.cards(*get("hand"), "hand")
    no, value = get("hands")
    sizes = [rd.number(no, w, "a hand's size") for w in value.split()] if no else []
    if no and len(sizes) != n_seats:
        rd.bad(no, f"'hands' gives {len(sizes)} sizes, {rules.name} has {n_seats} seats (seat 0 first)")
        sizes = []
    sizes = [s if s is not None else 0 for s in sizes]
    if rules.threes_special:
        for c in hand:
            if is_red3(c):
                rd.bad(get("hand")[0], f"a red 3 ({c}) is never held at a decision: it is laid at once")
    seat_sure = True  # the seat to move agrees with its hand's size (or cannot be checked)
    if rd.fine(no, get("hand")[0], get("to move")[0]) and sizes[seat] != len(hand):
        rd.bad(no, f"seat {seat}'s hand has {len(hand)} cards but 'hands' says {sizes[seat]}")
        seat_sure = False
    if not sizes:
        sizes = [0] * n_seats
    melds = [[] for _ in range(n_sides)]
    seen_at: list[tuple[int, str, str]] = [(get("hand")[0], "hand", c) for c in hand]
    from .referee import validate_meld

    for no, side_word, value in melds_raw:
        sd = _side_index(side_word, n_sides)
        if sd is None:
            rd.bad(no, f"side {side_word.upper()!r} is not at the table (sides {', '.join(SIDES[:n_sides])})")
            continue
        cards = rd.cards(no, value, "meld")
        if not cards and rd.fine(no):
            rd.bad(no, "an empty meld")
        if not rd.fine(no):
            continue  # a meld with a word that is not a card is not the meld meant
        seen_at += [(no, f"meld {SIDES[sd]}", c) for c in cards]
        melds[sd].append(cards)
        pack = pack_of(rules)
        if any(n > pack[c] for c, n in Counter(cards).items()):
            continue  # more copies than the pack holds: said once, by _check_copies
        try:
            check = validate_meld(cards, rules)
        except ValueError as e:
            rd.bad(no, str(e))
            continue
        if not check.legal:
            rd.bad(no, f"meld {cards_text(cards, ordered=True)}: {check.reason}")
    no, value = get("pile")
    pile = rd.cards(no, value, "pile") if no else []
    seen_at += [(no, "pile", c) for c in pile]
    red3 = [[] for _ in range(n_sides)]
    for w, (no, value) in per_side["red 3s"].items():
        sd = _side_index(w, n_sides)
        if sd is None:
            rd.bad(no, f"side {w.upper()!r} is not at the table")
            continue
        red3[sd] = rd.cards(no, value, "red 3s")
        if red3[sd] and not rules.threes_special:
            rd.bad(no, f"{rules.name} has no red 3s to lay aside: its 3s are plain cards, held and melded "
                   "like the others (give no 'red 3s' line)")
        for c in red3[sd]:
            if not is_red3(c):
                rd.bad(no, f"{c} is not a red 3 (only 3D and 3H are laid in a red-3 area)")
        seen_at += [(no, f"red 3s {SIDES[sd]}", c) for c in red3[sd]]
    mortos = _read_mortos(rd, rules, per_side["morto"], seen_at)
    no, value = get("stock")
    stock = (rd.number(no, value, "stock") or 0) if no else 0
    score = [0] * n_sides
    no, value = get("score")
    if no:
        for part in value.split(","):
            ws = part.split()
            sd = _side_index(ws[0], n_sides) if len(ws) == 2 else None
            if sd is None or not re.fullmatch(r"-?\d+", ws[1]):
                rd.bad(no, f"'score' takes 'A 120, B 0' (each side's match score before this deal), got {part.strip()!r}")
                continue
            score[sd] = int(ws[1])
    took: dict[int, list[str]] = {}
    for w, (no, value) in took_raw.items():
        s = int(w)
        if s >= n_seats or (s == seat and seat_sure):
            rd.bad(no, f"'took {s}' names {'the player itself' if s == seat else 'no seat at the table'}: "
                   f"give what the other seats took (seats 0..{n_seats - 1})")
            continue
        took[s] = rd.cards(no, value, f"took {s}")  # a card taken, thrown and taken again counts twice
        for c in set(took[s]):
            if not pack_of(rules)[c]:
                rd.bad(no, f"{c}: {rules.name} plays without it")
    no, value = get("melded this turn", "no")
    melded_now = value.strip().lower() in ("yes", "true", "1")
    if no and value.strip().lower() not in ("yes", "no", "true", "false", "1", "0"):
        rd.bad(no, f"'melded this turn' takes yes or no, got {value!r}")
    _check_copies(rd, rules, seen_at)
    pos = Position(rules, seat, phase, turn, hand, sizes, melds, pile, red3, mortos, stock, score, took, melded_now)
    counted = [get(k)[0] for k in ("hands", "pile", "stock")] + [x[0] for x in melds_raw]
    counted += [x[0] for part in per_side.values() for x in part.values()]
    if rd.fine(*counted) and not rd.unplaced:  # the count of lines read right, none missing
        _check_counts(rd, pos, get("stock")[0])
    if pos.phase == "draw" and pos.melded_now:
        rd.bad(None, "'melded this turn: yes' in the draw phase: nothing is melded before the draw")
    _check_discard_hand(rd, pos, get("hand")[0], get("to move")[0])
    if rd.problems:
        raise PositionError(rd.lines())
    return pos


def _check_discard_hand(rd, p: Position, hand_line, move_line) -> None:
    """A discard with no card in hand is no decision: a hand emptied by melding takes its side's
    morto at once (the direct morto) or has gone out, ending the deal, before any discard."""
    if p.phase != "discard" or p.hand or not rd.fine(move_line):
        return
    side = p.rules.side_of(p.seat)
    waiting = p.rules.morto_size > 0 and p.mortos[side][0] == "waiting"
    then = ("takes its side's morto, which is waiting, and plays on from it" if waiting
            else "has gone out, which ends the deal")
    rd.bad(hand_line or move_line, f"seat {p.seat} is to discard with no card in hand: a hand emptied "
           f"by melding {then}; give the cards it holds")


def _read_mortos(rd, rules, lines, seen_at) -> list[tuple[str, list[str]]]:
    n_sides = rules.n_sides
    mortos: list[tuple[str, list[str]]] = [("waiting", []) for _ in range(n_sides)]
    for w, (no, value) in lines.items():
        sd = _side_index(w, n_sides)
        if sd is None:
            rd.bad(no, f"side {w.upper()!r} is not at the table")
            continue
        v = " ".join(value.lower().split())
        state = next((s for s in sorted(MORTO_WORDS, key=len, reverse=True) if v.startswith(s)), None)
        if state is None:
            rd.bad(no, f"a morto is one of: {', '.join(MORTO_WORDS)}; got {value!r}")
            continue
        cards = rd.cards(no, value[len(state):], "morto") if state == "waiting" else []
        if state != "waiting" and v != state:
            rd.bad(no, f"only a waiting face-up morto lists its cards, got {value!r}")
        if cards and not rules.mortos_face_up:
            rd.bad(no, f"{rules.name} deals the mortos face down: a waiting morto's cards are not seen")
        if state == "waiting" and rules.mortos_face_up and len(cards) != rules.morto_size:
            rd.bad(no, f"a face-up morto shows its {rules.morto_size} cards, got {len(cards)}")
        mortos[sd] = (state, cards)
        seen_at += [(no, f"morto {SIDES[sd]}", c) for c in cards]
    strays = [w for w in lines if _side_index(w, n_sides) is None]  # meant for a missing one: said once
    for sd in range(n_sides):
        if SIDES[sd].lower() not in lines and not strays:
            rd.bad(None, f"the 'morto {SIDES[sd]}:' line is missing")
    return mortos


def _check_copies(rd, rules, seen_at) -> None:
    """One line a card seen more often than the pack holds it, on the line where the pack first
    runs out, with how many copies are too many in all and where those extra copies are."""
    pack = pack_of(rules)
    count = Counter()
    extra: dict = {}  # card -> [first line over, places of the extra copies]
    for no, where, c in seen_at:
        count[c] += 1
        if count[c] > pack[c]:
            places = extra.setdefault(c, [no, []])[1]
            if where not in places:
                places.append(where)
    for c, (no, places) in extra.items():
        held, over = pack[c], count[c] - pack[c]
        many = "one copy" if over == 1 else f"{over} copies"
        rd.bad(no, f"{c} ({', '.join(places)}) is {many} too many: the pack holds {held} {c}"
               + ("" if held else f" ({rules.name} plays without it)"))


def _check_counts(rd, p: Position, stock_line) -> None:
    r = p.rules
    hidden_mortos = sum(r.morto_size for st, cards in p.mortos if st == "waiting" and not cards)
    shown_mortos = sum(len(cards) for st, cards in p.mortos if st == "waiting")
    parts = {
        "hands": sum(p.hand_sizes),
        "melds": sum(len(m) for side in p.melds for m in side),
        "pile": len(p.pile),
        "red 3s": sum(len(x) for x in p.red3),
        "mortos": hidden_mortos + shown_mortos,
        "stock": p.stock,
    }
    total = sum(parts.values())
    if total != r.pack_size:
        said = ", ".join(f"{k} {v}" for k, v in parts.items())
        rd.bad(stock_line, f"the cards add up to {total} ({said}); the pack holds {r.pack_size}")
