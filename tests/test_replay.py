"""replay and check: any deal of a run regenerated, printed, drawn and refereed."""

import json
import re

import pytest
from cli_call import call

from tranca_sim.cli import main
from tranca_sim.engine.log import play_logged, write_logs
from tranca_sim.engine.positions import stack_deck
from tranca_sim.io import load_run
from tranca_sim.replay import format_deal, regenerate, table_html
from tranca_sim.simulate import run_simulation


@pytest.fixture(scope="module")
def run_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "run.parquet"
    run_simulation("tranca", 30, 4, "basic", "random", out, progress=False, log_deals="0,1,2")
    return out


def test_replay_prints_every_turn_and_the_run_scores(run_file):
    df = load_run(run_file, backend="pandas")
    for deal in (0, 13, 29):
        text = format_deal(regenerate(run_file, deal))
        rows = df[df.deal_index == deal].sort_values("side")
        turns = re.findall(r"^turn (\d+) ", text, flags=re.MULTILINE)
        assert [int(t) for t in turns] == list(range(rows.n_turns.iloc[0]))
        total = re.search(r"^  total\s+(-?\d+)\s+(-?\d+)$", text, flags=re.MULTILINE)
        assert [int(total[1]), int(total[2])] == rows.score.tolist()
        parts = {
            "melded cards": "melded_points",
            "canasta bonus": "canasta_bonus",
            "red 3s": "red3_points",
            "going out": "going_out_bonus",
            "morto not taken": "morto_penalty",
            "cards in hand": "hand_penalty",
        }
        for label, col in parts.items():
            m = re.search(rf"^  {label}\s+(-?\d+)\s+(-?\d+)$", text, flags=re.MULTILINE)
            assert [int(m[1]), int(m[2])] == rows[col].tolist(), label


def test_replay_of_a_stacked_deal_reads_like_the_rules(tranca):
    """Seat 0 holds three kings, a pair of queens and a red 3: at its first turn it lays the red 3
    and draws its replacement (000 Gameplay 5), then draws, melds the kings (basic lays naturals)."""
    deck = stack_deck(
        tranca,
        hands={0: "KC KD KH QC QD 3D 5C 6C 8C 9C 10C"},
        stock="7H AS JD",  # 7H turned up; AS replaces the red 3; JD is the draw
    )
    log = play_logged(tranca, ("basic", "passive"), 0, 0, deck=deck, first_seat=0)
    text = format_deal(log)
    assert "7H turned up as the first discard" in text
    first_turn = text.split("turn 1 ")[0].split("turn 0 ")[1]
    assert "lays 3D in side A's red-3 area" in first_turn
    assert first_turn.index("draws AS") < first_turn.index("draws JD")
    assert "    draws AS to replace the red 3 3D\n" in first_turn  # the replacement says what it is
    assert "    draws JD\n" in first_turn  # the turn's own draw stays plain
    assert "hand after the draw (12): 5C 6C 8C 9C 10C JD QC QD KC KD KH AS" in first_turn
    # melds are counted from 1, as analyse and review count them ("onto meld 1")
    assert "melds KC KD KH as side A meld 1" in first_turn
    assert "\n    meld 1: " in text and "\n    meld 0: " not in text  # the final table


def test_two_red_3s_are_replaced_in_the_order_they_were_laid(tranca):
    """Seat 0 is dealt 3D and 3H: it lays 3D and draws AS for it, then lays 3H and draws JD for
    it (000 Gameplay 5: each red 3 is replaced at once), then draws 4C as its turn's draw."""
    deck = stack_deck(tranca, hands={0: "3D 3H KC KD KH QC QD 5C 6C 8C 9C"}, stock="7H AS JD 4C")
    text = format_deal(play_logged(tranca, ("basic", "passive"), 0, 0, deck=deck, first_seat=0))
    first_turn = text.split("turn 1 ")[0].split("turn 0 ")[1]
    lines = [x.strip() for x in first_turn.splitlines()]
    i = lines.index("lays 3D in side A's red-3 area")
    assert lines[i : i + 5] == [
        "lays 3D in side A's red-3 area",
        "draws AS to replace the red 3 3D",
        "lays 3H in side A's red-3 area",
        "draws JD to replace the red 3 3H",
        "draws 4C",
    ]


