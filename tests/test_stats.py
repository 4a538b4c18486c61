"""Summary statistics checked against numbers worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import polars as pl
import pytest
from scipy import stats as st

from tranca_sim.io import RunFileError
from tranca_sim.lab.statistics.stats import RunningSummary, format_summary, summarize
from tranca_sim.strategies import strategy_params

# Four deals, side A and side B of each (deal-major, like a run file).
SCORE_A = [100, 200, 300, 50]
SCORE_B = [50, 250, 100, 50]
WON_A = [True, False, True, False]
WON_B = [False, True, False, False]  # deal 3 is a tie
OUT_A = [True, False, True, False]
OUT_B = [False, True, False, True]
TURNS = [40, 30, 50, 20]

T_975_3 = 3.182446305284263  # Student t, 97.5% quantile, 3 degrees of freedom (table value)
Z_975 = 1.959963984540054  # normal 97.5% quantile


def frame():
    """Deal-major rows: side A then side B of deals 0..3."""
    return pl.DataFrame(
        {
            "master_seed": [1] * 8,
            "deal_index": [i for i in range(4) for _ in (0, 1)],
            "side": [0, 1] * 4,
            "strategy": ["basic", "random"] * 4,
            "score": [x for pair in zip(SCORE_A, SCORE_B) for x in pair],
            "won": [x for pair in zip(WON_A, WON_B) for x in pair],
            "went_out": [x for pair in zip(OUT_A, OUT_B) for x in pair],
            "n_turns": [t for t in TURNS for _ in (0, 1)],
        }
    )


def hand_t(xs):
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1))
    half = T_975_3 * sd / math.sqrt(n)
    return mean, sd, mean - half, mean + half


def hand_wilson(k, n):
    p = k / n
    denom = 1 + Z_975**2 / n
    centre = (p + Z_975**2 / (2 * n)) / denom
    half = Z_975 / denom * math.sqrt(p * (1 - p) / n + Z_975**2 / (4 * n * n))
    return centre - half, centre + half


def test_hand_numbers_are_what_we_think():
    # side A: mean 162.5, squared deviations 3906.25 + 1406.25 + 18906.25 + 12656.25 = 36875, var 36875/3
    assert hand_t(SCORE_A)[0] == 162.5
    assert hand_t(SCORE_A)[1] == pytest.approx(math.sqrt(36875 / 3))
    # wins of A: 2 of 4 -> Wilson centre stays 0.5
    lo, hi = hand_wilson(2, 4)
    assert (lo + hi) / 2 == pytest.approx(0.5)


def check_summary(s):
    assert s["n_deals"] == 4
    a, b = s["sides"]
    assert (a["side"], a["strategy"], a["n"]) == ("A", "basic", 4)
    assert (b["side"], b["strategy"], b["n"]) == ("B", "random", 4)
    for side, scores, won, out in ((a, SCORE_A, WON_A, OUT_A), (b, SCORE_B, WON_B, OUT_B)):
        mean, sd, lo, hi = hand_t(scores)
        assert side["score_mean"] == pytest.approx(mean)
        assert side["score_sd"] == pytest.approx(sd)
        assert (side["score_lo"], side["score_hi"]) == pytest.approx((lo, hi))
        assert side["wins"] == sum(won)
        assert side["win_share"] == pytest.approx(sum(won) / 4)
        assert (side["win_lo"], side["win_hi"]) == pytest.approx(hand_wilson(sum(won), 4))
        assert side["out_share"] == pytest.approx(sum(out) / 4)
        assert (side["out_lo"], side["out_hi"]) == pytest.approx(hand_wilson(sum(out), 4))
        assert side["turns_mean"] == pytest.approx(35.0)
    # per-deal differences 50, -50, 200, 0: mean 50, squared deviations 0 + 10000 + 22500 + 2500
    d = s["diff"]
    assert d["n"] == 4
    assert d["mean"] == pytest.approx(50.0)
    assert d["sd"] == pytest.approx(math.sqrt(35000 / 3))
    half = T_975_3 * math.sqrt(35000 / 3) / 2
    assert (d["lo"], d["hi"]) == pytest.approx((50 - half, 50 + half))
    assert d["p_value"] == pytest.approx(st.ttest_rel(SCORE_A, SCORE_B).pvalue)
    assert s["tie_share"] == pytest.approx(0.25)


def test_summarize_polars():
    check_summary(summarize(frame()))


def test_summarize_pandas_and_dict():
    check_summary(summarize(frame().to_pandas()))
    check_summary(summarize({k: v.to_numpy() for k, v in frame().to_dict().items()}))
    assert isinstance(frame().to_pandas(), pd.DataFrame)


def test_pairing_does_not_depend_on_row_order():
    df = frame().sample(fraction=1.0, shuffle=True, seed=3)
    check_summary(summarize(df))


def test_unpaired_rows_count_for_the_side_only():
    extra = (
        frame()
        .head(1)
        .with_columns(pl.lit(99, pl.Int64).alias("deal_index"), pl.lit(1000, pl.Int64).alias("score"))
    )
    s = summarize(pl.concat([frame(), extra]))
    assert s["sides"][0]["n"] == 5 and s["sides"][1]["n"] == 4
    assert s["diff"]["n"] == 4 and s["diff"]["mean"] == pytest.approx(50.0)


def test_two_seeds_pair_within_seed():
    other = frame().with_columns(
        pl.lit(2, pl.Int64).alias("master_seed"), (pl.col("score") * 0).alias("score")
    )
    s = summarize(pl.concat([frame(), other]))
    assert s["n_deals"] == 8
    assert s["diff"]["mean"] == pytest.approx(25.0)  # (50 * 4 + 0 * 4) / 8


def test_duplicate_rows_refused():
    with pytest.raises(ValueError, match="several rows"):
        summarize(pl.concat([frame(), frame().head(1)]))


@pytest.mark.parametrize("kind", ["polars", "pandas", "numpy"])
def test_a_run_concatenated_with_itself_is_refused(kind):
    """Rows 0..7 twice, deal-major: side A's keys 0,1,2,3,0,1,2,3 equal side B's, the layout the
    fast path used to accept without looking for repeats (n doubled, interval / sqrt 2)."""
    df = pl.concat([frame(), frame()])
    if kind == "pandas":
        df = df.to_pandas()
    elif kind == "numpy":
        df = {k: v.to_numpy() for k, v in df.to_dict().items()}
    with pytest.raises(RunFileError, match="deal 0 of seed 1 has several rows for side A"):
        summarize(df)
    acc = RunningSummary()  # the chunked path checks each chunk the same way
    with pytest.raises(RunFileError, match="several rows"):
        acc.update(df)
    acc = RunningSummary()  # ... and a chunk given twice
    acc.update(frame())
    with pytest.raises(RunFileError, match="deals 0..3 of seed 1 overlap deals 0..3 of an earlier chunk"):
        acc.update(frame())
    acc = RunningSummary()  # another seed's deals 0..3 are other deals
    acc.update(frame())
    acc.update(frame().with_columns(pl.lit(2, pl.Int64).alias("master_seed")))
    assert acc.result()["n_deals"] == 8


def test_a_run_and_its_sides_swapped_are_refused():
    """The same seed with the strategies on the other side: A-B and B-A would be averaged."""
    swapped = frame().with_columns((1 - pl.col("side")).alias("side"))
    with pytest.raises(RunFileError, match=r"side A holds rows of several strategies \(basic, random\)"):
        summarize(pl.concat([frame(), swapped]))
    # the same with one strategy and its parameters: told apart by strategy_params
    a = with_params(frame(), DEFAULTS, with_value("black3_lock", 1.0))
    b = a.with_columns((1 - pl.col("side")).alias("side"))
    with pytest.raises(RunFileError, match=r"\(basic, basic:black3_lock=1\)"):
        summarize(pl.concat([a, b]))
    # chunk by chunk, a second chunk of another pairing is refused too
    acc = RunningSummary()
    acc.update(frame())
    with pytest.raises(RunFileError, match="several strategies"):
        acc.update(swapped.with_columns(pl.col("deal_index") + 10))


def test_rows_of_several_presets_are_refused():
    other = frame().with_columns(
        pl.lit(2, pl.Int64).alias("master_seed"), pl.lit("tranca-aberta").alias("preset")
    )
    with pytest.raises(RunFileError, match=r"several presets \(tranca, tranca-aberta\)"):
        summarize(pl.concat([frame().with_columns(pl.lit("tranca").alias("preset")), other]))


DEFAULTS = [p[1] for p in strategy_params("basic")]


def with_value(name, value, params=None):
    """basic's default parameters with ``name`` set to ``value``."""
    out = list(params or DEFAULTS)
    out[[p[0] for p in strategy_params("basic")].index(name)] = value
    return out


