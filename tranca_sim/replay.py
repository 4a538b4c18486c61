"""Replay any deal of a run: turn by turn in a terminal, or the table drawn as HTML/SVG.

A deal is regenerated from the run file's metadata (rules, strategies,
master seed) and its index: the engine plays it again with the action log
on (:func:`tranca_sim.engine.log.play_logged`), and the referee's table model
(:func:`tranca_sim.referee.walk`) follows the actions, so what is printed is
also checked.  No log file is needed.
"""

from __future__ import annotations

import dataclasses
import html

from .referee import score_side, walk
from .rules import Rules, RulesError

SIDES = "ABC"
_ORDER = {
    r: i for i, r in enumerate(["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2", "JK"])
}
_PARTS = (
    ("melded_points", "melded cards"),
    ("canasta_bonus", "canasta bonus"),
    ("red3_points", "red 3s"),
    ("going_out_bonus", "going out"),
    ("morto_penalty", "morto not taken"),
    ("hand_penalty", "cards in hand"),
    ("score", "total"),
)


def regenerate(run_path, deal: int, match: dict | None = None) -> dict:
    """The action log of deal ``deal`` of the run file ``run_path``, played again.

    Raises
    ------
    tranca_sim.io.RunFileError
        For a missing or unreadable run file, or one without run metadata.
    tranca_sim.strategies.StrategyError
        If the run was played with a user's strategy file that is missing or
        has changed since (its sha256 is recorded in the run).
    ValueError
        If ``deal`` is not a deal of the run.

    In a match run ``deal`` is the deal key (``deal_index``: match * 1024 + deal in match) and
    ``match`` its facts (:func:`match_facts`, read from the run when not given).
    """
    from tranca_sim.strategies import from_record

    from .io import RunFileError, load_meta

    meta = load_meta(run_path)
    try:
        fields = {f.name for f in dataclasses.fields(Rules)}
        rules = Rules(**{k: v for k, v in meta["rules"].items() if k in fields}).validate()
        entries = [dict(s) for s in meta["strategies"]]
        if len(entries) != rules.n_sides or any("text" not in e for e in entries):
            raise KeyError("strategies")
        seed = int(meta["master_seed"])
        deals = None if meta.get("matches") else int(meta["deals"])
    except (KeyError, TypeError, ValueError, RulesError) as e:
        raise RunFileError(f"{run_path}: the run metadata cannot be replayed ({e})") from None
    if deals is not None:
        match = None
    from tranca_sim.strategies import prepare_engine

    prepare_engine(entries)  # before match_facts imports the engine
    if deals is None:
        match = match if match is not None else match_facts(run_path, deal)
    elif not isinstance(deal, int) or not 0 <= deal < deals:
        raise ValueError(f"deal {deal} is not in {run_path} (deals 0..{deals - 1})")
    # a user's strategy file is loaded (and checked unchanged) before the engine is imported
    specs = [from_record(e) for e in entries]
    from .engine.log import play_logged

    return play_logged(rules, specs, seed, deal, match=match)


def match_facts(run_path, deal_index: int) -> dict:
    """The match facts of the deal with key ``deal_index`` of a match run (its match, its number in
    the match, the sides' match scores before it, read from the run's rows).

    Raises
    ------
    ValueError
        If the run holds no such deal.
    """
    from .engine.match import MATCH_STRIDE
    from .io import load_run

    m, d = divmod(int(deal_index), MATCH_STRIDE)
    df = load_run(run_path, backend="pandas", columns=["match_index", "deal_in_match", "side", "match_score"])
    rows = df[df["match_index"] == m]
    if rows.empty or d >= int(rows["deal_in_match"].max()) + 1:
        raise ValueError(f"deal {d} of match {m} is not in {run_path}")
    before = rows[rows["deal_in_match"] == d - 1].sort_values("side")["match_score"] if d else None
    n_sides = int(rows["side"].max()) + 1  # 2, or 3 at three solo players
    scores = [0] * n_sides if before is None else [int(x) for x in before]
    return {"match_index": m, "deal_in_match": d, "scores": scores}


