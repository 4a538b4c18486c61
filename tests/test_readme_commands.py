"""The README's example commands run as written, one after another, after its set-up command (a
fresh user's find: `tranca-sim simulate --preset tranca-3p ...` stopped at "--out
'tranca-run.parquet' already exists; use --force" because the set-up had written that file)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
WRITERS = {"simulate": "tranca-run.parquet", "experiment": None, "tune": None, "ladder": None}


def _commands() -> list[list[str]]:
    """Every ``tranca-sim`` command in the README's code blocks (continued lines joined)."""
    text = README.read_text(encoding="utf-8")
    out = []
    for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, flags=re.DOTALL):
        if lang not in ("sh", "text", "bash", "console", ""):
            continue
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split(" #", 1)[0].strip()
            m = re.search(r"(?:^|&& |\.venv/bin/)tranca-sim (\w+) (.*)", line)
            if m and m.group(1) in WRITERS and "[" not in line:  # not a usage line
                out.append([m.group(1), *shlex.split(m.group(2))])
    return out


def _out(argv: list[str]) -> str | None:
    for i, a in enumerate(argv):
        if a == "--out":
            return argv[i + 1].rstrip("/")
    return WRITERS[argv[0]]


def test_the_readme_examples_do_not_write_over_each_other():
    cmds = _commands()
    assert len(cmds) > 10  # the parse found the examples
    seen: dict[str, list[str]] = {}
    clashes = []
    for argv in cmds:
        out = _out(argv)
        if out is None or "--force" in argv or "--resume" in argv:
            seen.setdefault(out, argv)
            continue
        if out in seen or Path(README.parent, out).exists():
            clashes.append(f"{' '.join(argv)} (--out {out} already written or committed)")
        seen[out] = argv
    assert not clashes, clashes