def test_table_html_draws_every_visible_card(run_file):
    log = regenerate(run_file, 5)
    page = table_html(log, 6)
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "after turn 6" in page
    # hands, melds, red 3s and the top 12 of the pile are drawn as cards
    n_cards = page.count("<rect")
    assert 30 <= n_cards <= 108
    with pytest.raises(ValueError, match="not in deal"):
        table_html(log, 10_000)


def test_cli_replay_and_check(run_file, tmp_path, capsys):
    html = tmp_path / "t.html"
    assert main(["replay", str(run_file), "--deal", "3", "--html", str(html), "--turn", "2"]) == 0
    assert html.exists() and "<svg" in html.read_text()
    assert main(["check", str(run_file), "--sample", "12"]) == 0
    assert "12 of 12 deals agreed" in capsys.readouterr().out
    logs = str(run_file).replace(".parquet", ".log.jsonl")
    assert main(["check", logs]) == 0
    assert "3 of 3 deals agreed" in capsys.readouterr().out


def test_cli_check_reports_a_tampered_log(run_file, tmp_path, capsys):
    logs = str(run_file).replace(".parquet", ".log.jsonl")
    with open(logs) as f:
        deals = [json.loads(line) for line in f]
    deals[1]["result"]["A"]["score"] += 10
    bad = tmp_path / "bad.log.jsonl"
    write_logs(bad, deals)
    with pytest.raises(SystemExit) as e:
        main(["check", str(bad)])
    assert e.value.code == 1
    out = capsys.readouterr().out
    assert "DISAGREE line 2" in out and "2 of 3 deals agreed" in out


@pytest.mark.parametrize(
    "argv, message",
    [
        (["replay", "nosuch.parquet", "--deal", "0"], "nosuch.parquet"),
        (["replay", "RUN", "--deal", "30"], "--deal 30 is not a deal of"),
        (["replay", "RUN", "--deal", "-1"], "must be 0 or more"),
        (
            ["replay", "RUN", "--deal", "1", "--html", "HTML", "--turn", "999"],
            "--turn 999 is not a turn of deal 1",
        ),
        (["check", "nosuch.jsonl"], "cannot read"),
    ],
)
def test_cli_bad_input(run_file, tmp_path, capsys, argv, message):
    argv = [str(run_file) if a == "RUN" else str(tmp_path / "x.html") if a == "HTML" else a for a in argv]
    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "x.html").exists()


def test_replay_turn_needs_html_and_is_checked_first(run_file, capsys):
    with pytest.raises(SystemExit) as e:
        main(["replay", str(run_file), "--deal", "1", "--turn", "3"])
    assert e.value.code == 2 and "--html" in capsys.readouterr().err


def test_check_of_an_empty_log_file_fails(tmp_path, capsys):
    empty = tmp_path / "empty.log.jsonl"
    empty.write_text("")
    with pytest.raises(SystemExit) as e:
        main(["check", str(empty)])
    assert e.value.code == 2 and "no deals" in capsys.readouterr().err


def test_check_names_the_scores_of_a_tampered_run_file(run_file, tmp_path, capsys):
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(run_file)
    i = table.schema.get_field_index("score")
    scores = pa.array([s + 10 for s in table.column("score").to_pylist()], type=pa.int32())
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(i, table.schema.field(i), scores), bad)  # keeps the run metadata
    with pytest.raises(SystemExit) as e:
        main(["check", str(bad), "--sample", "12"])
    out = capsys.readouterr().out
    assert e.value.code == 1
    assert "run_file: the run file says A" in out and "... and 2 more disagreements" in out


