"""The progress bars of the lab's commands: the total is every deal played, the bar starts after
the engine is loaded and is closed before the report is built."""

from __future__ import annotations

import re
import textwrap
import time
from pathlib import Path

import pytest
import tqdm.auto
from cli_call import ONE_TIP_TOML as TINY
from cli_call import call

import tranca_sim.engine as engine_mod
import tranca_sim.run as run_mod

THREE = """
title = "Three-player tips"
question = "Does a tip change the margin at a three-player table?"
preset = "tranca-3p"
baseline = "basic"
seed = 5
batch = 6
budget = 12
[[variants]]
label = "lock"
strategy = "basic:black3_lock=1"
[[variants]]
label = "partner"
strategy = "basic:wild_reserve=1"
"""


@pytest.mark.parametrize("stopping", ["", "[stopping]\nhalf_width = 100000\n"], ids=["budget", "early stop"])
def test_the_experiments_bar_counts_every_deal_played(tmp_path, monkeypatch, stopping):
    """The bar's total is the deals played, the control table's included (a three-player
    experiment's bar said 24.0k while 26,000 deals were played), also when variants stop early."""
    import tqdm.auto

    from tranca_sim.lab.experiments.experiment import run_experiment

    bars = []

    class Bar(tqdm.auto.tqdm):
        def close(self):
            bars.append((self.total, self.n))
            super().close()

    monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
    spec = tmp_path / "three.toml"
    text = textwrap.dedent(THREE).replace("[[variants]]", stopping + "[[variants]]", 1)
    spec.write_text(text, encoding="utf-8")
    res = run_experiment(spec, tmp_path / "out", progress=True, report=False)
    # 2 variants x 12 deals (4 decks, each in seat 0, 1, 2) + the control table's 4 deals; a stop at
    # the first look: 2 x 6 + 2
    assert res["deals"] == (28 if not stopping else 14)
    assert bars[-1] == (res["deals"], res["deals"])


@pytest.fixture
def tiny(tmp_path) -> Path:
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    return spec


class _OpenBars:
    """Every tqdm bar made while patched, and which of them are open (not closed yet)."""

    def __init__(self, monkeypatch):
        import tqdm.auto

        self.open: set[int] = set()
        opened = self.open

        class Bar(tqdm.auto.tqdm):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, **kwargs)
                opened.add(id(self))

            def close(self):
                opened.discard(id(self))
                super().close()

        monkeypatch.setattr(tqdm.auto, "tqdm", Bar)


def test_the_experiments_bar_is_closed_before_the_report_is_built(tiny, tmp_path, monkeypatch, capsys):
    """The bar stayed drawn (at 100%, its clock running) while the charts were drawn; it is
    closed after the last deal and a line says the report is being built."""
    from tranca_sim.lab.experiments import experiment as ex

    bars = _OpenBars(monkeypatch)
    seen = []
    real = ex.write_report_if_available

    def report(*args, **kwargs):
        seen.append(set(bars.open))
        return real(*args, **kwargs)

    monkeypatch.setattr(ex, "write_report_if_available", report)
    ex.run_experiment(tiny, tmp_path / "out", progress=True)
    assert seen == [set()]  # the report was built once, with no bar open
    err = capsys.readouterr().err
    assert "tiny: building the report ..." in err
    assert err.rstrip().endswith("tiny: building the report ...")  # after the bar's last line


def test_the_ladders_bar_is_closed_before_the_ratings_and_report(tmp_path, monkeypatch, capsys):
    from tranca_sim.lab.ladder import ladder_report
    from tranca_sim.lab.ladder.ladder import run_ladder

    bars = _OpenBars(monkeypatch)
    seen = []
    real = ladder_report.summarize_ladder

    def summarize(*args, **kwargs):
        seen.append(set(bars.open))
        return real(*args, **kwargs)

    monkeypatch.setattr(ladder_report, "summarize_ladder", summarize)
    run_ladder(tmp_path / "lad", players=["basic", "random"], decks=4, slow_decks=2, bootstrap=100, threads=1)
    assert seen == [set()]
    err = capsys.readouterr().err
    assert "rating the players (100 bootstrap resamples) and building the report ..." in err


