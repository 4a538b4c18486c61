"""The seventh fresh user's cosmetic findings: counts in the simulate line, a warning about a
default, an experiment directory named like a run file, and `report` while a run writes DIR."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from cli_call import call

from tranca_sim import run as run_mod
from tranca_sim.run import run_simulation

ROOT = Path(__file__).resolve().parents[1]
from test_user_findings6 import TINY, _hold_lock, _stop


def test_one_worker_process_is_said_in_the_singular(tmp_path, capsys, monkeypatch):
    """`simulate --deals 20000 --processes 2` is one chunk, so one process played it: the line said
    "(1 processes, 1 thread each)". The run is played here in this process; only the workers'
    record says one worker process played it."""
    real = run_mod.run_simulation

    def one_worker(*args, **kw):
        kw["processes"] = None
        res = real(*args, **kw)
        res["workers"] = {4242: {"load_seconds": 0.5, "cache_misses": 0}}
        return res

    monkeypatch.setattr(run_mod, "run_simulation", one_worker)
    status, out, err = call(["simulate", "--deals", "20", "--processes", "2", "--out", str(tmp_path / "r.parquet"),
                             "--no-progress"], capsys)  # fmt: skip
    assert status == 0, err
    assert "(1 process, 1 thread each)" in out and "1 processes" not in out


@pytest.fixture(scope="module")
def one_deal(tmp_path_factory):
    out = tmp_path_factory.mktemp("one") / "one.parquet"
    run_simulation("tranca", 1, 5, "basic", "random", out, progress=False)
    return out


def test_check_warns_about_a_sample_only_when_one_was_given(one_deal, capsys):
    """`check one.parquet` on a one-deal run warned "--sample 200 is more than the run's 1 deal"
    about a default the user never gave."""
    status, out, err = call(["check", str(one_deal), "--no-progress"], capsys)
    assert status == 0, err
    assert err == "" and "1 of 1 deal agreed" in out
    status, out, err = call(["check", str(one_deal), "--no-progress", "--sample", "5"], capsys)
    assert status == 0, err
    assert "tranca-sim: warning: --sample 5 is more than the run's 1 deal" in err


@pytest.mark.parametrize("cmd", ["experiment", "ladder", "tune"])
def test_a_directory_output_named_like_a_run_file_is_refused(tmp_path, capsys, cmd):
    """`experiment ok9.toml --out ok.parquet` made a directory named ok.parquet."""
    spec = tmp_path / "ok9.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    out = tmp_path / "ok.parquet"
    argv = {
        "experiment": ["experiment", str(spec)],
        "ladder": ["ladder", "--player", "basic", "--player", "random", "--decks", "4"],
        "tune": ["tune", "basic", "--budget", "120000"],
    }[cmd] + ["--out", str(out), "--no-progress"]
    status, stdout, err = call(argv, capsys)
    assert status == 2 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(f"tranca-sim: error: --out {str(out)!r}: ") and "writes a directory" in err
    assert not out.exists()


def test_report_waits_for_no_run_and_refuses_a_directory_being_written(tmp_path, capsys):
    """`tranca-sim report DIR` took no lock while an experiment wrote DIR: it now takes DIR's
    output lock and is refused, naming the run, while another process holds it."""
    d = tmp_path / "exp"
    d.mkdir()
    holder = _hold_lock(d)
    try:
        status, stdout, err = call(["report", str(d)], capsys)
    finally:
        _stop(holder)
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
