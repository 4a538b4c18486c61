"""Rule questions: is a set of cards a legal new meld, and what does a side score."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from numbers import Integral

import numpy as np

from ..rules import Rules
from .cards import _RANKS, _black3, _cards, _default_rules, _pack, _rank, _red3, _value, _wild, cite
from .runs import RunLayout, any_order_run, ordered_run

#: score parts of a log's ``result`` (each side), in the order they are compared; ``score`` is their sum
SCORE_PARTS = (
    "melded_points",
    "canasta_bonus",
    "red3_points",
    "going_out_bonus",
    "morto_penalty",
    "hand_penalty",
)


#: special canastas (``special_canastas``): the bonus of a clean run from the low ace to its high
#: position, instead of ``clean_bonus`` -- 004 Common variations "Special canastras": "a clean
#: canastra from ace to king and a canastra from ace to ace ... 500 and 1,000 points are common" (E24)
_SPECIAL_BONUS = {13: 500, 14: 1000}


@dataclass(frozen=True)
class MeldCheck:
    """Answer of :func:`validate_meld`.

    ``legal``: the cards form a legal new meld.  ``clean``: no wild card
    (canasta limpa if it is a canasta; the suit's own 2 in its place in a run
    is natural, 004).  ``canasta``: ``canasta_size`` cards or more (a black-3
    set never is).  ``reason``: why not, with the rule's source, or ``None``
    when legal.  ``rank``: the meld's rank (``"K"``, ``"3"`` for a black-3
    set; ``None`` for a run), ``kind``: ``"set"``, ``"run"`` or ``"black3"``.
    For a run: ``suit`` (``"H"``), ``low``/``high`` positions (1 = ace low,
    2..13 the rank, 14 = ace high) and ``wild_at``, the positions where a
    wild stands.
    """

    legal: bool
    clean: bool = False
    canasta: bool = False
    reason: str | None = None
    rank: str | None = None
    kind: str | None = None
    suit: str | None = None
    low: int | None = None
    high: int | None = None
    wild_at: tuple[int, ...] = ()


def _run_answer(lay: RunLayout, n: int, rules: Rules) -> MeldCheck:
    return MeldCheck(
        True,
        clean=not lay.wild_at,
        canasta=n >= rules.canasta_size,
        kind="run",
        suit=lay.suit,
        low=lay.low,
        high=lay.high,
        wild_at=lay.wild_at,
    )


def _meld_check(
    cards: list[str], rules: Rules, going_out: bool, run: bool | None = None
) -> tuple[MeldCheck, str | None]:
    """MeldCheck plus a short error code for the referee (``None`` when legal).

    ``run``: ``None`` = a set, or (when the rules meld runs) a run read in position order
    if it is one, else in any order; ``True`` = only a run, cards in position order (a log's
    run meld); ``False`` = only a set."""

    def bad(code: str, reason: str) -> tuple[MeldCheck, str]:
        return MeldCheck(False, reason=reason), code

    n = len(cards)
    for c, k in sorted(Counter(cards).items()):
        cap = rules.n_jokers if c == "JK" else 2
        if k > cap:
            src = cite(rules, "jokers" if c == "JK" and cap else "deck")
            return bad("illegal_meld", f"{k} x {c}: the pack holds {cap} ({src})")
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
            why = f"{n} cards: a meld needs at least 3 cards ({cite(rules, 'min_cards')})"
            return bad("illegal_meld", why)
        if not going_out:
            return bad(
                "black3",
                "black 3s may be melded only as a pure set of 3 or 4 on the turn the side goes out "
                "(000 Gameplay 6, VARIANTS 8, E9)",
            )
        return MeldCheck(True, clean=True, canasta=False, rank="3", kind="black3"), None
    if n < 3:
        return bad(
            "illegal_meld",
            f"{n} card{'s' if n != 1 else ''}: a meld needs at least 3 cards ({cite(rules, 'min_cards')})",
        )
    if run is True or (run is None and rules.meld_runs and not _one_rank(cards)):
        return _as_run(cards, rules, in_order=run is True)
    if run is None and rules.meld_runs:
        # naturals of one rank: a set; but the run's own 2 is natural in its place (AS 2S 2D is
        # A-2-3 of spades, 004), so a list that is no legal set may still be a legal run
        chk, code = _meld_check(cards, rules, going_out, run=False)
        if chk.legal:
            return chk, code
        alt, _ = _as_run(cards, rules, in_order=False)
        return (alt, None) if alt.legal else (chk, code)
    if not rules.meld_sets:
        return bad("illegal_meld", "same-rank melds are not played in this rule set")
    wilds = [c for c in cards if _wild(c)]
    nats = [c for c in cards if not _wild(c)]
    ranks = sorted({_rank(c) for c in nats}, key=_RANKS.index)
    if len(ranks) > 1:
        return bad(
            "illegal_meld",
            f"naturals of ranks {', '.join(ranks)}: a meld is cards of one rank ({cite(rules, 'one_rank')})",
        )
    if len(wilds) > rules.max_wilds:
        return bad(
            "illegal_meld",
            f"{len(wilds)} wild cards: at most {rules.max_wilds} in a meld ({cite(rules, 'wilds')})",
        )
    if len(nats) < rules.min_naturals:
        word = "card" if len(nats) == 1 else "cards"
        return bad(
            "illegal_meld",
            f"{len(nats)} natural {word}: a meld needs at least {rules.min_naturals} naturals of its rank "
            f"({cite(rules, 'wilds')})",
        )
    return MeldCheck(True, clean=not wilds, canasta=n >= rules.canasta_size, rank=ranks[0], kind="set"), None


def _as_run(cards: list[str], rules: Rules, in_order: bool) -> tuple[MeldCheck, str | None]:
    """The cards read as a run: in position order only (``in_order``), else in that order if
    they are a run so, or in any order (:mod:`tranca_sim.referee.runs`)."""
    if not rules.meld_runs:
        return MeldCheck(False, reason="runs are not played in this rule set (meld_runs off)"), "illegal_meld"
    lay, why = ordered_run(cards, rules)
    if not in_order:
        # VARIANTS 16, 17: the verdict depends on the cards, not on their listed order.  Where the
        # cards can be laid clean, the clean reading holds (3C 4C 2C is 2-3-4, not 3-4 with the 2
        # for the 5); a clean run holding A..K of a suit is A-K (a special canasta), whichever
        # order lists it; otherwise the listed order fixes where a wild stands, when it is a run so
        alt, alt_why = any_order_run(cards, rules)
        if lay is None or (alt is not None and len(alt.wild_at) < len(lay.wild_at)) or (
            alt is not None and not alt.wild_at
        ):
            lay, why = alt, alt_why
    if lay is None:
        return MeldCheck(False, reason=why), "illegal_meld"
    return _run_answer(lay, len(cards), rules), None


def _one_rank(cards: list[str]) -> bool:
    """All naturals of one rank (the cards can only be read as a set)."""
    return len({_rank(c) for c in cards if not _wild(c)}) <= 1


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
        card than the pack holds.  Where the rules meld runs (``meld_runs``,
        ``tranca-carioca``) cards whose naturals are not of one rank are read
        as a run: one suit in sequence, the ace low (A-2-3) or high (Q-K-A),
        A..A the longest, no wrap-around K-A-2 (VARIANTS 6); the suit's 2 in
        its own place natural (004, VARIANTS 1); the same wild and natural
        limits as a set (E17); with special 3s positions 4..A only (E16).
        The verdict depends on the cards, not their order (VARIANTS 16, 17):
        the arrangement with the fewest wilds is read (``3C 4C 2C`` is the
        clean 2-3-4), a clean A..K of a suit is A-K however it is listed;
        among arrangements with as many wilds, cards in position order fix
        where each wild stands.  The answer says
        ``kind`` (``"set"``/``"run"``), ``clean``, ``canasta``, and for a run
        ``suit``, ``low``, ``high`` and ``wild_at``.  Whether the side may
        hold another meld of that rank is a question about the table, not the
        cards, and is not asked here.

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
    >>> from tranca_sim.rules import get_preset
    >>> chk = validate_meld("QH KH AH 2C", get_preset("tranca-carioca"))
    >>> chk.kind, chk.clean, chk.low, chk.high, chk.wild_at
    ('run', False, 11, 14, (11,))
    """
    return _meld_check(_cards(cards), rules or _default_rules(), going_out)[0]


