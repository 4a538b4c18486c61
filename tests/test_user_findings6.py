"""The sixth fresh user's findings on the command line: what a signal after the output was written
says, the progress bar while the report is built, and two runs on one output."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny(tmp_path) -> Path:
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    return spec


class _OpenBars:
    """Every tqdm bar made while patched, and which of them are open (not closed yet)."""

    def __init__(self, monkeypatch):
        import tqdm.auto

        self.open: set[int] = set()
        opened = self.open

        class Bar(tqdm.auto.tqdm):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                opened.add(id(self))

            def close(self):
                opened.discard(id(self))
                super().close()

        monkeypatch.setattr(tqdm.auto, "tqdm", Bar)


def test_the_experiments_bar_is_closed_before_the_report_is_built(tiny, tmp_path, monkeypatch, capsys):
    """The bar stayed drawn (at 100%, its clock running) while the charts were drawn; it is
    closed after the last deal and a line says the report is being built."""
    from tranca_sim.lab import experiment as ex

    bars = _OpenBars(monkeypatch)
    seen = []
    real = ex.write_report_if_available

    def report(*args, **kwargs):
        seen.append(set(bars.open))
        return real(*args, **kwargs)

    monkeypatch.setattr(ex, "write_report_if_available", report)
    ex.run_experiment(tiny, tmp_path / "out", progress=True)
    assert seen == [set()]  # the report was built once, with no bar open
    err = capsys.readouterr().err
    assert "tiny: building the report ..." in err
    assert err.rstrip().endswith("tiny: building the report ...")  # after the bar's last line


def test_the_ladders_bar_is_closed_before_the_ratings_and_report(tmp_path, monkeypatch, capsys):
    from tranca_sim.lab import ladder_report
    from tranca_sim.lab.ladder import run_ladder

    bars = _OpenBars(monkeypatch)
    seen = []
    real = ladder_report.summarize_ladder

    def summarize(*args, **kwargs):
        seen.append(set(bars.open))
        return real(*args, **kwargs)

    monkeypatch.setattr(ladder_report, "summarize_ladder", summarize)
    run_ladder(tmp_path / "lad", players=["basic", "random"], decks=4, slow_decks=2, bootstrap=100, threads=1)
    assert seen == [set()]
    err = capsys.readouterr().err
    assert "rating the players (100 bootstrap resamples) and building the report ..." in err


def test_an_interrupt_while_the_workers_shut_down_says_the_output_was_written(
    tiny, tmp_path, monkeypatch, capsys
):
    """Ctrl-C (or SIGTERM) after the experiment's directory was renamed into place, while the pool
    shut down, said the directory 'was not written'; it says it was, and leaves it."""
    from tranca_sim import parallel

    real = parallel.pool

    @contextlib.contextmanager
    def pool(*args, **kwargs):
        with real(*args, **kwargs) as p:
            yield p
        raise KeyboardInterrupt  # as if Ctrl-C came while the workers were shut down

    monkeypatch.setattr(parallel, "pool", pool)
    out = tmp_path / "out"
    status, _, err = call(["experiment", str(tiny), "--out", str(out), "--no-progress"], capsys)
    assert status == 130 and err == f"tranca-sim: error: interrupted after writing {out}\n", err
    assert (out / "report.md").is_file()


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_a_signal_after_the_command_finished_says_what_was_kept(tiny, tmp_path, sig):
    """A fresh user's find: SIGTERM right after an experiment's output was written (while the
    process shut down) ended it with status 143 and not a word; Ctrl-C there too (status -2). The
    signal now gets the line Ctrl-C gets during the run, and its status. The script's exit
    functions (here one that waits) run with the handler in place."""
    out = tmp_path / "out"
    code = (  # the script's exit functions: say so, then wait (the process is shutting down)
        "import atexit, os, sys, time; sys.argv[0] = 'tranca-sim'; "
        "atexit.register(lambda: (os.write(2, b'exiting\\n'), time.sleep(60))); "
        "from tranca_sim.cli import main; sys.exit(main())"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, "experiment", str(tiny), "--out", str(out), "--no-progress"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = p.stderr.readline()  # the command is done, the process shuts down
        assert first == "exiting\n", first + p.stderr.read()[-2000:]
        p.send_signal(getattr(signal, sig))
        stdout, err = p.communicate(timeout=30)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    what, status = ("terminated", 143) if sig == "SIGTERM" else ("interrupted", 130)
    assert p.returncode == status, err
    assert err == f"tranca-sim: error: {what} after writing {out}\n"
    assert stdout.rstrip().splitlines()[-1].startswith("design duplicate")  # everything was said first
    assert (out / "report.md").is_file()


# ---- one run at a time per output -----------------------------------------------------------
def _hold_lock(out) -> subprocess.Popen:
    """Another process holding the output lock of ``out`` (as a run writing it does), until killed."""
    code = (
        "import sys, time; from tranca_sim.outlock import output_lock\n"
        "with output_lock(sys.argv[1]):\n    print('held', flush=True); time.sleep(120)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, str(out)],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        text=True,
    )
    assert p.stdout.readline() == "held\n"
    return p


def _stop(p: subprocess.Popen) -> None:
    if p.poll() is None:
        p.kill()
    p.wait()


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--deals", "10", "--out", "{out}/", "--resume"],
        ["simulate", "--deals", "10", "--out", "{out}", "--force"],
        ["simulate", "--deals", "10", "--out", "{out}.parquet", "--force"],
        ["experiment", "{tiny}", "--out", "{out}", "--force"],
        ["ladder", "--player", "basic", "--player", "random", "--decks", "4", "--out", "{out}", "--force"],
        ["tune", "basic", "--budget", "120000", "--out", "{out}", "--force"],
    ],
    ids=["resume", "dataset-force", "run-file", "experiment", "ladder", "tune"],
)
def test_a_second_run_on_an_output_being_written_is_refused(tiny, tmp_path, capsys, argv):
    """A fresh user's find: nothing stopped a second run from writing the --out another live run
    was writing (two writers of one dataset's manifest and chunks). The second is refused with one
    line naming the first run's pid, before it touches anything."""
    out = tmp_path / "out"
    target = f"{out}.parquet" if "{out}.parquet" in argv else out
    holder = _hold_lock(target)
    try:
        args = [a.format(out=out, tiny=tiny) for a in argv] + ["--no-progress"]
        status, stdout, err = call(args, capsys)
    finally:
        _stop(holder)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"tranca-sim: error: --out '{args[args.index('--out') + 1]}' is being written by ")
    assert f"another tranca-sim run (pid {holder.pid}, started " in err and f"kill {holder.pid}" in err
    assert not out.exists() and not Path(f"{out}.parquet").exists() and stdout == ""


