"""Deal logs: chosen deals of a run are logged, and the log is that deal."""

import itertools
import json

import numpy as np
import pytest

from tranca_sim.engine.log import play_logged
from tranca_sim.io import load_run
from tranca_sim.run import RunOptionError, parse_log_deals, run_simulation


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
