"""Reports and charts of an experiment (tranca_sim.lab.publish.reports, tranca_sim.lab.publish.charts)."""

import json
import re
import xml.etree.ElementTree as ET

import lab_synthetic as L
import numpy as np
import polars as pl
import pytest
from experiment_files import two_tips
from matplotlib.image import imread

from tranca_sim.cli import main
from tranca_sim.lab.publish import charts, reports

CHARTS = ["tip_effects", "score_distribution", "sweep", "morto_turn", "deal_endings", "red3"]


def _valid_png(path):
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    img = imread(path)
    assert img.ndim == 3 and img.shape[0] > 200 and img.shape[1] > 600
    # not blank: many distinct colours
    assert len(np.unique(img.reshape(-1, img.shape[2])[::50], axis=0)) > 20


def _valid_svg(path):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")


@pytest.fixture(scope="module")
def synthetic_report(tmp_path_factory):
    d = tmp_path_factory.mktemp("syn")
    data = L.report_data(d, with_sweep=True)
    written = reports.write_report(d, data)
    return d, data, written


def test_report_writes_every_chart_and_references_it(synthetic_report):
    d, _, written = synthetic_report
    assert {p.name for p in written} == {f"{c}.{e}" for c in CHARTS for e in ("png", "svg")} | {"report.md"}
    md = (d / "report.md").read_text()
    for c in CHARTS:
        _valid_png(d / f"{c}.png")
        _valid_svg(d / f"{c}.svg")
        assert f"]({c}.png)" in md and f"({c}.svg)" in md
    assert not list(d.glob(".tmp-*")), "no temporary file left"


def test_report_md_states_question_design_and_tip_table(synthetic_report):
    d, data, _ = synthetic_report
    md = (d / "report.md").read_text()
    for part in ("## Question", "## Design", "## Tip table", "## Regenerate", "tranca-sim report"):
        assert part in md
    assert "Holm" in md and "Benjamini-Hochberg" in md and "duplicate deals" in md
    assert "0.60-0.68" in md  # var_ratio_design of the synthetic table: 0.60 .. 0.68
    assert "stopped by: budget (5 variants)" in md and "confidence sequence (test)" in md
    rows = [r for r in md.splitlines() if r.startswith("| ") and "[" in r and "pp" in r]
    assert len(rows) == data.comparison.height
    # sorted by effect, largest gain first: +12 (safe_discard=0) ... -40 (wild_reserve=1)
    assert rows[0].startswith("| safe_discard=0 | +12.0 | [+3.0, +21.0]")
    assert rows[-1].startswith("| wild_reserve=1 | -40.0 |") and "| yes |" in rows[-1]


