"""A run's failed invariant checks and illegal answers are recorded in its run file (or a
dataset's manifest) and warned about by summarize and report."""

from __future__ import annotations

from cli_call import call
from experiment_files import copy_experiment as _copy


def test_simulate_records_its_diagnostics_in_the_run_file(tmp_path, capsys):
    """the run file kept no trace of --check's failures or of illegal answers."""
    from tranca_sim.io import load_meta

    out = tmp_path / "r.parquet"
    status, _, err = call(
        ["simulate", "--deals", "20", "--check", "--threads", "1", "--out", str(out)], capsys
    )
    assert status == 0, err
    diag = load_meta(out)["diagnostics"]
    assert diag["invariant_errors"] == 0 and diag["illegal_choices"] == [0, 0]


def _with_diagnostics(src, dst, diagnostics):
    """``src``'s run file with its metadata's diagnostics replaced (a run written with them)."""
    import json

    import pyarrow.parquet as pq

    t = pq.read_table(src)
    meta = json.loads(pq.read_metadata(src).metadata[b"tranca_sim"])
    meta["diagnostics"] = diagnostics
    pq.write_table(t.replace_schema_metadata({"tranca_sim": json.dumps(meta)}), dst)


def test_summarize_warns_about_a_run_with_failed_checks_or_illegal_answers(tmp_path, capsys):
    """such a run was later summarized clean."""
    out = tmp_path / "r.parquet"
    assert call(["simulate", "--deals", "20", "--threads", "1", "--out", str(out)], capsys)[0] == 0
    status, _, err = call(["summarize", str(out)], capsys)
    assert status == 0 and "warning" not in err
    bad = tmp_path / "bad.parquet"
    _with_diagnostics(out, bad, {"invariant_errors": 3, "meld_full": 0, "illegal_choices": [0, 7]})
    status, _, err = call(["summarize", str(bad)], capsys)
    assert status == 0
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: warning: "), err
    assert "invariant checks failed 3 times" in lines[0] and "side B" in lines[0] and "7 times" in lines[0]
    assert "side A" not in lines[0]


def test_summarize_warns_about_a_dataset_with_failed_checks(tmp_path, capsys):
    """a dataset's manifest records each chunk's diagnostics; summarize did not read them."""
    import json

    out = tmp_path / "ds"
    argv = ["simulate", "--deals", "20", "--chunk-size", "10", "--threads", "1", "--out", f"{out}/"]
    assert call(argv, capsys)[0] == 0
    m = out / "manifest.json"
    doc = json.loads(m.read_text())
    doc["chunks"][1]["diagnostics"]["invariant_errors"] = 2
    m.write_text(json.dumps(doc))
    status, _, err = call(["summarize", str(out)], capsys)
    assert status == 0
    assert "invariant checks failed 2 times" in err


def test_report_warns_about_a_run_with_illegal_answers(two_experiments, tmp_path, capsys):
    d = _copy(two_experiments["tranca"], tmp_path)
    f = d / "runs" / "v02-rush.ba.parquet"
    _with_diagnostics(f, f, {"invariant_errors": 0, "illegal_choices": [5, 0]})
    status, _, err = call(["report", str(d)], capsys)
    assert status == 0, err
    assert "v02-rush.ba.parquet" in err and "side A" in err and "5 times" in err


def test_experiment_runs_record_their_diagnostics(two_experiments):
    from tranca_sim.io import load_meta

    diag = load_meta(two_experiments["buraco"] / "runs" / "v01-lock.ab.parquet")["diagnostics"]
    assert diag == {"invariant_errors": 0, "illegal_choices": [0, 0]}
