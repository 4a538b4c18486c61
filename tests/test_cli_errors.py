"""Every error path of every subcommand: one line ``tranca-sim: error: ...`` naming the flag, the
value and what is allowed, in the CLI's own words (never ``force=True``), exit status 2, and
nothing written."""

from __future__ import annotations

import errno
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call, one_error_line

from tranca_sim.schema import COLUMNS
from tranca_sim.simulate import run_simulation


def assert_cli_error(status, err, words):
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    line = lines[0]
    assert line.startswith("tranca-sim: error: "), line
    assert "Traceback" not in err and "force=True" not in line and "log_deals" not in line, line
    for w in words:
        assert w in line, (w, line)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A good run of 30 deals (with deal logs), the same run with one damaged page, the run
    concatenated with itself, and the run with a same-seed run of the sides swapped appended."""
    d = tmp_path_factory.mktemp("files")
    run = d / "run.parquet"
    run_simulation("tranca", 30, 4, "basic", "basic:black3_lock=1", run, progress=False, log_deals=2)
    swapped = d / "swapped.parquet"
    run_simulation("tranca", 30, 4, "basic:black3_lock=1", "basic", swapped, progress=False)
    meta = pq.read_schema(run).metadata
    table = pq.read_table(run)
    twice = d / "twice.parquet"
    pq.write_table(pa.concat_tables([table, table]).replace_schema_metadata(meta), twice)
    mixed = d / "mixed.parquet"
    other = pq.read_table(swapped).replace_schema_metadata(meta)
    pq.write_table(pa.concat_tables([table, other]).replace_schema_metadata(meta), mixed)
    corrupt = d / "corrupt.parquet"
    corrupt.write_bytes(damaged(run))
    garbage = d / "garbage.parquet"
    garbage.write_bytes(b"PAR1 not parquet at all")
    return {
        "TIPS": Path(__file__).resolve().parents[1] / "experiments" / "tranca-tips.toml",
        "RUN": run,
        "LOG": d / "run.log.jsonl",
        "TWICE": twice,
        "MIXED": mixed,
        "CORRUPT": corrupt,
        "GARBAGE": garbage,
        "DIR": d,
    }


def damaged(path) -> bytes:
    """The bytes of run file ``path`` with 4 bytes inside the 'score' column chunk flipped: the page
    checksum fails, the footer and metadata are intact."""
    names = [n for n, _, _ in COLUMNS]
    col = pq.ParquetFile(path).metadata.row_group(0).column(names.index("score"))
    start = col.dictionary_page_offset or col.data_page_offset
    data = bytearray(path.read_bytes())
    mid = start + col.total_compressed_size - 8
    data[mid : mid + 4] = bytes(b ^ 0xFF for b in data[mid : mid + 4])
    return bytes(data)


SIM = ["simulate", "--deals", "30", "--no-progress", "--out", "OUT"]

BAD = [
    # simulate: every option
    (SIM + ["--threads", "100000"], ["--threads must be between 1 and", "got 100000"]),
    (SIM + ["--threads", "0"], ["--threads must be at least 1, got 0"]),
    (SIM + ["--deals", "0"], ["--deals must be at least 1, got 0"]),
    (SIM + ["--seed", "-1"], ["--seed must be between 0 and 2**63 - 1, got -1"]),
    (SIM + ["--chunk-size", "x"], ["--chunk-size takes a whole number, got 'x'"]),
    (SIM + ["--preset", "nope"], ["--preset: unknown preset 'nope'; available: tranca"]),
    (SIM + ["--side-a", "nope"], ["--side-a: unknown strategy 'nope'; available:", "basic"]),
    (
        SIM + ["--side-a", "basic:go_out=0.5"],
        ["--side-a:", "'go_out'", "is a switch: give 0 (off) or 1 (on)", "0.5"],
    ),
    (
        SIM + ["--side-b", "basic:take_pile_min=2.5"],
        ["--side-b:", "take_pile_min", "whole number from 0 to 108", "2.5"],
    ),
    (SIM + ["--side-b", "basic:nope=1"], ["--side-b:", "no parameter 'nope'", "take_pile_min"]),
    (SIM + ["--rule", "max_wilds=9"], ["--rule max_wilds=9:", "max_wilds must be 0..3, got 9"]),
    (SIM + ["--rule", "max_wilds=many"], ["--rule max_wilds=many:", "takes an integer"]),
    (SIM + ["--rule", "nope=1"], ["--rule nope=1:", "unknown rule option 'nope'; known:"]),
    (SIM + ["--rule", "pile_closed"], ["--rule", "OPTION=VALUE", "'pile_closed'"]),
    (
        SIM + ["--rule", "max_wilds=1", "--rule", "max_wilds=2"],
        ["--rule", "max_wilds given twice", "max_wilds=1 and max_wilds=2"],
    ),
    (SIM + ["--log-deals", "sample:0"], ["--log-deals sample:0:", "from 1 to 30 (the run's deals), got 0"]),
    (SIM + ["--log-deals", "0"], ["--log-deals 0:", "from 1 to 30"]),
    (SIM + ["--log-deals", "31"], ["--log-deals 31:", "from 1 to 30"]),
    (SIM + ["--log-deals", "2,30"], ["--log-deals 2,30: deal 30 is not in the run (deals 0..29)"]),
    (SIM + ["--log-deals", "many"], ["--log-deals takes K", "sample:K", "got 'many'"]),
    (SIM + ["--log-deals", ","], ["--log-deals ',' names no deal"]),
    (
        ["simulate", "--no-progress", "--out", "RUN"],
        ["--out", "run.parquet' already exists; use --force to overwrite it"],
    ),
    (["simulate", "--no-progress", "--out", "DIR"], ["--out: output path", "is a directory"]),
    (["simulate", "--no-progress", "--out", "DIR/no/run.parquet"], ["--out: cannot write", "does not exist"]),
    (["simulate", "--nope"], ["unrecognized arguments: --nope", "see 'tranca-sim simulate --help'"]),
    # summarize
    (["summarize", "DIR/missing.parquet"], ["missing.parquet", "does not exist"]),
    (["summarize", "DIR"], ["is a directory"]),
    (["summarize", "GARBAGE"], ["garbage.parquet", "not a readable Parquet file"]),
    (["summarize", "CORRUPT"], ["corrupt.parquet", "is corrupt or truncated"]),
    (
        ["summarize", "TWICE"],
        ["twice.parquet: deal 0 has several rows for side A", "concatenated"],
    ),
    (
        ["summarize", "MIXED"],
        ["mixed.parquet: deal 0 has several rows for side A", "concatenated"],
    ),
    # replay
    (["replay", "RUN", "--deal", "30"], ["--deal 30 is not a deal of", "its deals are 0 to 29"]),
    (["replay", "RUN", "--deal", "-1"], ["--deal must be 0 or more, got -1"]),
    (["replay", "RUN"], ["the following arguments are required: --deal"]),
    (["replay", "RUN", "--deal", "1", "--turn", "2"], ["--turn chooses the turn drawn by --html"]),
    (
        ["replay", "RUN", "--deal", "1", "--html", "DIR/t.html", "--turn", "999"],
        ["--turn 999 is not a turn of deal 1: its turns are 0 to"],
    ),
    (
        ["replay", "RUN", "--deal", "1", "--html", "RUN"],
        ["--html", "run.parquet' already exists; use --force to overwrite it"],
    ),
    (["replay", "RUN", "--deal", "1", "--html", "DIR"], ["--html: output path", "is a directory"]),
    (["replay", "CORRUPT", "--deal", "1"], ["corrupt.parquet", "is corrupt or truncated"]),
    (["replay", "GARBAGE", "--deal", "1"], ["not a readable Parquet file"]),
    (["replay", "DIR/missing.parquet", "--deal", "1"], ["missing.parquet"]),
    # check
    (["check", "RUN", "--sample", "0"], ["--sample must be at least 1, got 0"]),
    (["check", "CORRUPT"], ["corrupt.parquet", "is corrupt or truncated"]),
    (["check", "GARBAGE"], ["not a readable Parquet file"]),
    (["check", "DIR/missing.jsonl"], ["cannot read", "missing.jsonl"]),
    (["check", "DIR"], ["is a directory"]),
    # experiment
    (
        ["experiment", "TIPS", "--out", "OUT", "--threads", "100000"],
        ["--threads must be between 1 and", "got 100000"],
    ),
    (["experiment", "TIPS", "--out", "OUT", "--deals", "0"], ["--deals must be at least 1, got 0"]),
    (
        ["experiment", "TIPS", "--out", "DIR"],
        ["--out: output directory", "is not empty and holds files that are not an earlier experiment output"],
    ),
    (
        ["experiment", "TIPS", "--out", "RUN"],
        ["--out '", "run.parquet': an experiment writes a directory", "without .parquet"],
    ),
    (["experiment", "TIPS", "--out", "RUN/out"], ["--out: cannot write", "run.parquet' is not a directory"]),
    (["experiment", "DIR/nosuch.toml", "--out", "OUT"], ["nosuch.toml", "cannot read the experiment file"]),
    (["experiment", "TIPS"], ["the following arguments are required: --out"]),
    # no command, unknown command
    ([], ["the following arguments are required: COMMAND"]),
    (["simulat"], ["invalid choice: 'simulat'"]),
]
if sys.platform.startswith("linux"):
    BAD.append(
        (
            ["simulate", "--no-progress", "--out", "/proc/x.parquet"],
            ["--out: cannot write '/proc/x.parquet': no file can be created in the directory '/proc'"],
        )
    )
    BAD.append(
        (
            ["experiment", "TIPS", "--out", "/proc/o"],
            ["--out: cannot write '/proc/o': no directory can be created in '/proc'"],
        )
    )


@pytest.mark.parametrize(("argv", "words"), BAD, ids=[" ".join(a) for a, _ in BAD])
def test_every_bad_input_names_its_flag(files, tmp_path, capsys, argv, words):
    def path(a: str) -> str:
        for key in sorted(files, key=len, reverse=True):
            if a == key or a.startswith(key + "/"):
                return str(files[key]) + a[len(key) :]
        return str(tmp_path / "out.parquet") if a == "OUT" else a

    before = sorted(os.listdir(files["DIR"]))
    status, _out, err = call([path(a) for a in argv], capsys)
    assert_cli_error(status, err, words)
    assert os.listdir(tmp_path) == []  # nothing written
    assert sorted(os.listdir(files["DIR"])) == before


def test_a_damaged_run_is_refused_by_every_reader(files, capsys):
    """The same damaged file (one flipped page in 'score', footer and metadata intact): summarize,
    check and replay refuse it alike, because they share io.verify_run."""
    for argv in (["summarize"], ["check", "--no-progress"], ["replay", "--deal", "3"]):
        status, out, err = call([argv[0], str(files["CORRUPT"]), *argv[1:]], capsys)
        assert_cli_error(status, err, [str(files["CORRUPT"]), "is corrupt or truncated"])
        assert out == ""


@pytest.mark.parametrize("keep", ["side A only", "no row"])
def test_summarize_refuses_rows_that_cannot_be_paired(files, tmp_path, capsys, keep):
    # a new user's find: a file with side B's rows cut out (metadata kept) was summarised
    # with "0 deals" for B and exit 0
    table = pq.read_table(files["RUN"])
    meta = table.schema.metadata
    import pyarrow.compute as pc

    mask = pc.equal(table["side"], 0) if keep == "side A only" else pc.equal(table["side"], 9)
    cut = tmp_path / "cut.parquet"
    pq.write_table(table.filter(mask).replace_schema_metadata(meta), cut)
    status, out, err = call(["summarize", str(cut)], capsys)
    assert status == 2 and out == "" and "Traceback" not in err
    assert err.startswith(f"tranca-sim: error: {cut}: ")
    expected = (
        "rows that cannot be paired (side A 30, side B 0 rows" if keep == "side A only" else "holds no deal"
    )
    assert expected in err


@pytest.mark.parametrize("content", [b"PAR1\x00\x15\x04garbage", b'{"x": 1}\n'])
def test_check_of_a_file_that_is_no_deal_log_is_an_input_error(tmp_path, capsys, content):
    """A fresh user's find: `check` on garbage named *.log.jsonl said 'DISAGREE ... 0 of 2 deals
    agreed with the referee' (exit 1), blaming the engine for a bad input file."""
    bad = tmp_path / "bad.log.jsonl"
    bad.write_bytes(content)
    status, out, err = call(["check", str(bad)], capsys)
    lines = err.strip().splitlines()
    assert status == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"tranca-sim: error: {str(bad)!r} is not a deal log file")
    assert "agreed with the referee" not in out