def test_regenerating_gives_the_same_bytes(tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    reports.write_report(a, L.report_data(a, with_sweep=True))
    reports.write_report(b, L.report_data(b, with_sweep=True))
    reports.write_report(b, L.report_data(b, with_sweep=True))
    for f in sorted(p.name for p in a.iterdir()):
        if f == "report.md":  # names its own directory in the regenerate commands
            assert (a / f).read_text().replace(str(a), "D") == (b / f).read_text().replace(str(b), "D")
        else:
            assert (a / f).read_bytes() == (b / f).read_bytes(), f


def test_footnote_has_preset_design_deals_seed_version(synthetic_report):
    _, data, _ = synthetic_report
    note = reports.footnote(data)
    for part in ("preset tranca", "design duplicate", "200 decks (400 deals) per variant", "seed 7", "0.1.0"):
        assert part in note


def test_no_sweep_no_sweep_chart(tmp_path):
    written = reports.write_report(tmp_path, L.report_data(tmp_path, with_sweep=False))
    assert "sweep.png" not in {p.name for p in written}
    assert "sweep.png" not in (tmp_path / "report.md").read_text()


def test_charts_leave_pyplot_alone(tmp_path):
    """A report leaves no figure in pyplot's global state."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys, lab_synthetic as L; from tranca_sim.lab.publish import reports; "
        f"reports.write_report({str(tmp_path)!r}, L.report_data({str(tmp_path)!r})); "
        # matplotlib itself may import pyplot (boxplot reads every rcParam), but no figure is
        # left in pyplot's figure manager
        "plt = sys.modules.get('matplotlib.pyplot'); assert plt is None or plt.get_fignums() == []"
    )
    here = Path(__file__).parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(here.parent), str(here)]), "MPLBACKEND": ""}
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
    assert (tmp_path / "report.md").exists()


# ---- tables -----------------------------------------------------------------------------
def test_morto_turn_table_bins_and_never_taken(synthetic_report):
    _, data, _ = synthetic_report
    t = reports.morto_turn_table(data)
    d = reports._series(data)
    # every side-deal in exactly one bin of its label
    assert t["n"].sum() == d.height
    never = t.filter(pl.col("bin") == "never taken")
    for lab, n in never.select("label", "n").rows():
        assert n == d.filter((pl.col("label") == lab) & (pl.col("morto_turn") < 0)).height
    # 6 strategies > MAX_SERIES = 4: the baseline and the 3 largest effects (-40, -20, +12)
    assert set(t["label"]) == {"basic (baseline)", "wild_reserve=1", "take_pile_min=3", "safe_discard=0"}
    # a bin's mean is the plain mean of its deals
    r = t.filter(pl.col("bin_order") == 0).row(0, named=True)
    sel = d.filter(
        (pl.col("label") == r["label"]) & pl.col("morto_turn").is_between(r["turn_lo"], r["turn_hi"])
    )
    assert r["mean_score"] == pytest.approx(sel["score"].mean())
    assert r["lo"] < r["mean_score"] < r["hi"]


def test_end_reason_and_red3_tables(synthetic_report):
    _, data, _ = synthetic_report
    e = reports.end_reason_table(data)
    sums = e.group_by("label").agg(pl.col("share").sum())["share"].to_list()
    assert sums == pytest.approx([1.0] * len(sums))
    assert set(e["end"]) <= set(charts.END_LABELS)
    r = reports.red3_table(data, backend="pandas")
    assert set(r.columns) >= {"label", "has_canasta", "red3_count", "n", "mean_score", "lo", "hi"}
    # synthetic scores: +100 per red 3 with a canasta, -100 without
    base = r[r.label == "basic (baseline)"]
    with_c = base[base.has_canasta].set_index("red3_count").mean_score
    without = base[~base.has_canasta].set_index("red3_count").mean_score
    assert with_c[4] > with_c[0] and without[4] < without[0]


def test_score_table_order_and_quantiles(synthetic_report):
    _, data, _ = synthetic_report
    s = reports.score_table(data)
    assert s["label"].to_list()[0] == "basic (baseline)"
    assert s["label"].to_list()[1:] == data.comparison.sort("mean", descending=True)["variant"].to_list()
    assert (s["p5"] < s["median"]).all() and (s["median"] < s["p95"]).all()
    with pytest.raises(ValueError, match="backend"):
        reports.score_table(data, backend="numpy")


# ---- the command ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "setup, message",
    [
        ("missing", "does not exist"),
        ("file", "is not a directory"),
        ("empty", "holds no experiment.json"),
        ("badjson", "cannot read"),
        ("norun", "holds no run files"),
    ],
)
def test_cli_report_bad_dir(tmp_path, capsys, setup, message):
    d = tmp_path / "exp"
    if setup == "file":
        d.write_text("x")
    elif setup != "missing":
        d.mkdir()
        if setup == "badjson":
            (d / "experiment.json").write_text("{not json")
            (d / "runs").mkdir()
            (d / "runs" / "a.parquet").write_bytes(b"PAR1")
        elif setup == "norun":
            (d / "experiment.json").write_text(json.dumps(L.spec()))
    with pytest.raises(SystemExit) as e:
        main(["report", str(d)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"tranca-sim: error: [^\n]+\n", err) and message in err
    if d.is_dir():
        assert not (d / "report.md").exists()


# ---- a real experiment directory (tranca_sim.lab.experiments.experiment) ----------------------------------
def _default(strategy: str, param: str) -> int:
    from tranca_sim.strategies import list_strategies

    for name, _, names, defaults in list_strategies():
        if name == strategy:
            return int(defaults[list(names).index(param)])
    raise KeyError(strategy)


_PILE = _default("basic", "take_pile_min")  # the baseline's own value: not a played grid point

REAL = """
name = "mini"
title = "Two tips, a quick look"
question = "Do wild_reserve and safe_discard change the score per deal of basic?"
baseline = "basic"
seed = 5
batch = 200
budget = 200
[[variants]]
label = "wild in reserve"
strategy = "basic:wild_reserve=1"
[[variants]]
label = "safe discards"
strategy = "basic:safe_discard=1"
[sweep]
strategy = "basic"
param = "take_pile_min"
grid = [{same}, {other}]
"""


@pytest.fixture(scope="module")
def real_dir(tmp_path_factory):
    from tranca_sim.lab.experiments.experiment import run_experiment

    d = tmp_path_factory.mktemp("real")
    (d / "mini.toml").write_text(REAL.format(same=_PILE + 1, other=_PILE + 2))
    run_experiment(d / "mini.toml", d / "out", progress=False, report=False)
    return d / "out"


def test_cli_report_of_a_real_experiment(real_dir, capsys):
    assert not (real_dir / "report.md").exists()
    assert main(["report", str(real_dir)]) == 0
    assert "report.md and 6 charts" in capsys.readouterr().out
    md = (real_dir / "report.md").read_text()
    for c in CHARTS:
        _valid_png(real_dir / f"{c}.png")
        _valid_svg(real_dir / f"{c}.svg")
        assert f"]({c}.png)" in md
    assert "Two tips, a quick look" in md and "## Sweep table" in md
    tip_rows = [r for r in md.split("## Tip table")[1].split("##")[0].splitlines() if r.startswith("| ")]
    assert [r.split(" | ")[0] for r in tip_rows[1:]] in (
        ["| wild in reserve", "| safe discards"],
        ["| safe discards", "| wild in reserve"],
    )
    before = {p.name: p.read_bytes() for p in real_dir.iterdir() if p.is_file()}
    assert main(["report", str(real_dir)]) == 0  # regenerating gives the same bytes
    after = {p.name: p.read_bytes() for p in real_dir.iterdir() if p.is_file()}
    assert before == after


def test_report_tables_of_a_real_experiment(real_dir):
    d = reports.load_report_data(real_dir)
    labels = set(d.deals["label"])
    assert labels == {
        "basic (baseline)",
        "wild in reserve",
        "safe discards",
        f"take_pile_min={_PILE + 1}",
        f"take_pile_min={_PILE + 2}",
    }
    # duplicate design: every deal of a variant's two runs has one variant row and one baseline row
    assert d.deals.filter(pl.col("is_variant")).height == d.deals.filter(~pl.col("is_variant")).height
    m = reports.morto_turn_table(d)
    # 5 strategies > MAX_SERIES = 4: the variant with the smallest |effect| is not drawn
    c = d.comparison.with_columns(pl.col("mean").abs().alias("size")).sort("size")
    smallest = c["variant"][0]
    assert set(m["label"]) == labels - {smallest}
    assert m["n"].sum() == d.deals.filter(pl.col("label") != smallest).height
    e = reports.end_reason_table(d, backend="pandas")
    assert set(e.label) == labels
    s = reports.score_table(d)
    wild = s.filter(pl.col("label") == "wild in reserve")["mean"][0]
    rows = d.deals.filter(pl.col("label") == "wild in reserve")
    assert wild == pytest.approx(rows["score"].mean())


def test_cli_report_of_a_damaged_run_file(real_dir, tmp_path, capsys):
    import shutil

    d = tmp_path / "copy"
    shutil.copytree(real_dir, d)
    run = min((d / "runs").glob("*.parquet"))
    run.write_bytes(run.read_bytes()[: run.stat().st_size // 2])
    for f in ("report.md", "tip_effects.png"):
        (d / f).unlink(missing_ok=True)
    with pytest.raises(SystemExit) as e:
        main(["report", str(d)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert re.fullmatch(r"tranca-sim: error: [^\n]+\n", err) and run.name in err
    assert not (d / "report.md").exists() and not (d / "tip_effects.png").exists()


def test_readme_chart_and_example_report_are_committed():
    """The README embeds a committed chart, and the committed example's report.md references
    every chart file it has."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    images = re.findall(r"!\[[^\]]*\]\((reports/[^)]+\.png)\)", readme)
    assert images and all((root / p).is_file() for p in images)
    ex = root / "reports" / "example"
    md = (ex / "report.md").read_text()
    for png in re.findall(r"\]\(([a-z0-9_]+\.png)\)", md):
        _valid_png(ex / png)
        _valid_svg(ex / png.replace(".png", ".svg"))
    assert len(list((ex / "runs").glob("*.parquet"))) >= 2


