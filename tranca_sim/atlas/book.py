"""The atlas in one language: its pages (:class:`.pages.Page`) and charts, from the figures of the
finished experiments (:mod:`.figures`).  Page ids: ``index``, ``rules-PRESET``, ``tip-PRESET-PARAM``,
``method`` (the appendix, the only page with parameter codes)."""

from __future__ import annotations

from pathlib import Path

from . import charts, vocab
from .figures import RED3_BINS, THIN, WILD_BINS, situations
from .pages import (
    Page,
    category,
    check_table,
    decision_words,
    interval_text,
    open_reason,
    tip_table,
    verdict_sentence,
)


def _bin_label(w, lo: int, hi: int) -> str:
    if hi >= 99:
        return w("{n} or more", n=w.int(lo))
    return w.int(lo) if lo == hi else w("{lo} to {hi}", lo=w.int(lo), hi=w.int(hi))


def short_verdict(w, row: dict) -> str:
    cat = category(row)
    if cat.startswith("flag"):
        return w("flagged: no value")
    iv = interval_text(w, row["lo"], row["hi"])
    why = open_reason(w, row)  # an interval that leaves out zero, yet no decision: say why
    if why:
        return w("not decided: {why} ({iv})", why=why, iv=iv)
    return {
        "gain": w("gains ({iv})", iv=iv),
        "loss": w("costs ({iv})", iv=iv),
        "none": w("no effect ({iv})", iv=iv),
    }.get(cat, w("not decided ({iv})", iv=iv))


def quick_note(w) -> str:
    return w(
        "Quick atlas: tiny experiments to try the command. With so few decks most intervals are wide, so a "
        "tip can read as a gain at one strength and a cost at another, and change from one build to the next. "
        "Its figures are not confirmed measurements: do not print or quote them."
    )


def tip_page(w, preset: str, tips: dict, param: str, img: Path, quick: bool) -> Page:
    tip = tips["tips"][param]
    strengths = tips["strengths"]
    delta = (tips.get("decision") or {}).get("delta")
    page = Page(
        f"tip-{preset}-{param}", w("{tip} — {rules}", tip=w.tip_title(param), rules=w.preset_name(preset))
    )
    if quick:
        page.add("note", quick_note(w))
    page.add("h2", w("The tip"))
    for ref in vocab.seed_refs(tip["seed"]):
        page.add("quote", w.quote(ref), w("{source}, tip {n}", source=w.source(ref), n=ref.rsplit(" ", 1)[1]))
    page.add("h2", w("How the lab plays it"))
    page.add("p", w.tip_play(param) + " " + w(
        "It plays against the same player without the tip, both holding the same cards: each deck is dealt "
        "twice, with the seats swapped (duplicate decks)."
    ))  # fmt: skip
    page.add("h2", w("Verdict"))
    page.add("p", verdict_sentence(w, tip, strengths, delta))
    page.add("h2", w("Effect"))
    header, rows = tip_table(w, tip, strengths)
    page.add("table", header, rows)
    name = f"{page.id}-strengths.png"
    charts.strength_chart(tip, strengths, w, img / name)
    page.add("img", name, w("Effect of the tip at each playing strength"), w(
        "Dots: points a deal; bars: 95% intervals; a filled dot is confirmed on a second block of fresh decks."
    ))  # fmt: skip
    page.add("h2", w("Does the tip do what it says?"))
    first = strengths[0]
    r0 = tip["rows"][first]
    if r0["check"] == "FAILS":
        page.add(
            "note",
            w(
                "Flagged: in play, this tip did not change the game as its text predicts, so no value is given for it."
            ),
        )
    elif r0["check"] == "no change":
        page.add("note", w("Flagged: under these rules the player without the tip already plays this way, so the tip changes nothing and no value is given for it."))  # fmt: skip
    else:
        page.add(
            "p",
            w(
                "In play the tip changed the game as its text predicts, so its effect above is the tip's value."
            ),
        )
    ch, cr = check_table(w, tip, first)
    if cr:
        page.add("table", ch, cr)
        page.add("p", w("The check compares the {who} with and without the tip on the first block of decks.",
                        who=w.strength_name(first)))  # fmt: skip
    page.add("h2", w("Effect by situation"))
    if category(r0).startswith("flag"):
        page.add("p", w("Not drawn: the tip is flagged, so no value is given for it."))
    else:
        grid = situations(r0)
        name = f"{page.id}-situations.png"
        charts.situation_chart(
            grid, w, img / name,
            [_bin_label(w, lo, hi) for lo, hi in WILD_BINS],
            [_bin_label(w, lo, hi) for lo, hi in RED3_BINS],
        )  # fmt: skip
        page.add("img", name, w("Effect of the tip by what was dealt"), w(
            "How this chart is made: every deck of the {who}'s experiment falls in one cell by the wild cards and "
            "red 3s dealt to the four hands, before anyone chose anything; a cell shows the mean effect of its "
            "decks with a 95% interval. Grey cells hold fewer than {thin} decks and are not read. A split by what "
            "was dealt is fair in every cell, but it does not show the moment the tip acts.",
            who=w.strength_name(first), thin=w.int(THIN),
        ))  # fmt: skip
    page.add("links", [(w("Contents"), "index"), (w("The rules: {rules}", rules=w.preset_name(preset)), f"rules-{preset}"),
                       (w("Method appendix"), "method")])  # fmt: skip
    return page