READERS = (["summarize"], ["check", "--no-progress", "--sample", "5"], ["replay", "--deal", "20"])


@pytest.mark.parametrize("rows", [21, 20])
def test_a_run_cut_down_by_rows_is_refused_by_every_reader(files, tmp_path, capsys, rows):
    """A fresh user's find: the first 1001 rows of a run rewritten (metadata kept) were refused by
    summarize, but check sampled deals not in the file and blamed the engine ("DISAGREE ... the
    run file says A None"), and replay replayed a deal not in the file. 21 rows: side A holds one
    row more; 20 rows: deals 0 to 9 whole, 10 to 29 gone."""
    table = pq.read_table(files["RUN"])
    cut = tmp_path / "oddrows.parquet"
    pq.write_table(table.slice(0, rows).replace_schema_metadata(table.schema.metadata), cut)
    words = (
        ["rows that cannot be paired (side A 11, side B 10 rows"]
        if rows == 21
        else ["not the run's 30 deals"]
    )
    lines = set()
    for argv in READERS:
        status, out, err = call([argv[0], str(cut), *argv[1:]], capsys)
        assert_cli_error(status, err, [f"{cut}: ", *words, "damaged or edited file"])
        assert out == "" and "DISAGREE" not in err
        lines.add(err)
    assert len(lines) == 1  # the same one line from each


