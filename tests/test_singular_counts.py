"""Counts of one take the singular in what the command line, the reports and the charts say
("1 deck", "1 deal", "1 process"), not "1 decks"."""

from __future__ import annotations

from cli_call import call

from tranca_sim import simulate as simulate_mod


def test_counts_take_the_singular_for_one():
    """'1 decks', '1 comparisons', '1 processes' ... in CLI and report text (a fresh user's find)."""
    import lab_synthetic as L
    import polars as pl

    from tranca_sim._plural import plural
    from tranca_sim.lab.publish import charts
    from tranca_sim.lab.publish.report_md import _deals_text

    assert [plural(1, "deck"), plural(0, "deck"), plural(2000, "match", "matches", ",")] == [
        "1 deck", "0 decks", "2,000 matches",
    ]  # fmt: skip
    one = pl.DataFrame({"n_units": [1], "n_deals": [2], "unit": ["deck"]})
    assert _deals_text(one) == "1 deck (2 deals) per variant"
    assert _deals_text(pl.DataFrame({"n_units": [1, 3], "n_deals": [2, 6], "unit": ["deck"] * 2})) == (
        "1-3 decks (2-6 deals) per variant"
    )
    fig = charts.forest_plot(L.comparison().head(1), charts.ChartInfo("foot"))
    texts = " ".join(t.get_text() for t in fig.axes[0].texts)
    assert "over 1 comparison" in texts and "1 comparisons" not in texts


def test_check_of_a_one_deal_run_says_deal(tmp_path, capsys):
    from tranca_sim.cli import main

    run = tmp_path / "one.parquet"
    assert main(["simulate", "--deals", "1", "--out", str(run), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["check", str(run), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "1 of 1 deal agreed with the referee" in out and "1 deals" not in out


def test_one_worker_process_is_said_in_the_singular(tmp_path, capsys, monkeypatch):
    """`simulate --deals 20000 --processes 2` is one chunk, so one process played it: the line said
    "(1 processes, 1 thread each)". The run is played here in this process; only the workers'
    record says one worker process played it."""
    import dataclasses

    real = simulate_mod.simulate

    def one_worker(desc, **kw):
        res = real(dataclasses.replace(desc, processes=None), **kw)
        res["workers"] = {4242: {"load_seconds": 0.5, "cache_misses": 0}}
        return res

    monkeypatch.setattr(simulate_mod, "simulate", one_worker)
    status, out, err = call(["simulate", "--deals", "20", "--processes", "2", "--out", str(tmp_path / "r.parquet"),
                             "--no-progress"], capsys)  # fmt: skip
    assert status == 0, err
    assert "(1 process, 1 thread each)" in out and "1 processes" not in out
