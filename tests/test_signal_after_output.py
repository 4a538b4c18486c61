"""A signal (Ctrl-C, SIGTERM) that comes after a command wrote its output, while the process shuts
down: one line says the output was written, with the signal's exit status, and the output stays."""

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
from cli_call import as_from_a_terminal, call, only_the_line

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def tiny(tmp_path) -> Path:
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    return spec


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
        preexec_fn=as_from_a_terminal,
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
    only_the_line(err, f"tranca-sim: error: {what} after writing {out}")
    assert stdout.rstrip().splitlines()[-1].startswith("design duplicate")  # everything was said first
    assert (out / "report.md").is_file()