class _Events:
    """A stand-in for the engine's first deal (slow, like a load) and for tqdm's bar, recording
    the order in which they happen."""

    def __init__(self, monkeypatch, slow: float = 1.2):
        self.events: list[tuple] = []
        real = engine_mod.simulate_chunk
        events = self.events

        def chunk(*args, **kw):
            if not any(e[0] == "load" for e in events):
                time.sleep(slow)  # the first deal: as a compile or a load from the disk cache
                out = real(*args, **kw)
                events.append(("load", time.perf_counter()))
                return out
            return real(*args, **kw)

        class Bar:
            def __init__(self, *args, total=None, **kw):
                self.total, self.n = total, 0
                events.append(("bar", time.perf_counter(), total))

            def update(self, n=1):
                self.n += n

            def set_description(self, *a, **k):
                pass

            def set_postfix_str(self, *a, **k):
                pass

            def refresh(self):
                pass

            def close(self):
                events.append(("closed", self.n, self.total))

        monkeypatch.setattr(engine_mod, "simulate_chunk", chunk)
        monkeypatch.setattr(tqdm.auto, "tqdm", Bar)
        monkeypatch.setattr(run_mod, "engine_cached", lambda *a, **k: False)  # say "compiled"

    def kinds(self):
        return [e[0] for e in self.events]


def test_experiment_bar_starts_after_the_engine_is_loaded(tmp_path, capsys, monkeypatch):
    """`experiment two.toml` from an empty cache drew "loading the engine: 0% 0.00/2.00k" for
    the whole compile, then 25 deals/s while the summary said 2888 deals/s: the bar's clock
    counted the compile. Now the bar is made after the throw-away first deal, and the last line
    says the compile time as `simulate` does."""
    ev = _Events(monkeypatch)
    spec = tmp_path / "tiny.toml"
    spec.write_text(textwrap.dedent(TINY), encoding="utf-8")
    status, out, err = call(["experiment", str(spec), "--out", str(tmp_path / "e")], capsys)
    assert status == 0, err
    kinds = ev.kinds()
    assert kinds.index("load") < kinds.index("bar"), kinds
    assert "compiling the engine" in err
    assert re.search(r"; the engine was compiled first, in \d+\.\d s \(not counted\); wrote ", out), out


def test_tune_bar_starts_after_the_load_and_its_total_is_what_is_played(tmp_path, capsys, monkeypatch):
    """`tune basic --params black3_lock,partner` showed 35 hours left during the compile and its
    bar total fell from 28.0k to 16.0k: two switches make 4 candidates, so the search plays 4
    trials, not the budget's 10. Here: 4 x 20 search + 2 x 20 selection + 20 confirmation + 20
    final = 160 deals, known before the first deal (the old total: 200 + 40 + 20 + 20 = 280)."""
    ev = _Events(monkeypatch)
    status, out, err = call(
        ["tune", "basic", "--budget", "200", "--trial-deals", "20", "--rounds", "1", "--select-top", "2",
         "--select-deals", "20", "--confirm-deals", "20", "--params", "black3_lock,partner",
         "--out", str(tmp_path / "t")],
        capsys,
    )  # fmt: skip
    assert status == 0, err
    kinds = ev.kinds()
    assert kinds.index("load") < kinds.index("bar"), kinds
    bar = next(e for e in ev.events if e[0] == "bar")
    closed = next(e for e in ev.events if e[0] == "closed")
    assert bar[2] == 160 and closed[1:] == (160, 160), ev.events
    assert "160 deals in" in out
    assert re.search(r"; the engine was compiled first, in \d+\.\d s \(not counted\); wrote ", out), out