@pytest.mark.parametrize(
    "key, value", [("deals", -5), ("deals", "many"), ("chunk_size", 0), ("master_seed", -1)]
)
def test_a_hand_edited_deal_count_is_refused_by_every_reader(tmp_path, capsys, key, value):
    """A fresh user's find: a dataset manifest edited to ``meta.deals = -5`` gave check a numpy
    traceback, replay "its deals are 0 to -6" and summarize "the run holds no deal"."""
    import json

    d = tmp_path / "dc8"
    run_simulation("tranca", 12, 4, "basic", "random", str(d) + "/", progress=False, chunk_size=5)
    m = d / "manifest.json"
    doc = json.loads(m.read_text())
    doc["meta"][key] = value
    m.write_text(json.dumps(doc))
    for argv in READERS:
        status, out, err = call([argv[0], str(d), *argv[1:]], capsys)
        assert_cli_error(
            status, err, ["manifest.json", f"{key} is {json.dumps(value)}", "not a whole number"]
        )
        assert out == ""


def test_check_of_a_truncated_deal_log_is_an_input_error(files, tmp_path, capsys):
    """A fresh user's find: `check` on a deal log cut mid-line said "DISAGREE line 2: log: format:
    truncated file..." (exit 1), as if the engine were wrong; a cut file is a bad input."""
    data = files["LOG"].read_bytes()
    first = data.index(b"\n") + 1
    cut = tmp_path / "tl.log.jsonl"
    cut.write_bytes(data[: first + 100])  # line 1 whole, line 2 cut after 100 bytes
    status, out, err = call(["check", str(cut)], capsys)
    assert_cli_error(status, err, [f"{str(cut)!r} is a damaged deal log file", "line 2", "truncated file"])
    assert "DISAGREE" not in out and "agreed with the referee" not in out