def with_params(df, params_a, params_b):
    """``df`` as a run of ``basic`` (parameters ``params_a``) against ``basic`` (``params_b``)."""
    return df.with_columns(
        pl.lit("basic").alias("strategy"),
        pl.when(pl.col("side") == 0)
        .then(pl.lit(params_a, pl.List(pl.Float64)))
        .otherwise(pl.lit(params_b, pl.List(pl.Float64)))
        .alias("strategy_params"),
    )


def test_sides_are_named_with_their_non_default_parameters():
    """basic (all defaults; black3_lock is off by default) against basic with black3_lock=1."""
    df = with_params(frame(), DEFAULTS, with_value("black3_lock", 1.0))
    for data in (df, df.to_pandas()):
        s = summarize(data)
        assert [x["strategy"] for x in s["sides"]] == ["basic", "basic:black3_lock=1"]
        lines = format_summary(s).splitlines()
        assert "strategies: A = basic; B = basic:black3_lock=1" in lines
        assert lines[2].split()[:2] == ["B", "basic:black3_lock=1"]  # the table's strategy column too
    three = with_value("go_out", 0.0, with_value("wild_reserve", 1.0, with_value("take_pile_min", 4.0)))
    two = with_params(frame(), three, DEFAULTS)
    assert summarize(two)["sides"][0]["strategy"] == "basic:take_pile_min=4,wild_reserve=1,go_out=0"


