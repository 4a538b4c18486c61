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

from .referee import walk
from .rules import Rules, RulesError

SIDES = "AB"
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


def regenerate(run_path, deal: int) -> dict:
    """The action log of deal ``deal`` of the run file ``run_path``, played again.

    Raises
    ------
    tranca_sim.io.RunFileError
        For a missing or unreadable run file, or one without run metadata.
    ValueError
        If ``deal`` is not a deal of the run.
    """
    from .engine.log import play_logged
    from .io import RunFileError, load_meta

    meta = load_meta(run_path)
    try:
        fields = {f.name for f in dataclasses.fields(Rules)}
        rules = Rules(**{k: v for k, v in meta["rules"].items() if k in fields}).validate()
        texts = [s["text"] for s in meta["strategies"]]
        seed, deals = int(meta["master_seed"]), int(meta["deals"])
    except (KeyError, TypeError, RulesError) as e:
        raise RunFileError(f"{run_path}: the run metadata cannot be replayed ({e})") from None
    if not isinstance(deal, int) or not 0 <= deal < deals:
        raise ValueError(f"deal {deal} is not in {run_path} (deals 0..{deals - 1})")
    return play_logged(rules, texts, seed, deal)


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
    a spec this version cannot resolve is shown as given."""
    from strategies import StrategyError, resolve

    try:
        return resolve(text).label
    except StrategyError:
        return text


def _who(log, seat) -> str:
    side = seat % 2
    return f"seat {seat} ({SIDES[side]}, {strategy_label(log['strategies'][side])})"


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
    a_name, b_name = (strategy_label(t) for t in log["strategies"])
    out = [
        (
            f"deal {log['deal_index']} · preset {log['preset']} · seed {log['master_seed']} · "
            f"A = {a_name} (seats 0, 2) · B = {b_name} (seats 1, 3)"
        ),
    ]
    owed: list[str] = []  # red 3s laid and not replaced yet, in the order they were laid
    shown = True
    capture = False
    table = None
    drawn = ""  # the hand as it stands after the latest draw-phase action
    for _, a, table in walk(log):
        act = a["act"]
        if act == "deal":
            for s in range(4):
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
            continue
        seat = a["seat"]
        late = act in ("meld", "extend", "black3", "discard", "go_out", "morto")
        if not shown and late and not capture:
            out.append(drawn)
            shown = True
        side = SIDES[seat % 2] if seat is not None else ""
        if act == "red3":
            out.append(f"    lays {a['card']} in side {side}'s red-3 area")
            if table.stock:  # replaced from the stock at once (000 Gameplay 5, E4); none when it is empty
                owed.append(a["card"])
        elif act == "draw" and owed:
            out.append(f"    draws {a['card']} to replace the red 3 {owed.pop(0)}")
        elif act == "draw":
            out.append(f"    draws {a['card']}")
        elif act == "take_pile":
            out.append(f"    takes the pile: {a['n']} card{'s' * (a['n'] != 1)}, top {a['top']}")
            capture = True
        elif act == "meld":
            out.append(f"    melds {' '.join(a['cards'])} as side {side} meld {a['meld']}")
        elif act == "extend":
            cards = table.melds[seat % 2][a["meld"]].cards
            out.append(f"    adds {a['card']} to side {side} meld {a['meld']} -> {cards_text(cards)}")
        elif act == "black3":
            out.append(f"    lays the black-3 set {' '.join(a['cards'])} to go out")
        elif act == "morto":
            how = "direct: plays on in this turn" if a["direct"] else "indirect: plays it from the next turn"
            out.append(f"    takes side {side}'s morto ({how})")
        elif act == "discard":
            out.append(f"    discards {a['card']} · {_pile_text(table)}")
        elif act == "go_out":
            out.append("    goes out (bater)" + (" em cima" if a["em_cima"] else ""))
        elif act == "end":
            who = f" by seat {a['out_seat']}" if a["reason"] == "went_out" else ""
            out.append(f"end of the deal: {a['reason']}{who}")
            for s, c in table.end_red3:
                out.append(f"  {c} still held by seat {s} is laid in side {SIDES[s % 2]}'s red-3 area (E4)")
            for sd in range(2):
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
        elif act in ("draw", "red3") and not shown:
            drawn = f"    hand after the draw ({table.n_hand(seat)}): {cards_text(_hand(table, seat))}"
    out.append("")
    out.extend(_final_table(log, table))
    return "\n".join(out)


def _final_table(log, table) -> list[str]:
    out = ["final table"]
    for side in range(2):
        melds = table.melds[side]
        red3 = " ".join(table.red3[side]) or "-"
        name = strategy_label(log["strategies"][side])
        out.append(f"  side {SIDES[side]} ({name}): red 3s {red3}; morto {table.morto_state[side]}")
        for i, m in enumerate(melds):
            tag = ""
            if m.kind == "set" and len(m.cards) >= table.r.canasta_size:
                tag = "  clean canasta" if m.wilds == 0 else "  dirty canasta"
            out.append(f"    meld {i}: {cards_text(m.cards)}{tag}")
        for seat in (side, side + 2):
            out.append(f"    seat {seat} hand: {cards_text(_hand(table, seat))}")
    res = log["result"]
    out.append("")
    out.append(f"  {'score':<18}{'A':>8}{'B':>8}")
    for key, label in _PARTS:
        out.append(f"  {label:<18}{res['A'][key]:>8}{res['B'][key]:>8}")
    return out


# ---- HTML / SVG ------------------------------------------------------------------------
_CW, _CH, _GAP = 34, 48, 4


def _card_svg(c: str, x: int, y: int) -> str:
    red = c != "JK" and c[-1] in "DH"
    sym = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}.get(c[-1], "")
    rank = "JK" if c == "JK" else c[:-1]
    color = "#c0392b" if red else "#1d1d1d"
    fill = "#fff8e1" if (c == "JK" or rank == "2") else "#ffffff"
    return (
        f'<g transform="translate({x},{y})"><rect width="{_CW}" height="{_CH}" rx="4" fill="{fill}" '
        f'stroke="#555"/><text x="4" y="16" font-size="13" fill="{color}" font-family="sans-serif">'
        f'{html.escape(rank)}</text><text x="{_CW - 5}" y="{_CH - 6}" font-size="15" text-anchor="end" '
        f'fill="{color}">{sym}</text></g>'
    )


def _row(label: str, cards, y: int, x0: int = 150) -> tuple[str, int]:
    parts = [f'<text x="8" y="{y + 28}" font-size="13" font-family="sans-serif">{html.escape(label)}</text>']
    for i, c in enumerate(cards):
        parts.append(_card_svg(c, x0 + i * (_CW + _GAP), y))
    return "".join(parts), _CH + 10


def table_html(log: dict, turn: int) -> str:
    """A self-contained HTML page with an SVG drawing of the table at the end of ``turn``
    (hands face up, both sides' melds, red 3s, the pile, stock and mortos), for a rule guide.

    Raises
    ------
    ValueError
        If the deal has no such turn.
    """
    snap = None
    caption = ""
    for _, a, table in walk(log):
        if a["act"] == "turn" and a["turn"] == turn + 1:
            break
        if a["act"] == "turn" and a["turn"] == turn:
            caption = f"after turn {turn} of {_who(log, a['seat'])}"
        snap = table
        if a["act"] == "end":
            break
    n_turns = sum(1 for a in log["actions"] if a["act"] == "turn")
    if not 0 <= turn < n_turns:
        raise ValueError(f"turn {turn} is not in deal {log['deal_index']} (turns 0..{n_turns - 1})")
    t = snap
    body, y = [], 10
    for seat in range(4):
        svg, h = _row(f"seat {seat} ({SIDES[seat % 2]}) hand", sorted(_hand(t, seat), key=_key), y)
        body.append(svg)
        y += h
    for side in range(2):
        for i, m in enumerate(t.melds[side]):
            svg, h = _row(f"side {SIDES[side]} meld {i}", sorted(m.cards, key=_key), y)
            body.append(svg)
            y += h
        if t.red3[side]:
            svg, h = _row(f"side {SIDES[side]} red 3s", t.red3[side], y)
            body.append(svg)
            y += h
    svg, h = _row(f"pile ({len(t.pile)}), top last", t.pile[-12:], y)
    body.append(svg)
    y += h
    info = f"stock {len(t.stock)} cards · mortos: A {t.morto_state[0]}, B {t.morto_state[1]}" + (
        f" · pile locked by {t.locked_by()}" if t.locked_by() else ""
    )
    body.append(
        f'<text x="8" y="{y + 16}" font-size="13" font-family="sans-serif">{html.escape(info)}</text>'
    )
    y += 30
    width = 150 + 20 * (_CW + _GAP)
    title = f"Tranca deal {log['deal_index']} ({log['preset']}, seed {log['master_seed']}), {caption}"
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>"
        + html.escape(title)
        + "</title></head><body>\n<h3 style='font-family:sans-serif'>"
        + html.escape(title)
        + f"</h3>\n<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{y}'>"
        + "".join(body)
        + "</svg>\n</body></html>\n"
    )
