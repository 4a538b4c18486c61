"""The Tip Atlas (issue 25): a tiny atlas (two tips in tranca, 40 deals a cell, all three languages)
is built once for the module and read as a reader would: every link and image resolves, no
parameter code shows outside the method appendix, every word the pages used is translated, the
same inputs rebuild byte-identical pages, charts and PDFs, and a second build reuses the cache.
The verdict sentences are checked on made-up figures (they never claim more than the interval).
A headless-browser check opens the pages at phone and desktop width; it skips without chromium."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tranca_sim.atlas.plan import Size

# 100 decks a cell: enough for black3_lock's check to pass on both blocks (its situation chart is drawn)
TINY = Size("tiny", batch=200, budget=200, search=None, rules_deals=40)
ONLY = ("black3_lock", "morto_rush")
LANGS = ("pt-BR", "es", "en")


@pytest.fixture(scope="module")
def atlas(tmp_path_factory):
    from tranca_sim.atlas.build import build_atlas

    root = tmp_path_factory.mktemp("atlas")
    res = build_atlas(root / "out", languages=LANGS, presets=("tranca",), cache_dir=root / "cache",
                      progress=False, say=lambda s: None, size=TINY, only=ONLY)  # fmt: skip
    return root, res


class _Refs(HTMLParser):
    def __init__(self):
        super().__init__()
        self.refs, self.text = [], []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("href", "src"):
                self.refs.append(v)

    def handle_data(self, data):
        self.text.append(data)


def _read(path: Path) -> _Refs:
    p = _Refs()
    p.feed(path.read_text(encoding="utf-8"))
    return p


def test_every_link_and_image_of_every_page_resolves(atlas):
    root, res = atlas
    pages = list((root / "out").rglob("*.html"))
    assert len(pages) == 1 + 3 * (1 + 1 + len(ONLY) + 1)  # chooser; contents, rules, tips, appendix
    for page in pages:
        for ref in _read(page).refs:
            assert not ref.startswith(("http:", "https:", "/")), (page, ref)
            assert (page.parent / ref).is_file(), f"{page}: {ref} does not resolve"
    imgs = {(page.parent.name, r) for page in pages for r in _read(page).refs if r.endswith(".png")}
    for lang in LANGS:  # how deals end, each tip's effect by strength, and a chart by situation
        mine = [r for la, r in imgs if la == lang]
        assert len(mine) >= 1 + len(ONLY) + 1 and any(r.endswith("-situations.png") for r in mine), mine
    for pdf in res["pdfs"]:
        assert pdf.read_bytes()[:5] == b"%PDF-"


def _codes() -> re.Pattern:
    from tranca_sim.strategies import basic

    names = sorted({row[0] for row in basic.PARAMS}, key=len, reverse=True)
    return re.compile(r"\b(" + "|".join(map(re.escape, names)) + r")\b|\bbasic:|\b[a-z_]+=[0-9]")


def test_no_parameter_code_outside_the_method_appendix(atlas):
    root, _ = atlas
    codes = _codes()
    seen_in_appendix = False
    for page in (root / "out").rglob("*.html"):
        text = " ".join(_read(page).text)
        found = codes.findall(text)
        if page.name == "method.html":
            seen_in_appendix |= bool(found)  # the appendix does name them (the pattern can match)
        else:
            assert not found, f"{page}: parameter codes {found[:3]}"
    assert seen_in_appendix


def test_every_word_the_pages_use_is_translated_in_every_language(atlas):
    from tranca_sim.atlas.i18n import missing

    _, res = atlas
    for lang in LANGS:
        used = res["built"][lang]["words"].used
        assert len(used) > 50
        assert missing(lang, used) == [], lang


def test_the_pages_are_in_their_language(atlas):
    root, _ = atlas
    titles = {lang: " ".join(_read(root / "out" / lang / "index.html").text) for lang in LANGS}
    assert "mão" in titles["pt-BR"] and "por mano" in titles["es"] and "a deal" in titles["en"]


def test_the_same_inputs_rebuild_byte_identical_pages_charts_and_pdf(atlas, tmp_path):
    from tranca_sim.atlas.build import play_all, write_atlas
    from tranca_sim.atlas.plan import plan

    root, _ = atlas
    entries, played, reused = play_all(
        plan(("tranca",), TINY, ONLY), root / "cache", None, False, lambda s: None
    )
    assert (played, reused) == (0, 2)  # the cache held both finished experiments
    write_atlas(tmp_path, ("en",), ("tranca",), entries, True)
    first = root / "out" / "en"
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert any(str(f).endswith(".pdf") for f in files) and any(str(f).endswith(".png") for f in files)
    for f in files:
        assert (tmp_path / "en" / f).read_bytes() == (first / f).read_bytes(), f


def _row(verdict="gain", check="passes", published=True, confirmed=True, mean=30.0, lo=12.0, hi=48.0):
    return {"verdict": verdict, "check": check, "published": published, "confirmed": confirmed, "mean": mean,
            "lo": lo, "hi": hi, "win": 0.55, "win_lo": 0.52, "win_hi": 0.58, "decks": 100, "cells": [],
            "check_rows": []}  # fmt: skip


def _sentence(rows: dict, lang="en") -> str:
    from tranca_sim.atlas.i18n import Words
    from tranca_sim.atlas.pages import verdict_sentence

    tip = {"param": "black3_lock", "rows": rows}
    return verdict_sentence(Words(lang), tip, list(rows), 10.0)


def test_a_confirmed_gain_at_every_strength_is_said_with_its_interval():
    s = _sentence({"basic": _row(), "tuned": _row(lo=5.0, hi=20.0)})
    assert "gains points at every playing strength" in s and "+5 to +48" in s


def test_an_undecided_figure_is_never_called_a_gain_or_a_loss():
    s = _sentence({"basic": _row(verdict="no decision", published=False, confirmed=False, lo=-3.0, hi=40.0)})
    assert "do not settle it" in s and "gains" not in s and "costs" not in s


def test_a_tip_whose_check_fails_is_flagged_and_given_no_value():
    s = _sentence({"basic": _row(check="FAILS", mean=57.0, lo=50.0, hi=64.0)})
    assert "no value" in s and "57" not in s and "+50" not in s


def test_the_verdict_mixes_strengths_when_they_disagree():
    s = _sentence({"basic": _row(), "tuned": _row(verdict="loss", mean=-20.0, lo=-30.0, hi=-10.0)}, "pt-BR")
    assert "rende pontos" in s and "custa pontos" in s


def _open_row(decisions, verdict, lo, hi):
    r = _row(verdict=verdict, published=False, confirmed=False, mean=(lo + hi) / 2, lo=lo, hi=hi)
    return r | {"cells": [{"block": b, "decision": d} for b, d in enumerate(decisions, 1)]}


def test_an_undecided_figure_whose_interval_leaves_out_zero_says_why_in_every_language():
    """The index read "not decided (-137 to -69)" next to "+12 to +30 means ... with 95% confidence":
    the loss was decided on block 1 only; the reason was only in the appendix's table."""
    from tranca_sim.atlas.book import short_verdict
    from tranca_sim.atlas.i18n import Words, missing
    from tranca_sim.atlas.pages import decision_words

    one_open = _open_row(["loss", "no decision"], "undecided", -137.0, -69.0)
    disagree = _open_row(["gain", "loss"], "blocks disagree", 12.0, 30.0)
    same_way = _open_row(["gain", "gain"], "blocks disagree", 12.0, 30.0)
    none = _open_row(["no decision", "no decision"], "undecided", 12.0, 30.0)
    en = Words("en")
    assert short_verdict(en, one_open) == "not decided: block 2 of decks reached no decision (-137 to -69)"
    assert short_verdict(en, disagree) == "not decided: the blocks of decks disagree (+12 to +30)"
    assert short_verdict(en, same_way) == "not decided: the blocks of decks disagree on its size (+12 to +30)"
    assert short_verdict(en, none) == "not decided: no block of decks reached a decision (+12 to +30)"
    assert decision_words(en, one_open) == "not decided: block 2 of decks reached no decision"
    assert "block 2 of decks reached no decision" in _sentence({"basic": one_open})
    pt, es = Words("pt-BR"), Words("es")
    assert "bloco 2" in short_verdict(pt, one_open) and "não decidido" in short_verdict(pt, one_open)
    assert "bloque 2" in short_verdict(es, one_open) and "no decidido" in short_verdict(es, one_open)
    for w in (pt, es):
        for r in (disagree, same_way, none):
            short_verdict(w, r), decision_words(w, r)
        assert missing(w.lang, w.used) == []