def rules_page(w, preset: str, rules: dict, tips: dict | None, img: Path, quick: bool) -> Page:
    page = Page(f"rules-{preset}", w.preset_name(preset))
    if quick:
        page.add("note", quick_note(w))
    page.add("p", w(
        "How the game goes under these rules when two equal basic players meet: {deals} deals.",
        deals=w.int(rules["deals"]),
    ))  # fmt: skip
    t, f, fw = rules["turns"], rules["first_seat"], rules["first_seat_win"]
    rows = [
        [w("turns a deal (every player's turn counts one)"), w.num(t[0], 1), interval_text(w, t[1], t[2], 1, sign=False)],
        [w("points a deal the side that plays first scores above the other"), w.num(f[0], 1, sign=True),
         interval_text(w, f[1], f[2], 1)],
        [w("deals won by the side that plays first, of those someone won"), w.pct(fw[0], 1),
         f"{w.pct(fw[1], 1)} – {w.pct(fw[2], 1)}"],
        [w("sides that take their morto"), w.pct(rules["morto_taken"], 1), ""],
    ]  # fmt: skip
    if "skill" in rules:
        s = rules["skill"]
        rows.append([w("points a deal the tuned player gains over the basic player"), w.num(s[0], 1, sign=True),
                     interval_text(w, s[1], s[2], 1)])  # fmt: skip
        rows.append([w("share of a deal's margin the cards explain (the rest: the players and their choices)"),
                     w.pct(rules["deck_share"], 0), ""])  # fmt: skip
    page.add("table", [w("measure"), w("value"), w("95% interval")], rows)
    name = f"{page.id}-ends.png"
    charts.ends_chart(rules["ends"], w, img / name)
    page.add("img", name, w("How deals end"), w("Share of deals by how they ended."))
    equity_section(w, page, rules, img)
    if tips:
        page.add("h2", w("The tips under these rules"))
        page.add("table", *tips_summary(w, preset, tips))
    page.add("links", [(w("Contents"), "index"), (w("Method appendix"), "method")])
    return page


def equity_section(w, page: Page, rules: dict, img: Path) -> None:
    """The match equity table: a chart on the 100-point grid and a printed table every 500."""
    page.add("h2", w("Match equity: the chance of winning from a score"))
    table = rules.get("equity")
    if table is None:
        page.add("p", w("Not computed for these rules: here a deal depends on the match score."))
        return
    sc = rules["scores"]
    name = f"{page.id}-equity.png"
    charts.equity_chart(table, w, img / name)
    page.add("img", name, w("Chance of winning the match"), w(
        "Each point: matches finished from that pair of scores by deals drawn from {deals} deals between two equal "
        "basic players, {n} matches a point and as many from the mirror point (the other side's view); the largest "
        "Monte Carlo error of a point is {se}. Equal players level on points have an even chance, so the diagonal "
        "reads 50%. Deals are taken as independent of the match score.",
        deals=w.int(len(sc)), n=w.int(table["matches"]), se=w.pct(float(table["se"].max()), 1),
    ))  # fmt: skip
    s = table["scores"]
    every = [i for i, x in enumerate(s) if x % 500 == 0]
    header = [w("your score (rows), theirs (columns)")] + [w.int(s[j]) for j in every]
    rows = [[w.int(s[i])] + [w.pct(table["p"][i, j]) for j in every] for i in every]
    page.add("table", header, rows)


def tips_summary(w, preset: str, tips: dict):
    header = [w("tip")] + [w.strength_name(s) for s in tips["strengths"]]
    rows = []
    for param, tip in tips["tips"].items():
        rows.append([("link", w.tip_title(param), f"tip-{preset}-{param}")]
                    + [short_verdict(w, tip["rows"][s]) for s in tips["strengths"]])  # fmt: skip
    return header, rows


def index_page(w, presets: list[str], data: dict, quick: bool) -> Page:
    page = Page("index", w("Tip Atlas: Tranca and Buraco tips in numbers"))
    if quick:
        page.add("note", quick_note(w))
    page.add("p", w(
        "Each tip of the rule guides is played by a computer player against the same player without it, on the "
        "same cards, many thousands of times. The effect is given in points a deal with a 95% interval, at each "
        "playing strength measured, and a tip is only given a value once it is shown to do what its text says."
    ))  # fmt: skip
    page.add("p", w("Reading the intervals: “+12 to +30 points a deal” means the tip gains between 12 and 30 points a "
                    "deal on average, with 95% confidence."))  # fmt: skip
    strengths = list(
        dict.fromkeys(s for p in presets for s in (data[p].get("tips") or {}).get("strengths", []))
    )
    if strengths:
        page.add("p", " ".join(w.strength_about(s) for s in strengths))
    for p in presets:
        page.add("h2", w.preset_name(p))
        page.add("links", [(w("How the game goes under these rules"), f"rules-{p}")])
        if data[p].get("tips"):
            page.add("table", *tips_summary(w, p, data[p]["tips"]))
    page.add("links", [(w("Method appendix"), "method")])
    return page


def decision_cells(w, tip: dict, s: str) -> str:
    return decision_words(w, tip["rows"][s])
