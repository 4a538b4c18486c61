"""Another process holding a run's output lock, for the tests of what a second run on that output
does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def hold_lock(out) -> subprocess.Popen:
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


def stop(p: subprocess.Popen) -> None:
    """Ends the holder ``p`` (if it still runs) and reaps it."""
    if p.poll() is None:
        p.kill()
    p.wait()
