"""`ladder`, `experiment` and `tune` say "compiling the engine (once, ...) ..." in one line before
their bar when the engine is not in numba's cache, with --no-progress too, as `simulate` does (a
fresh user's find: a ladder on an empty cache compiled for about two minutes inside its first
pair, the bar standing at 0 with the pair's name and nothing said). The cache is not emptied here
(a compile takes minutes): ``engine_cached`` is made to answer False."""

from __future__ import annotations

import textwrap

import pytest
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call

from tranca_sim import run as run_mod


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
    monkeypatch.setattr(run_mod, "engine_cached", lambda *a, **k: False)
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
    from tranca_sim.lab import tune

    def stop(*args, **kwargs):
        raise _Stop

    monkeypatch.setattr(tune, "_play", stop)  # the notice comes before the first deal
    with pytest.raises(_Stop):
        call(["tune", "basic", "--budget", "120000", "--out", str(tmp_path / "t"), "--no-progress"], capsys)
    assert _said_first(capsys.readouterr().err)
