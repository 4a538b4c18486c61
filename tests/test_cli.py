"""The tranca-sim command: runs, summaries, listings, and one-line errors with exit status 2."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numba
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from cli_call import call, only_the_line

import tranca_sim
from tranca_sim.io import RunFileError, load_meta, load_run
from tranca_sim.run import RunOptionError
from tranca_sim.simulate import run_simulation

ROOT = Path(__file__).resolve().parents[1]
DEALS = "200"


def run_cli(*args, cwd):
    """The command in a fresh process (exit status, stdout, stderr)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    p = subprocess.run(
        [sys.executable, "-m", "tranca_sim.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        check=False,
        text=True,
        timeout=600,
    )
    return p.returncode, p.stdout, p.stderr


def assert_user_error(status, err, *words):
    assert status == 2
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: ")
    for w in words:
        assert w in lines[0]


# ---- successful runs --------------------------------------------------------------
def test_simulate_then_summarize(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    status, stdout, err = call(
        ["simulate", "--deals", DEALS, "--seed", "5", "--out", str(out), "--no-progress"], capsys
    )
    assert status == 0, err
    assert f"{DEALS} deals in " in stdout and "deals/s (" in stdout
    assert "A - B per deal (paired, 200 deals)" in stdout
    df = load_run(out)
    assert df.height == 400
    assert set(df["strategy"]) == {"basic", "random"}
    meta = load_meta(out)
    assert meta["deals"] == 200 and meta["master_seed"] == 5 and meta["preset"] == "tranca"
    assert meta["rules"]["name"] == "tranca"
    status, stdout2, err = call(["summarize", str(out)], capsys)
    assert status == 0, err
    table = [line for line in stdout.splitlines() if line.startswith(("A ", "B ", "A - B"))]
    assert table and all(line in stdout2 for line in table)


def test_results_independent_of_threads_and_chunks(tmp_path, capsys):
    a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
    base = ["simulate", "--deals", DEALS, "--seed", "11", "--no-progress", "--side-b", "basic"]
    assert call([*base, "--out", str(a), "--threads", "1", "--chunk-size", "200"], capsys)[0] == 0
    every = str(numba.config.NUMBA_NUM_THREADS)
    assert call([*base, "--out", str(b), "--threads", every, "--chunk-size", "37"], capsys)[0] == 0
    assert load_meta(a)["threads"] == 1 and load_meta(b)["threads"] == int(every)
    assert load_run(a).equals(load_run(b))


def test_rule_options_reach_the_run(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress",
            "--rule", "max_wilds=1", "--rule", "pile_closed=false", "--rule", "em_cima=0"]  # fmt: skip
    status, _, err = call(argv, capsys)
    assert status == 0, err
    rules = load_meta(out)["rules"]
    assert (rules["max_wilds"], rules["pile_closed"], rules["em_cima"]) == (1, False, False)


@pytest.mark.parametrize(
    "order",
    [["n_jokers=0", "card_values=003"], ["card_values=003", "n_jokers=0"]],
    ids=["jokers-first", "values-first"],
)
def test_rule_options_are_validated_together(tmp_path, capsys, order):
    # card_values=003 alone is refused (the 003 table has no joker value, VARIANTS "Card values"),
    # with n_jokers=0 it is a legal rule set, whichever --rule comes first
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", "4", "--out", str(out), "--no-progress"]
    for item in order:
        argv += ["--rule", item]
    status, _, err = call(argv, capsys)
    assert status == 0, err
    rules = load_meta(out)["rules"]
    assert (rules["n_jokers"], rules["card_values"]) == (0, "003")


def test_force_overwrites(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    out.write_bytes(b"old")
    status, _, err = call(
        ["simulate", "--deals", DEALS, "--out", str(out), "--force", "--no-progress"], capsys
    )
    assert status == 0, err
    assert load_run(out).height == 400
    assert sorted(os.listdir(tmp_path)) == ["run.parquet"]


def test_presets_and_strategies_listings(capsys):
    status, out, _ = call(["presets"], capsys)
    assert status == 0 and "tranca " in out and "tranca-paulista" in out
    status, out, _ = call(["strategies"], capsys)
    assert status == 0 and "basic" in out and "random" in out and "parameters: none" in out
    lines = [x.strip() for x in out.splitlines()]  # each parameter with its default and what it allows
    assert any(x.startswith("take_pile_min=3  (whole number 0 to 108) ") for x in lines)
    assert any(x.startswith("go_out=1  (switch: 0 off, 1 on) ") for x in lines)
    assert any(x.startswith("pile_fit=0  (number 0 to 1) ") for x in lines)


def test_console_entry_point_in_fresh_process(tmp_path):
    status, out, err = run_cli(
        "simulate", "--deals", DEALS, "--out", "r.parquet", "--no-progress", cwd=tmp_path
    )
    assert status == 0, err
    assert "deals/s" in out and (tmp_path / "r.parquet").exists()


# ---- user errors: one line on stderr, status 2, nothing written -------------------
BAD_SIMULATE = [
    (["--preset", "nope"], ["unknown preset", "nope"]),
    (["--side-a", "nope"], ["nope"]),
    (["--side-b", "basic:no_such_param=1"], ["no_such_param"]),
    (["--deals", "0"], ["--deals"]),
    (["--deals", "-5"], ["--deals"]),
    (["--deals", "many"], ["--deals"]),
    (["--seed", "-1"], ["--seed"]),
    (["--threads", "0"], ["--threads"]),
    (["--threads", "100000"], ["threads"]),
    (["--chunk-size", "0"], ["--chunk-size"]),
    (["--rule", "no_such_rule=1"], ["no_such_rule"]),
    (["--rule", "max_wilds=many"], ["max_wilds", "integer"]),
    (["--rule", "pile_closed=perhaps"], ["pile_closed"]),
    (["--rule", "max_wilds=9"], ["max_wilds"]),
    (["--rule", "max_wilds"], ["OPTION=VALUE"]),
    (["--rule", "name=x"], ["name"]),
    (["--rule", "card_values=003"], ["--rule card_values=003:", "no joker value", "n_jokers=0"]),
    (
        ["--rule", "card_values=003", "--rule", "n_jokers=4"],
        ["--rule card_values=003 n_jokers=4:", "no joker value"],
    ),
    (["--processes", str((os.cpu_count() or 1) + 1)], ["--processes must be between 1 and", "got"]),
    (["--out", ""], ["--out: the output path is empty"]),
    (["--out", "a.csv"], ["--out 'a.csv': a run file is written as Parquet", "ends in .parquet"]),
    (["--resume"], ["--resume: --resume finishes a dataset directory", "use --out DIR/ or --dataset"]),
    (["--processes", "500"], ["--processes must be between 1 and", "(the cores of this machine), got 500"]),
    # the same cap and message as --processes (it was 1024 workers whatever the machine)
    (
        ["--cluster", "local:500"],
        ["--cluster local:N must be between 1 and", "(the cores of this machine), got local:500"],
    ),
    (["--cluster", "local:0"], ["--cluster", "at least 1", "local:0"]),
    (["--no-such-flag"], ["--no-such-flag"]),
    (["--deals", "99999999999999999999999"], ["--deals must be at most 1000000000000"]),
    (["--deals", "1000000000001"], ["--deals must be at most 1000000000000"]),
    (["--deals", "9" * 5000], ["--deals must be at most 1000000000000"]),
]


@pytest.mark.parametrize(("args", "words"), BAD_SIMULATE, ids=[" ".join(a) for a, _ in BAD_SIMULATE])
def test_bad_simulate_input(tmp_path, capsys, args, words):
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", *args], capsys)
    assert_user_error(status, err, *words)
    assert os.listdir(tmp_path) == []


def test_existing_output_without_force(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    out.write_bytes(b"precious")
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert_user_error(status, err, "already exists", str(out))
    assert out.read_bytes() == b"precious"
    assert os.listdir(tmp_path) == ["run.parquet"]


@pytest.mark.parametrize("where", ["missing-dir/run.parquet", "a-file/run.parquet", "."])
def test_unwritable_output(tmp_path, capsys, where):
    (tmp_path / "a-file").write_text("x")
    out = tmp_path / where
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert_user_error(status, err)
    assert sorted(os.listdir(tmp_path)) == ["a-file"]


def test_bad_summarize_input(tmp_path, capsys):
    garbage = tmp_path / "garbage.parquet"
    garbage.write_bytes(b"PAR1 this is not parquet at all")
    status, _, err = call(["summarize", str(garbage)], capsys)
    assert_user_error(status, err, str(garbage), "not a readable Parquet file")
    status, _, err = call(["summarize", str(tmp_path / "missing.parquet")], capsys)
    assert_user_error(status, err, "does not exist")


def test_truncated_input(tmp_path, capsys):
    good = tmp_path / "good.parquet"
    assert call(["simulate", "--deals", DEALS, "--out", str(good), "--no-progress"], capsys)[0] == 0
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(good.read_bytes()[:-100])
    status, _, err = call(["summarize", str(bad)], capsys)
    assert_user_error(status, err, str(bad))


def test_errors_in_fresh_process_have_no_traceback(tmp_path):
    (tmp_path / "exists.parquet").write_bytes(b"x")
    for args in (
        ["simulate", "--no-progress", "--preset", "nope"],
        ["simulate", "--no-progress", "--side-a", "nope"],
        ["simulate", "--no-progress", "--deals", "0"],
        ["simulate", "--no-progress", "--out", "exists.parquet"],
        ["summarize", "exists.parquet"],
    ):
        status, _, err = run_cli(*args, cwd=tmp_path)
        assert_user_error(status, err)
    assert os.listdir(tmp_path) == ["exists.parquet"]


def test_no_command(capsys):
    status, _, err = call([], capsys)
    assert_user_error(status, err, "COMMAND")


# ---- failures during the run: nothing partial is left ----------------------------
def test_interrupt_leaves_nothing(tmp_path, capsys, monkeypatch):
    from tranca_sim import engine

    real = engine.simulate_chunk
    calls = []

    def interrupted(*args, **kwargs):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", interrupted)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    status, _, err = call(argv, capsys)
    assert status == 130 and "interrupted" in err and "Traceback" not in err
    assert os.listdir(tmp_path) == []


def test_engine_failure_leaves_nothing(tmp_path, monkeypatch):
    from tranca_sim import engine

    real = engine.simulate_chunk

    def failing(*args, start, **kwargs):
        if start > 0:
            raise RuntimeError("engine exploded")
        return real(*args, start=start, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", failing)
    out = tmp_path / "run.parquet"
    with pytest.raises(RuntimeError, match="exploded"):
        run_simulation("tranca", 200, 1, "basic", "random", out, chunk_size=50, progress=False)
    assert os.listdir(tmp_path) == []


def test_validation_happens_before_simulating(tmp_path, monkeypatch):
    from tranca_sim import engine

    def never(*args, **kwargs):
        raise AssertionError("the engine must not run")

    monkeypatch.setattr(engine, "simulate_chunk", never)
    (tmp_path / "exists.parquet").write_bytes(b"x")
    with pytest.raises(RunFileError):
        run_simulation("tranca", 200, 1, "basic", "random", tmp_path / "exists.parquet", progress=False)
    with pytest.raises(ValueError, match="deals"):
        run_simulation("tranca", 0, 1, "basic", "random", tmp_path / "new.parquet", progress=False)
    with pytest.raises(RunOptionError, match="deals must be at most 1000000000000"):
        run_simulation("tranca", 10**12 + 1, 1, "basic", "random", tmp_path / "new.parquet", progress=False)
    assert os.listdir(tmp_path) == ["exists.parquet"]


def test_version(capsys):
    status, out, err = call(["--version"], capsys)
    assert status == 0 and err == ""
    assert out == f"tranca-sim {tranca_sim.__version__}\n" == "tranca-sim 0.1.0\n"


def test_sides_are_named_with_their_parameters_everywhere(tmp_path, capsys):
    """basic against basic:black3_lock=1 must not read "A = basic; B = basic" anywhere."""
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", "40", "--out", str(out), "--no-progress", "--side-a", "basic"]
    status, stdout, err = call([*argv, "--side-b", "basic:black3_lock=1"], capsys)
    assert status == 0, err
    want = "strategies: A = basic; B = basic:black3_lock=1"
    rows = lambda text: [x.split()[:2] for x in text.splitlines() if x.startswith(("A  ", "B  "))]
    assert want in stdout.splitlines()
    assert rows(stdout) == [["A", "basic"], ["B", "basic:black3_lock=1"]]
    status, again, err = call(["summarize", str(out)], capsys)
    assert status == 0, err
    assert want in again.splitlines() and rows(again) == rows(stdout)
    from tranca_sim.lab.statistics.stats import format_summary, summarize

    text = format_summary(summarize(load_run(out)))  # Python, from the rows alone
    assert want in text.splitlines() and rows(text) == rows(stdout)
    status, replay, err = call(["replay", str(out), "--deal", "3"], capsys)
    assert status == 0, err
    assert "A = basic (seats 0, 2) · B = basic:black3_lock=1 (seats 1, 3)" in replay.splitlines()[0]
    assert "(B, basic:black3_lock=1)" in replay and "side B (basic:black3_lock=1)" in replay


# ---- outputs that are links or special files are never replaced, with or without --force ------
@pytest.mark.parametrize("force", [[], ["--force"]])
def test_device_output_refused(tmp_path, capsys, force):
    before = os.stat("/dev/null")
    status, _, err = call(
        ["simulate", "--deals", DEALS, "--out", "/dev/null", "--no-progress", *force], capsys
    )
    assert_user_error(status, err, "'/dev/null'", "not a regular file")
    after = os.stat("/dev/null")
    assert (after.st_ino, after.st_mode, after.st_rdev) == (before.st_ino, before.st_mode, before.st_rdev)


@pytest.mark.parametrize("kind", ["symlink", "fifo", "directory"])
def test_special_output_refused_with_force(tmp_path, capsys, kind):
    out = tmp_path / "run.parquet"
    (tmp_path / "target").write_bytes(b"precious")
    {
        "symlink": lambda: out.symlink_to(tmp_path / "target"),
        "fifo": lambda: os.mkfifo(out),
        "directory": out.mkdir,
    }[kind]()
    status, _, err = call(
        ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--force"], capsys
    )
    why = {"symlink": "is a symbolic link; give the file's real path", "fifo": "not a regular file"}
    assert_user_error(status, err, str(out), why.get(kind, "is a directory"))
    assert sorted(os.listdir(tmp_path)) == ["run.parquet", "target"]
    assert (tmp_path / "target").read_bytes() == b"precious"


def test_log_output_that_is_a_link_is_refused(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    (tmp_path / "run.log.jsonl").symlink_to("/dev/null")
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--force", "--log-deals", "2"]
    status, _, err = call(argv, capsys)
    assert_user_error(status, err, "run.log.jsonl", "symbolic link")
    assert os.listdir(tmp_path) == ["run.log.jsonl"]


@pytest.fixture(scope="module")
def small_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("run") / "run.parquet"
    run_simulation("tranca", 20, 3, "basic", "random", out, progress=False)
    return out


@pytest.mark.parametrize("kind", ["symlink", "device"])
def test_replay_html_output_that_is_special_is_refused(small_run, tmp_path, capsys, kind):
    html = tmp_path / "t.html"
    if kind == "symlink":
        (tmp_path / "target").write_text("precious")
        html.symlink_to(tmp_path / "target")
    else:
        html = Path("/dev/null")
    status, out, err = call(["replay", str(small_run), "--deal", "1", "--html", str(html), "--force"], capsys)
    assert_user_error(status, err, str(html), "symbolic link" if kind == "symlink" else "not a regular file")
    assert out == ""  # refused before replaying
    if kind == "symlink":
        assert sorted(os.listdir(tmp_path)) == ["t.html", "target"]
        assert (tmp_path / "target").read_text() == "precious"


# ---- OSError while writing (disk full): one line, exit 2, nothing left -------------------------
ENOSPC = OSError(errno.ENOSPC, "Error writing bytes to file. Detail: [errno 28] No space left on device")


def _full(*args, **kwargs):
    raise ENOSPC


def test_disk_full_writing_the_run(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(pq.ParquetWriter, "write_table", _full)
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert_user_error(status, err, f"cannot write {str(out)!r}: No space left on device")
    assert os.listdir(tmp_path) == []


def test_disk_full_writing_the_logs(tmp_path, capsys, monkeypatch):
    from tranca_sim.engine import log

    real = log.dump_logs

    def full(f, logs):
        real(f, logs)  # the temporary file is really written, then the disk is full
        raise ENOSPC

    monkeypatch.setattr(log, "dump_logs", full)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--log-deals", "3"]
    status, _, err = call(argv, capsys)
    assert_user_error(
        status, err, f"cannot write {str(tmp_path / 'run.log.jsonl')!r}: No space left on device"
    )
    assert os.listdir(tmp_path) == []


def test_failed_run_removes_the_written_logs(tmp_path, capsys, monkeypatch):
    """The logs are written first to a temporary file and renamed only after the run file."""
    monkeypatch.setattr(pq.ParquetWriter, "close", _full)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--log-deals", "3"]
    status, _, err = call(argv, capsys)
    assert_user_error(status, err, "cannot write", "No space left on device")
    assert os.listdir(tmp_path) == []


def test_disk_full_writing_the_html(small_run, tmp_path, capsys, monkeypatch):
    from pathlib import Path

    monkeypatch.setattr(Path, "write_text", _full)
    html = tmp_path / "t.html"
    status, _, err = call(["replay", str(small_run), "--deal", "1", "--html", str(html)], capsys)
    assert_user_error(status, err, f"cannot write {str(html)!r}: No space left on device")
    assert os.listdir(tmp_path) == []


def test_longest_output_name(tmp_path, capsys):
    out = tmp_path / ("r" * 240 + ".parquet")
    assert len(out.name) == 248
    argv = ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--log-deals", "2"]
    status, _, err = call(argv, capsys)
    assert status == 0, err
    assert sorted(os.listdir(tmp_path)) == sorted([out.name, "r" * 240 + ".log.jsonl"])


# ---- --check: invariant errors fail the command after writing --------------------------------
def test_invariant_errors_exit_1(tmp_path, capsys, monkeypatch):
    from tranca_sim import simulate

    real = simulate.simulate

    def with_errors(desc, **kwargs):
        res = real(desc, **kwargs)
        assert desc.check is True
        res["diagnostics"]["invariant_errors"] = 3
        return res

    monkeypatch.setattr(simulate, "simulate", with_errors)
    out = tmp_path / "run.parquet"
    status, stdout, err = call(
        ["simulate", "--deals", DEALS, "--out", str(out), "--no-progress", "--check"], capsys
    )
    assert status == 1 and "Traceback" not in err
    lines = err.strip().splitlines()
    assert lines[0] == "tranca-sim: warning: engine diagnostics not zero: invariant_errors=3"
    assert lines[-1] == (
        "tranca-sim: error: the engine's invariant checks failed 3 times; the run file was written but is suspect"
    )
    assert "A - B per deal" in stdout
    assert load_run(out).height == 400


def test_clean_check_run_exits_0(tmp_path, capsys):
    out = tmp_path / "run.parquet"
    status, _, err = call(
        ["simulate", "--deals", "50", "--out", str(out), "--no-progress", "--check"], capsys
    )
    assert status == 0 and err == ""


# ---- SIGTERM, SIGHUP and Ctrl-C: one line, no traceback, no file --------------------------------
@pytest.mark.parametrize(("sig", "status"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)])
def test_termination_leaves_nothing(tmp_path, capsys, monkeypatch, sig, status):
    from tranca_sim import engine

    real = engine.simulate_chunk
    calls = []

    def killed(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:  # the warm-up deal, one chunk written, then the signal
            os.kill(os.getpid(), sig)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", killed)
    # under nohup SIGHUP starts ignored and rightly stays so (next test): take the default here
    inherited = signal.signal(sig, signal.SIG_DFL) if signal.getsignal(sig) is signal.SIG_IGN else None
    before = signal.getsignal(sig)
    out = tmp_path / "run.parquet"
    argv = ["simulate", "--deals", DEALS, "--chunk-size", "50", "--out", str(out), "--no-progress"]
    argv += ["--log-deals", "2"]
    try:
        got, _, err = call(argv, capsys)
        after = signal.getsignal(sig)  # before the inherited ignore is put back
    finally:
        if inherited is not None:
            signal.signal(sig, inherited)
    assert got == status
    assert err == "tranca-sim: error: terminated; no output file was written\n"
    assert os.listdir(tmp_path) == []
    assert after is before  # restored after main


def test_ignored_hangup_stays_ignored(tmp_path, capsys, monkeypatch):
    """Under nohup (SIGHUP ignored) a hangup does not stop the run."""
    from tranca_sim import engine

    real = engine.simulate_chunk

    def hangup(*args, **kwargs):
        os.kill(os.getpid(), signal.SIGHUP)
        return real(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", hangup)
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        out = tmp_path / "run.parquet"
        status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)
    assert status == 0, err
    assert load_run(out).height == 400


def test_sigterm_in_fresh_process(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    argv = ["simulate", "--deals", "100000000", "--chunk-size", "500", "--out", "r.parquet", "--no-progress"]
    p = subprocess.Popen(
        [sys.executable, "-m", "tranca_sim.cli", *argv],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 300
        while not any(f.startswith(".tmp-tranca-") for f in os.listdir(tmp_path)):
            assert p.poll() is None and time.monotonic() < deadline, p.communicate()
            time.sleep(0.05)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert p.returncode == 143
    only_the_line(err, "tranca-sim: error: terminated; no output file was written")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("module", ["tranca_sim.run", "tranca_sim.io"])
def test_ctrl_c_while_importing(capsys, monkeypatch, module):
    """Ctrl-C during main's imports (slow on a cold disk) is an interrupt, not a traceback."""

    class Interrupting:
        def find_spec(self, name, path=None, target=None):
            if name == module:
                raise KeyboardInterrupt

    monkeypatch.delitem(sys.modules, module)
    monkeypatch.setattr(sys, "meta_path", [Interrupting(), *sys.meta_path])
    status, _, err = call(["summarize", "x.parquet"], capsys)
    assert status == 130 and err == "tranca-sim: error: interrupted\n"


def test_ctrl_c_after_the_run_was_written(tmp_path, capsys, monkeypatch):
    """The message does not claim nothing was written once the file is in place."""
    from tranca_sim.lab.statistics import stats

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(stats, "format_summary", interrupted)
    out = tmp_path / "run.parquet"
    status, _, err = call(["simulate", "--deals", DEALS, "--out", str(out), "--no-progress"], capsys)
    assert status == 130 and err == f"tranca-sim: error: interrupted after writing {out}\n"
    assert load_run(out).height == 400


def test_ctrl_c_while_parsing(capsys, monkeypatch):
    from tranca_sim import cli

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    status, _, err = call(["simulate"], capsys)
    assert status == 130 and err == "tranca-sim: error: interrupted\n"


# ---- inputs: wrong column types, special and unreadable files -----------------------------------
@pytest.mark.parametrize(
    ("name", "array"),
    [
        ("score", pa.array(["12"] * 400)),
        ("score", pa.array([1.5] * 400)),
        ("side", pa.array([None] * 400, pa.int8())),
    ],
)
def test_summarize_refuses_wrong_types(small_run, tmp_path, capsys, name, array):
    table = pq.read_table(small_run)
    table = table.set_column(table.schema.get_field_index(name), name, array.slice(0, table.num_rows))
    bad = tmp_path / "bad.parquet"
    pq.write_table(table, bad)
    status, _, err = call(["summarize", str(bad)], capsys)
    assert_user_error(status, err, str(bad), f"column '{name}'")


def _special_input(tmp_path, kind, name):
    path = tmp_path / name
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "directory":
        path.mkdir()
    elif kind == "garbage":
        path.write_bytes(b"not a run, not a log")
    elif kind == "device":
        return "/dev/zero"
    return str(path)


INPUTS = {
    "missing": "cannot read",
    "fifo": "not a regular file",
    "directory": "is a directory",
    "device": "not a regular file",
}


@pytest.mark.parametrize("kind", list(INPUTS))
@pytest.mark.parametrize(
    "argv",
    [["summarize", "{}"], ["replay", "{}", "--deal", "0"], ["check", "{}"]],
    ids=["summarize", "replay", "check"],
)
@pytest.mark.parametrize("name", ["in.parquet", "in.log.jsonl"])
def test_special_inputs_refused(tmp_path, capsys, kind, argv, name):
    path = _special_input(tmp_path, kind, name)
    status, out, err = call([a.format(path) for a in argv], capsys)
    words = [INPUTS[kind]] if argv[0] != "summarize" or kind != "missing" else ["does not exist"]
    assert_user_error(status, err, str(path), *words)
    assert out == ""


@pytest.mark.parametrize("argv", [["replay", "{}", "--deal", "0"], ["check", "{}"]], ids=["replay", "check"])
def test_garbage_inputs_refused(tmp_path, capsys, argv):
    path = _special_input(tmp_path, "garbage", "in.parquet")
    status, _, err = call([a.format(path) for a in argv], capsys)
    assert_user_error(status, err, str(path), "not a readable Parquet file")


def test_unreadable_log_refused(tmp_path, capsys, monkeypatch):
    """Permission denied (root reads anything, so the failure is simulated)."""
    import builtins

    path = tmp_path / "in.log.jsonl"
    path.write_text("{}\n")
    real_open = builtins.open

    def denied(file, *args, **kwargs):
        if str(file) == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", str(file))
        return real_open(file, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", denied)
    status, _, err = call(["check", str(path)], capsys)
    assert_user_error(status, err, f"cannot read {str(path)!r}: Permission denied")