def test_an_undecided_figure_whose_interval_holds_zero_needs_no_reason():
    from tranca_sim.atlas.book import short_verdict
    from tranca_sim.atlas.i18n import Words

    r = _open_row(["gain", "no decision"], "undecided", -3.0, 40.0)
    assert short_verdict(Words("en"), r) == "not decided (-3 to +40)"


def test_the_stopping_rule_is_written_in_words_in_every_language():
    """The appendix printed experiment.json's dict: {'method': ..., 'sequential': True, ...}."""
    from tranca_sim.atlas.i18n import Words, missing
    from tranca_sim.atlas.method import stopping_words

    dec = {"delta": 10.0}
    en = Words("en")
    s = stopping_words(en, {"method": "x", "sequential": True, "half_width": None}, dec)
    assert s.startswith("A tip at one strength in one block of decks stops once the sequential test has")
    assert "±5.0 points a deal" in stopping_words(en, {"sequential": True, "half_width": 5.0}, dec)
    assert "±5.0 points a deal" in stopping_words(en, {"sequential": True, "half_width": 5.0}, None)
    assert "whole budget" in stopping_words(en, {"sequential": False, "half_width": None}, None)
    for lang in LANGS:
        w = Words(lang)
        seq, hw = {"sequential": True, "half_width": None}, {"sequential": True, "half_width": 5.0}
        shapes = [(seq, dec), (hw, dec), (hw, None), ({"sequential": False}, None)]
        for stop, d in shapes:
            text = stopping_words(w, stop, d)
            assert "{" not in text and "sequential" not in text.split()[0], text
        assert missing(lang, w.used) == []


