"""The method appendix, generated: versions, seeds, designs, decks, intervals, tests, stopping
rules, the tips' encodings and the hash of the inputs.  The only page where parameter codes
appear (headings and explanations still come from the catalogue).  Nothing here depends on the
clock, so the same inputs give the same page."""

from __future__ import annotations

import hashlib

from .figures import RED3_BINS, SITUATION_METHOD, THIN, WILD_BINS
from .pages import Page


def inputs_hash(keys: list[str]) -> str:
    """One hash of the atlas's inputs: the sorted input keys of its experiments."""
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()


def stopping_words(w, stopping: dict, decision: dict) -> str:
    """The experiment's stopping rule (experiment.json's ``stopping`` and ``decision``) in words."""
    if not stopping.get("sequential"):
        return w("Every tip plays its strength's whole budget of deals; nothing stops it early.")
    hw = stopping.get("half_width")
    if decision and hw is not None:
        return w(
            "A tip at one strength in one block of decks stops once the sequential test has decided both its "
            "points a deal and its deals won (a gain, a loss or no effect) and its 95% interval is narrower "
            "than ±{hw} points a deal, or once its strength's budget of deals is spent; the others go on.",
            hw=w.num(hw, 1),
        )  # fmt: skip
    if decision:
        return w(
            "A tip at one strength in one block of decks stops once the sequential test has decided both its "
            "points a deal and its deals won (a gain, a loss or no effect), or once its strength's budget of "
            "deals is spent; the others go on."
        )  # fmt: skip
    return w(
        "A tip at one strength in one block of decks stops once its 95% interval is narrower than ±{hw} "
        "points a deal, or once its strength's budget of deals is spent; the others go on.",
        hw=w.num(hw or 0, 1),
    )  # fmt: skip


def method_page(w, presets: list[str], data: dict, entries: list[dict], size_name: str) -> Page:
    from ..io import package_version
    from ..lab.statistics.blocks import CRITERION
    from .cache import code_fingerprint

    page = Page("method", w("Method appendix"), appendix=True)
    page.add("p", w("The details a reader needs to check or repeat every figure of this atlas."))
    page.add("h2", w("Versions and inputs"))
    rows = [
        [w("program"), f"tranca-sim {package_version()}"],
        [w("size of the atlas"), size_name],
        [w("fingerprint of the code that plays and measures"), code_fingerprint()[:16]],
        [w("hash of all inputs"), inputs_hash([e["key"] for e in entries])[:16]],
    ]
    page.add("table", [w("item"), w("value")], rows)
    page.add("h2", w("Experiments"))
    page.add("table", [w("experiment"), w("hash of its inputs"), w("deals played")],
             [[e["name"], e["key"][:16], w.int(e["deals"])] for e in entries])  # fmt: skip
    for p in presets:
        tips = data[p].get("tips")
        if tips:
            page.add("h2", w("Tips in {preset}", preset=p))
            d = tips.get("decision") or {}
            page.add("table", [w("item"), w("value")], [
                [w("design"), w("duplicate decks: each deck played twice with the seats swapped; unit: the deck")],
                [w("master seed"), str(tips["seed"])],
                [w("blocks of fresh decks"), ", ".join(f"{b['block']}: {b['seed']}" for b in tips["blocks"])],
                [w("strengths"), "; ".join(f"{s['label']} = {s['strategy']} (budget {s['budget']}, batch {s['batch']})"
                                          for s in tips["strength_specs"])],
                [w("sequential test"), (f"delta = {d.get('delta')}, delta_outcome = {d.get('delta_outcome')}, "
                                        f"alpha = {d.get('alpha')}, beta = {d.get('beta')}")],
                [w("stopping rule"), stopping_words(w, tips.get("stopping") or {}, d)],
                [w("confirmation"), CRITERION],
                [w("intervals"), w("95% confidence sequence when the test is sequential, else Student t; deal wins: "
                                   "Student t over decks")],
                [w("chart of effect by situation"), SITUATION_METHOD.replace("THIN", str(THIN))
                 + f" wilds: {WILD_BINS}; red 3s: {RED3_BINS}"],
            ])  # fmt: skip
            page.add("table", [w("tip"), w("with the tip"), w("without it"), w("source")], [
                [w.tip_title(k), f"{k}={t['on']}", f"{k}={t['off']}", t["seed"]] for k, t in tips["tips"].items()
            ])  # fmt: skip
            cells = []
            for k, t in tips["tips"].items():
                for s, r in t["rows"].items():
                    for c in r["cells"]:
                        cells.append([k, s, str(c["block"]), w.int(c["decks"]), f"{c['mean']:+.2f}",
                                      f"[{c['lo']:+.2f}, {c['hi']:+.2f}]", c["decision"], str(c["stopped_by"]),
                                      str(r["check"])])  # fmt: skip
            page.add("table", ["tip", "strength", "block", "decks", "mean", "interval", "decision", "stopped_by",
                               "check"], cells)  # fmt: skip
        rules = data[p].get("rules")
        if rules:
            page.add("h2", w("Rules experiment in {preset}", preset=p))
            page.add("p", w(
                "basic against basic on {deals} deals (seed {seed}); first-seat advantage: the first seat's side "
                "minus the other, Student t over deals; share of the margin the cards explain: tuned against basic "
                "on duplicate decks, the covariance of the two deals' margins of a deck over their variance.",
                deals=w.int(rules["deals"]), seed=str(rules["seed"]),
            ))  # fmt: skip
            if rules.get("equity") is not None:
                from .equity import SEED as EQ_SEED

                t = rules["equity"]
                page.add(
                    "p",
                    w(
                        "Match equity: deals drawn with replacement from the basic-against-basic deals, each both "
                        "ways round, until a side reaches the target with the highest score; each point averaged "
                        "with its mirror point (between equal players, one side's chance from x against y is the "
                        "other's from y against x); binomial standard errors of that average; deals taken as "
                        "independent of the match score."
                    ),
                )
                page.add("table", [w("item"), w("value")], [
                    [w("master seed"), str(EQ_SEED)],
                    [w("matches a point"), str(t["matches"])],
                    [w("grid of scores"), f"0..{int(t['scores'][-1])}, {int(t['scores'][1] - t['scores'][0])}"],
                    [w("largest standard error"), f"{float(t['se'].max()):.4f}"],
                    [w("matches unfinished after 200 deals"), str(t["unfinished"])],
                ])  # fmt: skip
    page.add("h2", w("Experiment files"))
    for e in entries:
        page.add("pre", e["name"], e["text"])
    page.add("links", [(w("Contents"), "index")])
    return page
