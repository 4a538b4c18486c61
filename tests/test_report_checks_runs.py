"""`tranca-sim report DIR` checks that each run file is the one experiment.json records (preset,
variant, role, seed, tranca-sim metadata) and refuses, in one line and writing nothing, a run
file of another run; an untouched experiment is reported."""

from __future__ import annotations

import shutil

from cli_call import call, one_error_line
from experiment_files import copy_experiment as _copy


def _refused(d, capsys) -> str:
    status, _, err = call(["report", str(d)], capsys)
    assert status == 2
    assert not (d / "report.md").exists()  # nothing written
    assert not list(d.glob("*.png")) and not list(d.glob("*.svg"))
    return one_error_line(err)


def test_report_refuses_a_run_of_another_preset(two_experiments, tmp_path, capsys):
    """a buraco run copied over a tranca variant's run was reported (exit 0, wrong numbers)."""
    d = _copy(two_experiments["tranca"], tmp_path)
    buraco_run = two_experiments["buraco"] / "runs" / "v01-lock.ab.parquet"
    shutil.copyfile(buraco_run, d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line and "preset 'buraco', not 'tranca'" in line


def test_report_refuses_another_variants_run(two_experiments, tmp_path, capsys):
    """one variant's run under another variant's name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v02-rush.ab.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "v01-lock.ab.parquet" in line
    assert "black3_lock=0, not 1" in line and "label 'rush', not 'lock'" in line


def test_report_refuses_the_twin_run_under_the_other_role(two_experiments, tmp_path, capsys):
    """a variant's sides-swapped run (ba) under its ab name."""
    d = _copy(two_experiments["tranca"], tmp_path)
    shutil.copyfile(d / "runs" / "v01-lock.ba.parquet", d / "runs" / "v01-lock.ab.parquet")
    line = _refused(d, capsys)
    assert "side A plays" in line and "role 'ba', not 'ab'" in line


def test_report_refuses_a_run_of_another_seed(two_experiments, tmp_path, capsys):
    """experiment.json records seed 3; a run whose metadata says another seed is refused."""
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
    """a run rewritten by pyarrow without its metadata was reported (summarize refused it)."""
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