def test_the_appendix_gives_no_raw_record(atlas):
    root, _ = atlas
    for lang in LANGS:
        text = " ".join(_read(root / "out" / lang / "method.html").text)
        assert "{'" not in text and "'method'" not in text, lang
    en = " ".join(_read(root / "out" / "en" / "method.html").text)
    assert "whole budget of deals; nothing stops it early" in en  # the tiny atlas plays one batch


def test_an_atlas_marks_its_directory_so_force_may_rebuild_it(atlas):
    from tranca_sim.lab.output_dir import ExperimentError, check_out_dir

    root, _ = atlas
    assert (root / "out" / "atlas.json").is_file()
    check_out_dir(root / "out", True, "atlas")
    with pytest.raises(ExperimentError, match="use --force"):
        check_out_dir(root / "out", False, "atlas")


def test_an_unknown_preset_is_one_clear_error():
    from tranca_sim.atlas.build import AtlasError, check_presets

    with pytest.raises(AtlasError, match="--preset 'nope'"):
        check_presets(["nope"])
    with pytest.raises(AtlasError, match="two sides"):
        check_presets(["tranca-3p"])


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(_chromium() is None, reason="no chromium installed (apt-get install chromium)")
@pytest.mark.parametrize("width", [390, 1280])
def test_pages_render_in_a_headless_browser_at_phone_and_desktop_width(atlas, tmp_path, width):
    root, _ = atlas
    tip = next((root / "out" / "pt-BR").glob("tip-*.html"))
    shot = tmp_path / "shot.png"
    r = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={width},2400", f"--screenshot={shot}", tip.as_uri()],
        check=False, capture_output=True, timeout=120,
    )  # fmt: skip
    assert shot.is_file(), r.stderr.decode(errors="replace")[-500:]
    from PIL import Image

    im = Image.open(shot).convert("L")
    assert im.size[0] == width
    import numpy as np

    assert len(np.unique(np.asarray(im.resize((64, 64))))) > 8  # drawn: text and charts, not a blank page


