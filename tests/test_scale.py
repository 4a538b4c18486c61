"""Runs in chunks on threads, processes and Dask; datasets; resume after SIGKILL; damaged chunks.

Every run here is small (a few thousand deals of basic vs random); what is checked is that the
rows do not depend on where the chunks ran, that a killed run resumed equals an uninterrupted
one (deal indices 0..N-1 exactly once each), and that a damaged or foreign chunk or manifest is
named and never mixed in.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from tranca_sim import dataset as ds
from tranca_sim.io import RunFileError, load_meta, load_run, verify_run
from tranca_sim.simulate import run_simulation

ROOT = Path(__file__).resolve().parents[1]
DEALS, CHUNK = 3000, 500
ARGS = ("tranca", DEALS, 7, "basic", "random")


def sim(out, **kw):
    return run_simulation(*ARGS, out, chunk_size=CHUNK, progress=False, **kw)


def hashes(path) -> list[str]:
    return [c["sha256"] for c in ds.read_manifest(path)["chunks"]]


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The run on one thread in this process, as a dataset and as a single file."""
    d = tmp_path_factory.mktemp("ref")
    res = sim(f"{d}/one/", threads=1)
    sim(d / "one.parquet", threads=1)
    return d, res


def cli(*args, env=None, **kw):
    e = dict(os.environ, PYTHONPATH=str(ROOT))
    e.update(env or {})
    return subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", *args],
        env=e,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kw,
    )


def call(argv, capsys) -> tuple[int, str, str]:
    """``tranca-sim ARGV`` in this process (the kernels are loaded already): status, stdout, stderr."""
    from tranca_sim.cli import main

    try:
        status = main([str(x) for x in argv])
    except SystemExit as e:
        status = e.code
    out = capsys.readouterr()
    return status, out.out, out.err


def sim_args(out, *extra):
    return ["simulate", "--deals", str(DEALS), "--seed", "7", "--chunk-size", str(CHUNK), "--no-progress",
            "--out", str(out), *extra]  # fmt: skip


def wait_for_chunks(path, k, proc, timeout=120):
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            if len(ds.read_manifest(path)["chunks"]) >= k:
                return
        except RunFileError:
            pass
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    raise AssertionError(f"fewer than {k} chunks after {timeout} s")


def assert_whole(path, reference_dir):
    """Deal indices 0..N-1 exactly once each (two rows, sides 0 and 1) and the rows of the
    uninterrupted reference run, chunk files byte for byte."""
    df = load_run(path)
    idx = np.sort(df["deal_index"].to_numpy())
    assert np.array_equal(idx, np.repeat(np.arange(DEALS), 2))
    assert df.equals(load_run(reference_dir / "one"))
    assert hashes(path) == hashes(reference_dir / "one")
    assert not [p for p in os.listdir(path) if p.startswith(".tmp-tranca-")]


# ---- the same rows wherever the chunks run ------------------------------------------------------
def test_same_rows_on_threads_processes_and_local_cluster(reference, tmp_path):
    d, ref = reference
    two = sim(f"{tmp_path}/two/", threads=2)
    procs = sim(f"{tmp_path}/procs/", processes=2)
    dask = sim(f"{tmp_path}/dask/", cluster=2)
    frame = load_run(d / "one")
    assert frame.height == 2 * DEALS
    assert frame.equals(load_run(d / "one.parquet"))  # a dataset reads as the single file does
    for name in ("two", "procs", "dask"):
        assert hashes(tmp_path / name) == hashes(d / "one"), name  # chunk files byte for byte
        assert load_run(tmp_path / name).equals(frame), name
    for res in (two, procs, dask):
        assert res["summary"] == ref["summary"]  # summaries fed in deal order: equal to the last bit
    # each worker loads the kernels once, from the disk cache this process filled: no compile there
    for res in (procs, dask):
        workers = res["workers"]
        assert 1 <= len(workers) <= 2
        assert sum(w["chunks"] for w in workers.values()) == DEALS // CHUNK
        assert all(w["cache_misses"] == 0 for w in workers.values()), workers
        assert all(w["load_seconds"] > 0 for w in workers.values()), workers
    assert dask["cluster"] == 2


def test_manifest_describes_the_run(reference):
    d, _ = reference
    doc = ds.read_manifest(d / "one")
    meta = doc["meta"]
    assert meta["master_seed"] == 7 and meta["deals"] == DEALS and meta["complete"]
    assert [s["text"] for s in meta["strategies"]][1] == "random"
    assert meta["rules"]["name"] == "tranca" and meta["version"]
    assert [(c["index"], c["start"], c["count"], c["rows"]) for c in doc["chunks"]] == [
        (i, 500 * i, 500, 1000) for i in range(6)
    ]
    assert load_meta(d / "one")["chunk_size"] == CHUNK


