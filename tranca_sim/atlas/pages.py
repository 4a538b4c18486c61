"""The atlas's pages as a document model shared by the HTML site and the PDF: a :class:`Page` is a
title and a list of blocks, every word from the language's catalogue (:class:`.i18n.Words`).
Parameter codes appear only on the method appendix (``Page.appendix``).

Blocks: ``("h2", text)``, ``("p", text)``, ``("note", text)`` (a boxed warning), ``("quote", text,
source)``, ``("table", header, rows)``, ``("img", file, alt, caption)``, ``("links", [(text,
page id)])``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from . import vocab

GAIN, LOSS, NO_EFFECT = "gain", "loss", "no effect"


@dataclass
class Page:
    id: str
    title: str
    blocks: list = field(default_factory=list)
    appendix: bool = False

    def add(self, *block) -> None:
        self.blocks.append(tuple(block))


def _fin(x) -> bool:
    return x is not None and isinstance(x, (int, float)) and math.isfinite(x)


def category(row: dict) -> str:
    """A tip's figure at one strength: ``flag-fails``, ``flag-same`` (its check failed or saw no
    change: no value given), ``gain``, ``loss``, ``none`` (confirmed no effect), ``open``."""
    if row["check"] == "FAILS":
        return "flag-fails"
    if row["check"] == "no change":
        return "flag-same"
    if row["check"] not in ("passes", None) or not row["published"]:
        return "open"
    return {GAIN: "gain", LOSS: "loss", NO_EFFECT: "none"}.get(row["verdict"], "open")


def open_reason(w, row: dict) -> str | None:
    """Why a figure is not decided, in words, when its interval alone would suggest a decision (it
    leaves out zero): some block of decks reached no decision, the blocks disagree, or only one
    block was played (:func:`tranca_sim.lab.statistics.blocks.confirmation`); None otherwise."""
    if category(row) != "open" or not (_fin(row["lo"]) and _fin(row["hi"])) or row["lo"] <= 0 <= row["hi"]:
        return None
    cells = row.get("cells") or []
    decided = {GAIN, LOSS, NO_EFFECT}
    if row["verdict"] == "one block" or len(cells) == 1:
        return w("only one block of decks was played, so nothing confirms it")
    if row["verdict"] == "undecided":
        open_blocks = [str(c["block"]) for c in cells if c["decision"] not in decided]
        if len(open_blocks) == len(cells):
            return w("no block of decks reached a decision")
        return w.n(
            "block {blocks} of decks reached no decision", "blocks {blocks} of decks reached no decision",
            len(open_blocks), blocks=w(" and ").join(open_blocks),
        )  # fmt: skip
    if row["verdict"] == "blocks disagree":
        if len({c["decision"] for c in cells}) > 1:
            return w("the blocks of decks disagree")
        return w("the blocks of decks disagree on its size")
    return None


def interval_text(w, lo: float, hi: float, digits: int = 0, sign: bool = True) -> str:
    """``lo`` to ``hi`` in words (signed: a difference; ``sign=False``: a count or a level)."""
    return w("{lo} to {hi}", lo=w.num(lo, digits, sign=sign), hi=w.num(hi, digits, sign=sign))


def clause(w, strength: str, row: dict, delta: float | None) -> str:
    """What one strength's figure says, in words that claim no more than the interval."""
    who = w.strength_name(strength)
    cat = category(row)
    if cat == "flag-fails":
        return w("with the {who}: no value, because in play the tip did not do what its text says", who=who)
    if cat == "flag-same":
        return w("with the {who}: no value, because that player already plays this way here", who=who)
    iv = interval_text(w, row["lo"], row["hi"])
    if cat == "gain":
        return w("with the {who} it gains points: {iv} points a deal", who=who, iv=iv)
    if cat == "loss":
        return w("with the {who} it costs points: {iv} points a deal", who=who, iv=iv)
    if cat == "none":
        return w(
            "with the {who} it makes no difference of {delta} points a deal or more ({iv})",
            who=who, delta=w.num(delta or 0, 0), iv=iv,
        )  # fmt: skip
    why = open_reason(w, row)
    if why:
        return w(
            "with the {who} the measurements do not settle it yet ({iv} points a deal): {why}",
            who=who, iv=iv, why=why,
        )  # fmt: skip
    return w("with the {who} the measurements do not settle it yet ({iv} points a deal)", who=who, iv=iv)