@pytest.mark.parametrize("keep", [12, 100, -1])
def test_check_of_a_deal_log_cut_inside_its_first_line_says_damaged(files, tmp_path, capsys, keep):
    """A fresh user's find: a log cut inside its first line was called "not a deal log file"; it is
    a truncated log (exit 2, one line), as a log cut in a later line is."""
    data = files["LOG"].read_bytes()
    first = data.index(b"\n")
    cut = tmp_path / "t1.log.jsonl"
    cut.write_bytes(data[: keep if keep > 0 else first - 1])  # 12 bytes, 100 bytes, line 1 but its last byte
    status, out, err = call(["check", str(cut)], capsys)
    assert_cli_error(status, err, [f"{str(cut)!r} is a damaged deal log file", "line 1", "truncated file"])
    assert "not a deal log" not in err and "agreed with the referee" not in out
    # a JSON text cut short that does not begin as a deal log is still no deal log at all
    other = tmp_path / "o.log.jsonl"
    other.write_bytes(b'{"rows": [1, 2')
    status, out, err = call(["check", str(other)], capsys)
    assert_cli_error(status, err, [f"{str(other)!r} is not a deal log file"])


@pytest.mark.parametrize("cmd", ["experiment", "ladder", "tune"])
def test_a_directory_output_named_like_a_run_file_is_refused(tmp_path, capsys, cmd):
    """`experiment ok9.toml --out ok.parquet` made a directory named ok.parquet."""
    spec = tmp_path / "ok9.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    out = tmp_path / "ok.parquet"
    argv = {
        "experiment": ["experiment", str(spec)],
        "ladder": ["ladder", "--player", "basic", "--player", "random", "--decks", "4"],
        "tune": ["tune", "basic", "--budget", "120000"],
    }[cmd] + ["--out", str(out), "--no-progress"]
    status, stdout, err = call(argv, capsys)
    assert status == 2 and stdout == "" and err.count("\n") == 1, err
    assert err.startswith(f"tranca-sim: error: --out {str(out)!r}: ") and "writes a directory" in err
    assert not out.exists()