# ---- resume after SIGKILL ------------------------------------------------------------------------
@pytest.mark.slow
def test_resume_after_sigkill_of_a_process_run(reference, tmp_path):
    d, _ = reference
    out = tmp_path / "run"
    slow = {"TRANCA_SIM_TEST_CHUNK_SLEEP": "0.3"}
    p = cli(*sim_args(f"{out}/", "--processes", "2"), env=slow, start_new_session=True)
    wait_for_chunks(out, 2, p)
    os.killpg(p.pid, signal.SIGKILL)  # the run and its worker processes, as a power cut would
    p.communicate()
    kept = len(ds.read_manifest(out)["chunks"])
    assert 2 <= kept < DEALS // CHUNK
    with pytest.raises(RunFileError, match="unfinished run: .* --resume"):
        verify_run(out)
    r = cli(*sim_args(out, "--processes", "2", "--resume"))
    stdout, stderr = r.communicate()
    assert r.returncode == 0, stderr
    assert f"resumed: {kept * CHUNK} deals were written before" in stdout
    assert_whole(out, d)


@pytest.mark.slow
def test_dask_worker_killed_midway_then_resume(reference, tmp_path, monkeypatch):
    """A worker of a LocalCluster is SIGKILLed while the run uses it: Dask runs its chunk again
    elsewhere (or the run stops and --resume finishes it); the rows equal the uninterrupted run."""
    from dask.distributed import Client, LocalCluster

    d, _ = reference
    out = tmp_path / "run"
    monkeypatch.setenv("TRANCA_SIM_TEST_CHUNK_SLEEP", "0.4")  # the workers inherit it
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        pids = client.run(os.getpid)
        p = cli(*sim_args(f"{out}/", "--scheduler", cluster.scheduler_address))
        wait_for_chunks(out, 2, p)
        os.kill(next(iter(pids.values())), signal.SIGKILL)
        _, stderr = p.communicate(timeout=120)
        if p.returncode != 0 or len(ds.read_manifest(out)["chunks"]) < DEALS // CHUNK:
            r = cli(*sim_args(out, "--scheduler", cluster.scheduler_address, "--resume"))
            _, stderr = r.communicate(timeout=120)
            assert r.returncode == 0, stderr
    assert_whole(out, d)


def test_ctrl_c_keeps_the_chunks_and_says_how_to_resume(reference, tmp_path, capsys, monkeypatch):
    from tranca_sim import engine

    d, _ = reference
    real = engine.simulate_chunk
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 4:  # the warm-up deal, chunks 0 and 1, then Ctrl-C in chunk 2
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", interrupted)
    out = f"{tmp_path}/run/"
    status, _, err = call(sim_args(out), capsys)
    assert status == 130, err
    assert f"interrupted; the chunks written so far are kept in {out}" in err and "--resume" in err
    assert [c["index"] for c in ds.read_manifest(out)["chunks"]] == [0, 1]
    monkeypatch.setattr(engine, "simulate_chunk", real)
    status, stdout, err = call(sim_args(out, "--resume"), capsys)
    assert status == 0, err
    assert f"resumed: {2 * CHUNK} deals were written before; {DEALS - 2 * CHUNK} deals in" in stdout
    assert_whole(tmp_path / "run", d)


# ---- damage and mismatches are named, never mixed in --------------------------------------------
def copy_run(src: Path, dst: Path) -> Path:
    import shutil

    shutil.copytree(src, dst)
    return dst


def test_truncated_chunk_is_named_and_resume_redoes_it(reference, tmp_path, capsys):
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    f = out / "chunk-000003.parquet"
    f.write_bytes(f.read_bytes()[:-100])
    with pytest.raises(RunFileError, match=r"chunk-000003\.parquet: truncated"):
        load_run(out)
    status, _, err = call(["summarize", out], capsys)
    assert status == 2 and "chunk-000003.parquet: truncated" in err and "Traceback" not in err
    status, _, err = call(sim_args(out, "--resume"), capsys)
    assert status == 0, err
    assert "chunk-000003.parquet: truncated" in err and "simulated again" in err
    assert_whole(out, d)


def test_a_short_chunk_that_is_whole_is_named_by_its_size_and_rows(reference, tmp_path):
    """A smaller chunk file that is a whole Parquet file is not 'truncated': its bytes and rows are
    named against the manifest's (a fresh user's find)."""
    import pyarrow.parquet as pq

    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    f = out / "chunk-000003.parquet"
    t = pq.read_table(f)
    pq.write_table(t.slice(0, 100).replace_schema_metadata(t.schema.metadata), f)
    entry = ds.read_manifest(out)["chunks"][3]
    want = (
        rf"chunk-000003\.parquet: not the file the run wrote: {os.path.getsize(f)} bytes and 100 rows where "
        rf"the manifest lists {entry['bytes']} bytes and {entry['rows']} rows$"
    )
    assert os.path.getsize(f) < entry["bytes"] and entry["rows"] == 1000
    with pytest.raises(RunFileError, match=want):
        load_run(out)