def test_a_byte_order_mark_is_accepted(run_file, tmp_path, capsys):
    logs = str(run_file).replace(".parquet", ".log.jsonl")
    bom = tmp_path / "bom.log.jsonl"
    with open(logs, "rb") as f:
        bom.write_bytes(b"\xef\xbb\xbf" + f.read())
    assert main(["check", str(bom)]) == 0


# ---- the HTML page: score table, canasta marks, the turn's actions, a real browser --------------
def _score_rows(page: str) -> dict:
    """{part label: (A, B)} from the page's score table."""
    rows = re.findall(
        r"<tr><t[dh] style='text-align:left'>([^<]+)</t[dh]><t[dh]>(-?\d+)</t[dh]><t[dh]>(-?\d+)</t[dh]>",
        page,
    )
    return {label: (int(a), int(b)) for label, a, b in rows}


def test_table_html_final_turn_has_the_run_files_score_and_canasta_marks(run_file):
    df = load_run(run_file, backend="pandas")
    for deal in (0, 5, 17):
        log = regenerate(run_file, deal)
        rows = df[df.deal_index == deal].sort_values("side")
        page = table_html(log, int(rows.n_turns.iloc[0]) - 1)
        assert "Score at the end of the deal" in page and "Score so far" not in page
        score = _score_rows(page)
        assert list(score["total"]) == rows.score.tolist()
        assert list(score["canasta bonus"]) == rows.canasta_bonus.tolist()
        # one mark per canasta of either side: limpa without wilds, suja with (000 Gameplay 8)
        assert page.count(">canasta limpa<") == rows.canastas_clean.sum()
        assert page.count(">canasta suja<") == rows.canastas_dirty.sum()


def test_table_html_score_so_far_worked_by_hand(tranca):
    """After turn 0 of a stacked deal. Seat 0 lays its red 3, draws AS (the replacement) and JD,
    melds KC KD KH and discards one card; seat 2 has not played. Side A so far (000 Scoring and
    card values: 4-7 = 5, 8-K = 10, A = 20):
    melded K K K = 30; red 3 without a canasta = -100; morto not taken = -100;
    hands: seat 0 = 5C 6C 8C 9C 10C JD QC QD AS (5+5+10+10+10+10+10+10+20 = 90) minus the discard,
    seat 2 = 4C 4D 5D 6D 7C 7D (6 x 5 = 30) + 8D 9D JC JH QH (5 x 10 = 50) = 80."""
    deck = stack_deck(
        tranca,
        hands={0: "KC KD KH QC QD 3D 5C 6C 8C 9C 10C", 2: "4C 4D 5D 6D 7C 7D 8D 9D JC JH QH"},
        stock="7H AS JD",
    )
    log = play_logged(tranca, ("basic", "passive"), 0, 0, deck=deck, first_seat=0)
    page = table_html(log, 0)
    assert ">side A meld 1<" in page and "meld 0" not in page  # the table's rows count melds from 1
    assert "Score so far, after turn 0" in page and "Score at the end" not in page
    discard = next(a["card"] for a in log["actions"] if a["act"] == "discard" and a["turn"] == 0)
    value = {"5": 5, "6": 5, "8": 10, "9": 10, "10": 10, "J": 10, "Q": 10, "A": 20}[discard[:-1]]
    hand = -(90 - value + 80)
    a = {k: v[0] for k, v in _score_rows(page).items()}
    assert a == {
        "melded cards": 30,
        "canasta bonus": 0,
        "red 3s": -100,
        "going out": 0,
        "morto not taken": -100,
        "cards in hand": hand,
        "total": 30 - 100 - 100 + hand,
    }
    # the turn's actions, in order
    items = re.findall(r"<li>([^<]+)</li>", page)
    assert items == [
        "lays 3D in side A&#x27;s red-3 area",
        "draws AS to replace the red 3 3D",  # 000 Gameplay 5: a red 3 is replaced from the stock
        "draws JD",
        "melds KC KD KH as side A meld 1",  # counted from 1, as analyse and review count
        f"discards {discard} · pile 2 cards, top {discard}",
    ]


