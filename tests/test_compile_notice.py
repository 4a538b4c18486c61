"""Compiling the engine is said, and not counted in the deals' rate: `simulate`, `replay` and
`check` say so only when they compile, with --no-progress too; `ladder`, `experiment` and `tune`
say "compiling the engine (once, ...) ..." in one line before their bar when the engine is not in numba's cache, with --no-progress too, as `simulate` does (a
fresh user's find: a ladder on an empty cache compiled for about two minutes inside its first
pair, the bar standing at 0 with the pair's name and nothing said). The cache is not emptied here
(a compile takes minutes): ``engine_cached`` is made to answer False."""

from __future__ import annotations

import textwrap
import time

import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call

from tranca_sim import run
from tranca_sim.simulate import run_simulation


class _Stop(Exception):
    pass


def _said_first(err: str) -> bool:
    """The first line on stderr is the compile notice (the tests' engine has the search player:
    conftest sets TRANCA_SIM_SEARCH=1, so it names it)."""
    first = err.split("\n")[0]
    return first.startswith(
        ("compiling the engine (once, ", "compiling the engine with the search player (once, ")
    )


@pytest.fixture
def events(monkeypatch):
    """What happened, in order: 'deal' for each engine call, 'bar' for each progress bar made."""
    import tqdm.auto

    from tranca_sim import engine

    seen: list[str] = []
    real_chunk = engine.simulate_chunk

    def chunk(*args, **kwargs):
        seen.append("deal")
        return real_chunk(*args, **kwargs)

    class Bar(tqdm.auto.tqdm):
        def __init__(self, *args, **kwargs):
            seen.append("bar")
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(engine, "simulate_chunk", chunk)
    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    monkeypatch.setattr(run, "engine_cached", lambda *a, **k: False)
    return seen


@pytest.mark.parametrize("progress", [False, True])
def test_ladder_says_it_compiles_before_its_bar(tmp_path, capsys, events, progress):
    argv = ["ladder", "--player", "basic", "--player", "random", "--decks", "2", "--out", str(tmp_path / "l")]
    status, _out, err = call(argv + ([] if progress else ["--no-progress"]), capsys)
    assert status == 0, err
    assert _said_first(err), err
    assert err.count("compiling the engine") == 1
    # the engine is compiled (or loaded) by one throw-away deal before the bar is made
    assert events[:2] == ["deal", "bar"], events


def test_experiment_says_it_compiles_with_no_progress(tmp_path, capsys, events):
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    status, _out, err = call(["experiment", str(spec), "--out", str(tmp_path / "e"), "--no-progress"], capsys)
    assert status == 0, err
    assert _said_first(err), err


def test_tune_says_it_compiles_with_no_progress(tmp_path, capsys, events, monkeypatch):
    from tranca_sim.lab.tuning import tune

    def stop(*args, **kwargs):
        raise _Stop

    monkeypatch.setattr(tune, "_play", stop)  # the notice comes before the first deal
    with pytest.raises(_Stop):
        call(["tune", "basic", "--budget", "120000", "--out", str(tmp_path / "t"), "--no-progress"], capsys)
    assert _said_first(capsys.readouterr().err)


@pytest.mark.parametrize("matches", [False, True])
@pytest.mark.parametrize("cached", [False, True])
def test_compile_is_announced_only_when_compiling(tmp_path, capsys, monkeypatch, cached, matches):
    asked = []
    monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb": asked.append(name) or cached)
    what = ["--matches", "2"] if matches else ["--deals", "20"]
    status, _out, err = call(["simulate", *what, "--out", str(tmp_path / "r.parquet")], capsys)
    assert status == 0, err
    from tranca_sim.strategies.user import search_wanted  # the test session's engine has the search player

    which = "the engine with the search player" if search_wanted() else "the engine"
    said = f"compiling {which} (once, {run.COMPILE_TIME})" in err
    assert said is not cached
    # a match run plays the match kernel: its cache is the one asked about (a fresh user's first
    # --matches run said nothing while it compiled)
    assert asked == ["_simulate_matches_nb" if matches else "_simulate_nb"]
    assert "loading the engine 0%" not in err
    assert "simulating" in err  # the deals' bar


def test_replay_and_check_say_when_they_compile(tmp_path, capsys, monkeypatch):
    out = tmp_path / "r.parquet"
    run_simulation("tranca", 5, 1, "basic", "random", out, progress=False)
    for cached in (False, True):
        monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb", c=cached: c)
        for argv in (["replay", str(out), "--deal", "2"], ["check", str(out), "--sample", "2"]):
            status, _, err = call(argv, capsys)
            assert status == 0, err
            assert (f"compiling the deal player (once, {run.COMPILE_TIME})" in err) is not cached


def test_the_engine_is_cached_after_a_run(tmp_path):
    run_simulation("tranca", 5, 1, "basic", "random", tmp_path / "r.parquet", progress=False)
    assert run.engine_cached()  # the next start loads the kernels and says nothing
    run_simulation("tranca", None, 1, "basic", "random", tmp_path / "m.parquet", progress=False, matches=1)
    assert run.engine_cached("_simulate_matches_nb")
    assert not run.engine_cached("no_such_kernel")  # any surprise answers "not cached"


def test_deals_are_timed_without_the_compile(tmp_path, capsys, monkeypatch):
    """A 2-second 'compile' (the throw-away first deal) is in warmup_seconds, not in the deals'
    seconds, and the progress bar is created only after it, so its rate and time left are the
    deals' alone."""
    from tqdm import auto

    from tranca_sim import engine

    events = []
    real_chunk = engine.simulate_chunk

    def slow_first(rules, specs, master_seed, start, count, check=False):
        if count == 1 and start == 0 and not events:
            events.append("compile")
            time.sleep(2.0)
        return real_chunk(rules, specs, master_seed=master_seed, start=start, count=count, check=check)

    class Bar(auto.tqdm):
        def __init__(self, *a, **k):
            events.append(f"bar {k.get('desc')}")
            super().__init__(*a, **k)

    monkeypatch.setattr(engine, "simulate_chunk", slow_first)
    monkeypatch.setattr(auto, "tqdm", Bar)
    res = run_simulation("tranca", 20, 1, "basic", "random", tmp_path / "r.parquet", log_deals=1)
    assert events == ["compile", "bar logging deals", "bar simulating"]
    assert res["warmup_seconds"] >= 2.0 and res["seconds"] < 1.5
    assert res["deals_per_s"] > 20 / 1.5


@pytest.mark.parametrize("what", [["simulate", "--deals", "20"], ["simulate", "--matches", "2"], ["check"]])
def test_compile_is_announced_with_no_progress_too(small_run, tmp_path, capsys, monkeypatch, what):
    """A fresh user's find: with --no-progress a first run sat silent for the whole compile (24 s
    and more); the compile line is one line, not a bar, and is said all the same."""
    monkeypatch.setattr(run, "engine_cached", lambda name="_simulate_nb": False)
    if what[0] == "simulate":
        argv = [*what, "--out", str(tmp_path / "r.parquet"), "--no-progress"]
    else:
        argv = ["check", str(small_run), "--sample", "2", "--no-progress"]
    status, _out, err = call(argv, capsys)
    assert status == 0, err
    assert f"(once, {run.COMPILE_TIME}) ..." in err and "compiling the " in err
    assert "simulating" not in err and "refereeing" not in err  # still no bar
