"""The tranca-sim command: runs, summaries, listings, and one-line errors with exit status 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numba
import pytest

from tranca_sim.cli import main
from tranca_sim.io import RunFileError, load_meta, load_run
from tranca_sim.run import run_simulation

ROOT = Path(__file__).resolve().parents[1]
DEALS = "200"


def run_cli(*args, cwd):
    """The command in a fresh process (exit status, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    p = subprocess.run(
        [sys.executable, "-m", "tranca_sim.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
    )
    return p.returncode, p.stdout, p.stderr


def call(argv, capsys):
    """``main(argv)`` in this process: (exit status, stdout, stderr)."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def assert_user_error(status, err, *words):
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: ")
    for w in words:
        assert w in lines[0]


# ---- successful runs --------------------------------------------------------------
def test_simulate_then_summarize(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    status, stdout, err = call(
        ["simulate", "--deals", DEALS, "--seed", "5", "--out", str(out), "--no-progress"], capsys
    )
    assert status == 0, err
    assert f"{DEALS} deals in " in stdout and "deals/s (" in stdout
    assert "A - B per deal (paired, 200 deals)" in stdout
    df = load_run(out)
    assert df.height == 400
    assert set(df["strategy"]) == {"basic", "random"}
    meta = load_meta(out)
    assert meta["deals"] == 200 and meta["master_seed"] == 5 and meta["preset"] == "tranca"
    assert meta["rules"]["name"] == "tranca"
    status, stdout2, err = call(["summarize", str(out)], capsys)
    assert status == 0, err
    table = [line for line in stdout.splitlines() if line.startswith(("A ", "B ", "A - B"))]
    assert table and all(line in stdout2 for line in table)


def test_results_independent_of_threads_and_chunks(tmp_path, capsys):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    base = ["simulate", "--deals", DEALS, "--seed", "11", "--no-progress", "--side-b", "basic"]
    assert call([*base, "--out", str(a), "--threads", "1", "--chunk-size", "200"], capsys)[0] == 0
    every = str(numba.config.NUMBA_NUM_THREADS)
    assert call([*base, "--out", str(b), "--threads", every, "--chunk-size", "37"], capsys)[0] == 0
    assert load_meta(a)["threads"] == 1 and load_meta(b)["threads"] == int(every)
    assert load_run(a).equals(load_run(b))


def test_rule_options_reach_the_run(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress",
            "--rule", "max_wilds=1", "--rule", "pile_closed=false", "--rule", "em_cima=0"]  # fmt: skip
    status, _, err = call(argv, capsys)
    assert status == 0, err
    rules = load_meta(out)["rules"]
    assert (rules["max_wilds"], rules["pile_closed"], rules["em_cima"]) == (1, False, False)


def test_force_overwrites(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    out.write_bytes(b"old")
    status, _, err = call(
        ["simulate", "--deals", DEALS, "--out", str(out), "--force", "--no-progress"], capsys
    )
    assert status == 0, err
    assert load_run(out).height == 400
    assert sorted(os.listdir(tmp_path)) == ["run.parquet"]


def test_presets_and_strategies_listings(capsys):
    status, out, _ = call(["presets"], capsys)
    assert status == 0 and "tranca " in out and "tranca-paulista" in out
    status, out, _ = call(["strategies"], capsys)
    assert status == 0 and "basic" in out and "random" in out and "parameters:" in out


def test_console_entry_point_in_fresh_process(tmp_path):
    status, out, err = run_cli(
        "simulate", "--deals", DEALS, "--out", "r.parquet", "--no-progress", cwd=tmp_path
    )
    assert status == 0, err
    assert "deals/s" in out and (tmp_path / "r.parquet").exists()


# ---- user errors: one line on stderr, status 2, nothing written -------------------
BAD_SIMULATE = [
    (["--preset", "nope"], ["unknown preset", "nope"]),
    (["--preset", "buraco"], ["buraco", "not played"]),
    (["--side-a", "nope"], ["nope"]),
    (["--side-b", "basic:no_such_param=1"], ["no_such_param"]),
    (["--deals", "0"], ["--deals"]),
    (["--deals", "-5"], ["--deals"]),
    (["--deals", "many"], ["--deals"]),
    (["--seed", "-1"], ["--seed"]),
    (["--threads", "0"], ["--threads"]),
    (["--threads", "100000"], ["threads"]),
    (["--chunk-size", "0"], ["--chunk-size"]),
    (["--rule", "no_such_rule=1"], ["no_such_rule"]),
    (["--rule", "max_wilds=many"], ["max_wilds", "integer"]),
    (["--rule", "pile_closed=perhaps"], ["pile_closed"]),
    (["--rule", "max_wilds=9"], ["max_wilds"]),
    (["--rule", "max_wilds"], ["OPTION=VALUE"]),
    (["--rule", "name=x"], ["name"]),
    (["--no-such-flag"], ["--no-such-flag"]),
]


@pytest.mark.parametrize(("args", "words"), BAD_SIMULATE, ids=[" ".join(a) for a, _ in BAD_SIMULATE])
def test_bad_simulate_input(tmp_path, capsys, args, words):
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", *args], capsys)
    assert_user_error(status, err, *words)
    assert os.listdir(tmp_path) == []


def test_existing_output_without_force(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    out.write_bytes(b"precious")
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert_user_error(status, err, "already exists", str(out))
    assert out.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["run.parquet"]


@pytest.mark.parametrize("where", ["missing-dir/run.parquet", "a-file/run.parquet", "."])
def test_unwritable_output(tmp_path, capsys, where):
    (tmp_path / "a-file").write_text("x")
    out = tmp_path / where
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert_user_error(status, err)
    assert sorted(os.listdir(tmp_path)) == ["a-file"]


def test_bad_summarize_input(tmp_path, capsys):
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1 this is not parquet at all")
    status, _, err = call(["summarize", str(garbage)], capsys)
    assert_user_error(status, err, str(garbage), "not a readable Parquet file")
    status, _, err = call(["summarize", str(tmp_path / "missing.parquet")], capsys)
    assert_user_error(status, err, "does not exist")


def test_truncated_input(tmp_path, capsys):
    good = tmp_path / "good.parquet"
    assert call(["simulate", "--deals", DEALS, "--out", str(good), "--no-progress"], capsys)[0] == 0
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-100])
    status, _, err = call(["summarize", str(bad)], capsys)
    assert_user_error(status, err, str(bad))


def test_errors_in_fresh_process_have_no_traceback(tmp_path):
    (tmp_path / "exists.parquet").write_bytes(b"x")
    for args in (
        ["simulate", "--no-progress", "--preset", "nope"],
        ["simulate", "--no-progress", "--side-a", "nope"],
        ["simulate", "--no-progress", "--deals", "0"],
        ["simulate", "--no-progress", "--out", "exists.parquet"],
        ["summarize", "exists.parquet"],
    ):
        status, _, err = run_cli(*args, cwd=tmp_path)
        assert_user_error(status, err)
    assert os.listdir(tmp_path) == ["exists.parquet"]


def test_no_command(capsys):
    status, _, err = call([], capsys)
    assert_user_error(status, err, "COMMAND")


# ---- failures during the run: nothing partial is left ----------------------------
def test_interrupt_leaves_nothing(tmp_path, capsys, monkeypatch):
    from tranca_sim import engine

    real = engine.simulate_chunk
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", interrupted)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    status, _, err = call(argv, capsys)
    assert status == 130 and "interrupted" in err and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_engine_failure_leaves_nothing(tmp_path, monkeypatch):
    from tranca_sim import engine

    real = engine.simulate_chunk

    def failing(*args, start, **kwargs):
        if start > 0:
            raise RuntimeError("engine exploded")
        return real(*args, start=start, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", failing)
    out = tmp_path / "run.parquet"
    with pytest.raises(RuntimeError, match="exploded"):
        run_simulation("tranca", 200, 1, "basic", "random", out, chunk_size=50, progress=False)
    assert os.listdir(tmp_path) == []


def test_validation_happens_before_simulating(tmp_path, monkeypatch):
    from tranca_sim import engine

    def never(*args, **kwargs):
        raise AssertionError("the engine must not run")

    monkeypatch.setattr(engine, "simulate_chunk", never)
    (tmp_path / "exists.parquet").write_bytes(b"x")
    with pytest.raises(RunFileError):
        run_simulation("tranca", 200, 1, "basic", "random", tmp_path / "exists.parquet", progress=False)
    with pytest.raises(ValueError, match="deals"):
        run_simulation("tranca", 0, 1, "basic", "random", tmp_path / "new.parquet", progress=False)
    assert os.listdir(tmp_path) == ["exists.parquet"]