def _with_morto_turns(data, turns):
    """``data`` with the morto turns of its deals replaced, cycling through ``turns``."""
    d = data.deals
    col = pl.Series("morto_turn", np.resize(np.array(turns), d.height), dtype=d["morto_turn"].dtype)
    return reports.ReportData(data.dir, data.spec, data.comparison, None, d.with_columns(col))


def test_morto_turn_bins_follow_the_turns_in_the_data(synthetic_report):
    """A one-deck experiment took every morto at turn 20 or 21: its chart's x axis said only '20+'
    (bins from turn 0 in rounds up to the 95th percentile, the last one open) and 'never taken'."""
    _, data, _ = synthetic_report
    t = reports.morto_turn_table(_with_morto_turns(data, [20, 21, -1]))
    # turns 20 and 21 lie in the sixth round of four turns (20-23); nothing earlier or later
    assert sorted(set(t["bin"])) == ["20-23", "never taken"], set(t["bin"])
    r = t.filter(pl.col("bin") == "20-23").row(0, named=True)
    assert (r["turn_lo"], r["turn_hi"]) == (20, 23)
    # spread pickups (turns 9 to 40, 32 values): the 95th percentile is 9 + 0.95 * 31 = 38.45; from the
    # round 8-11 on, width round((38.45 - 8) / 8 / 4) = 1 round, bins up to the one holding 38.45 (36-39),
    # which is open because turn 40 lies after it
    t = reports.morto_turn_table(_with_morto_turns(data, list(range(9, 41))))
    bins = t.select("bin", "bin_order").unique().sort("bin_order")["bin"].to_list()
    assert bins == ["8-11", "12-15", "16-19", "20-23", "24-27", "28-31", "32-35", "36+"], bins
    assert t.filter(pl.col("bin") == "36+")["turn_hi"].max() == 40
    # every side-deal in exactly one bin whose turn range holds its turn
    d = reports._series(_with_morto_turns(data, list(range(9, 41))))
    assert t["n"].sum() == d.height
    for lab, lo, hi, n in t.select("label", "turn_lo", "turn_hi", "n").rows():
        assert n == d.filter((pl.col("label") == lab) & pl.col("morto_turn").is_between(lo, hi)).height


