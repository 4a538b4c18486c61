"""Deal logs: chosen deals of a run are logged, and the log is that deal; the log file beside the
run has the documented name and is replaced with the run (--force) or not at all."""

import itertools
import json
import os
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest
from cli_call import call

from tranca_sim.cli import build_parser
from tranca_sim.engine.log import play_logged
from tranca_sim.io import load_meta, load_run
from tranca_sim.run import RunOptionError, parse_log_deals
from tranca_sim.simulate import run_simulation


def test_parse_log_deals():
    assert parse_log_deals(None, 10, 1) == []
    assert parse_log_deals("3", 10, 1) == [0, 1, 2]
    assert parse_log_deals(3, 10, 1) == [0, 1, 2]
    assert parse_log_deals("7,2,7", 10, 1) == [2, 7]
    s = parse_log_deals("sample:4", 10, 1)
    assert len(s) == 4 and s == sorted(s) and all(0 <= i < 10 for i in s)
    assert s == parse_log_deals("sample:4", 10, 1)  # drawn with the run's seed
    for bad in ("11", "1,10", "sample:11", "x", "sample:", "-1"):
        with pytest.raises(RunOptionError):
            parse_log_deals(bad, 10, 1)


def test_logged_deals_match_the_run(tmp_path):
    out = tmp_path / "run.parquet"
    res = run_simulation("tranca", 40, 9, "basic", "random", out, progress=False, log_deals="0,17,39")
    with open(res["log_path"]) as f:
        logs = [json.loads(line) for line in f]
    assert [g["deal_index"] for g in logs] == [0, 17, 39]
    df = load_run(out, backend="pandas")
    for g in logs:
        rows = df[df.deal_index == g["deal_index"]].sort_values("side")
        assert [g["result"]["A"]["score"], g["result"]["B"]["score"]] == rows.score.tolist()
        assert g["first_seat"] == rows.first_seat.iloc[0]
        assert g["actions"][-1]["act"] == "end"
        n_turns = sum(1 for a in g["actions"] if a["act"] == "turn")
        assert n_turns == rows.n_turns.iloc[0]
        assert len(g["deck"]) == 108


def test_log_turns_follow_the_seats(tranca):
    """Turns are numbered from 0 and pass clockwise; only documented actions appear.
    (Card accounting and legality of a log are the referee's tests.)"""
    g = play_logged(tranca, ("random", "random"), 3, 5)
    kinds = {a["act"] for a in g["actions"]}
    assert {"turn", "draw", "discard", "end"} <= kinds
    turns = [a["turn"] for a in g["actions"] if a["act"] == "turn"]
    assert turns == list(range(len(turns)))
    seats = [a["seat"] for a in g["actions"] if a["act"] == "turn"]
    assert all((b - a) % 4 == 1 for a, b in itertools.pairwise(seats))
    assert np.isin(
        [a["act"] for a in g["actions"]],
        [
            "turn_up",
            "bury",
            "turn",
            "red3",
            "draw",
            "take_pile",
            "meld",
            "extend",
            "black3",
            "morto",
            "discard",
            "go_out",
            "end",
        ],
    ).all()


def test_log_file_name_is_the_one_documented(tmp_path, capsys):
    out = tmp_path / "y.parquet"
    status, stdout, err = call(
        ["simulate", "--deals", "20", "--out", str(out), "--no-progress", "--log-deals", "2"], capsys
    )
    assert status == 0, err
    assert sorted(os.listdir(tmp_path)) == ["y.log.jsonl", "y.parquet"]
    assert f"wrote {tmp_path / 'y.log.jsonl'} (2 deal logs)" in stdout
    assert load_meta(out)["log_file"] == "y.log.jsonl"
    simulate_help = build_parser()._subparsers._group_actions[0].choices["simulate"].format_help()
    assert "run.parquet -> run.log.jsonl" in " ".join(simulate_help.split())
    guide = (Path(__file__).resolve().parents[1] / "docs" / "how-to" / "replay-and-check.md").read_text()
    assert "`run.parquet` → `run.log.jsonl`" in guide and "<out>.log.jsonl" not in guide


def _old_pair(tmp_path):
    out = tmp_path / "y.parquet"
    out.write_bytes(b"old run")
    (tmp_path / "y.log.jsonl").write_text("old logs\n")
    return out


def test_an_older_log_beside_the_output_is_refused_without_force(tmp_path, capsys):
    out = tmp_path / "y.parquet"
    (tmp_path / "y.log.jsonl").write_text("old logs\n")
    for extra in ([], ["--log-deals", "2"]):
        status, _, err = call(
            ["simulate", "--deals", "20", "--out", str(out), "--no-progress", *extra], capsys
        )
        assert status == 2 and "the deal-log file" in err and "use --force" in err, err
        assert os.listdir(tmp_path) == ["y.log.jsonl"]


def test_force_replaces_the_run_and_its_logs(tmp_path, capsys):
    out = _old_pair(tmp_path)
    argv = ["simulate", "--deals", "20", "--out", str(out), "--no-progress", "--force", "--log-deals", "3"]
    status, _, err = call(argv, capsys)
    assert status == 0, err
    logs = [json.loads(x) for x in (tmp_path / "y.log.jsonl").read_text().splitlines()]
    assert [x["deal_index"] for x in logs] == [0, 1, 2]
    assert load_meta(out)["log_deals"] == [0, 1, 2]


def test_force_without_logs_removes_the_older_log(tmp_path, capsys):
    """Never a new run beside an older run's logs."""
    out = _old_pair(tmp_path)
    status, _, err = call(
        ["simulate", "--deals", "20", "--out", str(out), "--no-progress", "--force"], capsys
    )
    assert status == 0, err
    assert os.listdir(tmp_path) == ["y.parquet"]


def test_a_failed_forced_run_keeps_both_old_files(tmp_path, capsys, monkeypatch):
    out = _old_pair(tmp_path)

    def full(*a, **k):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    argv = ["simulate", "--deals", "20", "--out", str(out), "--no-progress", "--force", "--log-deals", "3"]
    status, _, err = call(argv, capsys)
    assert status == 2 and "No space left on device" in err
    assert sorted(os.listdir(tmp_path)) == ["y.log.jsonl", "y.parquet"]
    assert out.read_bytes() == b"old run" and (tmp_path / "y.log.jsonl").read_text() == "old logs\n"
