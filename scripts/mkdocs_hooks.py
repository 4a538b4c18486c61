"""mkdocs hooks: serve the committed reports, examples, experiment files and benchmark pages
with the documentation site, and let the docs link to them as they do on GitHub.

The documentation lives in ``docs/``; the charts and reports it cites live in ``reports/``,
``examples/``, ``experiments/`` and ``benchmarks/`` at the repository root. A page links to
them with the path that works in the repository (``../reports/ladder/report.md`` from
``docs/strategies.md``); :func:`on_files` adds those files to the site under their repository
path (``reports/ladder/report.md``) and :func:`on_page_markdown` rewrites such a link to the
path the file has on the site, so ``mkdocs build --strict`` checks it like any other link.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

from mkdocs.structure.files import File

ROOT = Path(__file__).resolve().parents[1]
#: repository folders served with the site, and the file types taken from each
SERVED = {
    "reports": (".png", ".svg", ".md"),
    "examples": (".py",),
    "experiments": (".toml",),
    "benchmarks": (".md",),
}
_LINK = re.compile(r"(\]\()([^)\s#]+)((?:#[^)\s]*)?\))")


def on_files(files, config):
    for folder, suffixes in SERVED.items():
        for p in sorted((ROOT / folder).rglob("*")):
            if p.is_file() and p.suffix in suffixes and "runs" not in p.relative_to(ROOT).parts:
                uri = p.relative_to(ROOT).as_posix()
                if files.get_file_from_path(uri) is None:
                    files.append(File(uri, str(ROOT), config["site_dir"], config["use_directory_urls"]))
    return files


def _site_path(page_uri: str, target: str) -> str | None:
    """The link ``target`` of the page ``page_uri`` (relative to docs/) as a path on the site,
    when it leaves docs/ for a served repository file; else None."""
    if "://" in target or target.startswith(("/", "mailto:")):
        return None
    page_dir = posixpath.dirname(page_uri)
    in_repo = posixpath.normpath(posixpath.join("docs", page_dir, target))
    if in_repo.startswith("docs/") or in_repo.split("/", 1)[0] not in SERVED:
        return None
    return posixpath.relpath(in_repo, page_dir or ".")


def on_page_markdown(markdown, page, config, files):
    uri = page.file.src_uri
    if not uri.startswith(tuple(f"{f}/" for f in SERVED)):  # a page of docs/ itself

        def fix(m):
            new = _site_path(uri, m.group(2))
            return m.group(0) if new is None else f"{m.group(1)}{new}{m.group(3)}"

        markdown = _LINK.sub(fix, markdown)
    return markdown
