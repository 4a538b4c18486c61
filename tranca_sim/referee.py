"""Independent referee: replay a deal log and check it against the rules.

This module is a second, plain-Python implementation of the rules of the
played presets, written from ``../shared/VARIANTS.md``, the seed
``000_95ec226e9cdd732e.txt`` ("000") and the engine's documented choices
E1..E12 (``docs/rules.md`` section 5, ``docs/engine-decisions.md``).  It
shares **no rule code** with the compiled engine: it imports only the card
notation (:mod:`tranca_sim.cards`) and the :class:`~tranca_sim.rules.Rules`
dataclass for the option values.  Card point values are its own tables,
copied from VARIANTS "Card values".

Card notation
-------------
A card is its rank ``A 2 3 4 5 6 7 8 9 10 J Q K`` followed by its suit
``C D H S`` (clubs, diamonds, hearts, spades; clubs and spades are black),
e.g. ``KH``, ``10D``, ``2C``; a joker is ``JK``.  Case is ignored on input.
Jokers and 2s are wild; aces are not (VARIANTS 1).  ``3D``/``3H`` are red 3s,
``3C``/``3S`` black 3s.  A list of cards is a Python list of notations or one
space-separated string (``"KH KD 2C"``).

Public API
----------
- :func:`validate_meld` -- is a set of cards a legal *new* meld?
- :func:`score_side` -- the score parts of one side in a finished position.
- :func:`check_log` -- replay one deal log (a dict), return a :class:`Verdict`.
- :func:`load_logs` -- read a JSON Lines log file, one deal per line, raising
  :class:`LogFormatError` (naming the line) on malformed input.
- :func:`check_file` -- referee every deal of a log file, one :class:`Verdict` each,
  never raising on bad content.
- :func:`validate_log` -- the structural checks of :func:`load_logs` on one dict.

The log format is documented in ``docs/log-format.md``.

Examples
--------
>>> from tranca_sim.rules import get_preset
>>> validate_meld("KH KD 2C", get_preset("tranca")).legal
True
>>> validate_meld("KH 2D 2C", get_preset("tranca")).reason
'1 natural card: a meld needs at least 2 naturals of its rank (000 Gameplay 7, VARIANTS 2)'
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from .cards import parse, to_str
from .rules import PRESETS, Rules, RulesError

__all__ = [
    "FORMAT",
    "SCORE_PARTS",
    "LogFormatError",
    "MeldCheck",
    "Verdict",
    "check_file",
    "check_log",
    "load_logs",
    "score_side",
    "summary",
    "validate_log",
    "validate_meld",
]

FORMAT = "tranca-sim-log/1"
SIDES = ("A", "B")
#: score parts of a log's ``result`` (each side), in the order they are compared; ``score`` is their sum
SCORE_PARTS = (
    "melded_points",
    "canasta_bonus",
    "red3_points",
    "going_out_bonus",
    "morto_penalty",
    "hand_penalty",
)

# ---- card point tables (VARIANTS.md "Card values"), by rank; the referee's own copy ----
_VALUES = {
    "000": {"A": 20, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
            "7": 5, "6": 5, "5": 5, "4": 5, "3": 5, "2": 20, "JK": 50},
    "003": {**{r: 10 for r in ("A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2")}, "JK": None},
    "004": {"A": 15, "K": 10, "Q": 10, "J": 10, "10": 10, "9": 10, "8": 10,
            "7": 5, "6": 5, "5": 5, "4": 5, "3": 5, "2": 10, "JK": 20},
}  # fmt: skip

_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUITS = "CDHS"
_END_REASONS = ("went_out", "stock_out", "turn_limit")


# ---- card classes, on notation strings ------------------------------------------------
def _rank(c: str) -> str:
    return "JK" if c == "JK" else c[:-1]


def _wild(c: str) -> bool:
    return c == "JK" or c[:-1] == "2"


def _red3(c: str) -> bool:
    return c in ("3D", "3H")


def _black3(c: str) -> bool:
    return c in ("3C", "3S")


def _card(text) -> str:
    """Canonical notation of one card; ValueError naming it if it is not a card."""
    return to_str(parse(text if isinstance(text, str) else repr(text)))


def _cards(x) -> list[str]:
    """Canonical notations of a list or space-separated string of cards."""
    if isinstance(x, str):
        x = x.split()
    return [_card(c) for c in x]


def _pack(rules: Rules) -> Counter:
    p = Counter({r + s: 2 for r in _RANKS for s in _SUITS})
    if rules.n_jokers:
        p["JK"] = rules.n_jokers
    return p


def _value(c: str, rules: Rules) -> int:
    table = _VALUES.get(rules.card_values)
    if table is None:
        raise ValueError(f"unknown card value table {rules.card_values!r}")
    v = table[_rank(c)]
    if v is None:
        raise ValueError(f"card value table {rules.card_values!r} gives no value for {c}")
    return v


def _default_rules() -> Rules:
    return PRESETS["tranca"]


# =======================================================================================
# Rule questions
# =======================================================================================
@dataclass(frozen=True)
class MeldCheck:
    """Answer of :func:`validate_meld`.

    ``legal``: the cards form a legal new meld.  ``clean``: no wild card
    (canasta limpa if it is a canasta).  ``canasta``: ``canasta_size`` cards or
    more (a black-3 set never is).  ``reason``: why not, with the rule's
    source, or ``None`` when legal.  ``rank``: the meld's rank (``"K"``,
    ``"3"`` for a black-3 set), ``kind``: ``"set"`` or ``"black3"``.
    """

    legal: bool
    clean: bool = False
    canasta: bool = False
    reason: str | None = None
    rank: str | None = None
    kind: str | None = None


def _meld_check(cards: list[str], rules: Rules, going_out: bool) -> tuple[MeldCheck, str | None]:
    """MeldCheck plus a short error code for the referee (``None`` when legal)."""

    def bad(code: str, reason: str) -> tuple[MeldCheck, str]:
        return MeldCheck(False, reason=reason), code

    n = len(cards)
    for c, k in sorted(Counter(cards).items()):
        cap = rules.n_jokers if c == "JK" else 2
        if k > cap:
            return bad("illegal_meld", f"{k} x {c}: the pack holds {cap} (000 Card Deck)")
    special = rules.threes_special
    if special and any(_red3(c) for c in cards):
        return bad(
            "red3", "a red 3 is never melded: it goes face up to the side's area (000 Gameplay 5, VARIANTS 7)"
        )
    b3 = [c for c in cards if _black3(c)] if special else []
    if b3:
        if len(b3) != n:
            return bad(
                "black3",
                "black 3s cannot be melded with other cards; only a pure set of 3 or 4 black 3s, "
                "on the turn the side goes out (000 Gameplay 6, VARIANTS 8)",
            )
        if not rules.black3_on_going_out:
            return bad("black3", "black 3s are never melded in this rule set (VARIANTS 8)")
        if n < 3:
            return bad("illegal_meld", f"{n} cards: a meld needs at least 3 cards (000 Gameplay 7)")
        if not going_out:
            return bad(
                "black3",
                "black 3s may be melded only as a pure set of 3 or 4 on the turn the side goes out "
                "(000 Gameplay 6, VARIANTS 8, E9)",
            )
        return MeldCheck(True, clean=True, canasta=False, rank="3", kind="black3"), None
    if n < 3:
        return bad(
            "illegal_meld", f"{n} card{'s' if n != 1 else ''}: a meld needs at least 3 cards (000 Gameplay 7)"
        )
    if not rules.meld_sets:
        return bad("illegal_meld", "same-rank melds are not played in this rule set")
    wilds = [c for c in cards if _wild(c)]
    nats = [c for c in cards if not _wild(c)]
    ranks = sorted({_rank(c) for c in nats}, key=_RANKS.index)
    if len(ranks) > 1:
        return bad(
            "illegal_meld",
            f"naturals of ranks {', '.join(ranks)}: a meld is cards of one rank (000 Gameplay 7)",
        )
    if len(wilds) > rules.max_wilds:
        return bad(
            "illegal_meld",
            f"{len(wilds)} wild cards: at most {rules.max_wilds} in a meld (000 Gameplay 7, VARIANTS 2)",
        )
    if len(nats) < rules.min_naturals:
        word = "card" if len(nats) == 1 else "cards"
        return bad(
            "illegal_meld",
            f"{len(nats)} natural {word}: a meld needs at least {rules.min_naturals} naturals of its rank "
            "(000 Gameplay 7, VARIANTS 2)",
        )
    return MeldCheck(True, clean=not wilds, canasta=n >= rules.canasta_size, rank=ranks[0], kind="set"), None


def validate_meld(cards, rules: Rules | None = None, going_out: bool = False) -> MeldCheck:
    """Is ``cards`` a legal new meld under ``rules``?

    Parameters
    ----------
    cards : list of notations or a space-separated string, e.g. ``"KH KD 2C"``
        (see the module docstring for the notation).
    rules : a :class:`~tranca_sim.rules.Rules` (default: the ``tranca`` preset).
    going_out : the meld is laid on the turn its side goes out; only then is a
        pure set of 3 or 4 black 3s legal (000 Gameplay 6, VARIANTS 8).

    Returns
    -------
    MeldCheck
        ``legal``, ``clean``, ``canasta`` and, when illegal, ``reason``
        naming the rule and its source.  Checked: at least 3 cards; one rank
        among the naturals; at most ``max_wilds`` wilds (jokers and 2s) and at
        least ``min_naturals`` naturals (000 Gameplay 7, VARIANTS 2); red 3s
        never melded; black 3s only as the going-out set; no more copies of a
        card than the pack holds.  Same-rank melds only (runs are not played
        yet).  Whether the side may hold another meld of that rank is a
        question about the table, not the cards, and is not asked here.

    Raises
    ------
    ValueError
        If a card is not in the notation (``"unknown card '1X'"``).

    Examples
    --------
    >>> validate_meld("KH KD 2C").legal, validate_meld("KH KD 2C").clean
    (True, False)
    >>> validate_meld("KH KD KC 2C JK 2D").reason
    '3 wild cards: at most 2 in a meld (000 Gameplay 7, VARIANTS 2)'
    """
    return _meld_check(_cards(cards), rules or _default_rules(), going_out)[0]


def score_side(
    melds,
    red3=0,
    hand_cards=(),
    went_out: bool = False,
    em_cima: bool = False,
    morto_taken: bool = True,
    rules: Rules | None = None,
) -> dict:
    """Score one side in a finished position (000 Scoring; VARIANTS Card values, 11, 12).

    Parameters
    ----------
    melds : list of melds, each a list of notations or a space-separated string
        (a pure black-3 set scores its cards and is never a canasta).
    red3 : number of red 3s in the side's area, or the red 3s themselves.
    hand_cards : every card left in both partners' hands (list or string).
    went_out : a player of the side went out (bater).
    em_cima : that player had melded nothing in an earlier turn (the going-out
        bonus is then ``em_cima_bonus`` when ``rules.em_cima``).
    morto_taken : the side took its morto (else ``-morto_penalty``; the
        morto's cards are not counted, VARIANTS 12).
    rules : default the ``tranca`` preset.

    Returns
    -------
    dict
        ``melded_points`` (card values of the melded cards), ``canasta_bonus``
        (clean x ``clean_bonus`` + dirty x ``dirty_bonus``), ``red3_points``
        (+``red3_value`` each with a canasta, minus each without),
        ``going_out_bonus``, ``morto_penalty`` (<= 0), ``hand_penalty`` (<= 0),
        ``score`` = their sum (the name used by a log's ``result``) and the
        same number as ``total``; also ``canastas_clean``, ``canastas_dirty``,
        ``red3_count``.

    Raises
    ------
    ValueError
        For an unknown card or an illegal meld.

    Examples
    --------
    The worked example of docs/rules.md 3.24 (side A went out, not em cima):

    >>> score_side(["KC KC KD KD KH KH KS", "5C 5D 5H JK"], red3=1, hand_cards=[],
    ...            went_out=True)["total"]
    535
    """
    rules = rules or _default_rules()
    melded = clean = dirty = 0
    for i, m in enumerate(melds):
        cs = _cards(m)
        chk, _ = _meld_check(cs, rules, going_out=True)
        if not chk.legal:
            raise ValueError(f"meld {i} ({' '.join(cs)}) is not legal: {chk.reason}")
        melded += sum(_value(c, rules) for c in cs)
        if chk.canasta:
            if chk.clean:
                clean += 1
            else:
                dirty += 1
    if isinstance(red3, int):
        n_red3 = red3
    else:
        r3 = _cards(red3)
        if rules.threes_special and not all(_red3(c) for c in r3):
            raise ValueError("only red 3s go in a side's red-3 area")
        n_red3 = len(r3)
    red3_points = n_red3 * rules.red3_value * (1 if clean + dirty else -1)
    canasta_bonus = clean * rules.clean_bonus + dirty * rules.dirty_bonus
    going_out_bonus = 0
    if went_out:
        going_out_bonus = rules.em_cima_bonus if (em_cima and rules.em_cima) else rules.going_out_bonus
    morto_penalty = 0 if morto_taken else -rules.morto_penalty
    hand_penalty = -sum(_value(c, rules) for c in _cards(hand_cards))
    total = melded + canasta_bonus + red3_points + going_out_bonus + morto_penalty + hand_penalty
    return {
        "melded_points": melded,
        "canasta_bonus": canasta_bonus,
        "red3_points": red3_points,
        "going_out_bonus": going_out_bonus,
        "morto_penalty": morto_penalty,
        "hand_penalty": hand_penalty,
        "score": total,
        "total": total,
        "canastas_clean": clean,
        "canastas_dirty": dirty,
        "red3_count": n_red3,
    }


# =======================================================================================
# Log format
# =======================================================================================
class LogFormatError(ValueError):
    """A log that is not a well-formed ``tranca-sim-log/1`` deal.

    ``line`` is the 1-based line of the file (``None`` for a dict checked
    directly), ``index`` the action index when the problem is in one action,
    ``message`` the text without the location.
    """

    def __init__(self, message: str, line: int | None = None, index: int | None = None):
        self.message = message
        self.line = line
        self.index = index
        where = []
        if line is not None:
            where.append(f"line {line}")
        if index is not None:
            where.append(f"action {index}")
        super().__init__(f"{': '.join(where)}: {message}" if where else message)

    def at_line(self, line: int) -> LogFormatError:
        return LogFormatError(self.message, line, self.index)


_ACT_FIELDS = {
    "turn_up": {"card": "card"},
    "bury": {"card": "card"},
    "turn": {},
    "red3": {"card": "card"},
    "draw": {"card": "card"},
    "take_pile": {"top": "card", "n": "int"},
    "meld": {"meld": "int", "cards": "cards"},
    "extend": {"meld": "int", "card": "card"},
    "black3": {"meld": "int", "cards": "cards"},
    "morto": {"direct": "bool"},
    "discard": {"card": "card"},
    "go_out": {"em_cima": "bool"},
    "end": {"reason": "reason", "out_seat": "seat"},
}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _rules_of(log: dict, rules: Rules | None) -> Rules:
    if rules is not None:
        return rules
    if "rules" in log:
        d = log["rules"]
        if not isinstance(d, dict):
            raise LogFormatError("field 'rules' must be an object")
        names = {f.name for f in dataclasses.fields(Rules)}
        bad = sorted(set(d) - names)
        if bad:
            raise LogFormatError(f"rules: unknown option(s) {', '.join(bad)}")
        base = PRESETS.get(log.get("preset"), Rules())
        try:
            return dataclasses.replace(base, **d).validate()
        except (RulesError, TypeError) as e:
            raise LogFormatError(f"rules: {e}") from None
    if "preset" in log:
        if log["preset"] not in PRESETS:
            raise LogFormatError(f"unknown preset {log['preset']!r}; known: {', '.join(PRESETS)}")
        return PRESETS[log["preset"]]
    raise LogFormatError("missing field 'rules' (or 'preset')")


def _normalize(log, rules: Rules | None = None) -> tuple[Rules, list[str], list[dict], dict]:
    """Check the structure of one deal log; return (rules, deck, actions, result) in
    canonical notation.  Raises LogFormatError."""
    if not isinstance(log, dict):
        raise LogFormatError(f"a deal log must be a JSON object, got {type(log).__name__}")
    for k in ("format", "first_seat", "deck", "actions", "result"):
        if k not in log:
            raise LogFormatError(f"missing field {k!r}")
    if log["format"] != FORMAT:
        raise LogFormatError(f"unsupported format {log['format']!r}; this referee reads {FORMAT!r}")
    rules = _rules_of(log, rules)
    fs = log["first_seat"]
    if not _is_int(fs) or not 0 <= fs < 4:
        raise LogFormatError(f"first_seat must be 0..3, got {fs!r}")
    deck_in = log["deck"]
    if not isinstance(deck_in, list):
        raise LogFormatError("field 'deck' must be a list of cards")
    deck = []
    for p, c in enumerate(deck_in):
        try:
            deck.append(_card(c))
        except ValueError:
            raise LogFormatError(f"deck position {p}: unknown card {c!r}") from None
    pack = _pack(rules)
    counts = Counter()
    for p, c in enumerate(deck):
        counts[c] += 1
        if counts[c] > pack[c]:
            raise LogFormatError(
                f"deck position {p}: card {c} appears {counts[c]} times; the pack holds {pack[c]}"
            )
    if len(deck) != sum(pack.values()):
        missing = sorted((pack - counts).elements())
        raise LogFormatError(
            f"deck: {len(deck)} cards, the {rules.name} pack has {sum(pack.values())}"
            + (f" (missing: {' '.join(missing[:8])}{' ...' if len(missing) > 8 else ''})" if missing else "")
        )
    acts_in = log["actions"]
    if not isinstance(acts_in, list):
        raise LogFormatError("field 'actions' must be a list")
    actions = []
    for i, a in enumerate(acts_in):
        if not isinstance(a, dict):
            raise LogFormatError("an action must be an object", index=i)
        for k in ("act", "turn", "seat"):
            if k not in a:
                raise LogFormatError(f"missing field {k!r}", index=i)
        act = a["act"]
        if not isinstance(act, str) or act not in _ACT_FIELDS:
            raise LogFormatError(f"unknown act {act!r}", index=i)
        if not _is_int(a["turn"]):
            raise LogFormatError(f"{act}: 'turn' must be an integer", index=i)
        if a["seat"] is not None and not (_is_int(a["seat"]) and 0 <= a["seat"] < 4):
            raise LogFormatError(f"{act}: 'seat' must be 0..3 or null, got {a['seat']!r}", index=i)
        b = dict(a)
        for k, typ in _ACT_FIELDS[act].items():
            if k not in a:
                raise LogFormatError(f"{act}: missing field {k!r}", index=i)
            v = a[k]
            if typ == "card":
                try:
                    b[k] = _card(v)
                except ValueError as e:
                    raise LogFormatError(f"{act}: {e}", index=i) from None
            elif typ == "cards":
                if not isinstance(v, list):
                    raise LogFormatError(f"{act}: {k!r} must be a list of cards", index=i)
                try:
                    b[k] = [_card(c) for c in v]
                except ValueError as e:
                    raise LogFormatError(f"{act}: {e}", index=i) from None
            elif typ == "int" and not _is_int(v):
                raise LogFormatError(f"{act}: {k!r} must be an integer", index=i)
            elif typ == "bool" and not isinstance(v, bool):
                raise LogFormatError(f"{act}: {k!r} must be true or false", index=i)
            elif typ == "reason" and v not in _END_REASONS:
                raise LogFormatError(f"end: unknown reason {v!r}; known: {', '.join(_END_REASONS)}", index=i)
            elif typ == "seat" and v is not None and not (_is_int(v) and -1 <= v < 4):
                raise LogFormatError(f"{act}: {k!r} must be -1..3 or null", index=i)
        actions.append(b)
    result = log["result"]
    if not isinstance(result, dict):
        raise LogFormatError("field 'result' must be an object")
    for s in SIDES:
        r = result.get(s)
        if not isinstance(r, dict):
            raise LogFormatError(f"result: missing side {s!r}")
        for p in ("score",) + SCORE_PARTS:
            if p not in r:
                raise LogFormatError(f"result: side {s}: missing field {p!r}")
            if not _is_int(r[p]):
                raise LogFormatError(f"result: side {s}: {p!r} must be an integer")
    return rules, deck, actions, result


def _turn_order_problem(actions: list[dict], first_seat: int) -> tuple[int, str] | None:
    """First action whose (turn, seat) tags break the turn order, as (index, message)."""
    cur = None  # (turn, seat) of the turn being played
    for i, a in enumerate(actions):
        act, t, s = a.get("act"), a.get("turn"), a.get("seat")
        if act in ("turn_up", "bury"):
            if cur is not None:
                return i, f"{act} after the first turn started (setup comes first)"
            if t != -1 or s is not None:
                return i, f"{act} is a setup action: turn -1, seat null (got turn {t}, seat {s})"
        elif act == "turn":
            want = (0, first_seat) if cur is None else (cur[0] + 1, (cur[1] + 1) % 4)
            if (t, s) != want:
                return i, f"turn {t} by seat {s} out of turn: expected turn {want[0]} by seat {want[1]} (E1)"
            cur = want
        elif act == "end":
            if s is not None:
                return i, f"end: seat must be null, got {s}"
        else:
            if cur is None:
                return i, f"{act} by seat {s} before the first turn"
            if (t, s) != cur:
                return i, f"{act} by seat {s} (turn {t}) out of turn: it is turn {cur[0]}, seat {cur[1]}'s"
    return None


def validate_log(log, rules: Rules | None = None, turn_order: bool = True) -> None:
    """Check that ``log`` is a well-formed deal log: fields and their types, known
    acts and cards, a full pack without duplicates, a result for both sides, and
    (with ``turn_order``) the turn/seat tags of every action.  Legality of the
    play is :func:`check_log`'s job.

    Raises
    ------
    LogFormatError
    """
    _, _, actions, _ = _normalize(log, rules)
    if turn_order:
        p = _turn_order_problem(actions, log["first_seat"])
        if p:
            raise LogFormatError(p[1], index=p[0])


def _read_lines(path) -> Iterator[tuple[int, object]]:
    """(line number, parsed JSON or LogFormatError) for each non-blank line."""
    with open(path, "rb") as f:
        data = f.read()
    ends_with_newline = data.endswith(b"\n")
    lines = data.split(b"\n")
    if ends_with_newline:
        lines = lines[:-1]
    for no, raw in enumerate(lines, start=1):
        last = no == len(lines)
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            yield no, LogFormatError(f"not UTF-8 text ({e.reason} at byte {e.start})", line=no)
            continue
        if not text.strip():
            continue
        try:
            yield no, json.loads(text)
        except json.JSONDecodeError as e:
            if last and not ends_with_newline:
                yield (
                    no,
                    LogFormatError(
                        f"truncated file: the last line is incomplete ({e.msg} at column {e.colno})", line=no
                    ),
                )
            else:
                yield no, LogFormatError(f"invalid JSON: {e.msg} at column {e.colno}", line=no)


def load_logs(path: str | os.PathLike) -> Iterator[dict]:
    """Deal logs of a JSON Lines file (one deal a line; blank lines skipped), as dicts.

    Each line is checked by :func:`validate_log` before it is yielded (the
    dict is yielded as read, not normalised).

    Raises
    ------
    LogFormatError
        Naming the line (and the action index) for: invalid JSON, a truncated
        file (last line incomplete), an unknown card, a duplicated or missing
        card in the deck, a missing or mistyped field, an unknown act, an
        action out of turn (its turn/seat tags break the rotation of E1).
    OSError
        If the file cannot be read.
    """
    for no, obj in _read_lines(path):
        if isinstance(obj, LogFormatError):
            raise obj
        try:
            validate_log(obj)
        except LogFormatError as e:
            raise e.at_line(no) from None
        yield obj


# =======================================================================================
# The referee
# =======================================================================================
@dataclass
class Verdict:
    """Result of refereeing one deal.

    ``ok``: every action legal, the cards accounted for after every action,
    and the log's ``result`` equal to the recomputed score.  Otherwise the
    first divergence: ``code`` (short id, e.g. ``"locked_pile"``), ``reason``
    (the rule it breaks, with its source), ``turn``, ``index`` (into
    ``log["actions"]``; ``len(actions)`` for a missing end or a wrong result,
    ``None`` for a format problem outside the actions), ``action`` (the
    offending action as logged) and ``line`` (1-based line of the file, when
    read by :func:`check_file`).  ``scores``: the recomputed ``{"A": parts,
    "B": parts}`` (as :func:`score_side`) when the replay reached the end of
    the deal; ``logged``: the log's ``result``.
    """

    ok: bool
    code: str | None = None
    reason: str | None = None
    turn: int | None = None
    index: int | None = None
    action: dict | None = None
    line: int | None = None
    deal_index: int | None = None
    scores: dict | None = None
    logged: dict | None = None

    def __str__(self) -> str:
        head = f"deal {self.deal_index}" if self.deal_index is not None else "deal"
        if self.line is not None:
            head = f"line {self.line}: {head}"
        if self.ok:
            sc = ""
            if self.scores:
                sc = f" (A {self.scores['A']['score']}, B {self.scores['B']['score']})"
            return f"{head}: ok{sc}"
        where = []
        if self.turn is not None:
            where.append(f"turn {self.turn}")
        if self.index is not None:
            where.append(f"action {self.index}")
        act = f" {json.dumps(self.action, separators=(',', ':'))}" if self.action else ""
        return f"{head}: {', '.join(where) or 'log'}: {self.code}: {self.reason}{act}"


class _Foul(Exception):
    def __init__(self, code: str, reason: str):
        super().__init__(reason)
        self.code = code
        self.reason = reason


@dataclass
class _Meld:
    kind: str  # "set" | "black3"
    rank: str
    cards: list[str] = field(default_factory=list)

    @property
    def wilds(self) -> int:
        return sum(1 for c in self.cards if _wild(c))


class _Replay:
    """The table, replayed action by action."""

    def __init__(self, rules: Rules, deck: list[str], first_seat: int):
        self.r = rules
        self.pack = _pack(rules)
        self.first_seat = first_seat
        hs, ms = rules.hand_size, rules.morto_size
        self.hands = [Counter() for _ in range(4)]
        p = 0
        for j in range(4 * hs):  # E2: one card at a time clockwise from the first seat
            self.hands[(first_seat + j) % 4][deck[p]] += 1
            p += 1
        self.mortos = [deck[p : p + ms], deck[p + ms : p + 2 * ms]]
        p += 2 * ms
        self.stock = deck[p:]  # index 0 = top
        self.pile: list[str] = []  # bottom first
        self.melds: list[list[_Meld]] = [[], []]
        self.red3: list[list[str]] = [[], []]
        self.morto_state = ["waiting", "waiting"]  # or "direct" / "indirect"
        self.void_seat = [
            None,
            None,
        ]  # per side: indirect taker who has not played a turn since (002 Detalle)
        self.first_meld_turn: list[int | None] = [None] * 4
        # turn state
        self.phase = "setup"  # setup start play discarded out over
        self.turn = -1
        self.seat: int | None = None
        self.repl_owed = 0
        self.capture: tuple[str, Counter] | None = None  # (top card, hand before the capture)
        self.pending_empty: str | None = None  # "meld" | "discard": hand emptied, morto or go_out next
        self.black3_committed = False
        self.end_reason: str | None = None
        self.out_seat: int | None = None
        self.em_cima = False

    # ---- small helpers --------------------------------------------------------------
    def n_hand(self, seat: int) -> int:
        return sum(self.hands[seat].values())

    def has_canasta(self, side: int, clean_only: bool) -> bool:
        cs = self.r.canasta_size
        return any(
            m.kind == "set" and len(m.cards) >= cs and (not clean_only or m.wilds == 0)
            for m in self.melds[side]
        )

    def can_go_out(self, side: int) -> bool:
        """000 Gameplay 11, VARIANTS 10: morto taken and the preset's canasta."""
        return self.morto_state[side] != "waiting" and self.has_canasta(side, self.r.go_out_needs_clean)

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

    def canasta_word(self) -> str:
        return "a clean canasta" if self.r.go_out_needs_clean else "a canasta"

    def keep_check(self, seat: int) -> None:
        """E6: a player whose side may not empty the hand keeps 2 cards after melding."""
        side = seat % 2
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
            return True
        t = self.pile[-1]
        if _wild(t) or (self.r.threes_special and (_red3(t) or _black3(t))):
            return False
        side = seat % 2
        hand = self.hands[seat]
        after = self.n_hand(seat) + len(self.pile) - 1  # hand after the capture, before the meld
        r = _rank(t)
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

    def accounting(self) -> None:
        """Every card of the pack in exactly one place (hands, waiting mortos, stock, pile,
        melds, red-3 areas)."""
        tot = Counter()
        for h in self.hands:
            tot.update(h)
        for side in range(2):
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
            side = seat % 2
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
        if act == "red3":
            return self.red3_act(a)
        if act == "draw":
            return self.draw(a)
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
            if self.stock:
                raise _Foul(
                    "red3",
                    "a red 3 laid is replaced from the stock at once (000 Gameplay 5, VARIANTS 7, E4)",
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
                side = self.seat % 2
                if self.morto_state[side] == "waiting":
                    raise _Foul(
                        "morto",
                        f"seat {self.seat} emptied the hand by the discard: side {SIDES[side]}'s morto is "
                        "taken at once (000 Gameplay 10, VARIANTS 9)",
                    )
                raise _Foul(
                    "sequence", f"seat {self.seat}'s hand is empty: the player goes out (000 Gameplay 11)"
                )
            if self.r.threes_special and any(_red3(c) for c in self.hands[self.seat]):
                raise _Foul("red3", "the morto's red 3s are laid at once when it is taken (VARIANTS 7, E4)")
            if self.repl_owed and self.stock:
                raise _Foul("red3", "a red 3 laid is replaced from the stock at once (000 Gameplay 5, E4)")
            want = (self.turn + 1, (self.seat + 1) % 4)
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
        side = self.seat % 2
        if self.void_seat[side] == self.seat:
            self.void_seat[side] = None  # the indirectly taken morto is now in play

    def red3_act(self, a: dict) -> None:
        c, seat = a["card"], self.seat
        if not self.r.threes_special:
            raise _Foul("red3", "3s are plain cards in this rule set: there is no red-3 area")
        if not _red3(c):
            raise _Foul("red3", f"{c} is not a red 3: only red 3s go to the side's area (000 Gameplay 5)")
        self.take_from_hand(seat, [c])
        self.red3[seat % 2].append(c)
        if self.stock:
            self.repl_owed += 1

    def draw(self, a: dict) -> None:
        c, seat = a["card"], self.seat
        if self.repl_owed:
            kind = "replacement of a red 3"
        else:
            if self.phase != "start":
                why = "after the discard" if self.phase == "discarded" else "after the draw"
                raise _Foul("double_draw", f"a second draw {why}: a turn has one draw (000 Gameplay 1-2)")
            if self.r.threes_special:
                reds = sorted(x for x in self.hands[seat] if _red3(x))
                if reds:
                    raise _Foul(
                        "red3",
                        f"seat {seat} holds {reds[0]}: a dealt red 3 is laid before the draw (000 Gameplay 5, E4)",
                    )
            kind = "draw"
        if not self.stock:
            raise _Foul("wrong_card", f"{kind} of {c} from an empty stock (000 Gameplay 12, VARIANTS 14)")
        if self.stock[0] != c:
            raise _Foul("wrong_card", f"{kind} of {c}, but the top of the stock is {self.stock[0]}")
        self.hands[seat][self.stock.pop(0)] += 1
        if self.repl_owed:
            self.repl_owed -= 1
        else:
            self.phase = "play"

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
        if self.r.pile_closed and (_wild(top) or (self.r.threes_special and (_red3(top) or _black3(top)))):
            raise _Foul(
                "closed_pile",
                f"{top} on top cannot start or extend a meld, so the closed pile cannot be taken "
                "(000 Gameplay 3, VARIANTS 4, E10)",
            )
        before = Counter(self.hands[seat])
        self.hands[seat].update(self.pile)
        self.pile = []
        self.phase = "play"
        if self.r.pile_closed:
            self.capture = (top, before)

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
        if len(rest) != 2:
            raise _Foul(
                "closed_pile",
                f"the capture meld is the top card {top} with two cards from the hand, got {len(cards)} cards "
                "(000 Gameplay 3, E10)",
            )
        for c, k in Counter(rest).items():
            if before[c] < k:
                raise _Foul(
                    "closed_pile",
                    f"the capture meld takes two cards from the hand held before the capture; {c} came from "
                    "the pile (000 Gameplay 3, E10)",
                )

    def _new_meld(self, a: dict, going_out: bool) -> tuple[list[str], MeldCheck]:
        side = self.seat % 2
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
        chk, code = _meld_check(cards, self.r, going_out)
        if not chk.legal:
            raise _Foul(code, chk.reason)
        return cards, chk

    def act_meld(self, a: dict) -> None:
        seat, side = self.seat, self.seat % 2
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
        self.take_from_hand(seat, cards)
        self.melds[side].append(_Meld("set", chk.rank, list(cards)))
        self.after_meld(seat)

    def act_black3(self, a: dict) -> None:
        seat, side = self.seat, self.seat % 2
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
        seat, side = self.seat, self.seat % 2
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
        chk, code = _meld_check(m.cards + [c], self.r, going_out=True)
        if not chk.legal:
            raise _Foul(code, f"{c} onto meld {i} ({' '.join(m.cards)}): {chk.reason}")
        self.take_from_hand(seat, [c])
        m.cards.append(c)
        self.after_meld(seat)

    def after_meld(self, seat: int) -> None:
        if self.first_meld_turn[seat] is None:
            self.first_meld_turn[seat] = self.turn
        self.capture = None
        self.keep_check(seat)
        if self.n_hand(seat) == 0:
            self.pending_empty = "meld"

    def act_morto(self, a: dict) -> None:
        seat, side = self.seat, self.seat % 2
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
        seat, side = self.seat, self.seat % 2
        if self.phase == "start":
            raise _Foul("sequence", "discard before the draw: a turn is draw, meld, discard (000 Gameplay 1)")
        if self.phase == "discarded":
            raise _Foul("sequence", "a second discard: one discard ends the turn (000 Gameplay 1)")
        c = a["card"]
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
        seat, side = self.seat, self.seat % 2
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

    def check_stock_out(self) -> None:
        """E8: the deal ends by stock exhaustion when the player to move cannot play."""
        seat = self.seat
        side = seat % 2
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
        if self.phase == "start":
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

    # ---- score ------------------------------------------------------------------------
    def scores(self) -> dict:
        out = {}
        went_side = self.out_seat % 2 if self.end_reason == "went_out" else None
        for side in range(2):
            void = None
            if (
                self.r.indirect_morto_void
                and went_side is not None
                and went_side != side
                and self.void_seat[side] is not None
            ):
                void = self.void_seat[side]  # 002 Detalle: paid as not taken, its cards not counted
            hand = []
            for seat in (side, side + 2):
                if seat != void:
                    hand += list(self.hands[seat].elements())
            out[SIDES[side]] = score_side(
                [m.cards for m in self.melds[side]],
                red3=len(self.red3[side]),
                hand_cards=hand,
                went_out=went_side == side,
                em_cima=self.em_cima,
                morto_taken=self.morto_state[side] != "waiting" and void is None,
                rules=self.r,
            )
        return out


_PART_SOURCE = {
    "melded_points": "000 Scoring: Card values",
    "canasta_bonus": "000 Gameplay 8, Scoring: Canasta bonuses",
    "red3_points": "000 Gameplay 5, Scoring: Card values",
    "going_out_bonus": "000 Scoring: Going out bonus, VARIANTS 11",
    "morto_penalty": "000 Scoring: Morto not picked up penalty, VARIANTS 12",
    "hand_penalty": "000 Scoring: Hand penalties",
    "score": "000 Scoring: the sum of the parts",
}


def check_log(log: dict, rules: Rules | None = None, line: int | None = None) -> Verdict:
    """Replay one deal log and referee it.

    Parameters
    ----------
    log : a ``tranca-sim-log/1`` deal (a dict as :func:`load_logs` yields; see
        docs/log-format.md).  Unknown top-level keys are ignored.
    rules : judge by these rules instead of the log's own (default: the log's
        ``rules`` field, else its ``preset``).
    line : line of the file the log came from, copied into the verdict.

    Returns
    -------
    Verdict
        ``ok`` or the first divergence (turn, action index, action, rule
        broken).  Never raises on bad input: a malformed log gives a verdict
        with ``code == "format"``.
    """
    deal = log.get("deal_index") if isinstance(log, dict) else None
    try:
        rules, deck, actions, result = _normalize(log, rules)
    except LogFormatError as e:
        act = log["actions"][e.index] if e.index is not None else None
        return Verdict(False, "format", e.message, index=e.index, action=act, line=line, deal_index=deal)
    raw = log["actions"]
    rp = _Replay(rules, deck, log["first_seat"])
    for i, a in enumerate(actions):
        try:
            rp.step(a)
            rp.accounting()
        except _Foul as f:
            return Verdict(
                False,
                f.code,
                f.reason,
                turn=a["turn"],
                index=i,
                action=raw[i],
                line=line,
                deal_index=deal,
                logged=result,
            )
    if rp.phase != "over":
        return Verdict(
            False,
            "sequence",
            "the log ends before the deal does (no end action)",
            turn=rp.turn,
            index=len(actions),
            line=line,
            deal_index=deal,
            logged=result,
        )
    scores = rp.scores()
    for s in SIDES:
        for p in SCORE_PARTS + ("score",):
            if scores[s][p] != result[s][p]:
                return Verdict(
                    False,
                    "score",
                    f"side {s} {p}: the log says {result[s][p]}, the referee computes {scores[s][p]} "
                    f"({_PART_SOURCE[p]})",
                    turn=rp.turn,
                    index=len(actions),
                    line=line,
                    deal_index=deal,
                    scores=scores,
                    logged=result,
                )
    return Verdict(True, turn=rp.turn, line=line, deal_index=deal, scores=scores, logged=result)


def check_file(path: str | os.PathLike, rules: Rules | None = None) -> Iterator[Verdict]:
    """Referee every deal of a JSON Lines log file: one :class:`Verdict` per non-blank line,
    with ``line`` set.  A malformed line (invalid JSON, truncation, bad cards or fields)
    gives a ``"format"`` verdict and the file goes on; an action out of turn is a game
    verdict (``"out_of_turn"``).  Never raises on bad content (OSError if the file
    cannot be read)."""
    for no, obj in _read_lines(path):
        if isinstance(obj, LogFormatError):
            yield Verdict(False, "format", obj.message, line=no)
            continue
        yield check_log(obj, rules, line=no)


def summary(verdicts: Iterable[Verdict]) -> tuple[int, int, list[Verdict]]:
    """(agreed, total, failures) of a sequence of verdicts."""
    vs = list(verdicts)
    bad = [v for v in vs if not v.ok]
    return len(vs) - len(bad), len(vs), bad


def walk(log: dict, rules: Rules | None = None) -> Iterator[tuple[int, dict, _Replay]]:
    """Replay a log and yield ``(index, action, table)`` after each action.

    ``table`` is the referee's live model of the table (hands, mortos, stock,
    pile, melds, red-3 areas; attributes as in the class ``_Replay``), updated
    in place: read it before the next step, never modify it.  Used by
    :mod:`tranca_sim.replay` to print and draw deals.

    Raises
    ------
    LogFormatError
        For a malformed log.
    ValueError
        At the first illegal action, with the referee's reason.
    """
    rules, deck, actions, _ = _normalize(log, rules)
    table = _Replay(rules, deck, log["first_seat"])
    yield -1, {"act": "deal", "turn": -1, "seat": None}, table
    for i, a in enumerate(actions):
        try:
            table.step(a)
        except _Foul as f:
            raise ValueError(f"action {i} (turn {a['turn']}): {f.code}: {f.reason}") from None
        yield i, a, table
