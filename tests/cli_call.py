"""The command line called in the test process, for the CLI tests of every test file."""

from __future__ import annotations

from tranca_sim.cli import main


def call(argv, capsys):
    """``main(argv)`` in this process: ``(exit status, stdout, stderr)`` as captured by pytest's
    ``capsys``; an ``argparse``/``_fail`` ``SystemExit`` gives its code as the status."""
    try:
        status = main(argv)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err
