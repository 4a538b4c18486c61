"""replay and check: any deal of a run regenerated, printed, drawn and refereed."""

import json
import re

import pytest

from tranca_sim.cli import main
from tranca_sim.engine.log import play_logged, write_logs
from tranca_sim.engine.positions import stack_deck
from tranca_sim.io import load_run
from tranca_sim.replay import format_deal, regenerate, table_html
from tranca_sim.run import run_simulation


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
    assert "melds KC KD KH as side A meld 0" in first_turn


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
        "melds KC KD KH as side A meld 0",
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