def test_morto_turn_chart_says_it_shows_selection_not_an_effect():
    """Issue 21, 9: in the committed example later pickups score higher while the sweep's causal
    answer is that holding the morto back costs points (morto_stock=0: about -490 a deal).  The
    chart must say it is observed, why it rises (a late pickup happens only in a long deal, and the
    mean length of those deals is printed under each bin), and where the effect is measured; the
    old caveat ("an early pickup often just means a better hand") described the opposite pattern."""
    from pathlib import Path

    from tranca_sim.lab.publish import charts

    d = reports.load_report_data(Path(__file__).resolve().parent.parent / "reports" / "example")
    m = reports.morto_turn_table(d)
    taken = m.filter(pl.col("bin") != "never taken").unique("bin").sort("bin_order")
    turns = taken["deal_turns"].to_list()
    assert turns[-1] > turns[0] + 15  # measured: the latest pickups are in deals ~30 turns longer
    fig = charts.morto_turn_plot(m, charts.ChartInfo("foot", "basic"))
    ax = fig.axes[0]
    words = " ".join(t.get_text() for t in (*ax.texts, ax.title, *fig.texts)) + ax.get_title("left")
    words = " ".join(words.split())
    assert "not an effect of timing" in words and "long deal" in words and "morto_stock" in words
    assert "better hand" not in words
    ticks = [t.get_text() for t in ax.get_xticklabels()]
    assert ticks[0] == f"{taken['bin'][0]}\n{turns[0]:.0f}"
    md = reports.render_markdown(d, ["morto_turn"], reports.score_table(d), reports.end_reason_table(d),
                                 reports.tip_rows(d))  # fmt: skip
    assert "better hand" not in md and "not an effect of timing" in md