def _key(c: str):
    rank = "JK" if c == "JK" else c[:-1]
    return (_ORDER[rank], c[-1])


def cards_text(cards) -> str:
    """Cards sorted by rank (3..A, then 2s and jokers) as notation."""
    return " ".join(sorted(cards, key=_key)) or "-"


def _hand(table, seat) -> list[str]:
    return list(table.hands[seat].elements())


def strategy_label(text: str) -> str:
    """A strategy spec as people name it: the name and the parameters that differ from their
    defaults (``"basic:take_pile_min=1,...,black3_lock=1,..."`` -> ``"basic:black3_lock=1"``);
    a user's file or a spec this version cannot resolve is shown as given."""
    from tranca_sim.strategies import StrategyError, resolve
    from tranca_sim.strategies.user import split_file_spec

    try:
        if split_file_spec(text) is not None:
            return text  # a user's file: never loaded just to name it
        return resolve(text).label
    except StrategyError:
        return text


def _solo(log) -> bool:
    """A table of solo players (tranca-2p / tranca-3p): each seat is its own side."""
    return not log.get("rules", {}).get("partnerships", True)


def _side_of(log, seat) -> int:
    return seat if _solo(log) else seat % 2


def _who(log, seat) -> str:
    side = _side_of(log, seat)
    return f"seat {seat} ({SIDES[side]}, {strategy_label(log['strategies'][side])})"


def _sides_line(log) -> str:
    names = [strategy_label(t) for t in log["strategies"]]
    if _solo(log):
        return " · ".join(f"{SIDES[i]} = {n} (seat {i})" for i, n in enumerate(names))
    return f"A = {names[0]} (seats 0, 2) · B = {names[1]} (seats 1, 3)"


def _pile_text(table) -> str:
    if not table.pile:
        return "pile empty"
    lock = table.locked_by()
    top = f"pile {len(table.pile)} card{'s' * (len(table.pile) != 1)}, top {table.pile[-1]}"
    return top + (f", locked by {lock}" if lock else "")


