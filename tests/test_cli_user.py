"""What a new user meets: the compile message and timing, the deal-log file beside the run and
--force, check's progress and sample cap, and turn-limit deals flagged by summarize and check."""

from __future__ import annotations

import json
import os
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_call import call

from strategies import strategy_params
from tranca_sim import io, run
from tranca_sim.cli import build_parser
from tranca_sim.io import load_meta, write_run
from tranca_sim.run import run_simulation
from tranca_sim.schema import COLUMNS


# ---- 8: compiling is said, and not counted in the deals' rate ---------------------------------
@pytest.mark.parametrize("matches", [False, True])
@pytest.mark.parametrize("cached", [False, True])
def test_compile_is_announced_only_when_compiling(tmp_path, capsys, monkeypatch, cached, matches):
    asked = []
    monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb": asked.append(name) or cached)
    what = ["--matches", "2"] if matches else ["--deals", "20"]
    status, _out, err = call(["simulate", *what, "--out", str(tmp_path / "r.parquet")], capsys)
    assert status == 0, err
    from strategies.user import search_wanted  # the test session's engine has the search player

    which = "the engine with the search player" if search_wanted() else "the engine"
    said = f"compiling {which} (once, {run.COMPILE_TIME})" in err
    assert said is not cached
    # a match run plays the match kernel: its cache is the one asked about (a fresh user's first
    # --matches run said nothing while it compiled)
    assert asked == ["_simulate_matches_nb" if matches else "_simulate_nb"]
    assert "loading the engine 0%" not in err
    assert "simulating" in err  # the deals' bar