def test_match_equity_of_a_fair_coin_match_is_the_gamblers_ruin_by_hand():
    """Deals worth 100 points to one side or the other, each half the time, to 300: from 200 against
    0 a side needs one deal before the other gets three: 1 - (1/2)^3 = 7/8; from 100 against 100,
    1/2; from 0 against 200, 1/8."""
    import numpy as np

    from tranca_sim.atlas.equity import deal_pool, equity_table

    pool = deal_pool(np.array([100]), np.array([0]))  # (100, 0) and, both ways round, (0, 100)
    t = equity_table(pool, 300, 4000, seed=1)
    assert list(t["scores"]) == [0, 100, 200]
    for (i, j), expected in {(2, 0): 7 / 8, (1, 1): 1 / 2, (0, 2): 1 / 8}.items():
        assert abs(t["p"][i, j] - expected) < 4 * t["se"][i, j] + 1e-9, (i, j, t["p"][i, j])
    assert t["unfinished"] == 0


def test_match_equity_of_equal_players_is_even_at_level_scores_and_mirrors():
    """Between equal players, from level scores each side wins half the matches, and from (x, y)
    one side wins exactly as often as the other does from (y, x): the table shows it whatever the
    draws (a few hundred matches a cell once read 60% at 0 against 0)."""
    import numpy as np

    from tranca_sim.atlas.equity import deal_pool, equity_table

    rng = np.random.default_rng(3)
    a, b = rng.normal(300, 400, 300).astype(int), rng.normal(300, 400, 300).astype(int)
    t = equity_table(deal_pool(a, b), 3000, 200, seed=5)
    assert np.allclose(t["p"].diagonal(), 0.5)
    assert np.allclose(t["p"] + t["p"].T, 1.0)
    assert t["p"][-1, 0] > 0.9 > 0.1 > t["p"][0, -1]  # 2,900 against 0 is nearly won


def test_match_equity_is_not_drawn_where_a_deal_depends_on_the_score():
    from tranca_sim.atlas.equity import applies
    from tranca_sim.rules import PRESETS

    assert applies(PRESETS["tranca"]) is None
    assert applies(dataclasses_replace(PRESETS["buraco"], first_meld_min=75)) is not None


def dataclasses_replace(obj, **kw):
    import dataclasses

    return dataclasses.replace(obj, **kw)


def test_a_page_cut_short_by_a_full_disk_leaves_the_old_page_whole(tmp_path, monkeypatch):
    """A page is written whole or not at all: a write that fails half way (a full disk, an
    interrupt) leaves the page as it was, no temporary file beside it, and says which file."""
    import errno

    from tranca_sim.atlas.files import write_text
    from tranca_sim.io import RunFileError

    page = tmp_path / "tip.html"
    page.write_text("<p>the old page</p>", encoding="utf-8")
    real = Path.write_text

    def half_then_full(self, text, *args, **kwargs):
        real(self, text[: len(text) // 2], *args, **kwargs)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", half_then_full)
    with pytest.raises(RunFileError, match="tip.html"):
        write_text(page, "<p>the new page, longer than the old one</p>")
    monkeypatch.undo()
    assert page.read_text(encoding="utf-8") == "<p>the old page</p>"
    assert os.listdir(tmp_path) == ["tip.html"]