def format_deal(log: dict) -> str:
    """The deal as text: setup, each turn (hand after the draw, melds, pile top and lock,
    morto pickups), the final table and the score table with every part.  A side is named by
    its strategy and the parameters that differ from their defaults; a card drawn to replace a
    red 3 says so (``draws AC to replace the red 3 3D``)."""
    out = [
        f"deal {log['deal_index']} · preset {log['preset']} · seed {log['master_seed']} · {_sides_line(log)}"
    ]
    mt = log.get("match")
    if mt:
        r = log.get("rules") or {}
        need = []
        frm = r.get("first_meld_from") or -(-int(r.get("match_target", 3000)) // 2)
        for side, x in zip("ABC", mt["scores"]):
            if r.get("first_meld_min") and x >= frm:
                need.append(f"{side} must lay {r['first_meld_min']} card points in its first meld")
        out.append(
            f"match {mt['match_index']}, deal {mt['deal_in_match']} of the match · match score before it: "
            + ", ".join(f"{n} {x}" for n, x in zip("ABC", mt["scores"]))
            + (" · " + ", ".join(need) if need else "")
        )
    owed: list[str] = []  # red 3s laid and not replaced yet, in the order they were laid
    shown = True
    capture = False  # a closed pile was taken: its top card's meld follows (000 Gameplay 3)
    closed = bool((log.get("rules") or {}).get("pile_closed", True))
    table = None
    drawn = ""  # the hand as it stands after the latest draw-phase action
    for _, a, table in walk(log):
        act = a["act"]
        if act == "deal":
            for s in range(table.players):
                out.append(f"  dealt to {_who(log, s)}: {cards_text(_hand(table, s))}")
            continue
        if act in ("turn_up", "bury"):
            verb = "turned up as the first discard" if act == "turn_up" else "turned up and buried mid-stock"
            out.append(f"  {a['card']} {verb}")
            continue
        if act == "turn":
            out.append(
                f"turn {a['turn']} · {_who(log, a['seat'])} · stock {len(table.stock)} · {_pile_text(table)}"
            )
            shown = False
            capture = False
            continue
        seat = a["seat"]
        late = act in ("meld", "extend", "replace_wild", "black3", "discard", "go_out", "morto")
        if not shown and late and not capture:
            out.append(drawn)
            shown = True
        if act == "take_pile" and closed:
            capture = True
        text = action_text(log, a, table, owed)
        if text is not None:
            out.append(("    " if act != "end" else "") + text)
        if act == "end":
            for s, c in table.end_red3:
                out.append(
                    f"  {c} still held by seat {s} is laid in side {SIDES[table.side(s)]}'s red-3 area (E4)"
                )
            for sd in range(table.n_sides):
                vs = table.void_morto_seat(sd)
                if vs is not None:
                    out.append(
                        f"  side {SIDES[sd]}'s morto, taken by seat {vs} with the discard, is void: paid as "
                        "not taken, none of its cards count (002 Detalle)"
                    )
        if capture and act in ("meld", "extend"):
            capture = False
            n = table.n_hand(seat)
            out.append(f"    hand after the capture and its meld ({n}): {cards_text(_hand(table, seat))}")
            shown = True
        elif act == "take_pile" and not closed and not shown:  # an open pile needs no meld (004)
            drawn = f"    hand after taking the pile ({table.n_hand(seat)}): {cards_text(_hand(table, seat))}"
        elif act in ("draw", "red3", "redraw") and not shown:
            drawn = f"    hand after the draw ({table.n_hand(seat)}): {cards_text(_hand(table, seat))}"
    out.append("")
    out.extend(_final_table(log, table))
    return "\n".join(out)


def game_name(preset) -> str:
    """The game a preset plays, as a title names it: ``"Buraco"`` for the Buraco presets
    (``buraco``, ``buraco-fechado``; seed 004), else ``"Tranca"``."""
    return "Buraco" if str(preset or "").startswith("buraco") else "Tranca"


def action_text(log: dict, a: dict, table, owed: list[str] | None = None) -> str | None:
    """One action as a sentence (``"discards 7C · pile 5 cards, top 7C"``), read against the
    table just after it; None for the setup and ``turn`` markers.

    ``table`` is the referee's table model as :func:`tranca_sim.referee.walk` yields it
    after the action (an extension names the meld's cards after it).  ``owed``, kept by the
    caller across the actions of a deal, holds the red 3s laid and not replaced yet, so a
    replacement draw says so (``draws AC to replace the red 3 3D``; 000 Gameplay 5, E4).
    """
    act, seat = a["act"], a.get("seat")
    side = SIDES[_side_of(log, seat)] if seat is not None else ""
    if act == "red3":
        if owed is not None and table.stock:  # replaced from the stock at once; none when it is empty
            owed.append(a["card"])
        return f"lays {a['card']} in side {side}'s red-3 area"
    if act == "draw":
        if owed:
            return f"draws {a['card']} to replace the red 3 {owed.pop(0)}"
        return f"draws {a['card']}"
    if act == "redraw":
        return f"throws {a['card']} back on the pile to draw again (first-player redraw, 003)"
    if act == "take_pile":
        return f"takes the pile: {a['n']} card{'s' * (a['n'] != 1)}, top {a['top']}"
    if act == "meld":
        kind = "run " if a.get("run") else ""
        return f"melds {kind}{' '.join(a['cards'])} as side {side} meld {a['meld'] + 1}"
    if act == "extend":
        m = table.melds[table.side(seat)][a["meld"]]
        at = f" ({a['end']} end)" if "end" in a else ""
        return f"adds {a['card']} to side {side} meld {a['meld'] + 1}{at} -> {meld_text(m)}"
    if act == "replace_wild":
        m = table.melds[seat % 2][a["meld"]]
        return f"lays {a['card']} in place of the wild of side {side} meld {a['meld'] + 1}, the wild moves to the {a['end']} end -> {meld_text(m)}"
    if act == "black3":
        return f"lays the black-3 set {' '.join(a['cards'])} to go out"
    if act == "morto":
        how = "direct: plays on in this turn" if a["direct"] else "indirect: plays it from the next turn"
        return f"takes side {side}'s morto ({how})"
    if act == "morto_stock":
        n = len(table.stock)
        return (
            f"the stock is empty: side {a['side']}'s morto becomes the stock ({n} card{'s' * (n != 1)}; "
            "004 How to play, E22)"
        )
    if act == "discard":
        return f"discards {a['card']} · {_pile_text(table)}"
    if act == "go_out":
        return "goes out (bater)" + (" em cima" if a["em_cima"] else "")
    if act == "end":
        who = f" by seat {a['out_seat']}" if a["reason"] == "went_out" else ""
        return f"end of the deal: {a['reason']}{who}"
    return None


def meld_faces(meld, rules) -> list[tuple[str, bool]]:
    """A meld of the referee's table model as drawn: ``(card, acts as a wild)`` for each card, a run
    from its lowest place up, a set sorted by rank.  Decided from the meld's cards whatever their
    listed order, as :func:`tranca_sim.referee.validate_meld` reads them (VARIANTS 16, 17): in a run
    the suit's own 2 in its own place (A-2-3, 2-3-4) is natural (004, VARIANTS 1) and a 2 or a joker
    standing for another card is a wild; in a set every 2 and joker is a wild; a black-3 set has none."""
    from .referee import validate_meld
    from .referee.runs import pos_card

    if meld.kind == "black3":
        return [(c, False) for c in sorted(meld.cards, key=_key)]
    wild = [c for c in meld.cards if c == "JK" or c[:-1] == "2"]
    if meld.kind != "run":
        return [(c, c in wild) for c in sorted(meld.cards, key=_key)]
    chk = validate_meld(meld.cards, rules)
    if not (chk.legal and chk.kind == "run"):  # not a run however read: the table's order, 2s and jokers as wilds
        return [(c, c in wild) for c in meld.cards]
    naturals = {p: pos_card(chk.suit, p) for p in range(chk.low, chk.high + 1) if p not in chk.wild_at}
    rest = list(meld.cards)
    for c in naturals.values():
        rest.remove(c)
    rest.reverse()  # the wilds keep the order the table lists them in
    return [(naturals[p], False) if p in naturals else (rest.pop(), True) for p in range(chk.low, chk.high + 1)]


def canasta_tag(meld, rules) -> str:
    """``"canasta limpa"`` (clean: no card acting as a wild, :func:`meld_faces`), ``"canasta suja"``
    (dirty) or ``""`` for a meld of the referee's table model (000 Gameplay 8: a canasta is a meld of
    ``canasta_size`` cards)."""
    if meld.kind == "black3" or len(meld.cards) < rules.canasta_size:
        return ""
    return "canasta suja" if any(w for _, w in meld_faces(meld, rules)) else "canasta limpa"


def meld_text(meld) -> str:
    """A meld's cards as notation: a run in position order (low first, each wild at its place),
    a set sorted by rank."""
    return " ".join(meld.cards) if meld.kind == "run" else cards_text(meld.cards)


def _final_table(log, table) -> list[str]:
    out = ["final table"]
    for side in range(table.n_sides):
        melds = table.melds[side]
        red3 = " ".join(table.red3[side]) or "-"
        name = strategy_label(log["strategies"][side])
        out.append(f"  side {SIDES[side]} ({name}): red 3s {red3}; morto {table.morto_state[side]}")
        for i, m in enumerate(melds):
            tag = canasta_tag(m, table.r)
            tag = f"  {tag} ({'clean' if 'limpa' in tag else 'dirty'})" if tag else ""
            out.append(f"    meld {i + 1}: {meld_text(m)}{tag}")
        for seat in table.seats_of[side]:
            out.append(f"    seat {seat} hand: {cards_text(_hand(table, seat))}")
    res = log["result"]
    names = SIDES[: table.n_sides]
    out.append("")
    out.append(f"  {'score':<18}" + "".join(f"{n:>8}" for n in names))
    for key, label in _PARTS:
        out.append(f"  {label:<18}" + "".join(f"{res[n][key]:>8}" for n in names))
    return out


# ---- HTML / SVG ------------------------------------------------------------------------
_CW, _CH, _GAP = 34, 48, 4


_WILD_FILL = "#ffd966"  # a card acting as a wild in its meld (the legend says so)


def _card_svg(c: str, x: int, y: int, wild: bool = False) -> str:
    red = c != "JK" and c[-1] in "DH"
    sym = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}.get(c[-1], "")
    rank = "JK" if c == "JK" else c[:-1]
    color = "#c0392b" if red else "#1d1d1d"
    fill = _WILD_FILL if wild else "#ffffff"
    return (
        f'<g transform="translate({x},{y})"><rect width="{_CW}" height="{_CH}" rx="4" fill="{fill}" '
        f'stroke="#555"/><text x="4" y="16" font-size="13" fill="{color}" font-family="sans-serif">'
        f'{html.escape(rank)}</text><text x="{_CW - 5}" y="{_CH - 6}" font-size="15" text-anchor="end" '
        f'fill="{color}">{sym}</text></g>'
    )


