"""The eleventh fresh user's findings (main 3150ae2): a report built from run files of another
run, ``--force`` over a directory that is not an earlier output, out-of-bounds reads in a user
strategy, runs written with failed checks summarized clean, and unclear messages."""

from __future__ import annotations

import shutil

import pytest
from cli_call import call

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
strategy = "basic:black3_lock=1"
[[variants]]
label = "rush"
strategy = "basic:morto_rush=1"
"""


def _one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: "), err
    assert "Traceback" not in err
    return lines[0]


@pytest.fixture(scope="module")
def two_experiments(tmp_path_factory):
    """A tranca and a buraco experiment of two tips (8 deals a variant), without report."""
    from tranca_sim.lab.experiment import run_experiment

    root = tmp_path_factory.mktemp("f11")
    out = {}
    for preset in ("tranca", "buraco"):
        toml = root / f"two-{preset}.toml"
        toml.write_text(TWO_TIPS.format(preset=preset), encoding="utf-8")
        out[preset] = root / preset
        run_experiment(toml, out[preset], progress=False, report=False, threads=1)
    return out


def _copy(src, tmp_path):
    d = tmp_path / "exp"
    shutil.copytree(src, d)
    return d


def _refused(d, capsys) -> str:
    status, _, err = call(["report", str(d)], capsys)
    assert status == 2
    assert not (d / "report.md").exists()  # nothing written
    assert not list(d.glob("*.png")) and not list(d.glob("*.svg"))
    return _one_error_line(err)


def test_report_refuses_a_run_of_another_preset(two_experiments, tmp_path, capsys):
    """F1: a buraco run copied over a tranca variant's run was reported (exit 0, wrong numbers)."""
    d = _copy(two_experiments["tranca"], tmp_path)
    buraco_run = two_experiments["buraco"] / "runs" / "v01-lock.ab.parquet"
    shutil.copyfile(buraco_run, d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line and "preset 'buraco', not 'tranca'" in line


def test_report_refuses_another_variants_run(two_experiments, tmp_path, capsys):
    """F1: one variant's run under another variant's name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v02-rush.ab.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line
    assert "black3_lock=0, not 1" in line and "label 'rush', not 'lock'" in line


def test_report_refuses_the_twin_run_under_the_other_role(two_experiments, tmp_path, capsys):
    """F1: a variant's sides-swapped run (ba) under its ab name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v01-lock.ba.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "side A plays" in line and "role 'ba', not 'ab'" in line


def test_report_refuses_a_run_of_another_seed(two_experiments, tmp_path, capsys):
    """F1: experiment.json records seed 3; a run whose metadata says another seed is refused."""
    import json

    d = _copy(two_experiments["tranca"], tmp_path)
    spec = json.loads((d / "experiment.json").read_text())
    for r in spec["runs"]:
        if r["path"] == "runs/v02-rush.ba.parquet":
            r["seed"] = 4
    (d / "experiment.json").write_text(json.dumps(spec))
    line = _refused(d, capsys)
    assert "v02-rush.ba.parquet" in line and "seed 3, not 4" in line


def test_report_refuses_a_run_without_tranca_sim_metadata(two_experiments, tmp_path, capsys):
    """F1: a run rewritten by pyarrow without its metadata was reported (summarize refused it)."""
    import pyarrow.parquet as pq

    d = _copy(two_experiments["tranca"], tmp_path)
    f = d / "runs" / "v02-rush.ba.parquet"
    pq.write_table(pq.read_table(f).replace_schema_metadata(None), f)
    line = _refused(d, capsys)
    assert "v02-rush.ba.parquet" in line and "no 'tranca_sim' metadata" in line


def test_report_of_an_untouched_experiment_is_written(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["buraco"], tmp_path)
    status, _, err = call(["report", str(d)], capsys)
    assert status == 0, err
    assert (d / "report.md").is_file()
