"""The example commands of the README and of each documentation page run as written, one after
another, after the README's set-up command (a fresh user's find: `tranca-sim simulate --preset
tranca-3p ...` stopped at "--out 'tranca-run.parquet' already exists; use --force" because the
set-up had written that file). The README keeps its set-up and tour; the other examples moved to
docs/ (issue 24), where a reader follows one page at a time."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
WRITERS = {"simulate": "tranca-run.parquet", "experiment": None, "tune": None, "ladder": None}


def _commands(page: Path) -> list[list[str]]:
    """Every ``tranca-sim`` command in the page's code blocks (continued lines joined)."""
    text = page.read_text(encoding="utf-8")
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


def _clashes(cmds: list[list[str]]) -> list[str]:
    seen: dict[str, list[str]] = {}
    clashes = []
    for argv in cmds:
        out = _out(argv)
        if out is None or "--force" in argv or "--resume" in argv:
            seen.setdefault(out, argv)
            continue
        if out in seen or Path(ROOT, out).exists():
            clashes.append(f"{' '.join(argv)} (--out {out} already written or committed)")
        seen[out] = argv
    return clashes


def test_the_readme_set_up_and_tour_commands_are_found():
    cmds = _commands(README)
    assert [c[0] for c in cmds] == ["simulate", "experiment"], cmds  # the main job, then the tour
    assert "experiments/morto-timing.toml" in cmds[1]


def test_the_examples_do_not_write_over_each_other():
    setup = _commands(README)[:1]  # every page is read after the README's set-up command
    found = 0
    clashes = []
    for page in PAGES:
        cmds = _commands(page)
        found += len(cmds)
        clashes += [
            f"{page.relative_to(ROOT)}: {c}" for c in _clashes(setup + cmds if page != README else cmds)
        ]
    assert found > 10  # the parse found the examples
    assert not clashes, clashes