_TAGS = {
    "canasta limpa": ("#1e8449", "clean: no wild card"),
    "canasta suja": ("#b9770e", "dirty: with wilds"),
}
_FONT = "font-family='sans-serif'"


def _row(label: str, cards, y: int, x0: int = 150, tag: str = "", bold: bool = False, wild=()) -> tuple[str, int]:
    """One row of the drawing: its label, the cards (``wild[i]``: card ``i`` acts as a wild, tinted)
    and a canasta mark."""
    weight = " font-weight='bold'" if bold else ""
    parts = [f'<text x="8" y="{y + 28}" font-size="13" {_FONT}{weight}>{html.escape(label)}</text>']
    for i, c in enumerate(cards):
        parts.append(_card_svg(c, x0 + i * (_CW + _GAP), y, wild=bool(wild) and wild[i]))
    if not cards:
        parts.append(f'<text x="{x0}" y="{y + 28}" font-size="13" fill="#777" {_FONT}>no cards</text>')
    if tag:
        color, note = _TAGS[tag]
        x = x0 + len(cards) * (_CW + _GAP) + 6
        parts.append(
            f'<g class="canasta"><rect x="{x}" y="{y + 12}" width="104" height="24" rx="12" fill="{color}"/>'
            f'<text x="{x + 52}" y="{y + 28}" font-size="12" text-anchor="middle" fill="#ffffff" {_FONT}>'
            f"{html.escape(tag)}</text><title>{html.escape(note)}</title></g>"
        )
    return "".join(parts), _CH + 10


