"""A user strategy that never returns: Ctrl-C and SIGTERM still stop the command.

The kernels play on helper threads (tranca_sim.engine.kernel.off_main_thread, in_threads; the
in-process chunk thread of tranca_sim.parallel), so the main thread sees the signal while a
compiled loop holds its thread, unwinds (temporary files removed, a dataset left resumable),
writes the one line and ends the process (tranca_sim.cli.main: os._exit, as Python's shutdown
would wait for the looping thread forever).  Before this, only SIGKILL ended such a run.

tests/strategies/forever.py loops forever at the first draw of a player dealt both jokers
(``mode=1``) and raises there instead with ``mode=2``: a first process (which also compiles the
engine with the file, into the suite's cache: 1-3 minutes the first time on a busy 2-core
machine) finds with ``mode=2`` the first such deal of a seed, so the runs below write their
first chunk (the deals before it) and then loop.  Each run is a fresh process, sent the signal
once its temporary output exists, and a seeded random moment later (the stacked-deck kernel of
--log-deals may still be compiling then).  The checks are the one line, no traceback and no
library's ``Exception ignored`` (llvmlite's ObjectRef.__del__ once followed the line, under load).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_call import as_from_a_terminal, only_the_line

from tranca_sim.strategies import user

ROOT = Path(__file__).resolve().parents[1]
FOREVER = ROOT / "tests" / "strategies" / "forever.py"
#: seconds the command may take to end after the signal (measured: well under 1 s)
STOP_WITHIN = 10


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env.pop(user.ENV, None)
    env.pop(user.SEARCH_ENV, None)  # the lean engine: less to compile
    return env


@pytest.fixture(scope="module")
def first_loop():
    """(seed, first looping deal) with that deal at least 3: deals 0 .. deal-1 play out."""
    script = textwrap.dedent(
        f"""
        import json
        from tranca_sim.strategies import resolve
        spec = resolve({str(FOREVER)!r} + ":forever:mode=2")
        from tranca_sim.engine import simulate_chunk
        from tranca_sim.rules import get_preset
        rules = get_preset("tranca")
        for seed in range(1, 50):
            for d in range(200):
                try:
                    simulate_chunk(rules, (spec, "basic"), seed, d, 1)
                except ValueError:
                    break
            if 3 <= d < 199:
                print(json.dumps([seed, d]))
                break
        """
    )
    p = subprocess.run([sys.executable, "-c", script], env=_env(), capture_output=True, text=True,
                       timeout=900, check=False)  # fmt: skip
    assert p.returncode == 0, p.stderr
    seed, deal = json.loads(p.stdout)
    return seed, deal


def _stop(argv, cwd, sig, ready):
    """Run ``tranca-sim ARGV`` in ``cwd``, send ``sig`` once ``ready()``; (status, stderr, seconds
    from the signal to the end)."""
    p = subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", *argv],
        cwd=cwd,
        env=_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=as_from_a_terminal,
    )
    try:
        deadline = time.monotonic() + 600
        while not ready():
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.05)
        # the looping chunk is on its thread by now (a chunk of a few deals: ms), or still compiling
        time.sleep(1.0 + random.Random(" ".join(argv)).uniform(0.0, 1.5))
        assert p.poll() is None, p.communicate()  # still running: the loop holds it
        p.send_signal(sig)
        t0 = time.monotonic()
        _, err = p.communicate(timeout=STOP_WITHIN)
        return p.returncode, err, time.monotonic() - t0
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()


SIGNALS = [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")]


@pytest.mark.parametrize(("sig", "status", "word"), SIGNALS)
@pytest.mark.parametrize("threads", ["1", "2"])
def test_simulate_stops_while_a_strategy_loops(first_loop, tmp_path, sig, status, word, threads):
    seed, deal = first_loop
    argv = ["simulate", "--side-a", f"{FOREVER}:forever:mode=1", "--side-b", "basic", "--seed", str(seed),
            "--deals", str(100 * deal), "--chunk-size", str(deal), "--threads", threads,
            "--out", "r.parquet", "--no-progress"]  # fmt: skip

    def temp_file():
        return any(f.startswith(".tmp-tranca-") for f in os.listdir(tmp_path))

    got, err, _ = _stop(argv, tmp_path, sig, temp_file)
    assert got == status, err
    only_the_line(err, f"tranca-sim: error: {word}; no output file was written")
    assert os.listdir(tmp_path) == []  # the half-written temporary file is removed


def test_a_dataset_stopped_while_a_strategy_loops_stays_resumable(first_loop, tmp_path):
    seed, deal = first_loop
    argv = ["simulate", "--side-a", f"{FOREVER}:forever:mode=1", "--side-b", "basic", "--seed", str(seed),
            "--deals", str(100 * deal), "--chunk-size", str(deal), "--out", "wr/", "--no-progress"]  # fmt: skip

    def first_chunk():
        return (tmp_path / "wr" / "chunk-000000.parquet").exists()

    got, err, _ = _stop(argv, tmp_path, signal.SIGTERM, first_chunk)
    assert got == 143, err
    only_the_line(
        err,
        "tranca-sim: error: terminated; the chunks written so far are kept in wr/: run the same "
        "command with --resume to finish it",
    )
    names = sorted(os.listdir(tmp_path / "wr"))
    assert "chunk-000000.parquet" in names and "manifest.json" in names
    assert not [n for n in names if n.startswith(".")]  # no temporary chunk left
    manifest = json.loads((tmp_path / "wr" / "manifest.json").read_text())
    assert [c["index"] for c in manifest["chunks"]][:1] == [0]  # --resume starts after it


@pytest.mark.parametrize(("sig", "status", "word"), SIGNALS)
def test_experiment_stops_while_a_strategy_loops(first_loop, tmp_path, sig, status, word):
    seed, deal = first_loop
    (tmp_path / "loop.toml").write_text(
        textwrap.dedent(
            f"""
            title = "A strategy that never returns"
            question = "Does Ctrl-C stop it?"
            preset = "tranca"
            baseline = "basic"
            seed = {seed}
            batch = {2 * 100 * deal}
            budget = {2 * 100 * deal}

            [[variants]]
            label = "forever"
            strategy = "{FOREVER}:forever:mode=1"
            """
        )
    )
    argv = ["experiment", "loop.toml", "--out", "out", "--no-progress"]

    def temp_dir():
        return any(f.startswith(".out.tmp-") for f in os.listdir(tmp_path))

    got, err, _ = _stop(argv, tmp_path, sig, temp_dir)
    assert got == status, err
    only_the_line(err, f"tranca-sim: error: {word}; out was not written (an existing one is left as it was)")
    assert sorted(os.listdir(tmp_path)) == ["loop.toml"]


def test_ladder_stops_while_a_strategy_loops(first_loop, tmp_path):
    seed, deal = first_loop
    argv = ["ladder", "--out", "lad", "--player", f"loop={FOREVER}:forever:mode=1", "--player", "basic",
            "--decks", str(100 * deal), "--seed", str(seed), "--no-progress"]  # fmt: skip

    def temp_dir():
        return any(f.startswith(".lad.tmp-") for f in os.listdir(tmp_path))

    got, err, _ = _stop(argv, tmp_path, signal.SIGINT, temp_dir)
    assert got == 130, err
    only_the_line(
        err, "tranca-sim: error: interrupted; lad was not written (an existing one is left as it was)"
    )
    assert os.listdir(tmp_path) == []


def test_logging_a_looping_deal_stops(first_loop, tmp_path):
    """--log-deals plays the logged deals one by one (engine.log.play_logged, the stacked-deck
    kernel) before the run: the looping deal logged first."""
    seed, deal = first_loop
    argv = ["simulate", "--side-a", f"{FOREVER}:forever:mode=1", "--side-b", "basic", "--seed", str(seed),
            "--deals", str(10 * deal), "--log-deals", str(deal), "--out", "r.parquet", "--no-progress"]  # fmt: skip

    def temp_file():
        return any(f.startswith(".tmp-tranca-") for f in os.listdir(tmp_path))

    got, err, _ = _stop(argv, tmp_path, signal.SIGTERM, temp_file)
    assert got == 143, err
    only_the_line(err, "tranca-sim: error: terminated; no output file was written")
    assert os.listdir(tmp_path) == []


def test_tune_stops_while_its_opponent_loops(first_loop, tmp_path):
    """tune writes its directory only at the end: the signal comes a few seconds after the start,
    when the trials play (the looping deal is among a trial's first decks)."""
    seed, _ = first_loop
    argv = ["tune", "basic", "--vs", f"{FOREVER}:forever:mode=1", "--budget", "120000", "--params", "go_out",
            "--out", "t", "--seed", str(seed), "--no-progress"]  # fmt: skip
    start = time.monotonic()
    got, err, _ = _stop(argv, tmp_path, signal.SIGTERM, lambda: time.monotonic() - start > 5)
    assert got == 143, err
    only_the_line(err, "tranca-sim: error: terminated; t was not written (an existing one is left as it was)")
    assert os.listdir(tmp_path) == []
