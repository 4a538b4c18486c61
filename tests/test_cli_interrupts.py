"""Ctrl-C, SIGTERM and SIGHUP: the command says its one line and nothing else, whenever the signal
comes (tranca_sim/cli_signals.py, tranca_sim/parallel.signals_held).

In this process: a signal that comes at the awkward moments (inside an import, inside a finalizer,
turned into another error by a library, repeated while the command unwinds) still stops the
command with its one line, and its temporary file is removed.  In fresh processes: a run on each
backend (threads, local processes, a Dask LocalCluster) is sent the signal at seeded random moments
(the start and the compile of the workers included), to its whole process group as a terminal's
Ctrl-C is, and must end with its status and its one line, no worker's traceback, no library's
``Exception ignored``, no worker process left.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_call import call
from cli_call import as_from_a_terminal
from cli_call import only_the_line as _only_the_line

ROOT = Path(__file__).resolve().parents[1]
DEALS = "400"


# ---- in this process: the awkward moments ------------------------------------------------------
@pytest.fixture
def caller_handlers():
    """The caller's handlers of SIGINT, SIGTERM and SIGHUP while a test calls the command in this
    process: they record what reaches them (the command's own are installed over them), so a
    signal that outlives the command is seen by the test instead of ending the test run."""
    seen: list[int] = []
    sigs = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
    old = {s: signal.signal(s, lambda signum, frame: seen.append(signum)) for s in sigs}
    yield seen
    for s, h in old.items():
        signal.signal(s, h)


def _chunks_that_wait_for_the_stop(real, first_waiting: int):
    """``engine.simulate_chunk`` whose calls from the ``first_waiting``-th on wait (up to 60 s)
    before playing: the signal sent again from a helper thread (50 ms; far more on a loaded
    machine) comes while the run is still going, however late, instead of after it."""
    calls = []

    def chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) >= first_waiting:
            end = time.monotonic() + 20
            while time.monotonic() < end:  # the handler raises in here
                time.sleep(0.01)
        return real(*args, **kwargs)

    return chunk, calls


def test_a_signal_inside_an_import_stops_the_command_after_it(tmp_path, capsys, monkeypatch, caller_handlers):
    """Raised inside an import, the signal's exception would be the import's (a C extension turned a
    Ctrl-C while pyarrow imported pandas into SystemError, which pyarrow took for "no pandas", and
    the run went on): it is sent again once the import is done."""
    from tranca_sim import engine

    class Signalling:
        def find_spec(self, name, path=None, target=None):
            if name == "tranca_sim.run":
                os.kill(os.getpid(), signal.SIGTERM)  # handled inside this import
                time.sleep(0.2)  # still importing when Python runs the handler

    import tranca_sim.run  # noqa: F401  (its dependencies loaded: the import below is its own)

    chunk, _ = _chunks_that_wait_for_the_stop(engine.simulate_chunk, 1)
    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    monkeypatch.delitem(sys.modules, "tranca_sim.run")
    monkeypatch.setattr(sys, "meta_path", [Signalling(), *sys.meta_path])
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert status == 143, err
    _only_the_line(err, "tranca-sim: error: terminated; no output file was written")
    assert "tranca_sim.run" in sys.modules  # the import itself finished
    assert os.listdir(tmp_path) == []
    assert caller_handlers == []  # the command answered it; nothing came after


def test_a_signal_while_the_output_lock_is_taken_leaves_no_lock_file(
    tmp_path, capsys, monkeypatch, caller_handlers
):
    """A signal that comes just as the lock file is made, before the command notes it as its own,
    is answered once the lock is noted: the command unwinds, removing the file (a lock file was
    left beside the output when the signal came there, under load)."""
    from tranca_sim import engine, outlock

    real_acquire = outlock._acquire

    def acquire(*args, **kwargs):
        fd = real_acquire(*args, **kwargs)
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.2)  # the handler runs here, the lock file made and not yet noted
        return fd

    chunk, _ = _chunks_that_wait_for_the_stop(engine.simulate_chunk, 1)
    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    monkeypatch.setattr(outlock, "_acquire", acquire)
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert status == 143, err
    _only_the_line(err, "tranca-sim: error: terminated; no output file was written")
    assert os.listdir(tmp_path) == []
    assert caller_handlers == []


def test_a_signal_inside_a_finalizer_still_stops_the_run(tmp_path, capsys, monkeypatch, caller_handlers):
    """A finalizer (llvmlite's ObjectRef.__del__ during a compile) would swallow the signal's
    exception and Python would print 'Exception ignored in ...': the signal is sent again."""
    from tranca_sim import engine

    class Finalized:
        def __del__(self):
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.2)  # the handler runs inside this __del__

    waiting, calls = _chunks_that_wait_for_the_stop(engine.simulate_chunk, 3)

    def chunk(*args, **kwargs):
        if len(calls) == 1:
            Finalized()  # collected at once: its __del__ runs here
        return waiting(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    status, _, err = call(argv, capsys)
    assert status == 130, err
    _only_the_line(err, "tranca-sim: error: interrupted; no output file was written")
    assert os.listdir(tmp_path) == []
    assert caller_handlers == []


def test_a_signal_turned_into_another_error_still_says_the_line(tmp_path, capsys, monkeypatch, caller_handlers):
    """A library that catches the signal's exception and raises its own: the command was stopped,
    and says so (not the library's error, not a traceback)."""
    from tranca_sim import engine

    real = engine.simulate_chunk
    calls = []

    def chunk(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            try:
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(1)
            except BaseException as e:  # as a C extension's import did
                raise SystemError("returned a result with an exception set") from e
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    status, _, err = call(argv, capsys)
    assert status == 143, err
    _only_the_line(err, "tranca-sim: error: terminated; no output file was written")
    assert os.listdir(tmp_path) == []
    assert caller_handlers == []


def test_a_second_ctrl_c_does_not_cut_the_cleanup_short(tmp_path, capsys, monkeypatch, caller_handlers):
    """A user presses Ctrl-C twice: the second comes while the temporary file is being removed,
    which still happens; one line."""
    from tranca_sim import engine, io

    real_unlink = io.os.unlink
    waiting, calls = _chunks_that_wait_for_the_stop(engine.simulate_chunk, 3)

    def chunk(*args, **kwargs):
        if len(calls) == 1:
            os.kill(os.getpid(), signal.SIGINT)
        return waiting(*args, **kwargs)

    def unlink(path, *args, **kwargs):
        if ".tmp-" in os.fspath(path):
            os.kill(os.getpid(), signal.SIGINT)  # the second Ctrl-C, during the cleanup
            time.sleep(0.2)
        return real_unlink(path, *args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    monkeypatch.setattr(io.os, "unlink", unlink)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    status, _, err = call(argv, capsys)
    assert status == 130, err
    _only_the_line(err, "tranca-sim: error: interrupted; no output file was written")
    assert os.listdir(tmp_path) == []
    assert caller_handlers == []


def test_a_signal_put_off_and_unanswered_when_the_command_ends_goes_to_the_callers_handler(
    tmp_path, capsys, monkeypatch, caller_handlers
):
    """A signal put off (it came inside an import) whose resend has not come by the time the
    command finished (on a loaded machine the helper thread can be late: CI's test run was ended
    by such a SIGTERM after the command had given its handlers back) reaches the caller's handler
    once, as the command returns, and never afterwards."""
    import threading

    from tranca_sim import cli_signals

    class Signalling:
        def find_spec(self, name, path=None, target=None):
            if name == "tranca_sim.run":
                os.kill(os.getpid(), signal.SIGTERM)  # put off: this is an import
                time.sleep(0.2)

    import tranca_sim.run  # noqa: F401

    monkeypatch.setattr(cli_signals, "RESEND_SECONDS", 3600.0)  # the helper thread, as late as can be
    monkeypatch.delitem(sys.modules, "tranca_sim.run")
    monkeypatch.setattr(sys, "meta_path", [Signalling(), *sys.meta_path])
    before = set(threading.enumerate())
    status, _, _ = call(["simulate", "--deals", "20", "--out", str(tmp_path / "r.parquet"), "--no-progress"], capsys)
    assert status == 0  # the command finished before anything answered the signal
    time.sleep(0.1)  # a pending signal's handler runs at once in this thread
    assert caller_handlers == [signal.SIGTERM]
    assert [t for t in threading.enumerate() if t not in before and isinstance(t, threading.Timer)] == []


def test_the_handlers_are_given_back(tmp_path, capsys):
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    hook = sys.unraisablehook
    call(["simulate", "--deals", "20", "--out", str(tmp_path / "r.parquet"), "--no-progress"], capsys)
    assert {s: signal.getsignal(s) for s in before} == before
    assert sys.unraisablehook is hook


# ---- fresh processes, signals at random moments --------------------------------------------------
def _env() -> dict:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def _wait_for_handlers(p: subprocess.Popen) -> None:
    """Until process ``p`` catches SIGTERM (Linux: /proc): the CLI's handlers are in place, so the
    interpreter's own start (Python's default actions, before any line of the project runs; a
    second or more on a busy machine) is behind it."""
    status = Path(f"/proc/{p.pid}/status")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and p.poll() is None:
        try:
            text = status.read_text()
        except OSError:  # ended meanwhile (or no /proc): nothing to wait for
            return
        caught = next((x.split()[1] for x in text.splitlines() if x.startswith("SigCgt:")), "0")
        if int(caught, 16) & (1 << (signal.SIGTERM - 1)):
            return
        time.sleep(0.01)


def _signal_at(argv, cwd, sig, delay) -> tuple[int, str, list[str]]:
    """Run ``tranca-sim ARGV`` in its own process group, send ``sig`` to the whole group (a
    terminal's Ctrl-C) ``delay`` seconds after its handlers are in place; (status, stderr, processes of the group
    still there 5 s after the command ended)."""
    p = subprocess.Popen([sys.executable, "-m", "tranca_sim.cli", *argv], cwd=cwd, env=_env(),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                         start_new_session=True, preexec_fn=as_from_a_terminal)  # fmt: skip
    try:
        _wait_for_handlers(p)
        time.sleep(delay)
        if p.poll() is None:
            os.killpg(p.pid, sig)
        _, err = p.communicate(timeout=300)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            return p.returncode, err, []
        time.sleep(0.1)
    ps = subprocess.run(
        ["ps", "-o", "pid,args", "-g", str(p.pid)], capture_output=True, text=True, check=False
    )
    os.killpg(p.pid, signal.SIGKILL)
    return p.returncode, err, ps.stdout.splitlines()[1:]


#: backend -> (its options, the longest delay: past the workers' start and compile, into the run)
BACKENDS = {
    "threads": (["--threads", "1"], 8.0),
    "processes": (["--processes", "2"], 12.0),
    "dask": (["--cluster", "local:2"], 15.0),
}
SIGNALS = {"INT": (signal.SIGINT, "interrupted"), "TERM": (signal.SIGTERM, "terminated"),
           "HUP": (signal.SIGHUP, "terminated")}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("backend", sorted(BACKENDS))
@pytest.mark.parametrize("name", sorted(SIGNALS))
def test_a_signal_at_a_random_moment_says_one_line(tmp_path, backend, name):
    opts, most = BACKENDS[backend]
    sig, word = SIGNALS[name]
    delay = random.Random(f"{backend}-{name}").uniform(0.0, most)  # seeded: the same moments each run
    argv = ["simulate", "--deals", "5000000", "--chunk-size", "50000", "--out", "d/", "--no-progress", *opts]
    status, err, left = _signal_at(argv, tmp_path, sig, delay)
    assert left == [], left
    if status == 0:
        pytest.fail(f"the run ended before the signal at {delay:.1f} s: {err}")
    assert status == 128 + sig, err
    line = err.splitlines()[-1] if err else ""
    assert line.startswith(f"tranca-sim: error: {word}"), err
    _only_the_line(err, line)
    assert not [n for n in os.listdir(tmp_path) if n.startswith(".")], os.listdir(tmp_path)  # no lock left
    if (tmp_path / "d").is_dir():
        assert not [n for n in os.listdir(tmp_path / "d") if n.startswith(".")]  # no temporary chunk


def test_an_interrupt_a_library_turns_into_its_own_error_during_the_report_stops_the_experiment(
    tmp_path, monkeypatch
):
    """Ctrl-C while the charts were drawn: matplotlib, cut short, raised ``ValueError: Invalid
    affine transformation matrix`` and the experiment said "its report failed", exit 2, leaving a
    half-built directory (a fresh user, 1 in about 35 tries).  With a stop requested, the error is
    the interrupt: nothing is left where the experiment was to go."""
    import signal

    from experiment_files import write_spec

    from tranca_sim import stop_request
    from tranca_sim.lab.experiments import experiment as ex

    def report(*args, **kwargs):
        monkeypatch.setattr(stop_request, "_signum", signal.SIGINT)  # the handler notes it
        raise ValueError("Invalid affine transformation matrix")  # what the library raised instead

    monkeypatch.setattr(ex, "write_report_if_available", report)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        ex.run_experiment(write_spec(tmp_path), out, progress=False)
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["tiny.toml"]  # no temporary directory either


def test_a_command_starts_unasked_after_an_earlier_interrupted_call(tmp_path, capsys, monkeypatch):
    """A stop noted by an earlier command in the same process (a notebook, a test run) does not
    turn a later command's own failure into "interrupted": each command starts unasked.  CI
    failed this way: a failing report said exit 130 after another test's interrupt."""
    import signal

    from experiment_files import write_spec

    from tranca_sim import stop_request
    from tranca_sim.cli import main
    from tranca_sim.lab.experiments import experiment as ex

    stop_request.note(signal.SIGINT)  # what an earlier, interrupted call left behind
    try:
        def report(*args, **kwargs):
            raise ValueError("Axis limits cannot be NaN or Inf")

        monkeypatch.setattr(ex, "write_report_if_available", report)
        with pytest.raises(SystemExit) as e:
            main(["experiment", str(write_spec(tmp_path)), "--out", str(tmp_path / "out"), "--no-progress"])
        assert e.value.code == 2
    finally:
        stop_request.note(0)


def test_an_interrupted_atlas_says_its_finished_experiments_are_kept(tmp_path, capsys, monkeypatch):
    """Ctrl-C while the atlas plays: the experiments it finished stay in its cache and the same
    command reuses them; the line says so (it said only "interrupted")."""
    from tranca_sim.atlas import build

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "build_atlas", interrupted)
    out = tmp_path / "atlas"
    status, _, err = call(["atlas", "--quick", "--out", str(out), "--no-progress"], capsys)
    assert status == 130, err
    _only_the_line(
        err,
        f"tranca-sim: error: interrupted; the experiments finished so far are kept in {out / '.cache'}: "
        f"the same command reuses them and writes the guide in {out} (each page or chart there is "
        "whole, old or new)",
    )


@pytest.mark.parametrize("earlier", [True, False])
@pytest.mark.parametrize("stop_after_writing", [False, True])
def test_an_interrupted_report_says_what_it_left(tmp_path, capsys, monkeypatch, earlier, stop_after_writing):
    """Ctrl-C while `report DIR` draws: the line said only "interrupted".  It now says whether
    report.md was rewritten (it is written last, whole, under a temporary name then renamed)."""
    from tranca_sim.lab.publish import reports

    d = tmp_path / "exp"
    d.mkdir()
    if earlier:
        (d / "report.md").write_text("the earlier report\n", encoding="utf-8")

    def interrupted(run_dir, *args, **kwargs):
        if stop_after_writing:
            (Path(run_dir) / "report.md").write_text("the new report, longer\n", encoding="utf-8")
        raise KeyboardInterrupt

    monkeypatch.setattr(reports, "write_report", interrupted)
    status, out, err = call(["report", str(d)], capsys)
    assert status == 130 and out == "", err
    if stop_after_writing:
        line = f"tranca-sim: error: interrupted after writing {d / 'report.md'}"
    elif earlier:
        line = (f"tranca-sim: error: interrupted; {d / 'report.md'} was not rewritten: the earlier report is "
                f"left as it was (each chart in {d} is whole, the earlier one or the new one)")  # fmt: skip
    else:
        line = (f"tranca-sim: error: interrupted; no report.md was written (each chart in {d} is whole, "
                "the earlier one or the new one)")  # fmt: skip
    _only_the_line(err, line)
    assert (d / "report.md").exists() == (earlier or stop_after_writing)
