"""Parquet run files: round trip, streaming, atomic writes, unreadable files."""

from __future__ import annotations

import errno
import os
import socket

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tranca_sim import io
from tranca_sim.io import RunFileError, check_output_path, load_meta, load_run, write_run
from tranca_sim.schema import COLUMNS

NAMES = [n for n, _, _ in COLUMNS]
META = {
    "preset": "tranca",
    "master_seed": 7,
    "strategies": [
        {"name": "basic", "params": [1.0, 0.0, 2.5]},
        {"name": "random", "params": []},
    ],
    "deals": 30,
    "note": "test run",
}


def fake_chunk(start: int, count: int) -> dict[str, np.ndarray]:
    """Columns shaped like the engine's output (deal-major, 2 rows a deal), with arbitrary values."""
    rng = np.random.default_rng(start)
    n = 2 * count
    cols = {}
    for name, typ, _ in COLUMNS:
        if name in io.RUN_COLUMNS:
            continue
        if typ == "bool":
            cols[name] = rng.random(n) < 0.5
        elif typ == "string":  # end_reason codes
            cols[name] = rng.integers(1, 4, n).astype(np.int8)
        else:
            cols[name] = rng.integers(-5, 100, n).astype(np.int32)  # int32 in, cast to the schema type
    cols["deal_index"] = np.repeat(np.arange(start, start + count, dtype=np.int64), 2)
    cols["side"] = np.tile(np.array([0, 1], np.int8), count)
    cols["invariant_errors"] = np.zeros(n, np.int32)  # extra engine diagnostics are dropped
    return cols


def chunks(sizes=(10, 10, 10)):
    start = 0
    for k in sizes:
        yield fake_chunk(start, k)
        start += k


def leftovers(directory) -> list[str]:
    return sorted(os.listdir(directory))


def test_end_reasons_copy_matches_engine():
    from tranca_sim.engine.state import END_REASONS

    assert io.END_REASONS == END_REASONS


def test_chunk_and_run_columns_cover_schema():
    assert sorted(io.CHUNK_COLUMNS + io.RUN_COLUMNS) == sorted(NAMES)
    assert io.ARROW_SCHEMA.names == NAMES


def test_round_trip_polars(tmp_path):
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)
    df = load_run(path)
    assert isinstance(df, pl.DataFrame)
    assert df.columns == NAMES
    assert df.height == 60
    assert df.schema["side"] == pl.Int8 and df.schema["score"] == pl.Int32
    assert df.schema["strategy_params"] == pl.List(pl.Float64)
    expected = pl.concat([pl.DataFrame({k: v for k, v in fake_chunk(s, 10).items()}) for s in (0, 10, 20)])
    for name in ("deal_index", "side", "score", "won", "morto_turn", "hand0_wilds", "n_turns"):
        assert df[name].cast(pl.Int64).to_list() == expected[name].cast(pl.Int64).to_list(), name
    codes = expected["end_reason"].to_numpy()
    assert df["end_reason"].to_list() == [io.END_REASONS[c] for c in codes]
    assert set(df["preset"]) == {"tranca"} and set(df["master_seed"]) == {7}
    a = df.filter(pl.col("side") == 0)
    b = df.filter(pl.col("side") == 1)
    assert set(a["strategy"]) == {"basic"} and set(b["strategy"]) == {"random"}
    assert a["strategy_params"][0].to_list() == [1.0, 0.0, 2.5]
    assert b["strategy_params"][0].to_list() == []
    assert set(df["version"]) == {io.package_version()}
    assert "invariant_errors" not in df.columns
    assert leftovers(tmp_path) == ["run.parquet"]


def test_round_trip_pandas_and_columns(tmp_path):
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)
    pdf = load_run(path, backend="pandas")
    assert isinstance(pdf, pd.DataFrame)
    assert list(pdf.columns) == NAMES and len(pdf) == 60
    assert str(pdf["score"].dtype) == "int32"
    sub = load_run(path, columns=["deal_index", "score"])
    assert sub.columns == ["deal_index", "score"]
    with pytest.raises(ValueError, match="unknown column"):
        load_run(path, columns=["nope"])
    with pytest.raises(ValueError, match="backend"):
        load_run(path, backend="spark")


def test_meta_round_trip(tmp_path):
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)
    meta = load_meta(path)
    for key, value in META.items():
        assert meta[key] == value
    assert meta["version"] == io.package_version()
    assert "created" in meta


def test_one_row_group_per_chunk(tmp_path):
    path = tmp_path / "run.parquet"
    write_run(path, chunks((5, 7, 3, 1)), run_meta=META)
    assert pq.ParquetFile(path).num_row_groups == 4
    assert load_run(path).height == 2 * 16


