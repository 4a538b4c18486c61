"""The log format: structural checks of a deal log and reading a JSON Lines file.

The format is documented in ``docs/log-format.md``.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections import Counter
from collections.abc import Iterator

from .._plural import spelled
from ..rules import PRESETS, Rules, RulesError
from .cards import SIDES, _card, _pack
from .questions import SCORE_PARTS

FORMAT = "tranca-sim-log/1"
_END_REASONS = ("went_out", "stock_out", "turn_limit")


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
    "redraw": {"card": "card"},
    "replace_wild": {"meld": "int", "card": "card"},
    "take_pile": {"top": "card", "n": "int"},
    "meld": {"meld": "int", "cards": "cards"},
    "extend": {"meld": "int", "card": "card"},
    "black3": {"meld": "int", "cards": "cards"},
    "morto": {"direct": "bool"},
    "morto_stock": {"side": "side"},
    "discard": {"card": "card"},
    "go_out": {"em_cima": "bool"},
    "end": {"reason": "reason", "out_seat": "seat"},
}


def _is_int(x) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _rules_of(log: dict, rules: Rules | None) -> Rules:
    if rules is not None:
        return rules
    if "preset" in log and not isinstance(log["preset"], str):
        raise LogFormatError(f"field 'preset' must be a preset name, got {log['preset']!r}")
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
    players = rules.n_seats
    n_sides = players // 2 if rules.partnerships else players  # a solo player is a side of one
    if not _is_int(fs) or not 0 <= fs < players:
        raise LogFormatError(f"first_seat must be 0..{players - 1}, got {fs!r}")
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
        if a["seat"] is not None and not (_is_int(a["seat"]) and 0 <= a["seat"] < players):
            raise LogFormatError(
                f"{act}: 'seat' must be 0..{players - 1} or null, got {a['seat']!r}", index=i
            )
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
                raise LogFormatError(f"end: unknown reason {spelled(v)}; known: {', '.join(_END_REASONS)}", index=i)
            elif typ == "side" and v not in SIDES:
                raise LogFormatError(f'{act}: {k!r} must be "A" or "B", got {spelled(v)}', index=i)
            elif typ == "seat" and v is not None and not (_is_int(v) and -1 <= v < players):
                raise LogFormatError(f"{act}: {k!r} must be -1..{players - 1} or null", index=i)
        # optional fields of runs (docs/log-format.md): "run" on a meld, "end" on an extension
        if act == "meld" and "run" in a and not isinstance(a["run"], bool):
            raise LogFormatError("meld: 'run' must be true or false", index=i)
        if act == "extend" and "end" in a and a["end"] not in ("low", "high"):
            raise LogFormatError(f'extend: \'end\' must be "low" or "high", got {a["end"]!r}', index=i)
        actions.append(b)
    result = log["result"]
    if not isinstance(result, dict):
        raise LogFormatError("field 'result' must be an object")
    for s in SIDES[:n_sides]:
        r = result.get(s)
        if not isinstance(r, dict):
            raise LogFormatError(f"result: missing side {s!r}")
        for p in ("score",) + SCORE_PARTS:
            if p not in r:
                raise LogFormatError(f"result: side {s}: missing field {p!r}")
            if not _is_int(r[p]):
                raise LogFormatError(f"result: side {s}: {p!r} must be an integer")
    return rules, deck, actions, result


def _turn_order_problem(actions: list[dict], first_seat: int, players: int = 4) -> tuple[int, str] | None:
    """First action whose (turn, seat) tags break the turn order round ``players`` seats, as
    (index, message)."""
    cur = None  # (turn, seat) of the turn being played
    for i, a in enumerate(actions):
        act, t, s = a.get("act"), a.get("turn"), a.get("seat")
        if act in ("turn_up", "bury"):
            if cur is not None:
                return i, f"{act} after the first turn started (setup comes first)"
            if t != -1 or s is not None:
                return i, f"{act} is a setup action: turn -1, seat null (got turn {t}, seat {s})"
        elif act == "turn":
            want = (0, first_seat) if cur is None else (cur[0] + 1, (cur[1] + 1) % players)
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
    rules, _, actions, _ = _normalize(log, rules)
    if turn_order:
        p = _turn_order_problem(actions, log["first_seat"], rules.n_seats)
        if p:
            raise LogFormatError(p[1], index=p[0])


def _read_lines(path) -> Iterator[tuple[int, object]]:
    """(line number, parsed JSON or LogFormatError) for each non-blank line."""
    with open(path, "rb") as f:
        data = f.read()
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as some editors save UTF-8
        data = data[3:]
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
                        f"truncated file: the last line is incomplete ({_json_problem(e)})", line=no
                    ),
                )
            else:
                yield no, LogFormatError(f"invalid JSON: {_json_problem(e)}", line=no)


def _json_problem(e: json.JSONDecodeError) -> str:
    """``unterminated string starting at column 48``: json's message and its column, once "at"."""
    msg = e.msg[:1].lower() + e.msg[1:]
    return f"{msg} column {e.colno}" if msg.endswith(" at") else f"{msg} at column {e.colno}"


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