def test_a_log_cut_inside_its_first_line_is_worded_plainly(tmp_path, capsys):
    """`check cut1.log.jsonl` said "line 1: log: format: truncated file: ... (Unterminated string
    starting at at column 48)": the verdict's internal "log: format:" and a doubled "at"."""
    cut = tmp_path / "cut1.log.jsonl"
    cut.write_text('{"format":"tranca-sim-log/1","preset":"tranca","ru', encoding="utf-8")  # 50 characters
    status, out, err = call(["check", str(cut)], capsys)
    # the string "ru... opens at its quote, the 48th character (1-based column 48)
    assert status == 2 and out == ""
    assert err == (
        f"tranca-sim: error: {str(cut)!r} is a damaged deal log file: line 1: truncated file: the last line "
        "is incomplete (unterminated string starting at column 48)\n"
    ), err


@pytest.mark.parametrize(
    "value, said",
    [
        ("local:0", "--cluster local:N takes a whole number N of at least 1, got 'local:0'"),
        ("foo", "--cluster takes local or local:N (N workers), got 'foo'"),
    ],
)
def test_cluster_errors_begin_alike(tmp_path, capsys, value, said):
    """`--cluster local:0` began "argument --cluster: local:N takes ..." and `--cluster foo`
    began "--cluster takes ...": both now begin with the flag."""
    status, _, err = call(["simulate", "--deals", "10", "--out", str(tmp_path / "r.parquet"), "--cluster", value],
                          capsys)  # fmt: skip
    assert status == 2
    assert err.startswith(f"tranca-sim: error: {said} (see 'tranca-sim simulate --help')"), err


def test_a_symlinked_dataset_directory_is_named_a_link(tmp_path, capsys):
    """`ln -s ds3 linkds; simulate --deals 10 --out linkds/ --force` said "output path 'linkds' is
    not a directory" though it is a link to one; a linked run file gets "is a symbolic link"."""
    (tmp_path / "ds3").mkdir()
    (tmp_path / "linkds").symlink_to("ds3")
    status, out, err = call(["simulate", "--deals", "10", "--out", f"{tmp_path / 'linkds'}/", "--force",
                             "--no-progress"], capsys)  # fmt: skip
    assert status == 2 and out == ""
    assert (
        "is a symbolic link; give the dataset directory's real path" in err and "not a directory" not in err
    ), err
    assert list((tmp_path / "ds3").iterdir()) == []


@pytest.mark.parametrize("command", ["simulate", "experiment"])
@pytest.mark.parametrize(
    "address", ["foo", "tcp://::", "http://x:1", "tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "tcp://:8786"]
)
def test_a_bad_scheduler_address_is_one_line(tmp_path, capsys, command, address):
    """A bad --scheduler gave ~45 lines of Dask traceback; port 99999 waited Dask's 30 s timeout.
    Now the address is checked while the arguments are parsed, before Dask is imported."""
    if command == "simulate":
        argv = ["simulate", "--deals", "10", "--scheduler", address, "--out", str(tmp_path / "x.parquet")]
    else:
        argv = [
            "experiment",
            "experiments/tranca-tips.toml",
            "--scheduler",
            address,
            "--out",
            str(tmp_path / "e"),
        ]
    status, _, err = call(argv, capsys)
    assert status == 2
    line = one_error_line(err)
    assert line.startswith("tranca-sim: error: --scheduler ")
    assert repr(address) in line
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "e").exists()


@pytest.mark.parametrize(
    "address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://host.example:1", "[::1]:65535"]
)
def test_good_scheduler_addresses_pass_the_check(address):
    from tranca_sim.parallel import parse_scheduler

    assert parse_scheduler(address) == address


