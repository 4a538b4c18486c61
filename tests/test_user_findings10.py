"""The tenth fresh user's findings (main eed75c5): bad input that gave a traceback or was accepted
silently now gives one ``tranca-sim: error: ...`` line and exit 2."""

from __future__ import annotations

import pytest
from cli_call import call, one_error_line


def test_tune_refuses_a_three_player_preset_in_one_line(tmp_path, capsys):
    """`tune basic --preset tranca-3p` crashed with `ValueError: a run must hold one side A and one
    side B row for every deal` (exit 1) after compiling; now it is refused before any deal, naming
    the presets tune supports."""
    out = tmp_path / "t3"
    status, _, err = call(
        ["tune", "basic", "--preset", "tranca-3p", "--budget", "12000", "--trial-deals", "400", "--out", str(out)],
        capsys,
    )
    assert status == 2
    line = one_error_line(err)
    assert "--preset tranca-3p" in line and "tranca-2p" in line
    assert "tranca-3p," not in line.split("supports", 1)[1]


def test_tune_refuses_a_parameter_listed_twice(tmp_path, capsys):
    status, _, err = call(
        ["tune", "basic", "--params", "go_out,go_out", "--budget", "12000", "--trial-deals", "400",
         "--out", str(tmp_path / "t")],
        capsys,
    )  # fmt: skip
    assert status == 2
    line = one_error_line(err)
    assert "--params" in line and "go_out" in line and "twice" in line


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
        argv = ["experiment", "experiments/tranca-tips.toml", "--scheduler", address, "--out", str(tmp_path / "e")]
    status, _, err = call(argv, capsys)
    assert status == 2
    line = one_error_line(err)
    assert line.startswith("tranca-sim: error: --scheduler ")
    assert repr(address) in line
    assert not (tmp_path / "x.parquet").exists() and not (tmp_path / "e").exists()


@pytest.mark.parametrize("address", ["tcp://127.0.0.1:8786", "127.0.0.1:8786", "tls://host.example:1", "[::1]:65535"])
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


def test_the_run_api_refuses_an_impossible_chunk_size(tmp_path):
    from tranca_sim.run import RunOptionError, run_simulation

    with pytest.raises(RunOptionError, match="chunk_size must be between 1 and 10000000"):
        run_simulation(preset="tranca", deals=10, seed=1, side_a="basic", side_b="basic", out=tmp_path / "x.parquet", chunk_size=10**12, progress=False)
    assert not (tmp_path / "x.parquet").exists()


def _raise_from_file(path, message="my strategy gave up"):
    """An exception whose traceback holds a frame of ``path`` (as numba's raise in a user's
    ``choose_discard`` gives it)."""
    code = compile("def choose_discard():\n    x = 1\n    raise ValueError(%r)\n" % message, str(path), "exec")
    ns = {}
    exec(code, ns)
    try:
        ns["choose_discard"]()
    except ValueError as e:
        return e
    raise AssertionError("no exception")


def _user_file(monkeypatch, path):
    from strategies import user

    monkeypatch.setattr(user, "selection", lambda: (user.Source(module="u_mine", file=str(path), sha256="0" * 64),))