@pytest.mark.parametrize("text", ["{not json", '{"format": "something else"}'])
def test_a_corrupt_manifest_says_how_to_start_over(reference, tmp_path, capsys, text):
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    (out / ds.MANIFEST).write_text(text)
    status, _, err = call(sim_args(out, "--resume"), capsys)
    assert status == 2 and "manifest.json" in err and "--force (instead of --resume)" in err, err
    status, _, err = call(sim_args(out, "--force"), capsys)  # what the message says: it starts over
    assert status == 0, err
    assert_whole(out, d)


def test_chunk_of_another_schema_is_named(reference, tmp_path):
    import pyarrow.parquet as pq

    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    t = pq.read_table(out / "chunk-000001.parquet").drop_columns(["score"])
    pq.write_table(t, out / "chunk-000001.parquet")
    with pytest.raises(RunFileError, match=r"chunk-000001\.parquet: it is not of the run-file schema.*score"):
        verify_run(out)
    # a manifest rewritten to match the foreign chunk: the chunk's own check still refuses it
    doc = ds.read_manifest(out)
    doc["chunks"][1].update(
        bytes=os.path.getsize(out / "chunk-000001.parquet"), sha256=ds._sha256(out / "chunk-000001.parquet")
    )
    (out / ds.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(RunFileError, match="chunk-000001.parquet"):
        load_run(out)


def test_chunk_of_another_run_is_named(reference, tmp_path):
    d, _ = reference
    other = tmp_path / "other"
    run_simulation(
        "tranca", DEALS, 8, "basic", "random", other, chunk_size=CHUNK, progress=False, dataset=True
    )
    out = copy_run(d / "one", tmp_path / "run")
    (out / "chunk-000002.parquet").write_bytes((other / "chunk-000002.parquet").read_bytes())
    doc = ds.read_manifest(out)
    doc["chunks"][2] = ds.read_manifest(other)["chunks"][2]
    (out / ds.MANIFEST).write_text(json.dumps(doc))
    with pytest.raises(RunFileError, match=r"chunk-000002\.parquet: it belongs to another run \(master_seed"):
        load_run(out)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        # each difference named as the command line names it, with this run's and the dataset's value
        ({"seed": 8}, "--seed: this run 8, the dataset 7"),
        ({"side_b": "passive"}, "--side-b: this run 'passive', the dataset 'random'"),
        ({"rule_options": {"max_wilds": 1}}, "--rule max_wilds: this run 1, the dataset 2"),
        (
            {"rule_options": {"lock_by_black3": False}},
            "--rule lock_by_black3: this run false, the dataset true",
        ),
        ({"deals": 3500}, "--deals: this run 3500, the dataset 3000"),
        ({"chunk_size": 250}, "--chunk-size: this run 250, the dataset 500"),
        ({"check": True}, "--check: this run true, the dataset false"),
        ({}, "tranca-sim version: this run "),
    ],
)
def test_resume_refuses_another_run(reference, tmp_path, change, field):
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    if field.startswith("tranca-sim version"):
        doc = ds.read_manifest(out)
        doc["meta"]["version"] = "0.0.1"
        (out / ds.MANIFEST).write_text(json.dumps(doc))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    kw = {"preset": "tranca", "deals": DEALS, "seed": 7, "side_a": "basic", "side_b": "random"}
    kw.update({k: v for k, v in change.items() if k in kw})
    extra = {k: v for k, v in change.items() if k not in kw}
    extra.setdefault("chunk_size", CHUNK)
    with pytest.raises(ds.DatasetMismatchError) as e:
        run_simulation(**kw, out=out, progress=False, resume=True, **extra)
    assert f"cannot resume '{out}': it is another run ({field}" in str(e.value)
    assert len(e.value.differences) == 1, e.value.differences  # the one option changed, nothing else
    if field.startswith("tranca-sim version"):
        assert e.value.differences[0][2] == "0.0.1"
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing touched


def test_resume_mismatch_on_the_command_line(reference, tmp_path, capsys):
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    args = sim_args(out, "--resume")
    args[args.index("--seed") + 1] = "8"
    status, _, err = call(args, capsys)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0] == (
        f"tranca-sim: error: cannot resume '{out}': it is another run (--seed: this run 8, the dataset 7); "
        "give the same arguments as the interrupted run, or --force to replace it"
    )