def _legend(rules) -> str:
    """What the tint and the canasta marks mean, above the drawing."""
    swatch = (
        f"<svg width='16' height='20' style='vertical-align:middle'><rect x='1' y='1' width='14' "
        f"height='18' rx='2' fill='{_WILD_FILL}' stroke='#555'/></svg>"
    )
    own = (
        " A 2 of a run's suit in its own place (A-2-3, 2-3-4) is a natural card there and is not tinted."
        if rules.meld_runs
        else ""
    )
    return (
        "<p class='legend' style='font-family:sans-serif;font-size:13px;margin:0 0 8px'>"
        f"{swatch} tinted: a card acting as a wild in its meld (a 2 or a joker standing for another "
        f"card).{own} Cards in hands and the pile are not tinted. canasta limpa: a canasta with no "
        "wild; canasta suja: a canasta with a wild.</p>\n"
    )


def _walk_to(log: dict, turn: int):
    """Play the log to the end of ``turn``: (table, caption, seat, actions of the turn, ended)."""
    snap, caption, seat, ended = None, "", None, False
    acts: list[str | None] = []
    owed: list[str] = []
    for _, a, table in walk(log):
        if a["act"] == "turn" and a["turn"] == turn + 1:
            break
        if a["act"] == "turn" and a["turn"] == turn:
            caption = f"after turn {turn} of {_who(log, a['seat'])}"
            seat = a["seat"]
        elif a["act"] == "end":
            ended = True
            if a["turn"] >= turn:  # the end marker follows the last turn
                acts.append(action_text(log, a, table, owed))
        elif a["act"] not in ("deal", "turn_up", "bury"):
            text = action_text(log, a, table, owed)  # every action: keeps the red-3 replacements owed
            if a.get("turn") == turn:
                acts.append(text)
        snap = table
        if ended:
            break
    return snap, caption, seat, [x for x in acts if x], ended