def test_report_md_regenerate_commands_quote_a_path_with_spaces(tmp_path):
    """`--out "/tmp/dir with space/ex é"`: report.md's Regenerate commands gave the path unquoted."""
    import shlex

    import lab_synthetic as L

    from tranca_sim.lab.publish import reports

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


def test_design_section_names_the_p_the_deal_win_test_and_the_match_interval(tmp_path):
    """the Design section did not say what the p column is (the confidence sequence's
    anytime-valid p in a sequential experiment), that the deal-win p is an exact sign test on decks
    or that the match-win interval is a bootstrap; its Holm line said 5% whatever the alpha."""
    from tranca_sim.lab.experiments.experiment import run_experiment

    toml = tmp_path / "seq.toml"
    toml.write_text(two_tips("tranca") + "\n[stopping]\nhalf_width = 2000.0\nalpha = 0.01\n")
    run_experiment(toml, tmp_path / "seq", progress=False, threads=1)
    md = (tmp_path / "seq" / "report.md").read_text()
    design = md.split("## Design", 1)[1].split("\n## ", 1)[0]
    assert "anytime-valid p-value of the confidence sequence" in design
    assert "exact sign test on decks" in design
    assert "99% interval from a bootstrap of the decks" in design
    assert "family-wise error 1% " in design and "adjusted p <= 0.01" in design


def test_pooled_baseline_is_said_in_report_and_charts(tmp_path):
    d = tmp_path / "syn"
    d.mkdir()
    data = L.report_data(d, with_sweep=True)
    note = reports.pooled_note(data)
    assert "pools the baseline's deals against every variant" in note
    reports.write_report(d, data)
    md = (d / "report.md").read_text()
    for section in ("## Score of each strategy", "## How deals end"):
        assert note in md.split("\n" + section + "\n")[1].split("##")[0]
    info = charts.ChartInfo("foot", data.baseline_label, reports.pooled_note(data, short=True))
    fig = charts.end_reason_plot(reports.end_reason_table(data), info)
    assert any("against every variant, pooled" in t.get_text().replace("\n", " ") for t in fig.axes[0].texts)
    fixed = reports.ReportData(d, dict(data.spec, design="fixed-opponent"), data.comparison, None, data.deals)
    assert reports.pooled_note(fixed) == ""  # the baseline plays only the opponent there


def test_the_sweep_table_writes_a_tiny_p_as_the_tip_table_does(tmp_path):
    """A sweep point with p below 0.0001 reads '< 0.0001' (as in the tip table), not '0.0000'."""
    import dataclasses

    import polars as pl

    data = L.report_data(tmp_path, with_sweep=True)
    tiny = data.sweep.with_columns(p_value=pl.lit(1e-9), p_holm=pl.lit(3e-9))
    reports.write_report(tmp_path, dataclasses.replace(data, sweep=tiny))
    text = (tmp_path / "report.md").read_text()
    section = text[text.index("## Sweep table") : text.index("## Charts")]
    rows = [r for r in section.splitlines() if r.startswith("| morto_keep")]
    assert len(rows) == tiny.height and all(r.endswith("| < 0.0001 | < 0.0001 |") for r in rows), section
