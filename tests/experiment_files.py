"""Experiment files for the lab tests: two-tip experiments (for any preset, or in one batch),
written to a file, and a copy of an experiment directory to change."""

from __future__ import annotations

import shutil
import textwrap

TWO_TIPS = """
title = "Two tips"
question = "q"
preset = "{preset}"
baseline = "basic"
seed = 3
batch = 4
budget = 8
[[variants]]
label = "lock"
strategy = "{lock}"
[[variants]]
label = "rush"
strategy = "basic:morto_rush=1"
"""


def two_tips(preset: str) -> str:
    """TWO_TIPS for ``preset``; its first tip is the black-3 lock, safe discards in Buraco (no pile is
    locked there, and an experiment refuses black3_lock)."""
    lock = "basic:safe_discard=1" if preset.startswith("buraco") else "basic:black3_lock=1"
    return TWO_TIPS.format(preset=preset, lock=lock)


def copy_experiment(src, tmp_path):
    """A copy of the experiment directory ``src`` in ``tmp_path / "exp"``, for a test to change."""
    d = tmp_path / "exp"
    shutil.copytree(src, d)
    return d


# two tips in one batch of 1,000 deals: a cap of --deals N plays N deals in one look
TWO_TIPS_ONE_BATCH = """
title = "Two tips, a very quick look"
question = "Do two tips change the score per deal of basic?"
baseline = "basic"
seed = 3
batch = 1000
budget = 1000
[[variants]]
label = "wild in reserve"
strategy = "basic:wild_reserve=1"
[[variants]]
label = "partner"
strategy = "basic:partner=1"
"""


def write_spec(tmp_path, text=TWO_TIPS_ONE_BATCH, name="tiny.toml"):
    """``text`` (dedented) written to ``tmp_path / name``; its path."""
    p = tmp_path / name
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p
