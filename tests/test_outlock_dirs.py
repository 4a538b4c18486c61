"""The output lock when --out's directory does not exist yet or accepts no new file (a fresh
user's find: no lock was taken in either case). Each command is checked for what its run does
with such an output: simulate refuses a missing directory and writes nothing; experiment, tune
and ladder create it (as their runs do) and now hold the lock while they run; a read-only
directory is one error line (exit 2) for every command that writes, since the output could not be
written there either."""

from __future__ import annotations

import errno
import os
import textwrap
from pathlib import Path

import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call

from tranca_sim import outlock

# the lab commands, each with the run function it calls (patched: no deal is played here)
LAB = {
    "experiment": (["experiment", "{tiny}"], "tranca_sim.lab.experiment.run_experiment"),
    "tune": (["tune", "basic", "--budget", "120000"], "tranca_sim.lab.tune.run_tune"),
    "ladder": (["ladder", "--player", "basic", "--player", "random", "--decks", "4"], "tranca_sim.lab.ladder.run_ladder"),
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
