"""The last fresh user's findings: what a killed run leaves behind (temporary output directories,
worker processes), and the messages and charts they read."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tranca_sim import io

ROOT = Path(__file__).resolve().parents[1]

TINY = """
title = "Two tips, a very quick look"
question = "Do two tips change the score per deal of basic?"
baseline = "basic"
seed = 3
batch = 2
budget = 40
[[variants]]
label = "wild in reserve"
strategy = "basic:wild_reserve=1"
[[variants]]
label = "partner"
strategy = "basic:partner=1"
"""


def _cli(*args, env=None, **kw) -> subprocess.Popen:
    e = dict(os.environ, PYTHONPATH=str(ROOT))
    e.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", *map(str, args)],
        env=e,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def _wait(cond, proc, timeout=180.0, what="") -> None:
    t0 = time.time()
    while time.time() - t0 < timeout:
        if cond():
            return
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {what}: {proc.communicate()[1][-2000:]}")
        time.sleep(0.1)
    raise AssertionError(f"no {what} after {timeout} s")


def _age(path: Path, seconds: float) -> None:
    old = time.time() - seconds
    for p in [path, *path.rglob("*")]:
        os.utime(p, (old, old), follow_symlinks=False)


@pytest.mark.slow
def test_a_killed_experiments_hidden_directory_is_removed_by_the_next_run(tmp_path, capsys):
    """SIGKILL of `tranca-sim experiment` leaves its hidden `.NAME.tmp-<pid>-<hex>` directory (no
    handler runs); the next experiment in the same directory removes it once its process is gone
    and nothing in it changed for STALE_TEMP_SECONDS, and keeps a live process's directory."""
    from tranca_sim.cli import main

    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    killed_out = tmp_path / "first"
    p = _cli("experiment", spec, "--out", killed_out, "--no-progress",
             env={"TRANCA_SIM_TEST_CHUNK_SLEEP": "0.5"})  # fmt: skip
    left = lambda: [x for x in tmp_path.iterdir() if x.name.startswith(".first.tmp-")]
    _wait(lambda: left() and any(left()[0].glob("runs/*.parquet")), p, what="temporary directory")
    p.send_signal(signal.SIGKILL)
    p.communicate()
    (leftover,) = left()
    assert leftover.is_dir() and str(p.pid) in leftover.name  # what SIGKILL leaves behind
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        alive = tmp_path / f".other.tmp-{live.pid}-0123abcd"
        recent = tmp_path / f".recent.tmp-{p.pid}-89abcdef"  # a dead pid, but written just now
        for d in (alive, recent):
            (d / "runs").mkdir(parents=True)
            (d / "runs" / "x.parquet").write_bytes(b"x")
        _age(alive, io.STALE_TEMP_SECONDS + 5)
        _age(leftover, io.STALE_TEMP_SECONDS + 5)
        out = tmp_path / "second"
        assert main(["experiment", str(spec), "--out", str(out), "--deals", "2", "--no-progress"]) == 0
        assert not leftover.exists()
        assert alive.is_dir() and recent.is_dir()
        assert (out / "report.md").is_file() and not killed_out.exists()
    finally:
        live.kill()
        live.wait()


def test_stale_temp_dirs_rule(tmp_path):
    """Only directories named exactly like ours, of a dead process, old enough; never a file, a
    link or a directory with another name."""
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    names = [
        f".a.tmp-{dead.pid}-0123abcd",  # removed
        f".b.old-{dead.pid}-0123abcd",  # removed (the previous output moved aside)
        f".c.tmp-{dead.pid}-0123abc",  # 7 hex digits: not ours
        f"d.tmp-{dead.pid}-0123abcd",  # not hidden
        f".e.tmp-{os.getpid()}-0123abcd",  # this process
    ]
    for n in names:
        (tmp_path / n).mkdir()
        (tmp_path / n / "f").write_text("x")
        _age(tmp_path / n, io.STALE_TEMP_SECONDS + 5)
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / f".f.tmp-{dead.pid}-0123abcd"
    link.symlink_to(target)
    removed = io.remove_stale_temp_dirs(tmp_path)
    assert sorted(x.name for x in removed) == sorted(names[:2])
    assert sorted(x.name for x in tmp_path.iterdir()) == sorted([*names[2:], link.name, "elsewhere"])


