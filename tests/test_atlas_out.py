"""`tranca-sim atlas --out DIR` writes only a new or empty directory or, with `--force`, an earlier
atlas (marked by its atlas.json, written before anything is played): a user's directory, `.`,
an empty name, a regular file as `--out` or `--cache` are refused in one line, exit 2, nothing
written (tranca_sim/lab/output_dir.py, as `experiment`, `tune` and `ladder`).  No deal is played."""

from __future__ import annotations

import pytest
from cli_call import call, one_error_line

QUICK = ["atlas", "--quick", "--lang", "en", "--no-progress"]


def _listing(root):
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


@pytest.fixture
def played(monkeypatch):
    """build_atlas replaced by a stand-in that records its arguments (nothing is played)."""
    from tranca_sim.atlas import build

    calls = []

    def fake(out, **kw):
        calls.append((out, kw))
        cache = str(kw["cache_dir"] or out / ".cache")
        return {"played": 0, "reused": 2, "cache": cache, "pages": [], "pdfs": [], "out": str(out)}

    monkeypatch.setattr(build, "build_atlas", fake)
    return calls


def test_a_users_directory_is_refused_with_or_without_force_and_left_alone(tmp_path, capsys, played):
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text("my page")
    (site / "notes.txt").write_text("my notes")
    status, _, err = call([*QUICK, "--out", str(site)], capsys)
    assert status == 2 and "not an earlier atlas output" in one_error_line(err) and "--force" not in err
    status, _, err = call([*QUICK, "--out", str(site), "--force"], capsys)
    line = one_error_line(err)
    assert status == 2 and "not an earlier atlas output" in line and "index.html, notes.txt" in line
    assert (site / "index.html").read_text() == "my page" and _listing(site) == ["index.html", "notes.txt"]
    assert played == []


@pytest.mark.parametrize("out", [".", ""])
def test_the_current_directory_is_refused(tmp_path, capsys, monkeypatch, played, out):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.txt").write_text("x")
    status, _, err = call([*QUICK, "--out", out, "--force"], capsys)
    assert status == 2 and "--out" in one_error_line(err)
    assert _listing(tmp_path) == ["mine.txt"] and played == []


@pytest.mark.parametrize(
    "args, words",
    [
        (["--out", "afile"], ["--out", "'afile' exists and is not a directory"]),
        (["--out", "new", "--cache", "afile"], ["--cache", "'afile' exists and is not a directory"]),
        (["--out", "new", "--cache", "afile/sub"], ["--cache", "'afile' is not a directory"]),
        (["--out", "afile/sub"], ["--out", "'afile' is not a directory"]),
    ],
)
def test_a_regular_file_as_out_or_cache_is_one_line_and_writes_nothing(
    tmp_path, capsys, monkeypatch, args, words
):
    """They printed a 24-line NotADirectoryError / FileExistsError traceback, exit 1."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "afile").write_text("a file")
    status, _, err = call([*QUICK, *args], capsys)
    line = one_error_line(err)
    assert status == 2 and all(w in line for w in words), line
    assert _listing(tmp_path) == ["afile"] and (tmp_path / "afile").read_text() == "a file"


def test_an_earlier_atlas_is_rebuilt_with_force_reusing_its_cache(tmp_path, capsys, played):
    out = tmp_path / "atlas"
    (out / ".cache" / "tips-tranca-0123").mkdir(parents=True)
    (out / "en").mkdir()
    (out / "atlas.json").write_text("{}")
    (out / "index.html").write_text("chooser")
    status, _, err = call([*QUICK, "--out", str(out)], capsys)
    assert status == 2 and "use --force" in one_error_line(err) and played == []
    status, _, err = call([*QUICK, "--out", str(out), "--force"], capsys)
    assert status == 0, err
    (where, kw), = played
    assert where == out and kw["cache_dir"] is None  # build_atlas's default: OUT/.cache, kept in place
    assert (out / ".cache" / "tips-tranca-0123").is_dir()


def test_build_atlas_marks_its_directory_before_playing(tmp_path, monkeypatch):
    from tranca_sim.atlas import build
    from tranca_sim.lab.output_dir import check_out_dir

    def interrupted(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "play_all", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build.build_atlas(tmp_path / "a", languages=("en",), presets=("tranca",), quick=True, progress=False)
    assert sorted(x.name for x in (tmp_path / "a").iterdir()) == ["atlas.json"]
    check_out_dir(tmp_path / "a", True, "atlas")  # an interrupted atlas is an earlier atlas output