def test_an_impossible_chunk_size_is_refused_up_front(tmp_path, capsys):
    """--chunk-size 10**12 asked numpy for 218 TiB (a MemoryError traceback)."""
    out = tmp_path / "big.parquet"
    status, _, err = call(
        ["simulate", "--deals", "1000000000000", "--chunk-size", "1000000000000", "--out", str(out)], capsys
    )
    assert status == 2
    line = one_error_line(err)
    assert "--chunk-size" in line and "10000000" in line
    assert not out.exists()


def test_simulate_refuses_resume_with_force(tmp_path, capsys):
    """`simulate --out DIR/ --resume --force` on a complete dataset ignored --force without a word."""
    from tranca_sim.cli import main

    out = f"{tmp_path / 'ds'}/"
    assert main(["simulate", "--deals", "20", "--chunk-size", "10", "--out", out, "--no-progress"]) in (
        0,
        None,
    )
    capsys.readouterr()
    before = sorted(p.name for p in (tmp_path / "ds").iterdir())
    status, _, err = call(["simulate", "--deals", "20", "--chunk-size", "10", "--out", out, "--resume", "--force",
                           "--no-progress"], capsys)  # fmt: skip
    assert status == 2
    line = one_error_line(err)
    assert "--resume" in line and "--force" in line
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == before


class _FullDisk(io.TextIOBase):
    """Standard output on a full disk: every write fails as /dev/full's does."""

    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


@pytest.mark.parametrize("argv", [["presets"], ["strategies"]])
def test_standard_output_on_a_full_disk_is_one_line(capsys, monkeypatch, argv):
    """A full disk under ``> file`` is said in one line, exit 2 (a fresh user's find: an
    ``OSError`` traceback and exit 1)."""
    monkeypatch.setattr(sys, "stdout", _FullDisk())
    status, _, err = call(argv, capsys)
    assert status == 2
    assert one_error_line(err) == "tranca-sim: error: cannot write to standard output: No space left on device"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_the_console_script_writing_to_dev_full_says_one_line():
    """As the console script: the one line and exit 2, and nothing from the exit's own flush."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "tranca_sim.cli", "presets"], stdout=full,
                           stderr=subprocess.PIPE, text=True, timeout=300, check=False)  # fmt: skip
    assert p.returncode == 2, p.stderr
    assert p.stderr.splitlines() == ["tranca-sim: error: cannot write to standard output: No space left on device"]


# a shortened flag: argparse's prefix matching took '--log 2' as '--log-deals 2' without a word
# (issue 23); every command now refuses it, naming it and the flags it begins, and writes nothing
SHORTENED = [
    (["simulate", "--deals", "5", "--out", "OUT/r.parquet", "--log", "2"], "--log", ["--log-deals"]),
    (["experiment", "TIPS", "--ou", "OUT"], "--ou", ["--out"]),
    (["tune", "basic", "--out", "OUT", "--budg", "8"], "--budg", ["--budget"]),
    (["ladder", "--out", "OUT", "--dec", "3"], "--dec", ["--decks"]),
    (["replay", "RUN", "--dea", "1"], "--dea", ["--deal"]),
    (["position", "RUN", "--deal", "0", "--tu", "3"], "--tu", ["--turn"]),
    (["analyse", "POS", "--tim", "2"], "--tim", ["--time"]),
    (["review", "RUN", "--deal", "0", "--se", "1"], "--se", ["--seat", "--seed"]),
    (["atlas", "--out", "OUT", "--lan", "en"], "--lan", ["--lang"]),
    (["report", "OUT", "--he"], "--he", ["--help"]),
]


@pytest.mark.parametrize(("argv", "short", "full"), SHORTENED, ids=[a[0] for a, _, _ in SHORTENED])
def test_a_shortened_flag_is_refused_on_every_command(tmp_path, capsys, argv, short, full):
    out = tmp_path / "out"
    argv = [str(out) + a[3:] if a.startswith("OUT") else a for a in argv]
    argv = [str(tmp_path / "x.toml") if a == "TIPS" else str(tmp_path / "run.parquet") if a == "RUN" else a
            for a in argv]
    status, _, err = call(argv, capsys)
    line = one_error_line(err)
    assert status == 2, err
    assert f"unrecognized arguments: {short}" in line, line
    assert f"flags are given in full, e.g. {' or '.join(full)};" in line, line
    assert f"see 'tranca-sim {argv[0]} --help'" in line, line
    assert not out.exists()
