"""The tenth fresh user's findings (main eed75c5): bad input that gave a traceback or was accepted
silently now gives one ``tranca-sim: error: ...`` line and exit 2."""

from __future__ import annotations

import pytest
from cli_call import call


def _one_error_line(err: str) -> str:
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("tranca-sim: error: "), err
    assert "Traceback" not in err
    return lines[0]


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
    line = _one_error_line(err)
    assert "--preset tranca-3p" in line and "tranca-2p" in line
    assert "tranca-3p," not in line.split("supports", 1)[1]


def test_tune_refuses_a_parameter_listed_twice(tmp_path, capsys):
    status, _, err = call(
        ["tune", "basic", "--params", "go_out,go_out", "--budget", "12000", "--trial-deals", "400",
         "--out", str(tmp_path / "t")],
        capsys,
    )  # fmt: skip
    assert status == 2
    line = _one_error_line(err)
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
    line = _one_error_line(err)
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
    line = _one_error_line(err)
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
    line = _one_error_line(err)
    assert str(path) in line
    assert "ValueError: my strategy gave up" in line
    assert "line 3" in line and "choose_discard" in line


def test_an_exception_from_elsewhere_is_not_blamed_on_the_strategy(tmp_path, monkeypatch):
    from tranca_sim.cli import strategy_failure

    _user_file(monkeypatch, tmp_path / "mine.py")
    assert strategy_failure(_raise_from_file(tmp_path / "other.py")) is None
    assert strategy_failure(_raise_from_file(tmp_path / "mine.py")) is not None