def test_chunks_are_written_as_they_come(tmp_path):
    """The temporary file exists (and holds the first chunk) while later chunks are produced."""
    path = tmp_path / "run.parquet"
    seen = []

    def gen():
        yield fake_chunk(0, 10)
        seen.append([f for f in leftovers(tmp_path) if f.startswith(".tmp-tranca-")])
        yield fake_chunk(10, 10)

    write_run(path, gen(), run_meta=META)
    assert seen and len(seen[0]) == 1
    assert leftovers(tmp_path) == ["run.parquet"]


def test_empty_run(tmp_path):
    path = tmp_path / "run.parquet"
    write_run(path, iter(()), run_meta=META)
    df = load_run(path)
    assert df.height == 0 and df.columns == NAMES


@pytest.mark.parametrize("exc", [RuntimeError("engine failed"), KeyboardInterrupt()])
def test_exception_mid_run_leaves_nothing(tmp_path, exc):
    path = tmp_path / "run.parquet"

    def gen():
        yield fake_chunk(0, 10)
        yield fake_chunk(10, 10)
        raise exc

    with pytest.raises(type(exc)):
        write_run(path, gen(), run_meta=META)
    assert leftovers(tmp_path) == []


def test_exception_with_force_keeps_old_file(tmp_path):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"old")

    def gen():
        yield fake_chunk(0, 10)
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_run(path, gen(), run_meta=META, force=True)
    assert path.read_bytes() == b"old"
    assert leftovers(tmp_path) == ["run.parquet"]


def test_bad_chunk_leaves_nothing(tmp_path):
    path = tmp_path / "run.parquet"
    bad = fake_chunk(0, 3)
    bad["end_reason"][0] = 9
    with pytest.raises(ValueError, match="end_reason"):
        write_run(path, [bad], run_meta=META)
    missing = fake_chunk(0, 3)
    del missing["score"]
    with pytest.raises(ValueError, match="score"):
        write_run(path, [missing], run_meta=META)
    overflow = fake_chunk(0, 3)
    overflow["side"] = overflow["side"].astype(np.int64)
    overflow["hand0_wilds"] = np.full(6, 1000)
    with pytest.raises(ValueError, match="hand0_wilds"):
        write_run(path, [overflow], run_meta=META)
    with pytest.raises(ValueError, match="run_meta"):
        write_run(path, [fake_chunk(0, 3)], run_meta={"preset": "tranca"})
    assert leftovers(tmp_path) == []


def test_existing_path_refused_without_force(tmp_path):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"keep me")
    with pytest.raises(RunFileError, match="already exists") as err:
        write_run(path, chunks(), run_meta=META)
    assert str(path) in str(err.value)
    with pytest.raises(RunFileError, match="already exists"):
        check_output_path(path)
    assert path.read_bytes() == b"keep me"
    write_run(path, chunks(), run_meta=META, force=True)
    assert load_run(path).height == 60
    assert leftovers(tmp_path) == ["run.parquet"]


def test_unwritable_paths(tmp_path):
    with pytest.raises(RunFileError, match="does not exist"):
        check_output_path(tmp_path / "no-such-dir" / "run.parquet")
    afile = tmp_path / "file"
    afile.write_text("x")
    with pytest.raises(RunFileError, match="not a directory"):
        check_output_path(afile / "run.parquet")
    with pytest.raises(RunFileError, match="is a directory"):
        check_output_path(tmp_path, force=True)
    assert leftovers(tmp_path) == ["file"]


def test_missing_file(tmp_path):
    path = tmp_path / "nope.parquet"
    for fn in (load_run, load_meta):
        with pytest.raises(RunFileError, match="does not exist") as err:
            fn(path)
        assert str(path) in str(err.value)


def test_garbage_file(tmp_path):
    path = tmp_path / "garbage.parquet"
    path.write_bytes(np.random.default_rng(0).bytes(5000))
    for fn in (load_run, load_meta):
        with pytest.raises(RunFileError, match="not a readable Parquet file") as err:
            fn(path)
        msg = str(err.value)
        assert str(path) in msg and "\n" not in msg


