"""`--out DIR --force` replaces only an earlier output of the same command (keeping its
hand-written notes.md) and refuses any other directory, and `.`, in one line; a new output that
fails leaves the earlier one whole."""

from __future__ import annotations

import json
import re

import pytest
from cli_call import call, one_error_line
from experiment_files import copy_experiment as _copy
from experiment_files import two_tips
from experiment_files import write_spec as _write

from tranca_sim.cli import main
from tranca_sim.lab.publish import reports


def _foreign_dir(tmp_path):
    d = tmp_path / "scratch"
    (d / "sub").mkdir(parents=True)
    (d / "precious.txt").write_text("keep me")
    (d / "sub" / "p2.txt").write_text("me too")
    return d


def _still_there(d):
    assert (d / "precious.txt").read_text() == "keep me"
    assert (d / "sub" / "p2.txt").read_text() == "me too"
    assert sorted(x.name for x in d.iterdir()) == ["precious.txt", "sub"]


@pytest.mark.parametrize(
    "argv",
    [
        ["experiment", "experiments/example.toml", "--deals", "4"],
        ["tune", "basic", "--params", "go_out", "--budget", "12000", "--trial-deals", "400"],
        ["ladder", "--decks", "10"],
        ["atlas", "--quick", "--lang", "en"],
    ],
    ids=["experiment", "tune", "ladder", "atlas"],
)
def test_force_refuses_a_directory_that_is_not_an_earlier_output(tmp_path, capsys, argv):
    """`--out DIR --force` removed any non-empty directory (`--out reports/ --force` every report)."""
    d = _foreign_dir(tmp_path)
    status, _, err = call([*argv, "--out", str(d), "--force"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert f"not an earlier {argv[0]} output" in line and "precious.txt" in line
    _still_there(d)


def test_force_refuses_an_experiment_directory_for_a_ladder(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["tranca"], tmp_path)
    before = sorted(x.name for x in d.iterdir())
    status, _, err = call(["ladder", "--decks", "10", "--out", str(d), "--force"], capsys)
    assert status == 2
    assert "no ladder.json" in one_error_line(err)
    assert sorted(x.name for x in d.iterdir()) == before


def test_force_replaces_an_earlier_experiment_and_keeps_its_notes(two_experiments, tmp_path, capsys):
    """The README's `--out reports/NAME/ --force` goes on working; a hand-written notes.md (as in
    reports/buraco-tips) is kept in the new directory, a run file of the old one is not."""
    d = _copy(two_experiments["tranca"], tmp_path)
    (d / "notes.md").write_text("my reading")
    toml = tmp_path / "one.toml"
    toml.write_text(two_tips("tranca").split('[[variants]]\nlabel = "rush"')[0])
    status, _, err = call(["experiment", str(toml), "--out", str(d), "--force", "--no-progress"], capsys)
    assert status == 0, err
    assert (d / "notes.md").read_text() == "my reading"
    assert not (d / "runs" / "v02-rush.ab.parquet").exists()
    assert (d / "runs" / "v01-lock.ab.parquet").exists() and (d / "report.md").exists()


def test_out_dot_is_refused_in_one_line(tmp_path, capsys, monkeypatch):
    """`experiment ... --out . --force` said `cannot write '.': Device or resource busy`."""
    monkeypatch.chdir(tmp_path)
    toml = tmp_path / "one.toml"
    toml.write_text(two_tips("tranca"))
    status, _, err = call(["experiment", str(toml), "--out", ".", "--force", "--no-progress"], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "'.'" in line and "current directory" in line
    assert sorted(x.name for x in tmp_path.iterdir()) == ["one.toml"]


def test_a_failing_report_leaves_the_good_directory(tmp_path, capsys, monkeypatch):
    out = tmp_path / "out"
    p = _write(tmp_path)
    assert main(["experiment", str(p), "--out", str(out), "--deals", "4", "--no-progress"]) == 0
    before = {f.relative_to(out): f.read_bytes() for f in out.rglob("*") if f.is_file()}
    assert "report.md" in {f.name for f in before}

    def broken(*a, **k):
        raise ValueError("Axis limits cannot be NaN or Inf")

    monkeypatch.setattr(reports, "write_report", broken)
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["experiment", str(p), "--out", str(out), "--deals", "6", "--no-progress", "--force"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"tranca-sim: error: [^\n]+\n", err) and "left as it was" in err
    after = {f.relative_to(out): f.read_bytes() for f in out.rglob("*") if f.is_file()}
    assert after == before  # the old experiment, whole
    assert [q.name for q in tmp_path.iterdir() if q.name.startswith(".")] == []  # no temporary left
    with pytest.raises(SystemExit) as e:  # `tranca-sim report` with a bug in the report: one line
        main(["report", str(out)])
    assert e.value.code == 1
    assert re.fullmatch(r"tranca-sim: error: [^\n]+NaN or Inf\)\n", capsys.readouterr().err)
    # no directory to replace: the runs are kept, the message says how to write the report
    new = tmp_path / "new"
    with pytest.raises(SystemExit):
        main(["experiment", str(p), "--out", str(new), "--deals", "2", "--no-progress"])
    err = capsys.readouterr().err
    assert "tranca-sim report" in err and (new / "experiment.json").is_file()
    assert json.loads((new / "experiment.json").read_text())["budget"] == 2