def verdict_sentence(w, tip: dict, strengths: list[str], delta: float | None) -> str:
    """The tip's one plain sentence: every strength's clause, joined; one clause when every
    strength says the same."""
    cats = {s: category(tip["rows"][s]) for s in strengths}
    title = w.tip_title(tip["param"])
    if len(strengths) > 1 and len(set(cats.values())) == 1 and cats[strengths[0]] in ("gain", "loss"):
        lo = min(tip["rows"][s]["lo"] for s in strengths)
        hi = max(tip["rows"][s]["hi"] for s in strengths)
        iv = interval_text(w, lo, hi)
        if cats[strengths[0]] == "gain":
            return w(
                "“{title}” gains points at every playing strength measured: {iv} points a deal.",
                title=title,
                iv=iv,
            )
        return w(
            "“{title}” costs points at every playing strength measured: {iv} points a deal.",
            title=title,
            iv=iv,
        )
    parts = [clause(w, s, tip["rows"][s], delta) for s in strengths]
    return w("“{title}”: {parts}.", title=title, parts=w("; ").join(parts))


def tip_table(w, tip: dict, strengths: list[str]) -> tuple[list[str], list[list[str]]]:
    header = [
        w("playing strength"),
        w("points a deal (95% interval)"),
        w("deals won against the same player without the tip (95% interval)"),
        w("decks played"),
        w("decision"),
    ]
    rows = []
    for s in strengths:
        r = tip["rows"][s]
        cat = category(r)
        if cat.startswith("flag"):
            pts = win = w("not given: see the check")
        else:
            pts = f"{w.num(r['mean'], 1, sign=True)} ({interval_text(w, r['lo'], r['hi'], 1)})"
            win = (
                f"{w.pct(r['win'], 1)} ({w.pct(r['win_lo'], 1)} – {w.pct(r['win_hi'], 1)})"
                if _fin(r["win_lo"]) else w.pct(r["win"], 1)
            )  # fmt: skip
        rows.append([w.strength_name(s), pts, win, w.int(r["decks"]), decision_words(w, r)])
    return header, rows


def decision_words(w, r: dict) -> str:
    cat = category(r)
    if cat.startswith("flag"):
        return w("flagged")
    if r["confirmed"]:
        return {
            "gain": w("gain, confirmed on two blocks"),
            "loss": w("loss, confirmed on two blocks"),
            "none": w("no effect, confirmed on two blocks"),
        }.get(cat, w("not decided"))
    why = open_reason(w, r)
    return w("not decided: {why}", why=why) if why else w("not decided")


def check_table(w, tip: dict, strength: str) -> tuple[list[str], list[list[str]]]:
    header = [w("what the tip's text predicts"), w("with the tip"), w("without it"), w("difference (95% interval)"),
              w("result")]  # fmt: skip
    rows = []
    for c in tip["rows"][strength]["check_rows"]:
        stat = vocab.CHECK_WORDS.get(c["statistic"], c["statistic"])
        direction = {"higher": w("higher"), "lower": w("lower")}.get(c["direction"], w("not lower"))
        result = {"passes": w("as predicted"), "FAILS": w("not as predicted"), "no change": w("no change at all")}.get(
            c["verdict"], w("no data"))  # fmt: skip
        rows.append([
            f"{w(stat)}: {direction}",
            w.num(c["variant_value"], 2),
            w.num(c["baseline_value"], 2),
            f"{w.num(c['diff'], 2, sign=True)} ({interval_text(w, c['lo'], c['hi'], 2)})",
            result,
        ])  # fmt: skip
    return header, rows