def _flag(name: str, v) -> bool:
    """A yes/no argument: a bool (numpy's too), or the integers 0 and 1; anything else is refused."""
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, Integral) and int(v) in (0, 1):
        return bool(int(v))
    raise TypeError(f"{name} must be True or False (or 1 / 0), got {v!r}")


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
    red3 : number of red 3s in the side's area (an integer, numpy integers
        included; ``True``/``False`` and floats are refused: a bool is not a
        count), or the red 3s themselves (list or string of notations).
    hand_cards : every card left in both partners' hands (list or string).
    went_out : a player of the side went out (bater).  This and the other two
        flags take ``True``/``False`` (numpy bools too) or the integers 1/0,
        returned as bools; anything else is refused.
    em_cima : that player had melded nothing in an earlier turn (the going-out
        bonus is then ``em_cima_bonus`` when ``rules.em_cima``); ignored unless
        ``went_out``.
    morto_taken : the side took its morto (else ``-morto_penalty``; the
        morto's cards are not counted, VARIANTS 12).
    rules : default the ``tranca`` preset.

    Returns
    -------
    dict
        ``melded_points`` (card values of the melded cards), ``canasta_bonus``
        (clean x ``clean_bonus`` + dirty x ``dirty_bonus``; with ``special_canastas`` a clean
        run A-K scores 500 and A..A 1000 instead of ``clean_bonus``, 004, E24), ``red3_points``
        (+``red3_value`` each with a canasta, minus each without),
        ``going_out_bonus``, ``morto_penalty`` (<= 0), ``hand_penalty`` (<= 0),
        ``score`` = their sum (the name used by a log's ``result``) and the
        same number as ``total``; also ``canastas_clean``, ``canastas_dirty``
        and ``red3_count``.  Every value is a plain ``int``.

    Raises
    ------
    TypeError
        For an argument of the wrong type: ``red3`` a bool or a float,
        ``melds`` a string instead of a list of melds, a flag that is not a
        bool or 0/1, ``rules`` that is not a :class:`~tranca_sim.rules.Rules`.
    ValueError
        For an unknown card, an illegal meld, a black-3 set when the side did not
        go out (000 Gameplay 6), going out without the morto or the preset's
        canasta (000 Gameplay 11), a red 3 in hand or a red-3 count outside
        0..4 (000 Gameplay 5), any red 3s in a rule set whose 3s are plain
        cards (``threes_special`` off, the Buraco presets), or more copies of a card than the pack holds.

    Examples
    --------
    The worked example of docs/rules.md 3.24 (side A went out, not em cima):

    >>> score_side(["KC KC KD KD KH KH KS", "5C 5D 5H JK"], red3=1, hand_cards=[],
    ...            went_out=True)["total"]
    535
    """
    if rules is None:
        rules = _default_rules()
    elif not isinstance(rules, Rules):
        raise TypeError(f"rules must be a Rules (tranca_sim.rules.get_preset), got {type(rules).__name__}")
    went_out = _flag("went_out", went_out)
    em_cima = _flag("em_cima", em_cima)
    morto_taken = _flag("morto_taken", morto_taken)
    if isinstance(melds, str) or not isinstance(melds, Iterable):
        raise TypeError(
            f"melds must be a list of melds, each a list of cards or a string such as 'KH KD 2C'; "
            f"got {melds!r}"
        )
    if not isinstance(hand_cards, (str, Iterable)):
        raise TypeError(f"hand_cards must be a list of cards or a string such as 'AS 7C'; got {hand_cards!r}")
    melded = clean = dirty = special = 0
    seen = Counter()
    for i, m in enumerate(melds):
        cs = _cards(m)
        seen.update(cs)
        chk, _ = _meld_check(cs, rules, going_out=went_out)
        if not chk.legal:
            raise ValueError(f"meld {i} ({' '.join(cs)}) is not legal: {chk.reason}")
        melded += sum(_value(c, rules) for c in cs)
        if chk.canasta:
            if chk.clean:
                clean += 1
                if (
                    rules.special_canastas
                    and chk.kind == "run"
                    and chk.low == 1
                    and chk.high in _SPECIAL_BONUS
                ):
                    special += _SPECIAL_BONUS[chk.high] - rules.clean_bonus
            else:
                dirty += 1
    if isinstance(red3, (bool, np.bool_, float, np.floating)):
        raise TypeError(
            f"red3 must be a count of red 3s (an integer 0..4) or the red 3s themselves; got {red3!r}"
        )
    if isinstance(red3, Integral):
        n_red3 = int(red3)
    elif not isinstance(red3, (str, Iterable)):
        raise TypeError(f"red3 must be a count (0..4) or a list of red 3s such as ['3H']; got {red3!r}")
    else:
        r3 = _cards(red3)
        if rules.threes_special and not all(_red3(c) for c in r3):
            raise ValueError("only red 3s go in a side's red-3 area")
        n_red3 = len(r3)
        seen.update(r3)
    if not 0 <= n_red3 <= 4:
        raise ValueError(f"a side has 0 to 4 red 3s (the pack holds 4), got {n_red3}")
    if n_red3 and not rules.threes_special:
        raise ValueError(
            f"this rule set has no red-3 area (3s are plain cards, threes_special off; 004 Card values): "
            f"give red3=0 and count each red 3 as a melded or hand card; got {n_red3}"
        )
    hand = _cards(hand_cards)
    if rules.threes_special and any(_red3(c) for c in hand):
        raise ValueError(
            "a red 3 is never held in a hand: it goes to the red-3 area at once (000 Gameplay 5)"
        )
    seen.update(hand)
    pack = _pack(rules)
    over = sorted(c for c, n in seen.items() if n > pack[c])
    if over:
        raise ValueError(f"more copies of {over[0]} than the pack holds ({pack[over[0]]})")
    if went_out:
        if not morto_taken:
            raise ValueError("a side goes out only after taking its morto (000 Gameplay 11)")
        need_clean = rules.go_out_needs_clean
        if not (clean or (dirty and not need_clean)):
            kind = "a clean canasta" if need_clean else "a canasta"
            raise ValueError(f"a side goes out only with {kind} on the table (000 Gameplay 11, VARIANTS 10)")
    red3_points = n_red3 * rules.red3_value * (1 if clean + dirty else -1)
    canasta_bonus = clean * rules.clean_bonus + dirty * rules.dirty_bonus + special
    going_out_bonus = 0
    if went_out:
        going_out_bonus = rules.em_cima_bonus if (em_cima and rules.em_cima) else rules.going_out_bonus
    morto_penalty = 0 if morto_taken else -rules.morto_penalty
    hand_penalty = -sum(_value(c, rules) for c in hand)
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