def turn_limit_frame(codes=False):
    """frame() with deals 1 and 3 ended at the turn limit."""
    reasons = ["went_out", "turn_limit", "stock_out", "turn_limit"]
    col = [r for r in reasons for _ in (0, 1)]
    if codes:  # the engine's integer codes (tranca_sim.io.END_REASONS)
        return {**{k: v.to_numpy() for k, v in frame().to_dict().items()},
                "end_reason": np.array([["playing", "went_out", "stock_out", "turn_limit"].index(x) for x in col])}  # fmt: skip
    return frame().with_columns(pl.Series("end_reason", col))


@pytest.mark.parametrize("kind", ["strings", "pandas", "codes"])
def test_turn_limit_deals_are_counted_and_named(kind):
    df = turn_limit_frame(codes=kind == "codes")
    if kind == "pandas":
        df = df.to_pandas()
    s = summarize(df)
    assert s["turn_limit"] == 2 and s["turn_limit_deals"] == [1, 3]
    text = format_summary(s)
    assert "WARNING: 2 deals ended at the turn limit, not by a rule (deals 1, 3)" in text
    check_summary(s)  # the figures themselves are unchanged
    acc = RunningSummary()
    acc.update(turn_limit_frame().head(4))
    acc.update(turn_limit_frame().tail(4))
    assert acc.result()["turn_limit"] == 2 and acc.result()["turn_limit_deals"] == [1, 3]


