"""What a run leaves behind when it is killed or ends: its hidden temporary output directories are
removed by the next run (only ours, of a dead process, old enough), and its worker processes end
with it."""

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


def test_only_our_old_temp_dirs_of_dead_processes_are_removed(tmp_path):
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


def test_a_run_on_worker_processes_ends_when_it_is_done(tmp_path):
    """A fresh user's find: every ``--processes 2`` run of the console script printed its summary
    and then waited out loky's 300 s idle timeout before the prompt came back (the fast exit ran
    multiprocessing's exit function, which joins the workers, before loky's thread-exit callback had
    shut them down).  The run must end within seconds of its last line."""
    import time

    out = tmp_path / "p2"
    p = subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", "simulate", "--deals", "400", "--chunk-size", "100",
         "--out", f"{out}/", "--processes", "2", "--no-progress"],
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        lines, last = [], None
        for line in p.stdout:  # the time of the last line, not of the whole run (a busy machine's
            lines.append(line)  # compile and chunks take minutes): the hang came after it
            last = time.monotonic()
        p.wait(timeout=900)
        ended = time.monotonic()
        err = p.stderr.read()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 0, err
    assert "2 processes" in "".join(lines)
    took = ended - last
    assert took < 60, (
        f"{took:.0f} s after its last line: the process waited for its idle workers"
    )  # a hang is 300 s
