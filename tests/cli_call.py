"""The command line called in the test process, for the CLI tests of every test file."""

from __future__ import annotations

import signal

from tranca_sim.cli import main


def as_from_a_terminal() -> None:
    """A ``preexec_fn`` for a command a test stops with Ctrl-C or a hangup: the child takes both
    as a terminal's command does, even where the suite itself runs with them ignored (under
    ``nohup``, or started by a shell's ``&``), which the command would rightly leave ignored."""
    for sig in (signal.SIGINT, getattr(signal, "SIGHUP", None)):
        if sig is not None:
            signal.signal(sig, signal.SIG_DFL)

# A one-tip experiment file small enough for a CLI test: 8 deals in batches of 4.
ONE_TIP_TOML = """
title = "One tip, a very quick look"
question = "Does the black-3 lock change the score per deal of basic?"
baseline = "basic"
seed = 3
batch = 4
budget = 8
[[variants]]
label = "lock"
strategy = "basic:black3_lock=1"
"""


def call(argv, capsys):
    """``main(argv)`` in this process: ``(exit status, stdout, stderr)`` as captured by pytest's
    ``capsys``; an ``argparse``/``_fail`` ``SystemExit`` gives its code as the status."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str) -> str:
    """The one line of ``err`` (stderr), asserted to be a single ``tranca-sim: error: ...`` line with
    no traceback; returned for the test's own checks of its words."""
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: "), err
    assert "Traceback" not in err
    return lines[0]


def only_the_line(err: str, line: str) -> None:
    """After an interrupt: ``err`` (stderr) ends with ``line``, holds no traceback nor a library's
    ``Exception ignored``, and its other lines are the command's own (a compile notice)."""
    lines = err.splitlines()
    assert lines and lines[-1] == line, err
    assert "Traceback" not in err and "Exception ignored" not in err, err
    assert all(x.startswith(("tranca-sim:", "compiling the ")) for x in lines), err