def test_the_lock_of_a_dead_run_is_taken_over_and_a_live_runs_output_is_not_damaged(tmp_path, capsys):
    """A run killed with SIGKILL leaves its lock file (no handler runs) but not its lock: the next
    run takes it over and removes it at its end. A dataset run in progress in another process is
    refused to a second run and finishes whole."""
    from tranca_sim.io import verify_run
    from tranca_sim.outlock import LOCK_SUFFIX, lock_path

    out = tmp_path / "run.parquet"
    stale = lock_path(out)
    assert stale == tmp_path / f".run.parquet{LOCK_SUFFIX}"
    stale.write_text("999999999\n2026-01-01T00:00:00+00:00\ntranca-sim simulate (killed)\n")
    status, _, err = call(["simulate", "--deals", "10", "--out", str(out), "--no-progress"], capsys)
    assert status == 0, err
    assert out.is_file() and not stale.exists()

    data = tmp_path / "data"
    first = subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", "simulate", "--deals", "600", "--chunk-size", "100",
         "--out", f"{data}/", "--processes", "1", "--no-progress"],
        env=dict(os.environ, PYTHONPATH=str(ROOT), TRANCA_SIM_TEST_CHUNK_SLEEP="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        import time

        t0 = time.time()
        while not (data / "chunk-000000.parquet").exists():
            assert first.poll() is None and time.time() - t0 < 180, first.communicate()
            time.sleep(0.1)
        for extra in (["--resume"], ["--force"]):
            argv = ["simulate", "--deals", "600", "--chunk-size", "100", "--out", f"{data}/", *extra]
            status, _, err = call([*argv, "--no-progress"], capsys)
            assert status == 2 and f"(pid {first.pid}, started " in err, err
        _, first_err = first.communicate(timeout=180)
    finally:
        _stop(first)
    assert first.returncode == 0, first_err
    assert verify_run(data)["deals"] == 600  # every chunk whole, as the manifest lists them
    assert not lock_path(f"{data}/").exists()


def test_a_process_takes_its_own_lock_again(tmp_path):
    """The command line locks --out before its checks and the run function locks it again."""
    from tranca_sim.outlock import lock_path, output_lock

    out = tmp_path / "x.parquet"
    with output_lock(out):
        with output_lock(out):
            assert lock_path(out).read_text().split("\n")[0] == str(os.getpid())
        assert lock_path(out).exists()
    assert not lock_path(out).exists()


def test_every_run_function_locks_its_output(tmp_path):
    """The Python API holds the lock too: each run function refuses an output another process
    is writing (tune's is its configuration's ``out``)."""
    from tranca_sim.lab.ladder import run_ladder
    from tranca_sim.lab.tune import TuneConfig, run_tune
    from tranca_sim.outlock import OutputBusyError
    from tranca_sim.run import run_simulation

    out = tmp_path / "out"
    holder = _hold_lock(out)
    try:
        calls = [
            lambda: run_simulation("tranca", 10, 1, "basic", "random", out, progress=False, dataset=True),
            lambda: run_ladder(out, players=["basic", "random"], decks=4, progress=False),
            lambda: run_tune(
                TuneConfig("basic", "tranca", "basic", budget=120_000, out=str(out), progress=False)
            ),
        ]
        for run in calls:
            with pytest.raises(OutputBusyError) as e:
                run()
            assert e.value.pid == holder.pid
    finally:
        _stop(holder)
    assert not out.exists()


def test_a_run_on_worker_processes_ends_when_it_is_done(tmp_path):
    """A fresh user's find: every ``--processes 2`` run of the console script printed its summary
    and then waited out loky's 300 s idle timeout before the prompt came back (the fast exit ran
    multiprocessing's exit function, which joins the workers, before loky's thread-exit callback had
    shut them down).  The run must end within seconds of its last line."""
    import time

    out = tmp_path / "p2"
    t0 = time.monotonic()
    p = subprocess.run(
        [sys.executable, "-m", "tranca_sim.cli", "simulate", "--deals", "400", "--chunk-size", "100",
         "--out", f"{out}/", "--processes", "2", "--no-progress"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )  # fmt: skip
    took = time.monotonic() - t0
    assert p.returncode == 0, p.stderr
    assert "2 processes" in p.stdout
    assert took < 150, f"{took:.0f} s: the process waited for its idle workers"  # a hang is 300 s