def test_replay_and_check_say_when_they_compile(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.parquet"
    run_simulation("tranca", 5, 1, "basic", "random", out, progress=False)
    for cached in (False, True):
        monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb", c=cached: c)
        for argv in (["replay", str(out), "--deal", "2"], ["check", str(out), "--sample", "2"]):
            status, _, err = call(argv, capsys)
            assert status == 0, err
            assert (f"compiling the deal player (once, {run.COMPILE_TIME})" in err) is not cached


def test_the_engine_is_cached_after_a_run(tmp_path):
    run_simulation("tranca", 5, 1, "basic", "random", tmp_path / "r.parquet", progress=False)
    assert run.engine_cached()  # the next start loads the kernels and says nothing
    run_simulation("tranca", None, 1, "basic", "random", tmp_path / "m.parquet", progress=False, matches=1)
    assert run.engine_cached("_simulate_matches_nb")
    assert not run.engine_cached("no_such_kernel")  # any surprise answers "not cached"


def test_deals_are_timed_without_the_compile(tmp_path, capsys, monkeypatch):
    """A 2-second 'compile' (the throw-away first deal) is in warmup_seconds, not in the deals'
    seconds, and the progress bar is created only after it, so its rate and time left are the
    deals' alone."""
    from tqdm import auto

    from tranca_sim import engine

    events = []
    real_chunk = engine.simulate_chunk

    def slow_first(rules, specs, master_seed, start, count, check=False):
        if count == 1 and start == 0 and not events:
            events.append("compile")
            time.sleep(2.0)
        return real_chunk(rules, specs, master_seed=master_seed, start=start, count=count, check=check)

    class Bar(auto.tqdm):
        def __init__(self, *a, **k):
            events.append(f"bar {k.get('desc')}")
            super().__init__(*a, **k)

    monkeypatch.setattr(engine, "simulate_chunk", slow_first)
    monkeypatch.setattr(auto, "tqdm", Bar)
    res = run_simulation("tranca", 20, 1, "basic", "random", tmp_path / "r.parquet", log_deals=1)
    assert events == ["compile", "bar logging deals", "bar simulating"]
    assert res["warmup_seconds"] >= 2.0 and res["seconds"] < 1.5
    assert res["deals_per_s"] > 20 / 1.5


# ---- 10: the deal-log file beside the run, replaced with it or not at all ----------------------
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
    readme = (io.Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert "`run.parquet` → `run.log.jsonl`" in readme and "<out>.log.jsonl" not in readme


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


# ---- 11: check shows its progress and caps the sample ------------------------------------------
@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "run.parquet"
    run_simulation("tranca", 12, 3, "basic", "random", out, progress=False)
    return out


def test_check_caps_the_sample_and_shows_progress(small_run, capsys):
    status, out, err = call(["check", str(small_run), "--sample", "500"], capsys)
    assert status == 0, out + err
    assert "tranca-sim: warning: --sample 500 is more than the run's 12 deals; checking all 12" in err
    assert "refereeing" in err and "12/12" in err and "deal/s" in err  # tqdm: count, rate
    assert f"12 of 12 deals agreed with the referee (all 12 deals of {small_run})" in out
    status, out, err = call(["check", str(small_run), "--sample", "5", "--no-progress"], capsys)
    assert status == 0 and err == ""
    assert "5 of 5 deals agreed" in out


# ---- item 1: turn-limit deals are flagged loudly ----------------------------------------------
META = {
    "preset": "tranca",
    "master_seed": 7,
    "deals": 12,
    "strategies": [
        {"name": "basic", "params": [p[1] for p in strategy_params("basic")]},
        {"name": "random", "params": []},
    ],
}
TURN_LIMIT = ("playing", "went_out", "stock_out", "turn_limit").index("turn_limit")


def synthetic_chunk(limited=(2, 7, 9), deals=12):
    """Two rows per deal; deals ``limited`` end at the turn limit, the others by going out."""
    n = 2 * deals
    cols = {name: np.zeros(n, np.int32) for name, _, _ in COLUMNS if name not in io.RUN_COLUMNS}
    cols["deal_index"] = np.repeat(np.arange(deals, dtype=np.int64), 2)
    cols["side"] = np.tile(np.array([0, 1], np.int8), deals)
    cols["score"] = np.tile(np.array([100, -50], np.int32), deals)
    cols["n_turns"] = np.full(n, 30, np.int32)
    reason = np.full(n, 1, np.int8)
    for d in limited:
        reason[2 * d : 2 * d + 2] = TURN_LIMIT
    cols["end_reason"] = reason
    for name in ("won", "went_out"):
        cols[name] = np.tile([True, False], deals)
    return cols


def test_summarize_flags_turn_limit_deals(tmp_path, capsys):
    path = tmp_path / "limited.parquet"
    write_run(path, [synthetic_chunk()], run_meta=META)
    status, out, err = call(["summarize", str(path)], capsys)
    assert status == 0, err
    assert (
        "tranca-sim: warning:" in err
        and "3 deals ended at the turn limit, not by a rule (deals 2, 7, 9)" in err
    )
    assert "WARNING: 3 deals ended at the turn limit, not by a rule (deals 2, 7, 9)" in out
    write_run(tmp_path / "fine.parquet", [synthetic_chunk(limited=())], run_meta=META)
    status, out, err = call(["summarize", str(tmp_path / "fine.parquet")], capsys)
    assert status == 0 and "turn limit" not in out + err


def test_simulate_flags_turn_limit_deals(tmp_path, capsys):
    """max_turns=10 (the lowest allowed) ends every deal of basic vs basic at the limit."""
    out = tmp_path / "short.parquet"
    argv = [
        "simulate",
        "--deals",
        "4",
        "--side-b",
        "basic",
        "--rule",
        "max_turns=10",
        "--out",
        str(out),
        "--no-progress",
    ]
    status, text, err = call(argv, capsys)
    assert status == 0, err
    assert (
        "tranca-sim: warning:" in err
        and "4 deals ended at the turn limit, not by a rule (deals 0, 1, 2, 3)" in err
    )
    assert "WARNING: 4 deals ended at the turn limit" in text


def test_side_labels_from_run_metadata():
    from tranca_sim.cli import side_labels

    defaults = [p[1] for p in strategy_params("basic")]
    changed = [1.0 if p[0] == "black3_lock" else p[1] for p in strategy_params("basic")]
    meta = {
        "strategies": [
            {"name": "basic", "params": changed, "label": "stale"},  # a built-in: today's defaults
            {"name": "mine", "params": [2.0], "param_names": ["k"], "label": "mine:k=2"},  # a user's file
        ]
    }
    assert side_labels(meta) == ["basic:black3_lock=1", "mine:k=2"]
    meta["strategies"][1] = {"name": "mine", "params": [2.0], "param_names": ["k"]}  # no stored label
    assert side_labels(meta)[1] == "mine:k=2"
    meta["strategies"][0]["params"] = defaults
    assert side_labels(meta)[0] == "basic"
    assert side_labels({"strategies": "?"}) is None


def _with_turn_limit(src, dst, deals):
    """Copy of run file ``src`` whose rows of ``deals`` say end_reason turn_limit (scores kept)."""
    t = pq.read_table(src)
    d = t.column("deal_index").to_pylist()
    r = t.column("end_reason").to_pylist()
    r = ["turn_limit" if i in deals else x for i, x in zip(d, r)]
    t = t.set_column(t.schema.get_field_index("end_reason"), "end_reason", pa.array(r, pa.string()))
    pq.write_table(t.replace_schema_metadata(pq.read_schema(src).metadata), dst)
    return dst


def test_check_fails_on_turn_limit_deals_in_the_run(small_run, tmp_path, capsys):
    """Deals 3 and 11 marked as ended at the turn limit: the sampled deals still agree with the
    referee, but the run holds deals that did not end by a rule, so check exits 1 and names them."""
    path = _with_turn_limit(small_run, tmp_path / "limited.parquet", {3, 11})
    status, out, _err = call(["check", str(path), "--sample", "2", "--no-progress"], capsys)
    assert "2 of 2 deals agreed" in out
    assert "TURN LIMIT: 2 deals of the run ended at the turn limit, not by a rule (deals 3, 11)" in out
    assert status == 1
    status, out, _ = call(["check", str(small_run), "--sample", "2", "--no-progress"], capsys)
    assert status == 0 and "TURN LIMIT" not in out


def test_check_fails_on_turn_limit_deals_in_a_log(tmp_path, capsys):
    """max_turns=10 (the lowest allowed) ends deals at the limit; the referee agrees they are
    played legally, and check still exits 1 naming them."""
    out = tmp_path / "short.parquet"
    res = run_simulation(
        "tranca", 4, 1, "basic", "basic", out, progress=False, log_deals=4, rule_options={"max_turns": 10}
    )
    assert res["summary"]["turn_limit"] == 4
    status, text, _ = call(["check", str(tmp_path / "short.log.jsonl")], capsys)
    assert "4 of 4 deals agreed" in text
    assert (
        "TURN LIMIT: 4 deals of the log file ended at the turn limit, not by a rule (deals 0, 1, 2, 3)"
        in text
    )
    assert status == 1


def test_the_readme_counts_the_run_file_columns(small_run):
    """A fresh user's find: the README said a run file has 41 columns; it has 42 (one per entry
    of schema.COLUMNS, in two-side and three-player runs alike: load_run reads COLUMNS)."""
    import re

    readme = (io.Path(__file__).resolve().parents[1] / "README.md").read_text()
    said = re.search(r"One row per \(deal, side\) with (\d+) columns", readme)
    assert said, "the README's Output schema section names the column count"
    from tranca_sim.io import load_run

    assert int(said.group(1)) == len(load_run(small_run).columns) == len(COLUMNS)


@pytest.mark.parametrize("what", [["simulate", "--deals", "20"], ["simulate", "--matches", "2"], ["check"]])
def test_compile_is_announced_with_no_progress_too(small_run, tmp_path, capsys, monkeypatch, what):
    """A fresh user's find: with --no-progress a first run sat silent for the whole compile (24 s
    and more); the compile line is one line, not a bar, and is said all the same."""
    monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb": False)
    if what[0] == "simulate":
        argv = [*what, "--out", str(tmp_path / "r.parquet"), "--no-progress"]
    else:
        argv = ["check", str(small_run), "--sample", "2", "--no-progress"]
    status, _out, err = call(argv, capsys)
    assert status == 0, err
    assert f"(once, {run.COMPILE_TIME}) ..." in err and "compiling the " in err
    assert "simulating" not in err and "refereeing" not in err  # still no bar
