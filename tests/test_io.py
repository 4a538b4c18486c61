"""Parquet run files: round trip, streaming, atomic writes, unreadable files."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import polars as pl
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
    from tranca_sim.state import END_REASONS

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
        seen.append([f for f in leftovers(tmp_path) if f.startswith(".run.parquet.tmp-")])
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
    with pytest.raises(RunFileError, match="corrupt"):
        load_run(path)


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


def test_schema_doc_is_current():
    from pathlib import Path

    from tranca_sim.schema import markdown

    doc = (Path(__file__).resolve().parents[1] / "docs" / "schema.md").read_text()
    assert doc.rstrip("\n").endswith(markdown()), "regenerate the table: python -m tranca_sim.schema"