def score_so_far(table) -> dict:
    """Both sides' score parts if the deal stopped now with nobody going out: melds, canasta
    bonus, red 3s (+ with a canasta, - without), cards in both hands against, the morto
    penalty if not taken (000 Gameplay 5, 8; 000 Scoring; :func:`tranca_sim.referee.score_side`).

    A red 3 still in a hand (dealt, before its seat's first turn lays it) counts as laid, as
    at the end of a deal (docs/engine-decisions.md E4).

    Returns
    -------
    dict
        ``{"A": parts, "B": parts}`` (and ``"C"`` at a three-player table), parts as
        :func:`~tranca_sim.referee.score_side` returns.
    """
    out = {}
    for side in range(table.n_sides):
        held = [c for seat in table.seats_of[side] for c in _hand(table, seat)]
        red3 = [c for c in held if table.r.threes_special and c in ("3D", "3H")]
        hand = [c for c in held if c not in red3]
        out[SIDES[side]] = score_side(
            [m.cards for m in table.melds[side]],
            red3=len(table.red3[side]) + len(red3),
            hand_cards=hand,
            went_out=False,
            morto_taken=table.morto_state[side] != "waiting",
            rules=table.r,
        )
    return out


def _score_html(log: dict, table, turn: int, ended: bool) -> str:
    if ended:
        res = log["result"]
        caption, note = (
            "Score at the end of the deal",
            "the deal ended in this turn: these are its final scores",
        )
    else:
        res = score_so_far(table)
        caption = f"Score so far, after turn {turn}"
        note = (
            "as if the deal stopped now with nobody going out: cards in hand count against, "
            "a morto not taken costs its penalty, a red 3 still in a hand counts as laid (E4)"
        )
    names = [html.escape(strategy_label(s)) for s in log["strategies"]]
    rows = []
    for key, label in _PARTS:
        tag = "th" if key == "score" else "td"
        rows.append(
            f"<tr><{tag} style='text-align:left'>{html.escape(label)}</{tag}>"
            + "".join(f"<{tag}>{int(res[s][key])}</{tag}>" for s in SIDES[: len(names)])
            + "</tr>"
        )
    head = "".join(f"<th>side {SIDES[i]} ({n})</th>" for i, n in enumerate(names))
    return (
        "<div><table class='score' style='border-collapse:collapse;font-family:sans-serif;font-size:14px'>"
        f"<caption style='text-align:left;font-weight:bold;padding-bottom:4px'>{html.escape(caption)}</caption>"
        f"<tr><th></th>{head}</tr>"
        + "".join(rows)
        + f"</table><p style='font-size:12px;color:#555;max-width:360px'>{html.escape(note)}</p></div>"
    )


