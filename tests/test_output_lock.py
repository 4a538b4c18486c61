"""The output lock: one run at a time writes an output (a second run is refused with one line
naming the first run's pid, a dead run's lock is taken over, every run function and `report` take
it), also when --out's directory does not exist yet or accepts no new file. For such an output
each command is checked for what its run does: simulate refuses a missing directory and writes
nothing; experiment, tune and ladder create it (as their runs do) and hold the lock while they
run; a read-only directory is one error line (exit 2) for every command that writes, since the
output could not be written there either."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call, one_error_line
from lock_holder import hold_lock, stop

from tranca_sim import outlock

ROOT = Path(__file__).resolve().parents[1]

# the lab commands, each with the run function it calls (patched: no deal is played here)
LAB = {
    "experiment": (["experiment", "{tiny}"], "tranca_sim.lab.experiments.experiment.run_experiment"),
    "tune": (["tune", "basic", "--budget", "120000"], "tranca_sim.lab.tuning.tune.run_tune"),
    "ladder": (["ladder", "--player", "basic", "--player", "random", "--decks", "4"], "tranca_sim.lab.ladder.ladder.run_ladder"),
}  # fmt: skip


@pytest.fixture
def tiny(tmp_path) -> Path:
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    return spec


class _Stop(Exception):
    pass


@pytest.mark.parametrize("cmd", list(LAB))
def test_a_lab_run_into_a_missing_directory_creates_it_and_holds_the_lock(
    tiny, tmp_path, capsys, monkeypatch, cmd
):
    """`experiment ... --out new/deep/e` made new/deep when it wrote the output, but took no lock:
    the lock file could not be made in a directory that did not exist yet."""
    argv, target = LAB[cmd]
    out = tmp_path / "new" / "deep" / "e"
    seen = {}

    def run(*args, **kwargs):
        lp = outlock.lock_path(out)
        seen["lock"] = lp.is_file() and lp.read_text().split("\n")[0] == str(os.getpid())
        seen["held"] = str(lp) in outlock._HELD
        raise _Stop

    monkeypatch.setattr(target, run)
    with pytest.raises(_Stop):
        call([a.format(tiny=tiny) for a in argv] + ["--out", str(out), "--no-progress"], capsys)
    assert seen == {"lock": True, "held": True}, seen
    # the run failed before writing: the directories made for it are removed again, and the lock file
    assert not (tmp_path / "new").exists()


def test_simulate_into_a_missing_directory_is_one_line_and_makes_nothing(tmp_path, capsys):
    for out in (tmp_path / "new" / "r.parquet", f"{tmp_path / 'new' / 'd'}/"):
        status, stdout, err = call(["simulate", "--deals", "4", "--out", str(out), "--no-progress"], capsys)
        assert status == 2 and stdout == "" and err.count("\n") == 1, err
        assert f"'{tmp_path / 'new'}' does not exist" in err
        assert not (tmp_path / "new").exists()


def _read_only(monkeypatch, d: Path) -> None:
    """Directory ``d`` accepts no new file or directory (as a read-only mount: EROFS), whoever runs
    the tests (root writes into a mode-555 directory)."""
    real_open, real_mkdir = os.open, os.mkdir

    def inside(p) -> bool:
        return Path(os.path.abspath(os.fspath(p))).parent == d

    def fake_open(p, flags, *a, **k):
        if flags & os.O_CREAT and inside(p) and not os.path.exists(p):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(p))
        return real_open(p, flags, *a, **k)

    def fake_mkdir(p, *a, **k):
        if inside(p):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS), os.fspath(p))
        return real_mkdir(p, *a, **k)

    monkeypatch.setattr(os, "open", fake_open)
    monkeypatch.setattr(os, "mkdir", fake_mkdir)


@pytest.mark.parametrize(
    "argv",
    [
        ["simulate", "--deals", "4", "--out", "{ro}/r.parquet"],
        ["simulate", "--deals", "4", "--out", "{ro}/d/"],
        [*LAB["experiment"][0], "--out", "{ro}/e"],
        [*LAB["tune"][0], "--out", "{ro}/t"],
        [*LAB["ladder"][0], "--out", "{ro}/l"],
        [*LAB["experiment"][0], "--out", "{ro}/new/e"],
    ],
    ids=["simulate-file", "simulate-dataset", "experiment", "tune", "ladder", "experiment-missing-dir"],
)
def test_an_output_in_a_read_only_directory_is_one_error_line(tiny, tmp_path, capsys, monkeypatch, argv):
    ro = tmp_path / "ro"
    ro.mkdir()
    _read_only(monkeypatch, ro)
    status, stdout, err = call([a.format(tiny=tiny, ro=ro) for a in argv] + ["--no-progress"], capsys)
    assert status == 2 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith("tranca-sim: error: --out: cannot write ")
    assert str(ro) in err and "Read-only file system" in err, err
    assert os.listdir(ro) == []


def test_report_redraws_beside_a_read_only_parent(tmp_path, capsys, monkeypatch):
    """report writes inside DIR, not beside it: no lock file can be made beside DIR, so it redraws
    unlocked rather than being refused (here DIR is no experiment: that is its only error)."""
    ro = tmp_path / "ro"
    (ro / "exp").mkdir(parents=True)
    _read_only(monkeypatch, ro)
    with (
        pytest.raises(outlock.OutputDirError, match="Read-only file system"),
        outlock.output_lock(ro / "exp"),
    ):
        pass
    status, _, err = call(["report", str(ro / "exp")], capsys)
    assert status == 2 and "Read-only" not in err and "cannot write" not in err, err


# ---- one run at a time per output -----------------------------------------------------------
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
    holder = hold_lock(target)
    try:
        args = [a.format(out=out, tiny=tiny) for a in argv] + ["--no-progress"]
        status, stdout, err = call(args, capsys)
    finally:
        stop(holder)
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
        stop(first)
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
    from tranca_sim.lab.ladder.ladder import run_ladder
    from tranca_sim.lab.tuning.tune import TuneConfig, run_tune
    from tranca_sim.outlock import OutputBusyError
    from tranca_sim.simulate import run_simulation

    out = tmp_path / "out"
    holder = hold_lock(out)
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
        stop(holder)
    assert not out.exists()


def test_report_waits_for_no_run_and_refuses_a_directory_being_written(tmp_path, capsys):
    """`tranca-sim report DIR` took no lock while an experiment wrote DIR: it now takes DIR's
    output lock and is refused, naming the run, while another process holds it."""
    d = tmp_path / "exp"
    d.mkdir()
    holder = hold_lock(d)
    try:
        status, stdout, err = call(["report", str(d)], capsys)
    finally:
        stop(holder)
    assert status == 2 and stdout == "" and err.count("\n") == 1, err
    # worded for what report does (it reads the run files and redraws), not for a second run writing
    assert err.startswith(
        f"tranca-sim: error: cannot redraw the report of {str(d)!r} now: another tranca-sim run "
        f"(pid {holder.pid}, started "
    )
    assert "is writing that directory, and the report is read from its run files" in err
    assert (
        f"wait for that run to end (it writes the report itself) or stop it first (kill {holder.pid})" in err
    )
    assert "two runs writing one output" not in err and "is being written by" not in err
    # the lock is gone with its holder: report then reads the directory (not an experiment: its own error)
    status, _, err = call(["report", str(d)], capsys)
    assert status == 2 and "is being written" not in err


def test_a_dataset_in_a_directory_that_takes_none_names_the_flag(tmp_path, capsys):
    """`simulate --out /proc/a/` said `cannot write '/proc/a': ...` without the usual `--out:`,
    after the engine was loaded."""
    import os

    if not os.path.isdir("/proc") or os.access("/proc", os.W_OK) and _can_mkdir("/proc"):
        pytest.skip("needs a directory that accepts no new directory")
    status, _, err = call(["simulate", "--deals", "10", "--out", "/proc/f10-dataset/"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert line.startswith("tranca-sim: error: --out: cannot write '/proc/f10-dataset'")
    assert "no directory can be created in '/proc'" in line


def _can_mkdir(d) -> bool:
    import os

    try:
        os.mkdir(os.path.join(d, "f10-probe"))
    except OSError:
        return False
    os.rmdir(os.path.join(d, "f10-probe"))
    return True
