"""``simulate --matches N`` end to end: the run file, a dataset, summarize, replay, check, and
the bad inputs (one ``tranca-sim: error:`` line, exit status 2, nothing written)."""

from __future__ import annotations

import numpy as np
import pytest
from cli_call import call

from tranca_sim.cli import main
from tranca_sim.io import load_meta, load_run
from tranca_sim.schema import MATCH_COLUMNS, match_markdown

ARGS = ["--side-b", "basic:wild_reserve=1", "--rule", "match_target=1500", "--rule", "first_meld_min=75"]


def one_error(status, err, words):
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    d = tmp_path_factory.mktemp("matches")
    path = d / "m.parquet"
    status = main(["simulate", "--matches", "40", "--seed", "3", *ARGS, "--out", str(path), "--no-progress"])
    assert status in (0, None)
    return path


def test_match_run_file(run):
    meta = load_meta(run)
    assert meta["matches"] == 40 and meta["deals"] is None
    df = load_run(run, backend="pandas")
    assert [n for n, _, _ in MATCH_COLUMNS] == list(df.columns[-len(MATCH_COLUMNS) :])
    assert df["match_index"].nunique() == 40
    first = df[(df["deal_in_match"] == 0) & (df["side"] == 0)]
    assert len(df) == 2 * int(first["match_deals"].sum())


def test_dataset_same_rows(run, tmp_path):
    out = tmp_path / "ds"
    argv = ["simulate", "--matches", "40", "--seed", "3", *ARGS, "--out", f"{out}/", "--chunk-size", "15"]
    assert main([*argv, "--no-progress"]) in (0, None)
    a = load_run(run, backend="pandas")
    b = load_run(out, backend="pandas")
    for c in ("deal_index", "score", "match_score", "match_winner"):
        assert np.array_equal(a[c].to_numpy(), b[c].to_numpy())


def test_summarize_match_lines(run, capsys):
    status, out, _ = call(["summarize", str(run)], capsys)
    assert status in (0, None)
    assert "matches: 40 (unit of the intervals below: the match)" in out
    assert "deals per match: mean" in out and "95% CI" in out


def test_replay_and_check_a_match(run, capsys):
    status, out, err = call(["replay", str(run), "--match", "3", "--deal", "1"], capsys)
    assert status in (0, None), err
    assert "match 3, deal 1 of the match" in out
    status, out, err = call(["replay", str(run), "--deal", "1"], capsys)
    one_error(status, err, ["--match"])
    status, out, err = call(["replay", str(run), "--match", "40", "--deal", "0"], capsys)
    one_error(status, err, ["--match 40", "0 to 39"])
    status, out, err = call(["check", str(run), "--sample", "30", "--no-progress"], capsys)
    assert status in (0, None), out + err
    assert "30 of 30 deals agreed with the referee" in out


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--matches", "0"], ["--matches", "at least 1", "0"]),
        (["--matches", "5", "--deals", "10"], ["--matches 5 --deals 10", "not both"]),
        (["--matches", "5", "--log-deals", "2"], ["--log-deals", "--matches"]),
        (["--matches", "5", "--rule", "max_match_deals=0"], ["max_match_deals", "1..1000"]),
    ],
)
def test_bad_match_input(extra, words, tmp_path, capsys):
    out = tmp_path / "x.parquet"
    status, _, err = call(["simulate", *extra, "--out", str(out), "--no-progress"], capsys)
    one_error(status, err, words)
    assert not out.exists()


def test_schema_doc_has_the_match_columns():
    from pathlib import Path

    assert match_markdown() in (Path(__file__).resolve().parent.parent / "docs" / "schema.md").read_text()