def test_truncated_file(tmp_path):
    good = tmp_path / "good.parquet"
    write_run(good, chunks(), run_meta=META)
    data = good.read_bytes()
    for cut in (len(data) // 2, len(data) - 10, 8):
        bad = tmp_path / f"cut{cut}.parquet"
        bad.write_bytes(data[:cut])
        with pytest.raises(RunFileError, match=str(bad)):
            load_run(bad)


def test_corrupt_page_detected(tmp_path):
    """Damaged data inside a column chunk fails the page checksum instead of returning wrong numbers."""
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)
    col = pq.ParquetFile(path).metadata.row_group(0).column(NAMES.index("score"))
    start = col.dictionary_page_offset or col.data_page_offset
    data = bytearray(path.read_bytes())
    mid = start + col.total_compressed_size - 8
    data[mid : mid + 4] = bytes(b ^ 0xFF for b in data[mid : mid + 4])
    path.write_bytes(bytes(data))
    readers = {
        "load_run": load_run,
        "load_run of other columns": lambda x: load_run(x, columns=["deal_index", "side"]),
        "load_meta": load_meta,
        "verify_run": io.verify_run,
    }
    for name, read in readers.items():
        with pytest.raises(RunFileError, match="corrupt") as err:
            read(path)
        assert str(path) in str(err.value), name


def test_a_verified_file_is_read_once(tmp_path, monkeypatch):
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)
    reads = []
    real = pq.ParquetFile.read_row_group
    monkeypatch.setattr(
        pq.ParquetFile, "read_row_group", lambda self, i, **k: reads.append(i) or real(self, i, **k)
    )
    assert load_meta(path)["master_seed"] == 7
    assert len(reads) == 3  # three chunks, each row group read and checked once
    assert load_run(path, columns=["score"]).height == 60
    assert len(reads) == 3  # already verified: only the asked columns are read
    path.write_bytes(path.read_bytes())  # rewritten (new modification time): verified again
    os.utime(path, ns=(1, 1))
    load_meta(path)
    assert len(reads) == 6


def test_parquet_without_our_columns(tmp_path):
    path = tmp_path / "other.parquet"
    pl.DataFrame({"a": [1, 2], "b": ["x", "y"]}).write_parquet(path)
    with pytest.raises(RunFileError, match="not a tranca-sim run file") as err:
        load_run(path)
    assert str(path) in str(err.value)
    with pytest.raises(RunFileError, match="not a tranca-sim run file"):
        load_meta(path)


def test_directory_is_not_a_run_file(tmp_path):
    with pytest.raises(RunFileError, match="is a directory"):
        load_run(tmp_path)


# ---- outputs that are never replaced: links and special files (even with force) ---------------
def make_special(tmp_path, kind):
    """An existing output path of the given kind; returns (path, check) where check() is true while
    the thing at the path is untouched."""
    path = tmp_path / "out.parquet"
    if kind == "symlink":
        target = tmp_path / "target"
        target.write_bytes(b"precious")
        path.symlink_to(target)
        return path, lambda: path.is_symlink() and target.read_bytes() == b"precious"
    if kind == "dangling symlink":
        path.symlink_to(tmp_path / "nowhere")
        return path, lambda: path.is_symlink() and not (tmp_path / "nowhere").exists()
    if kind == "fifo":
        os.mkfifo(path)
        return path, lambda: path.is_fifo()
    if kind == "socket":
        sock = socket.socket(socket.AF_UNIX)
        sock.bind(os.path.relpath(path))  # short: AF_UNIX paths are limited to ~107 bytes
        sock.close()
        return path, lambda: path.is_socket()
    if kind == "directory":
        path.mkdir()
        return path, lambda: path.is_dir()
    if kind == "device":
        return "/dev/null", lambda: os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    raise AssertionError(kind)


SPECIAL = ["symlink", "dangling symlink", "fifo", "socket", "directory", "device"]
WHY = {"symlink": "symbolic link", "dangling symlink": "symbolic link", "fifo": "not a regular file",
       "socket": "not a regular file", "directory": "is a directory", "device": "not a regular file"}  # fmt: skip


@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("force", [False, True])
def test_special_output_refused_even_with_force(tmp_path, monkeypatch, kind, force):
    monkeypatch.chdir(tmp_path)  # for the socket's short relative name
    path, untouched = make_special(tmp_path, kind)
    before = leftovers(tmp_path)
    with pytest.raises(RunFileError, match=WHY[kind]) as err:
        check_output_path(path, force=force)
    assert str(path) in str(err.value)
    if kind.endswith("symlink"):
        assert "give the file's real path" in str(err.value)
    with pytest.raises(RunFileError, match=WHY[kind]):
        write_run(path, chunks(), run_meta=META, force=force)
    with pytest.raises(RunFileError, match=WHY[kind]), io.atomic_output(path, force=force) as tmp:
        tmp.write_text("x")
    assert untouched()
    assert leftovers(tmp_path) == before