THREE = """
title = "Three-player tips"
question = "Does a tip change the margin at a three-player table?"
preset = "tranca-3p"
baseline = "basic"
seed = 5
batch = 6
budget = 12
[[variants]]
label = "lock"
strategy = "basic:black3_lock=1"
[[variants]]
label = "partner"
strategy = "basic:wild_reserve=1"
"""


@pytest.mark.parametrize("stopping", ["", "[stopping]\nhalf_width = 100000\n"], ids=["budget", "early stop"])
def test_the_experiments_bar_counts_every_deal_played(tmp_path, monkeypatch, stopping):
    """The bar's total is the deals played, the control table's included (a three-player
    experiment's bar said 24.0k while 26,000 deals were played), also when variants stop early."""
    import tqdm.auto

    from tranca_sim.lab.experiment import run_experiment

    bars = []

    class Bar(tqdm.auto.tqdm):
        def close(self):
            bars.append((self.total, self.n))
            super().close()

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    spec = tmp_path / "three.toml"
    text = textwrap.dedent(THREE).replace("[[variants]]", stopping + "[[variants]]", 1)
    spec.write_text(text, encoding="utf-8")
    res = run_experiment(spec, tmp_path / "out", progress=True, report=False)
    # 2 variants x 12 deals (4 decks, each in seat 0, 1, 2) + the control table's 4 deals; a stop at
    # the first look: 2 x 6 + 2
    assert res["deals"] == (28 if not stopping else 14)
    assert bars[-1] == (res["deals"], res["deals"])


def _children(pid: int) -> set[int]:
    """The child processes of ``pid`` (Linux /proc)."""
    out = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(OSError):
            out |= {int(x) for x in (task / "children").read_text().split()}
    return out


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")  # a zombie has ended (its new parent may not reap it at once)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)")
def test_workers_end_when_a_process_run_is_killed(tmp_path):
    """SIGKILL of `tranca-sim simulate --processes 2` (no handler runs): its loky workers end within
    seconds (they kept playing, then idled for loky's 300 s timeout)."""
    out = tmp_path / "run"
    p = _cli("simulate", "--deals", 4000, "--chunk-size", 500, "--processes", 2, "--no-progress",
             "--out", f"{out}/", env={"TRANCA_SIM_TEST_CHUNK_SLEEP": "2"})  # fmt: skip
    workers: set[int] = set()

    def busy():  # two workers started, the first chunks on their way
        workers.update(c for c in _children(p.pid) if "popen_loky" in Path(f"/proc/{c}/cmdline").read_text())
        return len(workers) >= 2 and any(out.glob("chunk-*"))

    try:
        _wait(busy, p, what="two workers")
        p.send_signal(signal.SIGKILL)
        p.wait()  # not communicate(): a surviving worker holds the pipes open
        p.stdout.close()
        p.stderr.close()
        t0 = time.time()
        while time.time() - t0 < 10 and any(_running(w) for w in workers):
            time.sleep(0.1)
        assert not any(_running(w) for w in workers), f"workers still running {time.time() - t0:.0f} s later"
    finally:
        for w in workers:
            with contextlib.suppress(OSError):
                os.kill(w, signal.SIGKILL)


def test_counts_take_the_singular_for_one():
    """'1 decks', '1 comparisons', '1 processes' ... in CLI and report text (a fresh user's find)."""
    import lab_synthetic as L
    import polars as pl

    from tranca_sim._plural import plural
    from tranca_sim.lab import charts
    from tranca_sim.lab.report_md import _deals_text

    assert [plural(1, "deck"), plural(0, "deck"), plural(2000, "match", "matches", ",")] == [
        "1 deck", "0 decks", "2,000 matches",
    ]  # fmt: skip
    one = pl.DataFrame({"n_units": [1], "n_deals": [2], "unit": ["deck"]})
    assert _deals_text(one) == "1 deck (2 deals) per variant"
    assert _deals_text(pl.DataFrame({"n_units": [1, 3], "n_deals": [2, 6], "unit": ["deck"] * 2})) == (
        "1-3 decks (2-6 deals) per variant"
    )
    fig = charts.forest_plot(L.comparison().head(1), charts.ChartInfo("foot"))
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "over 1 comparison" in texts and "1 comparisons" not in texts


def test_check_of_a_one_deal_run_says_deal(tmp_path, capsys):
    from tranca_sim.cli import main

    run = tmp_path / "one.parquet"
    assert main(["simulate", "--deals", "1", "--out", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["check", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1 of 1 deal agreed with the referee" in out and "1 deals" not in out