def test_no_turn_limit_no_warning():
    s = summarize(frame().with_columns(pl.lit("went_out").alias("end_reason")))
    assert s["turn_limit"] == 0 and "WARNING" not in format_summary(s)
    assert summarize(frame())["turn_limit"] is None  # not known without end_reason


def test_missing_column_refused():
    with pytest.raises(ValueError, match="score"):
        summarize(frame().drop("score"))


def test_running_summary_matches_whole():
    df = frame()
    acc = RunningSummary()
    acc.update(df.head(4))
    acc.update(df.tail(4))
    check_summary(acc.result())
    # large values: the pooled variance stays exact
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(1e9, 3000.0, 10_000)).astype(np.int64)  # scores are whole points
    big = {"deal_index": np.repeat(np.arange(5000), 2), "side": np.tile([0, 1], 5000), "score": x,
           "won": x > 0, "went_out": x > 0, "n_turns": x}  # fmt: skip
    acc = RunningSummary()
    for i in range(0, 10_000, 1000):
        acc.update({k: v[i : i + 1000] for k, v in big.items()})
    assert acc.result()["sides"][0]["score_sd"] == pytest.approx(np.std(x[0::2], ddof=1), rel=1e-9)


def test_too_few_deals_gives_nan():
    s = summarize(frame().head(2))
    assert s["n_deals"] == 1
    assert math.isnan(s["diff"]["lo"]) and math.isnan(s["sides"][0]["score_lo"])
    assert "n/a" in format_summary(s)


def test_format_summary():
    text = format_summary(summarize(frame()), title="preset tranca")
    lines = text.splitlines()
    assert lines[0] == "preset tranca"
    assert "basic" in lines[2] and "162.5" in lines[2] and "50.0%" in lines[2]
    assert "random" in lines[3]
    assert "A - B per deal (paired, 4 deals): 50.0" in text
    assert "ties (no side won): 25.0%" in text
    assert "strategies: A = basic; B = random" in lines
    labelled = format_summary(summarize(frame(), labels=["basic:x=1", "random"]))
    assert "strategies: A = basic:x=1; B = random" in labelled.splitlines()
    both = format_summary(summarize(frame(), labels=["random", "basic:x=1"]))
    assert "strategies: A = random; B = basic:x=1" in both.splitlines()


WRONG = {
    "score as string": lambda df: df.with_columns(pl.col("score").cast(pl.String)),
    "score as float": lambda df: df.with_columns(pl.col("score").cast(pl.Float64)),
    "n_turns as float": lambda df: df.with_columns(pl.col("n_turns") + 0.5),
    "deal_index as string": lambda df: df.with_columns(pl.col("deal_index").cast(pl.String)),
    "won as string": lambda df: df.with_columns(pl.col("won").cast(pl.String)),
    "null in side": lambda df: df.with_columns(
        pl.when(pl.col("deal_index") == 2).then(None).otherwise(pl.col("side")).alias("side")
    ),
    "null in score": lambda df: df.with_columns(
        pl.when(pl.col("deal_index") == 2).then(None).otherwise(pl.col("score")).alias("score")
    ),
    "side 3": lambda df: df.with_columns(pl.col("side") * 3),  # sides are 0, 1 (and 2 in tranca-3p)
}


@pytest.mark.parametrize("label", list(WRONG))
@pytest.mark.parametrize("kind", ["polars", "pandas", "numpy"])
def test_wrong_column_types_refused(label, kind):
    df = WRONG[label](frame())
    if kind == "pandas":
        df = df.to_pandas(use_pyarrow_extension_array=False)
        if label.startswith("null"):  # pandas nullable integers keep the null as NA
            col = label.split()[-1]
            df[col] = df[col].astype("Int64")
    elif kind == "numpy":
        df = {k: v.to_numpy() for k, v in df.to_dict().items()}
    name = label.split()[-1] if label.startswith("null") else label.split()[0]
    with pytest.raises(RunFileError, match=f"column '{name}'"):
        summarize(df)
