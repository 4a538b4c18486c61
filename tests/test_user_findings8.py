"""The eighth fresh user's findings: the lab's bars counted the first compile, report.md's sweep
table said NaN, a user file's sys.exit, plain wording of a few errors, a symlinked dataset
directory, and the one-deck experiment chart's legend."""

from __future__ import annotations

import re
import textwrap
import time

import pytest
import tqdm.auto
from cli_call import call
from test_user_findings6 import TINY

import tranca_sim.engine as engine_mod
import tranca_sim.run as run_mod


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


def test_search_deals_cap():
    """Deals a round's search can play: one trial per distinct candidate of a small space."""
    from types import SimpleNamespace as P

    from tranca_sim.lab.tune import search_deals_cap

    switch, ints = P(choices=None, kind="switch"), P(choices=None, kind="int", low=1, high=3)
    three, real = P(choices=(0.25, 0.5, 1.0), kind="real"), P(choices=None, kind="real", low=0, high=1)
    assert search_deals_cap([switch, switch], 20000, 2000) == 4 * 2000  # 2 x 2 candidates
    assert search_deals_cap([switch, ints, three], 100_000, 1000) == 18 * 1000  # 2 x 3 x 3
    assert search_deals_cap([switch, real], 20000, 2000) == 20000  # a real number: the budget
    assert search_deals_cap([switch, ints], 5000, 2000) == 4000  # whole trials of the budget


ONE_DECK_SWEEP = """
title = "A sweep on one deck"
question = "Does holding the morto back change anything?"
baseline = "basic"
seed = 3
batch = 2
budget = 2
[sweep]
strategy = "basic"
param = "morto_stock"
grid = [30, 0]
"""


@pytest.fixture(scope="module")
def one_deck_sweep(tmp_path_factory):
    from tranca_sim.lab.experiment import run_experiment

    d = tmp_path_factory.mktemp("one")
    (d / "one.toml").write_text(textwrap.dedent(ONE_DECK_SWEEP), encoding="utf-8")
    run_experiment(d / "one.toml", d / "out", progress=False)
    return d / "out"


def test_one_deck_sweep_table_says_n_a(one_deck_sweep):
    """`experiment experiments/example.toml --deals 2`: report.md's sweep table said
    `[NaN, NaN] | nan | nan` where the console and the tip table say n/a (one deck: no interval)."""
    text = (one_deck_sweep / "report.md").read_text(encoding="utf-8")
    table = text.split("## Sweep table", 1)[1].split("##", 1)[0]
    rows = [line for line in table.splitlines() if line.startswith("| morto_stock")]
    assert len(rows) == 2, table
    for line in rows:
        assert "nan" not in line.lower(), line
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[4:] == ["n/a", "n/a", "n/a"], cells  # interval, p, p Holm


@pytest.mark.parametrize("body", ["import sys; sys.exit(3)\n", "raise SystemExit('bye')\n"])
def test_a_strategy_file_that_exits_on_load_gives_one_error_line(tmp_path, body):
    """`tranca-sim strategies s5.py` with `import sys; sys.exit(3)` in s5.py exited 3 without a
    word: a user's file is loaded in this process, so its exit was the command's."""
    from test_user_strategies import cli

    (tmp_path / "s5.py").write_text(body, encoding="utf-8")
    status, out, err = cli("strategies", "s5.py", cwd=tmp_path)
    assert status == 2, (status, out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: error: strategy file 's5.py' line 1: "), err
    assert "exits while being loaded" in lines[0]


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


def _legend(fig) -> list[str]:
    return [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_one_deck_charts_say_not_tested_and_list_only_drawn_marks(tmp_path):
    """A one-deck experiment's tip chart labelled its points "not significant after Holm" and its
    legend showed the red "significant (0 of 3 drawn)" though no interval, hence no test, was
    drawn. Now: "not tested (too few deals)", and only the marks drawn are listed."""
    import lab_synthetic as L
    import numpy as np
    import polars as pl

    from tranca_sim.lab import charts

    info = charts.ChartInfo("foot", "basic (baseline)")
    c = L.comparison().head(3)
    none = c.with_columns(lo=pl.lit(np.nan), hi=pl.lit(np.nan), holm_significant=pl.lit(False))
    fig = charts.forest_plot(none, info)
    assert _legend(fig) == ["not tested (too few deals)"]
    fig.savefig(tmp_path / "one_deck_tips.png")
    # one tested and not significant, one significant, one not tested: all three marks, the count of red
    mixed = c.with_columns(
        lo=pl.Series([np.nan, -5.0, 1.0]), hi=pl.Series([np.nan, 5.0, 9.0]),
        holm_significant=pl.Series([False, False, True]),
    )  # fmt: skip
    assert _legend(charts.forest_plot(mixed, info)) == [
        "significant after Holm correction (1 of the 3 drawn)",
        "not significant after Holm",
        "not tested (too few deals)",
    ]
    sweep = pl.DataFrame(
        {"param": ["morto_stock"] * 3, "value": [30.0, 15.0, 0.0], "variant": ["a", "b", "c"],
         "n_units": [1, 5, 5], "mean": [0.0, -15.0, 20.0], "lo": [np.nan, -30.0, 5.0], "hi": [np.nan, 0.5, 35.0],
         "p_value": [np.nan, 0.06, 0.01], "p_holm": [np.nan, 0.06, 0.02]}
    )  # fmt: skip
    fig = charts.sweep_plot(sweep, info)
    assert _legend(fig) == [
        "95% interval", "not significant after Holm: adjusted p > 0.05", "not tested (too few deals)",
        "significant after Holm: adjusted p ≤ 0.05",
    ]  # fmt: skip
    fig.savefig(tmp_path / "one_deck_sweep.png")
