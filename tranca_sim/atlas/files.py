"""The atlas's files are written whole or not at all: each one to a temporary name beside it,
renamed over the old one when complete (:func:`tranca_sim.output.atomic_output`).  An interrupt
or a full disk while the guide is written leaves every page, chart and PDF either as it was or
as it is now, never cut in half; a write error is one line naming the file."""

from __future__ import annotations

import contextlib
from pathlib import Path


@contextlib.contextmanager
def whole(path: Path):
    """Yield a temporary path to write; it becomes ``path`` when the block ends normally."""
    from ..output import atomic_output, writing

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_output(path, force=True) as tmp, writing(path):
        yield tmp


def write_text(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` whole."""
    with whole(path) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")
    return Path(path)