def test_table_html_lists_exactly_the_turns_actions(run_file):
    log = regenerate(run_file, 5)
    for turn in (3, 6):
        page = table_html(log, turn)
        acts = [a for a in log["actions"] if a["turn"] == turn and a["act"] != "turn"]
        items = re.findall(r"<li>([^<]+)</li>", page)
        assert len(items) == len(acts) >= 2
        assert items[-1].startswith(f"discards {acts[-1]['card']}") or acts[-1]["act"] != "discard"


def test_replay_html_renders_in_chromium(run_file, tmp_path):
    """The page renders in a real browser (headless Chromium) to a non-blank screenshot;
    scripts/render_replay.sh does the rendering and the check."""
    import shutil
    import subprocess
    from pathlib import Path

    if not (shutil.which("chromium") or shutil.which("chromium-browser")):
        pytest.skip("chromium not installed (Debian: apt-get install -y chromium)")
    page = tmp_path / "t.html"
    assert main(["replay", str(run_file), "--deal", "2", "--html", str(page), "--turn", "4"]) == 0
    script = Path(__file__).parents[1] / "scripts" / "render_replay.sh"
    shot = tmp_path / "t.png"
    res = subprocess.run(
        ["sh", str(script), str(page), str(shot)], check=False, capture_output=True, text=True, timeout=120
    )
    assert res.returncode == 0, res.stderr + res.stdout
    assert "1200x900 PNG" in res.stdout and shot.stat().st_size > 10_000


def test_open_pile_turns_say_the_hand_after_taking_the_pile(tmp_path):
    """Buraco's open pile (004) is taken without a meld: the turn shows the hand after the take,
    and "hand after the capture and its meld" appears only in a turn that took the pile (it used
    to carry over from an open-pile take into later turns)."""
    out = tmp_path / "buraco.parquet"
    run_simulation("buraco", 12, 5, "basic", "basic", out, progress=False)
    seen_take = 0
    for deal in range(12):
        text = format_deal(regenerate(out, deal))
        for block in re.split(r"^(?=turn \d+ )", text, flags=re.MULTILINE)[1:]:
            if "hand after the capture" in block:
                assert "takes the pile" in block, block
            if "takes the pile" in block and re.search(r"^    (discards|melds|adds)", block, re.MULTILINE):
                seen_take += 1
                assert "hand after taking the pile" in block, block
    assert seen_take > 0