def table_html(log: dict, turn: int) -> str:
    """A self-contained HTML page for a rule guide: an SVG drawing of the table at the end of
    ``turn`` (hands face up, both sides' melds with their canasta limpa/suja marks, red 3s, the
    pile, stock and mortos), the list of what happened in that turn, and the score table with
    every part for both sides: the final score when the deal ended in that turn, else the score
    so far (as if the deal stopped after the turn), saying which.

    Canasta marks follow 000 Gameplay 8 (a canasta is 7 or more cards; limpa without a wild,
    suja with one or two).

    Raises
    ------
    ValueError
        If the deal has no such turn.
    """
    n_turns = sum(1 for a in log["actions"] if a["act"] == "turn")
    if not 0 <= turn < n_turns:
        raise ValueError(f"turn {turn} is not in deal {log['deal_index']} (turns 0..{n_turns - 1})")
    t, caption, player, acts, ended = _walk_to(log, turn)
    body, y, longest = [], 10, 20
    for seat in range(t.players):
        hand = sorted(_hand(t, seat), key=_key)
        longest = max(longest, len(hand))
        label = f"seat {seat} ({SIDES[t.side(seat)]}) hand" + (" ◀" if seat == player else "")
        svg, h = _row(label, hand, y, bold=seat == player)
        body.append(svg)
        y += h
    for side in range(t.n_sides):
        for i, m in enumerate(t.melds[side]):
            longest = max(longest, len(m.cards) + 3)
            faces = meld_faces(m, t.r)
            svg, h = _row(
                f"side {SIDES[side]} meld {i + 1}",
                [c for c, _ in faces],
                y,
                tag=canasta_tag(m, t.r),
                wild=[w for _, w in faces],
            )
            body.append(svg)
            y += h
        if t.red3[side]:
            svg, h = _row(f"side {SIDES[side]} red 3s", t.red3[side], y)
            body.append(svg)
            y += h
    svg, h = _row(f"pile ({len(t.pile)}), top last", t.pile[-12:], y)
    body.append(svg)
    y += h
    mortos = ", ".join(f"{SIDES[i]} {st}" for i, st in enumerate(t.morto_state))
    info = f"stock {len(t.stock)} cards · mortos: {mortos}" + (
        f" · pile locked by {t.locked_by()}" if t.locked_by() else ""
    )
    body.append(f'<text x="8" y="{y + 16}" font-size="13" {_FONT}>{html.escape(info)}</text>')
    y += 30
    width = 150 + longest * (_CW + _GAP) + 20
    mt = log.get("match")
    if mt:  # a match run's deal: its match and deal in the match, as the text replay says (not the deal key)
        where = f"match {mt['match_index']}, deal {mt['deal_in_match']} of the match"
        score = "match score before it: " + ", ".join(f"{n} {x}" for n, x in zip("ABC", mt["scores"]))
    else:
        where, score = f"deal {log['deal_index']}", ""
    title = f"{game_name(log.get('preset'))} {where} ({log['preset']}, seed {log['master_seed']}), {caption}"
    who = html.escape(caption.replace("after ", "", 1)) or f"turn {turn}"
    items = "".join(f"<li>{html.escape(x)}</li>" for x in acts) or "<li>(nothing)</li>"
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title>\n<style>table.score td,table.score th{border:1px solid #bbb;padding:3px 10px;"
        "text-align:right}</style></head><body>\n<h3 style='font-family:sans-serif'>"
        + html.escape(title)
        + "</h3>\n"
        + (f"<p class='match' style='font-family:sans-serif;margin:0 0 8px'>{html.escape(score)}</p>\n" if score else "")
        + "<div style='display:flex;gap:48px;align-items:flex-start;font-family:sans-serif;"
        "margin-bottom:12px'>\n"
        + f"<div class='actions'><h4 style='margin:4px 0'>What happened in {who}</h4>"
        + f"<ol style='margin:0;padding-left:22px;font-size:14px'>{items}</ol></div>\n"
        + _score_html(log, t, turn, ended)
        + "\n</div>\n"
        + _legend(t.r)
        + f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{y}'>"
        + "".join(body)
        + "</svg>\n</body></html>\n"
    )