def test_an_exception_in_a_user_strategy_is_one_line_naming_the_file(tmp_path, capsys, monkeypatch):
    """A numba `raise ValueError("my strategy gave up")` in a user's choose_discard surfaced as 46
    lines of traceback through _simulate_nb, exit 1; now one line names the file, the line, the
    function and the exception, exit 2."""
    import tranca_sim.cli as cli

    path = tmp_path / "mine.py"
    _user_file(monkeypatch, path)
    exc = _raise_from_file(path)

    def failing_simulate(a):
        raise exc

    monkeypatch.setattr(cli, "_cmd_simulate", failing_simulate)
    status, _, err = call(["simulate", "--deals", "10", "--out", str(tmp_path / "x.parquet")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert str(path) in line
    assert "ValueError: my strategy gave up" in line
    assert "line 3" in line and "choose_discard" in line


def test_an_exception_from_elsewhere_is_not_blamed_on_the_strategy(tmp_path, monkeypatch):
    from tranca_sim.cli import strategy_failure

    _user_file(monkeypatch, tmp_path / "mine.py")
    assert strategy_failure(_raise_from_file(tmp_path / "other.py")) is None
    assert strategy_failure(_raise_from_file(tmp_path / "mine.py")) is not None


@pytest.fixture(scope="module")
def match_run(tmp_path_factory):
    from tranca_sim.cli import main

    path = tmp_path_factory.mktemp("m") / "m.parquet"
    status = main(["simulate", "--matches", "6", "--seed", "3", "--rule", "match_target=1500", "--out", str(path),
                   "--no-progress"])  # fmt: skip
    assert status in (0, None)
    return path


def test_the_html_replay_of_a_match_deal_names_the_match_and_its_score(match_run, tmp_path, capsys):
    """The page said 'Tranca deal 3072' (the internal deal key) and nothing of the match; the text
    replay says 'match 3, deal 0 of the match · match score before it'."""
    from tranca_sim.engine.match import deal_key
    from tranca_sim.io import load_run

    df = load_run(match_run, backend="pandas")
    m = next(i for i in range(1, 6) if int(df.loc[df["match_index"] == i, "match_deals"].iloc[0]) >= 2)
    first = df[(df["match_index"] == m) & (df["deal_in_match"] == 0)].sort_values("side")
    before = ", ".join(f"{s} {int(x)}" for s, x in zip("AB", first["score"]))  # after deal 0 = before deal 1
    page = tmp_path / "m.html"
    status, out, _ = call(["replay", str(match_run), "--match", str(m), "--deal", "1", "--html", str(page)], capsys)
    assert status in (0, None)
    assert f"match score before it: {before}" in out  # the text replay
    text = page.read_text(encoding="utf-8")
    assert f"match {m}, deal 1 of the match" in text
    assert f"match score before it: {before}" in text
    assert f"Tranca deal {deal_key(m, 1)}" not in text and deal_key(m, 1) != 1


class _ClosedPipe:
    """A stdout whose reader has gone (`| head -3`): every write raises BrokenPipeError."""

    def __init__(self, fd):
        self._fd = fd

    def write(self, text):
        raise BrokenPipeError(32, "Broken pipe")

    def flush(self):
        raise BrokenPipeError(32, "Broken pipe")

    def fileno(self):
        return self._fd


def test_replay_writes_the_html_page_when_stdout_is_closed(match_run, tmp_path, monkeypatch):
    """`replay RUN --deal 7 --html h.html --turn 5 | head -3` exited 0 without writing the page."""
    import os
    import sys

    from tranca_sim.cli import main

    page = tmp_path / "h.html"
    sink = os.open(tmp_path / "stdout.txt", os.O_WRONLY | os.O_CREAT)
    try:
        monkeypatch.setattr(sys, "stdout", _ClosedPipe(sink))
        try:
            status = main(["replay", str(match_run), "--match", "0", "--deal", "0", "--html", str(page), "--turn", "1"])
        except SystemExit as e:
            status = e.code
    finally:
        monkeypatch.undo()
        os.close(sink)
    assert page.exists() and "<svg" in page.read_text(encoding="utf-8")
    assert status in (0, None)


def test_report_md_regenerate_commands_quote_a_path_with_spaces(tmp_path):
    """`--out "/tmp/dir with space/ex é"`: report.md's Regenerate commands gave the path unquoted."""
    import shlex

    import lab_synthetic as L

    from tranca_sim.lab import reports

    d = tmp_path / "dir with space" / "ex é"
    d.mkdir(parents=True)
    reports.write_report(d, L.report_data(d, with_sweep=False))
    text = (d / "report.md").read_text(encoding="utf-8")
    regen = text.split("## Regenerate", 1)[1]
    cmds = [x for x in regen.splitlines() if x.startswith("tranca-sim ")]
    assert len(cmds) == 2, regen
    for c in cmds:
        words = shlex.split(c)
        assert words[words.index("--out") + 1 if "--out" in words else 2] == d.as_posix(), c


def test_readme_says_where_the_compile_note_is_and_how_a_stuck_strategy_ends():
    """The README said 'the last line then says the engine was compiled first', but that text ends
    the rate line, which the summary table follows; and it did not say that a strategy that never
    returns can only be stopped with kill -9."""
    from pathlib import Path

    text = " ".join((Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8").split())
    assert "the last line then says `the engine was compiled first" not in text
    assert "the rate line" in text and "which the summary table follows" in text
    own = text.split("Your own strategy is a file of your own", 1)[1].split("Strategy packages", 1)[0]
    assert "never returns" in own and "kill -9" in own


def test_simulate_refuses_resume_with_force(tmp_path, capsys):
    """`simulate --out DIR/ --resume --force` on a complete dataset ignored --force without a word."""
    from tranca_sim.cli import main

    out = f"{tmp_path / 'ds'}/"
    assert main(["simulate", "--deals", "20", "--chunk-size", "10", "--out", out, "--no-progress"]) in (0, None)
    capsys.readouterr()
    before = sorted(p.name for p in (tmp_path / "ds").iterdir())
    status, _, err = call(["simulate", "--deals", "20", "--chunk-size", "10", "--out", out, "--resume", "--force",
                           "--no-progress"], capsys)  # fmt: skip
    assert status == 2
    line = one_error_line(err)
    assert "--resume" in line and "--force" in line
    assert sorted(p.name for p in (tmp_path / "ds").iterdir()) == before
