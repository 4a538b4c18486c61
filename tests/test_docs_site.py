"""The documentation site builds with `mkdocs build --strict` (mkdocs.yml at the top): every page
in the nav exists, every link and anchor between pages resolves, the committed charts and
reports the pages link to are served, and the API reference is generated from the docstrings."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_documentation_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs packages are in the test extra: pip install -e '.[test]'")
    pytest.importorskip("material", reason="mkdocs-material is in the test extra")
    pytest.importorskip("mkdocstrings_handlers.python", reason="mkdocstrings[python] is in the test extra")
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    # the tutorial, the API reference (from the docstrings) and a served chart are on the site
    assert "Does the early morto pay?" in (site / "tutorials" / "early-morto.html").read_text()
    api = (site / "reference" / "api.html").read_text()
    # "Master seed": a parameter of run_simulation's docstring
    assert "run_simulation" in api and "load_run" in api and "Master seed" in api
    assert (site / "reports" / "tips-vs-strength" / "tips_strength.png").is_file()