def test_resume_mismatch_names_each_option_not_the_whole_record(reference, tmp_path, capsys):
    """A fresh user's find: the message printed the strategies' and rules' JSON cut at 60
    characters; it names each rule option and side that differs, with both values, in full."""
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    args = sim_args(out, "--resume", "--rule", "max_wilds=1", "--rule", "pile_closed=false")
    args += ["--side-a", "basic:black3_lock=1,go_out=0"]
    status, _, err = call(args, capsys)
    assert status == 2, err
    assert err.count("\n") == 1 and "..." not in err and "{" not in err, err
    for part in (
        "--rule max_wilds: this run 1, the dataset 2",
        "--rule pile_closed: this run false, the dataset true",
        "--side-a: this run 'basic:black3_lock=1,go_out=0', the dataset 'basic'",
    ):
        assert part in err, err
    assert "--side-b" not in err and "--seed" not in err  # what is the same is not named


def test_existing_dataset_needs_resume_or_force(reference, tmp_path, capsys):
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    status, _, err = call(sim_args(out), capsys)  # a dataset is known by its manifest, without a trailing /
    assert status == 2 and "--resume finishes it" in err and "--force replaces it" in err
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("keep")
    status, _, err = call(sim_args(f"{foreign}/", "--force"), capsys)
    assert status == 2 and "not a tranca-sim dataset" in err
    assert (foreign / "notes.txt").read_text() == "keep"


def test_summarize_replay_and_check_read_a_dataset(reference, capsys):
    from tranca_sim.check import check_run
    from tranca_sim.cli import main
    from tranca_sim.replay import format_deal, regenerate

    d, _ = reference
    texts = [format_deal(regenerate(p, 1234)) for p in (d / "one", d / "one.parquet")]
    assert texts[0] == texts[1] and texts[0].startswith("deal 1234")
    verdicts, _, limited = check_run(d / "one", 3, progress=False)
    assert [v.ok for v in verdicts] == [True] * 3 and limited == []
    outs = []
    for path in (d / "one", d / "one.parquet"):
        assert main(["summarize", str(path)]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1] and f"{DEALS}" in outs[0]


def test_a_run_that_failed_before_its_first_chunk_does_not_block_the_next(tmp_path, capsys, monkeypatch):
    """A --scheduler run that cannot reach its scheduler has written only the manifest (no chunk);
    the next run at the same --out starts without --force, and a dataset holding a chunk is still
    refused (test_existing_dataset_needs_resume_or_force)."""
    import contextlib

    from tranca_sim import parallel

    @contextlib.contextmanager
    def unreachable(**kwargs):
        raise parallel.ClusterError("cannot reach the Dask scheduler at tcp://127.0.0.1:1: refused")
        yield

    out = tmp_path / "run"
    with monkeypatch.context() as m:
        m.setattr(parallel, "pool", unreachable)
        status, _, err = call(sim_args(f"{out}/", "--scheduler", "tcp://127.0.0.1:1"), capsys)
    assert status == 2 and "cannot reach the Dask scheduler" in err
    assert ds.read_manifest(out)["chunks"] == []  # what the failed run leaves
    status, _, err = call(sim_args(f"{out}/"), capsys)
    assert status == 0, err
    assert len(ds.read_manifest(out)["chunks"]) == DEALS // CHUNK


def test_run_file_into_a_dataset_is_refused(reference, tmp_path, capsys):
    """A fresh user's find: ``simulate --out DIR/chunk-000001.parquet --force`` replaced a chunk of
    the dataset in DIR without a word (the dataset then failed every read). A run file inside a
    dataset directory is refused, with --force too, naming the dataset; nothing is touched."""
    d, _ = reference
    out = copy_run(d / "one", tmp_path / "run")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    chunk = out / "chunk-000001.parquet"
    status, _, err = call(sim_args(chunk, "--force"), capsys)
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith(f"tranca-sim: error: --out: '{chunk}' is inside the dataset '{out}'"), err
    assert "overwrite the dataset's chunk file chunk-000001.parquet" in err and f"--out {out}/ --force" in err
    status, _, err = call(sim_args(out / "extra.parquet"), capsys)  # a new name there: among the chunks
    assert status == 2 and "is inside the dataset" in err and "sit among its chunk files" in err, err
    with pytest.raises(RunFileError, match="is inside the dataset"):
        sim(chunk, force=True)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    verify_run(out)  # still whole


def test_the_run_api_refuses_an_impossible_chunk_size(tmp_path):
    from tranca_sim.run import RunOptionError
    from tranca_sim.simulate import run_simulation

    with pytest.raises(RunOptionError, match="chunk_size must be between 1 and 10000000"):
        run_simulation(
            preset="tranca",
            deals=10,
            seed=1,
            side_a="basic",
            side_b="basic",
            out=tmp_path / "x.parquet",
            chunk_size=10**12,
            progress=False,
        )
    assert not (tmp_path / "x.parquet").exists()