def test_output_turned_into_a_link_while_writing_is_not_replaced(tmp_path):
    path = tmp_path / "run.parquet"
    path.write_bytes(b"old")
    (tmp_path / "target").write_bytes(b"precious")

    def gen():
        yield fake_chunk(0, 10)
        path.unlink()
        path.symlink_to(tmp_path / "target")
        yield fake_chunk(10, 10)

    with pytest.raises(RunFileError, match="symbolic link"):
        write_run(path, gen(), run_meta=META, force=True)
    assert path.is_symlink() and (tmp_path / "target").read_bytes() == b"precious"
    assert leftovers(tmp_path) == ["run.parquet", "target"]


# ---- OSError while writing (disk full): one readable error, nothing left -------------------------
ENOSPC = OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")


@pytest.mark.parametrize("step", ["__init__", "write_table", "close"])
def test_disk_full_while_writing(tmp_path, monkeypatch, step):
    real = getattr(pq.ParquetWriter, step)

    def full(self, *args, **kwargs):
        if step == "close":
            real(self, *args, **kwargs)  # really close (no open handle left), then fail like a full disk
        raise ENOSPC

    monkeypatch.setattr(pq.ParquetWriter, step, full)
    path = tmp_path / "run.parquet"
    with pytest.raises(RunFileError) as err:
        write_run(path, chunks(), run_meta=META)
    assert str(err.value) == f"cannot write {str(path)!r}: No space left on device"
    assert leftovers(tmp_path) == []


def test_disk_full_keeps_the_old_file(tmp_path, monkeypatch):
    monkeypatch.setattr(pq.ParquetWriter, "write_table", lambda self, table: (_ for _ in ()).throw(ENOSPC))
    path = tmp_path / "run.parquet"
    path.write_bytes(b"old")
    with pytest.raises(RunFileError, match="No space left on device"):
        write_run(path, chunks(), run_meta=META, force=True)
    assert path.read_bytes() == b"old" and leftovers(tmp_path) == ["run.parquet"]


def test_atomic_output_reports_os_errors(tmp_path):
    path = tmp_path / "page.html"
    with (
        pytest.raises(RunFileError, match="cannot write .*No space left on device"),
        io.atomic_output(path) as tmp,
        io.writing(path),
    ):
        tmp.write_text("half a page")
        raise ENOSPC
    assert leftovers(tmp_path) == []
    with io.atomic_output(path) as tmp:
        tmp.write_text("a page")
    assert path.read_text() == "a page" and leftovers(tmp_path) == ["page.html"]


# ---- long names: temporary and probe names stay short -------------------------------------------
@pytest.mark.parametrize("length", [248, 255])
def test_longest_names_can_be_written(tmp_path, length):
    path = tmp_path / ("r" * (length - len(".parquet")) + ".parquet")
    assert len(path.name) == length
    assert check_output_path(path) == path
    seen = []

    def gen():
        yield fake_chunk(0, 10)
        seen.extend(f for f in leftovers(tmp_path) if f != path.name)
        yield fake_chunk(10, 10)

    write_run(path, gen(), run_meta=META)
    assert load_run(path).height == 40
    assert leftovers(tmp_path) == [path.name]
    assert len(seen) == 1 and seen[0].startswith(f".tmp-tranca-{os.getpid()}-") and len(seen[0]) < 40


# ---- inputs that are not regular files, unreadable, or of the wrong types -----------------------
@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_special_input_refused_without_opening(tmp_path, kind):
    path = tmp_path / "run.parquet"
    if kind == "fifo":
        os.mkfifo(path)  # opening it would block until a writer comes
    else:
        path = "/dev/zero"  # reading it would never end
    for fn in (load_run, load_meta):
        with pytest.raises(RunFileError, match="is not a regular file") as err:
            fn(path)
        assert str(path) in str(err.value)


def test_unreadable_input(tmp_path, monkeypatch):
    path = tmp_path / "run.parquet"
    write_run(path, chunks(), run_meta=META)

    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Failed to open local file. Detail: [errno 13] Permission denied")

    monkeypatch.setattr(pq, "ParquetFile", denied)
    for fn in (load_run, load_meta):
        with pytest.raises(RunFileError) as err:
            fn(path)
        assert str(err.value) == f"cannot read {str(path)!r}: Permission denied"


def rewrite(path, out, name, array):
    """Copy run file ``path`` to ``out`` with column ``name`` replaced by ``array`` (metadata kept)."""
    table = pq.read_table(path)
    table = table.set_column(table.schema.get_field_index(name), name, array)
    pq.write_table(table.replace_schema_metadata(pq.read_schema(path).metadata), out)
    return out