@pytest.fixture(scope="module")
def one_deal(tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "one.parquet"
    run_simulation("tranca", 1, 5, "basic", "random", out, progress=False)
    return out


def test_check_warns_about_a_sample_only_when_one_was_given(one_deal, capsys):
    """`check one.parquet` on a one-deal run warned "--sample 200 is more than the run's 1 deal"
    about a default the user never gave."""
    status, out, err = call(["check", str(one_deal), "--no-progress"], capsys)
    assert status == 0, err
    assert err == "" and "1 of 1 deal agreed" in out
    status, out, err = call(["check", str(one_deal), "--no-progress", "--sample", "5"], capsys)
    assert status == 0, err
    assert "tranca-sim: warning: --sample 5 is more than the run's 1 deal" in err


@pytest.fixture(scope="module")
def match_run(tmp_path_factory):
    from tranca_sim.cli import main

    path = tmp_path_factory.mktemp("m") / "m.parquet"
    status = main(["simulate", "--matches", "6", "--seed", "3", "--rule", "match_target=1500", "--out", str(path),
                   "--no-progress"])  # fmt: skip
    assert status in (0, None)
    return path


def test_the_html_replay_of_a_match_deal_names_the_match_and_its_score(match_run, tmp_path, capsys):
    """The page said 'Tranca deal 3072' (the internal deal key) and nothing of the match; the text
    replay says 'match 3, deal 0 of the match · match score before it'."""
    from tranca_sim.engine.match import deal_key
    from tranca_sim.io import load_run

    df = load_run(match_run, backend="pandas")
    m = next(i for i in range(1, 6) if int(df.loc[df["match_index"] == i, "match_deals"].iloc[0]) >= 2)
    first = df[(df["match_index"] == m) & (df["deal_in_match"] == 0)].sort_values("side")
    before = ", ".join(f"{s} {int(x)}" for s, x in zip("AB", first["score"]))  # after deal 0 = before deal 1
    page = tmp_path / "m.html"
    status, out, _ = call(
        ["replay", str(match_run), "--match", str(m), "--deal", "1", "--html", str(page)], capsys
    )
    assert status in (0, None)
    assert f"match score before it: {before}" in out  # the text replay
    text = page.read_text(encoding="utf-8")
    assert f"match {m}, deal 1 of the match" in text
    assert f"match score before it: {before}" in text
    assert f"Tranca deal {deal_key(m, 1)}" not in text and deal_key(m, 1) != 1


class _ClosedPipe:
    """A stdout whose reader has gone (`| head -3`): every write raises BrokenPipeError."""

    def __init__(self, fd):
        self._fd = fd

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        return self._fd


def test_replay_writes_the_html_page_when_stdout_is_closed(match_run, tmp_path, monkeypatch):
    """`replay RUN --deal 7 --html h.html --turn 5 | head -3` exited 0 without writing the page."""
    import os
    import sys

    from tranca_sim.cli import main

    page = tmp_path / "h.html"
    sink = os.open(tmp_path / "stdout.txt", os.O_WRONLY | os.O_CREAT)
    try:
        monkeypatch.setattr(sys, "stdout", _ClosedPipe(sink))
        try:
            status = main(
                ["replay", str(match_run), "--match", "0", "--deal", "0", "--html", str(page), "--turn", "1"]
            )
        except SystemExit as e:
            status = e.code
    finally:
        monkeypatch.undo()
        os.close(sink)
    assert page.exists() and "<svg" in page.read_text(encoding="utf-8")
    assert status in (0, None)


def test_buraco_replay_names_the_game_and_says_when_a_morto_becomes_the_stock(tmp_path, capsys):
    """the HTML page was titled 'Tranca deal 1 (buraco, ...)', and the text replay never said
    that the stock ran out and a morto became the stock (the log's morto_stock, 004 / E22).  Deal 1
    of seed 5, basic against random in buraco: the stock runs out at turn 58 and side B's untaken
    morto becomes the stock."""
    run = tmp_path / "b.parquet"
    argv = [
        "simulate",
        "--preset",
        "buraco",
        "--deals",
        "2",
        "--seed",
        "5",
        "--threads",
        "1",
        "--out",
        str(run),
    ]
    assert call(argv, capsys)[0] == 0
    page = tmp_path / "b.html"
    status, out, err = call(["replay", str(run), "--deal", "1", "--html", str(page)], capsys)
    assert status == 0, err
    lines = out.splitlines()
    at = [i for i, x in enumerate(lines) if "morto becomes the stock" in x]
    assert len(at) == 1, out
    assert "the stock is empty: side B's morto becomes the stock (11 cards" in lines[at[0]]
    assert lines[at[0] - 1].startswith("turn 58 ") and "stock 0" in lines[at[0] - 1]
    assert "<title>Buraco deal 1 (buraco, seed 5)" in page.read_text()


def test_tranca_replay_page_is_still_titled_tranca(tmp_path, capsys):
    run = tmp_path / "t.parquet"
    assert call(["simulate", "--deals", "1", "--threads", "1", "--out", str(run)], capsys)[0] == 0
    page = tmp_path / "t.html"
    assert call(["replay", str(run), "--deal", "0", "--html", str(page)], capsys)[0] == 0
    assert "<title>Tranca deal 0 (tranca, seed " in page.read_text()


def test_check_caps_the_sample_and_shows_progress(small_run, capsys):
    status, out, err = call(["check", str(small_run), "--sample", "500"], capsys)
    assert status == 0, out + err
    assert "tranca-sim: warning: --sample 500 is more than the run's 12 deals; checking all 12" in err
    assert "refereeing" in err and "12/12" in err  # the bar names its work and counts the deals
    assert f"12 of 12 deals agreed with the referee (all 12 deals of {small_run})" in out
    status, out, err = call(["check", str(small_run), "--sample", "5", "--no-progress"], capsys)
    assert status == 0 and err == ""
    assert "5 of 5 deals agreed" in out


# ---- the tint of a card acting as a wild, and its legend -----------------------------------------
def _faces(kind, cards, rules, suit=None, low=None):
    from tranca_sim.referee.table import _Meld
    from tranca_sim.replay import meld_faces

    return meld_faces(_Meld(kind, None, cards.split(), suit, low), rules)


def _tinted(faces):
    return [c for c, wild in faces if wild]


def test_a_runs_own_2_in_its_place_is_not_drawn_as_a_wild():
    """004 'a 2 of the same suit placed in its own spot does not count as a wild card' (VARIANTS 1):
    2H in A-2-3 and in 2-3-4 of hearts is natural, whatever order the cards are listed in, and the
    3C 4C 2C read clean as 2-3-4 (VARIANTS 17); a 2 standing for another card is a wild."""
    from tranca_sim.rules import get_preset

    b = get_preset("buraco")
    for cards in ("AH 2H 3H", "2H AH 3H", "3H 2H AH"):
        assert _faces("run", cards, b, "H", 1) == [("AH", False), ("2H", False), ("3H", False)]
    assert _tinted(_faces("run", "2H 3H 4H", b, "H", 2)) == []
    assert _tinted(_faces("run", "3C 4C 2C", b, "C", 3)) == []  # as the table once listed it: 2C for 5C
    assert _faces("run", "3S 4S 2S 6S", b, "S", 3) == [("3S", False), ("4S", False), ("2S", True), ("6S", False)]
    two_twos = _faces("run", "AD 2D 3D 2D 5D 6D", b, "D", 1)  # one 2D in its place, one for the 4D
    assert [c for c, _ in two_twos] == ["AD", "2D", "3D", "2D", "5D", "6D"]
    assert [w for _, w in two_twos] == [False, False, False, True, False, False]
    assert _tinted(_faces("run", "9H 2C JH", b, "H", 9)) == ["2C"]  # another suit's 2 is a wild
    assert _tinted(_faces("run", "9H JK JH", b, "H", 9)) == ["JK"]
    assert _tinted(_faces("set", "2C KH KD", b)) == ["2C"]  # in a set every 2 is a wild (VARIANTS 1)
    assert _tinted(_faces("black3", "3C 3S 3C", get_preset("tranca"))) == []


def test_a_seven_card_run_with_its_own_2_is_a_canasta_limpa():
    from tranca_sim.referee.table import _Meld
    from tranca_sim.replay import canasta_tag
    from tranca_sim.rules import get_preset

    b = get_preset("buraco")
    assert canasta_tag(_Meld("run", None, "AH 2H 3H 4H 5H 6H 7H".split(), "H", 1), b) == "canasta limpa"
    assert canasta_tag(_Meld("run", None, "3H 4H 5H 6H 7H 8H 2C".split(), "H", 3), b) == "canasta suja"


def test_table_html_tints_only_melded_wilds_and_has_a_legend(run_file):
    """The page tinted every 2 and joker (hands and pile too) with no word of what the tint means:
    now only a card acting as a wild in a meld is tinted (in tranca's sets every 2 and joker,
    VARIANTS 1) and a legend says so."""
    from tranca_sim.replay import _WILD_FILL, _walk_to

    log = regenerate(run_file, 5)
    turn = sum(1 for a in log["actions"] if a["act"] == "turn") - 1
    page = table_html(log, turn)
    t = _walk_to(log, turn)[0]
    melded = sum(1 for side in t.melds for m in side for c in m.cards if c == "JK" or c[:-1] == "2")
    assert page.count(f'fill="{_WILD_FILL}"') == melded
    legend = re.search(r"<p class='legend'[^>]*>(.*?)</p>", page, re.S)
    assert legend and "wild" in legend.group(1) and _WILD_FILL in legend.group(1)
