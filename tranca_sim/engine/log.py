"""Deal logs: every action of chosen deals, as JSON-able dicts (docs/log-format.md).

A logged deal is played again, alone, from its ``(master_seed, deal_index)``
with the run's rules and strategies; the engine is deterministic per deal, so
the log is exactly the deal the run recorded.  The kernel writes compact
records (:data:`tranca_sim.engine.state.EV_*`); :func:`decode` turns them into
actions with card notation.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TextIO

import numpy as np

from .. import schema as S
from ..rules import Rules
from .cards import to_str
from .contract import plugged
from .kernel import _as_deck, _check_seed, deck_of, play_deck
from .state import (
    END_REASONS,
    EV_BLACK3,
    EV_BURY,
    EV_CARD,
    EV_DISCARD,
    EV_DRAW,
    EV_END,
    EV_EXTEND,
    EV_EXTEND_RUN,
    EV_GO_OUT,
    EV_MORTO,
    EV_MORTO_STOCK,
    EV_NEW_MELD,
    EV_NEW_RUN,
    EV_RED3,
    EV_REDRAW,
    EV_RUN_SWAP,
    EV_TAKE_PILE,
    EV_TURN,
    EV_TURN_UP,
    LOG_W,
    SC_LOG_N,
    SC_LOG_ON,
)

FORMAT = "tranca-sim-log/1"
SIDES = ("A", "B", "C")


def decode(records: np.ndarray) -> list[dict]:
    """Actions from the kernel's log records (``int32[n * LOG_W]``).

    Raises
    ------
    ValueError
        On a record code the decoder does not know (a bug, never user input).
    """
    rec = np.asarray(records).reshape(-1, LOG_W).tolist()
    out: list[dict] = []
    i = 0
    while i < len(rec):
        code, turn, seat, a, b = rec[i]
        i += 1
        base = {"turn": turn, "seat": seat}
        if code in (EV_TURN_UP, EV_BURY):
            out.append(
                {
                    "turn": -1,
                    "seat": None,
                    "act": "turn_up" if code == EV_TURN_UP else "bury",
                    "card": to_str(a),
                }
            )
        elif code == EV_TURN:
            out.append({**base, "act": "turn"})
        elif code == EV_RED3:
            out.append({**base, "act": "red3", "card": to_str(a)})
        elif code == EV_DRAW:
            out.append({**base, "act": "draw", "card": to_str(a)})
        elif code == EV_REDRAW:
            out.append({**base, "act": "redraw", "card": to_str(a)})
        elif code == EV_TAKE_PILE:
            out.append({**base, "act": "take_pile", "top": to_str(a), "n": b})
        elif code in (EV_NEW_MELD, EV_BLACK3, EV_NEW_RUN):
            cards = [to_str(r[3]) for r in rec[i : i + b]]
            if len(cards) != b or any(r[0] != EV_CARD for r in rec[i : i + b]):
                raise ValueError(f"log record {i}: a meld header not followed by its {b} cards")
            i += b
            act = "black3" if code == EV_BLACK3 else "meld"
            rec_ = {**base, "act": act, "meld": a, "cards": cards}
            if code == EV_NEW_RUN:
                rec_["run"] = True  # cards in position order, low first (docs/log-format.md)
            out.append(rec_)
        elif code == EV_EXTEND:
            out.append({**base, "act": "extend", "meld": a, "card": to_str(b)})
        elif code == EV_EXTEND_RUN:
            end = "high" if b >= 64 else "low"
            out.append({**base, "act": "extend", "meld": a, "card": to_str(b % 64), "end": end})
        elif code == EV_RUN_SWAP:
            end = "high" if b >= 64 else "low"
            out.append({**base, "act": "replace_wild", "meld": a, "card": to_str(b % 64), "end": end})
        elif code == EV_MORTO:
            out.append({**base, "act": "morto", "direct": bool(a)})
        elif code == EV_MORTO_STOCK:
            out.append({**base, "act": "morto_stock", "side": SIDES[a]})
        elif code == EV_DISCARD:
            out.append({**base, "act": "discard", "card": to_str(a)})
        elif code == EV_GO_OUT:
            out.append({**base, "act": "go_out", "em_cima": bool(a)})
        elif code == EV_END:
            out.append({"turn": turn, "seat": None, "act": "end", "reason": END_REASONS[a], "out_seat": b})
        else:
            raise ValueError(f"log record {i - 1}: unknown code {code}")
    return out


def _result(cols: dict[str, np.ndarray]) -> dict:
    res = {}
    for side in range(len(cols["score"])):
        res[SIDES[side]] = {p: int(cols[p][side]) for p in ("score",) + S.SCORE_PARTS}
    return res


def play_logged(
    rules: Rules,
    strategies: Sequence,
    master_seed: int,
    deal_index: int,
    deck: Sequence | None = None,
    first_seat: int | None = None,
    match: dict | None = None,
) -> dict:
    """Play one deal with the action log on and return its log (format ``tranca-sim-log/1``).

    By default the deck and first seat are those of deal ``deal_index`` of a
    run with ``master_seed`` (so the log is that deal); a stacked ``deck``
    (kinds or notations, top first) may be given instead.  ``match`` (a deal of a match run):
    ``{"match_index": m, "deal_in_match": d, "scores": [A, B]}`` (``[A, B, C]`` at three solo
    players) with the sides' match scores before the deal; the deal then gets them (strategies
    see them, they set the minimum first meld, E25), its first seat is ``(m + d) % n_seats`` and
    the log carries them as field ``match``.
    """
    seed = _check_seed(master_seed)
    specs = [plugged().resolve(s) for s in strategies]
    if rules.n_sides == 3 and len(specs) == 2:
        specs.append(specs[1])  # side C plays side B's strategy, as in simulate_chunk
    kinds = deck_of(rules, seed, deal_index) if deck is None else [int(k) for k in _as_deck(rules, deck)]
    if first_seat is not None:
        first = int(first_seat)
    elif match is not None:
        first = (int(match["match_index"]) + int(match["deal_in_match"])) % rules.n_seats
    else:
        first = deal_index % rules.n_seats
    scores = None if match is None else [int(x) for x in match["scores"]]
    dm = 0 if match is None else int(match["deal_in_match"])
    st, cols = play_deck(
        rules,
        kinds,
        specs,
        first,
        seed,
        deal_index,
        check=False,
        log=True,
        match_scores=scores,
        deal_in_match=dm,
    )
    if st.sc[SC_LOG_ON] != 1:
        raise RuntimeError(f"deal {deal_index}: the action log overflowed")
    return {
        "format": FORMAT,
        "preset": rules.name,
        "rules": dataclasses.asdict(rules),
        "master_seed": seed,
        "deal_index": int(deal_index),
        "first_seat": first,
        "strategies": [s.text for s in specs],
        "deck": [to_str(k) for k in kinds],
        "actions": decode(st.log[: st.sc[SC_LOG_N]]),
        "result": _result(cols),
        **({"match": {k: match[k] for k in ("match_index", "deal_in_match", "scores")}} if match else {}),
    }


def dump_logs(f: TextIO, logs: Iterable[dict]) -> int:
    """Write logs to an open text file as JSON Lines, one deal a line; return how many."""
    n = 0
    for log in logs:
        f.write(json.dumps(log, separators=(",", ":")) + "\n")
        n += 1
    return n


def write_logs(path: str | os.PathLike, logs: Iterable[dict], force: bool = False) -> Path:
    """Write logs as JSON Lines (one deal a line) to a temporary name, then rename.

    Raises
    ------
    tranca_sim.io.RunFileError
        If ``path`` exists without ``force``, is a link or special file, or
        cannot be written (the message names the path and the reason).
    """
    from ..output import atomic_output, writing

    with atomic_output(path, force) as tmp, writing(path), open(tmp, "w", encoding="utf-8") as f:
        dump_logs(f, logs)
    return Path(path)
