"""Deals that end at the turn limit, not by a rule, are flagged loudly: simulate and summarize warn
and name them, check exits 1 naming them in a run or a deal log."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from cli_call import call

from tranca_sim import io
from tranca_sim.io import write_run
from tranca_sim.schema import COLUMNS
from tranca_sim.simulate import run_simulation
from tranca_sim.strategies import strategy_params

META = {
    "preset": "tranca",
    "master_seed": 7,
    "deals": 12,
    "strategies": [
        {"name": "basic", "params": [p[1] for p in strategy_params("basic")]},
        {"name": "random", "params": []},
    ],
}
TURN_LIMIT = ("playing", "went_out", "stock_out", "turn_limit").index("turn_limit")


def synthetic_chunk(limited=(2, 7, 9), deals=12):
    """Two rows per deal; deals ``limited`` end at the turn limit, the others by going out."""
    n = 2 * deals
    cols = {name: np.zeros(n, np.int32) for name, _, _ in COLUMNS if name not in io.RUN_COLUMNS}
    cols["deal_index"] = np.repeat(np.arange(deals, dtype=np.int64), 2)
    cols["side"] = np.tile(np.array([0, 1], np.int8), deals)
    cols["score"] = np.tile(np.array([100, -50], np.int32), deals)
    cols["n_turns"] = np.full(n, 30, np.int32)
    reason = np.full(n, 1, np.int8)
    for d in limited:
        reason[2 * d : 2 * d + 2] = TURN_LIMIT
    cols["end_reason"] = reason
    for name in ("won", "went_out"):
        cols[name] = np.tile([True, False], deals)
    return cols


def test_summarize_flags_turn_limit_deals(tmp_path, capsys):
    path = tmp_path / "limited.parquet"
    write_run(path, [synthetic_chunk()], run_meta=META)
    status, out, err = call(["summarize", str(path)], capsys)
    assert status == 0, err
    assert (
        "tranca-sim: warning:" in err
        and "3 deals ended at the turn limit, not by a rule (deals 2, 7, 9)" in err
    )
    assert "WARNING: 3 deals ended at the turn limit, not by a rule (deals 2, 7, 9)" in out
    write_run(tmp_path / "fine.parquet", [synthetic_chunk(limited=())], run_meta=META)
    status, out, err = call(["summarize", str(tmp_path / "fine.parquet")], capsys)
    assert status == 0 and "turn limit" not in out + err


def test_simulate_flags_turn_limit_deals(tmp_path, capsys):
    """max_turns=10 (the lowest allowed) ends every deal of basic vs basic at the limit."""
    out = tmp_path / "short.parquet"
    argv = [
        "simulate",
        "--deals",
        "4",
        "--side-b",
        "basic",
        "--rule",
        "max_turns=10",
        "--out",
        str(out),
        "--no-progress",
    ]
    status, text, err = call(argv, capsys)
    assert status == 0, err
    assert (
        "tranca-sim: warning:" in err
        and "4 deals ended at the turn limit, not by a rule (deals 0, 1, 2, 3)" in err
    )
    assert "WARNING: 4 deals ended at the turn limit" in text


def _with_turn_limit(src, dst, deals):
    """Copy of run file ``src`` whose rows of ``deals`` say end_reason turn_limit (scores kept)."""
    t = pq.read_table(src)
    d = t.column("deal_index").to_pylist()
    r = t.column("end_reason").to_pylist()
    r = ["turn_limit" if i in deals else x for i, x in zip(d, r)]
    t = t.set_column(t.schema.get_field_index("end_reason"), "end_reason", pa.array(r, pa.string()))
    pq.write_table(t.replace_schema_metadata(pq.read_schema(src).metadata), dst)
    return dst


def test_check_fails_on_turn_limit_deals_in_the_run(small_run, tmp_path, capsys):
    """Deals 3 and 11 marked as ended at the turn limit: the sampled deals still agree with the
    referee, but the run holds deals that did not end by a rule, so check exits 1 and names them."""
    path = _with_turn_limit(small_run, tmp_path / "limited.parquet", {3, 11})
    status, out, _err = call(["check", str(path), "--sample", "2", "--no-progress"], capsys)
    assert "2 of 2 deals agreed" in out
    assert "TURN LIMIT: 2 deals of the run ended at the turn limit, not by a rule (deals 3, 11)" in out
    assert status == 1
    status, out, _ = call(["check", str(small_run), "--sample", "2", "--no-progress"], capsys)
    assert status == 0 and "TURN LIMIT" not in out


def test_check_fails_on_turn_limit_deals_in_a_log(tmp_path, capsys):
    """max_turns=10 (the lowest allowed) ends deals at the limit; the referee agrees they are
    played legally, and check still exits 1 naming them."""
    out = tmp_path / "short.parquet"
    res = run_simulation(
        "tranca", 4, 1, "basic", "basic", out, progress=False, log_deals=4, rule_options={"max_turns": 10}
    )
    assert res["summary"]["turn_limit"] == 4
    status, text, _ = call(["check", str(tmp_path / "short.log.jsonl")], capsys)
    assert "4 of 4 deals agreed" in text
    assert (
        "TURN LIMIT: 4 deals of the log file ended at the turn limit, not by a rule (deals 0, 1, 2, 3)"
        in text
    )
    assert status == 1