def test_wrong_column_types_refused(tmp_path):
    good = tmp_path / "good.parquet"
    write_run(good, chunks(), run_meta=META)
    t = pq.read_table(good)
    n = t.num_rows
    score = t.column("score").to_numpy()
    bad = {
        "score as string": ("score", pa.array([str(x) for x in score]), "type string, expected int32"),
        "score as float": ("score", pa.array(score.astype(np.float64)), "type double, expected int32"),
        "side as int64": ("side", pa.array(np.tile([0, 1], n // 2)), "type int64, expected int8"),
        "won as int": ("won", pa.array(np.zeros(n, np.int8)), "type int8, expected bool"),
        "list of ints": (
            "strategy_params",
            pa.array([[1]] * n),
            "type list<element: int64>, expected list<float64>",
        ),
    }
    for label, (name, array, words) in bad.items():
        path = rewrite(good, tmp_path / "bad.parquet", name, array)
        with pytest.raises(RunFileError, match=f"column '{name}' has {words}") as err:
            load_run(path, columns=["deal_index"])  # every column's type is checked, read or not
        assert str(path) in str(err.value), label
    # the large variants (a run file rewritten by polars) are still a run file
    df = load_run(good)
    df.write_parquet(tmp_path / "polars.parquet")
    assert load_run(tmp_path / "polars.parquet").equals(df)


@pytest.mark.parametrize("name", ["side", "score", "strategy", "end_reason"])
def test_nulls_refused(tmp_path, name):
    good = tmp_path / "good.parquet"
    write_run(good, chunks(), run_meta=META)
    col = pq.read_table(good).column(name).to_pylist()
    col[3] = None
    path = rewrite(good, tmp_path / "bad.parquet", name, pa.array(col, io.ARROW_SCHEMA.field(name).type))
    for read in (load_run, lambda x: load_run(x, columns=["deal_index"]), load_meta, io.verify_run):
        with pytest.raises(RunFileError, match=f"column '{name}' has 1 null value"):
            read(path)  # every reader checks the whole file, not only the columns it reads


def test_schema_doc_is_current():
    from pathlib import Path

    from tranca_sim.schema import markdown, match_markdown

    doc = (Path(__file__).resolve().parents[1] / "docs" / "schema.md").read_text()
    assert markdown() + "\n" in doc, "regenerate the table: python -m tranca_sim.schema"
    assert doc.rstrip("\n").endswith(match_markdown()), (
        "regenerate the match table: python -m tranca_sim.schema"
    )


def test_a_killed_runs_temporary_file_is_removed_by_a_later_write(tmp_path):
    """SIGKILL leaves the hidden temporary file (no handler runs); a later write in the same
    directory removes it once its process is gone and it is older than STALE_TEMP_SECONDS, and
    keeps a live process's file and a dead one's recent file (a writer on another host)."""
    import signal
    import subprocess
    import sys
    import time

    code = (
        "import sys, time; from tranca_sim.io import atomic_output\n"
        f"with atomic_output({str(tmp_path / 'killed.parquet')!r}) as tmp:\n"
        "    tmp.write_bytes(b'half'); print(tmp.name, flush=True); time.sleep(60)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    killed = tmp_path / child.stdout.readline().strip()
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert killed.exists()  # what SIGKILL leaves behind
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        alive = tmp_path / f".tmp-tranca-{live.pid}-0123abcd"
        recent = tmp_path / f".tmp-tranca-{child.pid}-89abcdef"
        alive.write_bytes(b"x")
        recent.write_bytes(b"x")
        old = time.time() - io.STALE_TEMP_SECONDS - 5
        for x in (killed, alive):
            os.utime(x, (old, old))
        write_run(tmp_path / "next.parquet", [fake_chunk(0, 5)], run_meta=META)
        assert not killed.exists()
        assert alive.exists() and recent.exists()
        assert not (tmp_path / "killed.parquet").exists()
    finally:
        live.kill()
        live.wait()


@pytest.mark.parametrize("kind", ["file", "dir"])
def test_a_stop_while_probing_a_directory_leaves_no_probe(tmp_path, monkeypatch, kind):
    # a signal that lands between the probe's creation and its removal (the interrupt raised in
    # the next step) must not leave the hidden probe in the user's directory
    from tranca_sim import output

    name = "open" if kind == "file" else "mkdir"
    real = getattr(os, name)

    def made_then_stopped(path, *a):
        got = real(path, *a)
        if kind == "file":
            os.close(got)
        raise KeyboardInterrupt

    monkeypatch.setattr(output.os, name, made_then_stopped)
    with pytest.raises(KeyboardInterrupt):
        output.probe(tmp_path, kind)
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []
