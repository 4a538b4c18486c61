"""The strength ladder: ratings of hand-made result tables worked out by hand, the stratified
bootstrap, player texts, and ``tranca-sim ladder`` end to end on a few decks."""

from __future__ import annotations

import json
import math

import numpy as np
import polars as pl
import pytest
from cli_call import call, one_error_line

from tranca_sim.lab.ladder.ladder import pair_plan, parse_player
from tranca_sim.lab.ladder.rating import (
    _strata,
    bootstrap_ratings,
    bt_ratings,
    points_ratings,
    win_matrix,
)


def _decks(wins: int, losses: int, draws: int = 0, margin: float = 10.0) -> np.ndarray:
    return np.array([margin] * wins + [-margin] * losses + [0.0] * draws)


# ---- Bradley-Terry on deck wins ---------------------------------------------------------------
def test_bt_elo_of_a_table_the_model_fits_exactly():
    # A beats B on 3 decks of 4, B beats C 3 of 4, A beats C 9 of 10. Bradley-Terry with
    # strengths 9 : 3 : 1 fits these shares exactly (9/12, 3/4, 9/10), so the maximum-likelihood
    # log-strength differences are ln 3 (A-B, B-C) and ln 9 (A-C); on Elo's scale
    # 400 log10(3) = 190.849 and 400 log10(9) = 381.697.
    pairs = {(0, 1): _decks(3, 1), (1, 2): _decks(3, 1, margin=5.0), (0, 2): _decks(9, 1)}
    r = bt_ratings(win_matrix(pairs, 3, prior=0.0), anchor=2)
    assert r[2] == 0.0
    assert r[1] == pytest.approx(190.849, abs=0.01)
    assert r[0] == pytest.approx(381.697, abs=0.01)


def test_a_drawn_deck_counts_half_a_win_to_each_and_the_prior_adds_virtual_draws():
    # 2 wins, 1 draw, 1 loss: 2.5 wins against 1.5, Elo difference 400 log10(2.5 / 1.5) = 88.74
    e = np.array([7.5, 0.0, -20.0, 105.0])
    w = win_matrix({(0, 1): e}, 2, prior=0.0)
    assert w[0, 1] == 2.5 and w[1, 0] == 1.5
    assert bt_ratings(w, anchor=1)[0] == pytest.approx(400 * math.log10(2.5 / 1.5), abs=0.01)
    # a player that never wins: with the prior of half a drawn deck per pair it gets
    # 0 + 0.5 against 5 + 0.5: Elo 400 log10(0.5 / 5.5) = -416.6
    w = win_matrix({(0, 1): _decks(0, 5)}, 2, prior=0.5)
    assert w[0, 1] == 0.5 and w[1, 0] == 5.5
    assert bt_ratings(w, anchor=1)[0] == pytest.approx(400 * math.log10(0.5 / 5.5), abs=0.01)


# ---- points a deal ----------------------------------------------------------------------------
def test_points_ratings_least_squares_by_hand():
    # consistent table: 0 beats 1 by 10, 1 beats 2 by 20, 0 beats 2 by 30 -> r = 0, -10, -30
    pairs = {(0, 1): np.full(4, 10.0), (1, 2): np.array([15.0, 25.0]), (0, 2): np.full(3, 30.0)}
    assert points_ratings(pairs, 3, anchor=0) == pytest.approx([0.0, -10.0, -30.0])
    # inconsistent, one deck each: minimise (-a-10)^2 + (a-b-10)^2 + (-b-40)^2 with r0 = 0:
    # d/da: 4a - 2b = 0; d/db: -2a + 4b + 100 = 0 -> a = -100/6, b = -200/6
    pairs = {(0, 1): np.array([10.0]), (1, 2): np.array([10.0]), (0, 2): np.array([40.0])}
    assert points_ratings(pairs, 3, anchor=0) == pytest.approx([0.0, -100 / 6, -200 / 6])
    # weights: deck counts. 0 vs 1 by 10 on 3 decks, 0 vs 1 is the only pair -> exactly 10
    assert points_ratings({(1, 0): np.array([-5.0, -10.0, -15.0])}, 2, anchor=0)[1] == pytest.approx(-10.0)


# ---- bootstrap --------------------------------------------------------------------------------
def test_strata_follow_the_shared_deck_ranges():
    pairs = {(0, 1): np.zeros(10), (0, 2): np.zeros(4), (1, 2): np.zeros(10)}
    assert _strata(pairs) == [(0, 4), (4, 10)]


def test_bootstrap_of_constant_differences_has_no_width_and_contains_the_estimate():
    rng = np.random.default_rng(3)
    pairs = {
        (0, 1): np.full(40, 25.0),  # every deck the same: no resample can move the points rating
        (1, 2): rng.normal(50.0, 200.0, 40),
        (0, 2): rng.normal(75.0, 200.0, 20),
    }
    b = bootstrap_ratings(pairs, 3, anchor=0, n_boot=300, seed=1)
    assert b["points"].shape == (300, 3)
    assert b["points_lo"][0] == b["points_hi"][0] == 0.0  # the anchor
    est = points_ratings(pairs, 3, 0)
    assert np.all(b["points_lo"] <= est + 1e-9) and np.all(est <= b["points_hi"] + 1e-9)
    assert b["points_hi"][2] - b["points_lo"][2] > 10  # noisy pairs give a real interval
    est_elo = bt_ratings(win_matrix(pairs, 3), 0)
    assert np.all(b["elo_lo"] <= est_elo + 1e-6) and np.all(est_elo <= b["elo_hi"] + 1e-6)


# ---- players and plan -------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text, expected",
    [
        ("random", ("random", "random")),
        ("basic:go_out=0", ("basic:go_out=0", "basic:go_out=0")),
        ("no out=basic:go_out=0", ("no out", "basic:go_out=0")),
        ("search small=search:worlds=8,turns=12", ("search small", "search:worlds=8,turns=12")),
    ],
)
def test_parse_player(text, expected):
    assert parse_player(text) == expected


def test_pairs_with_a_slow_player_play_fewer_decks_and_come_last():
    from tranca_sim.lab.ladder.ladder import Player

    ps = [Player("a", "basic", False), Player("s", "search", True), Player("b", "random", False)]
    assert pair_plan(ps, 100, 8) == [(0, 2, 100), (0, 1, 8), (1, 2, 8)]


# ---- the command ------------------------------------------------------------------------------
def test_cli_ladder_end_to_end(tmp_path, capsys):
    out = tmp_path / "lad"
    argv = ["ladder", "--out", str(out), "--decks", "24", "--search-decks", "2", "--bootstrap", "100"]
    argv += ["--player", "random", "--player", "passive", "--player", "basic"]
    argv += ["--player", "s1=search:worlds=1,turns=1", "--no-progress", "--threads", "1"]
    status, stdout, err = call(argv, capsys)
    assert status == 0, err
    assert "| rank | player |" in stdout and "wrote" in stdout
    for f in (
        "ladder.json",
        "ratings.csv",
        "ratings.md",
        "pairs.csv",
        "units.parquet",
        "report.md",
        "ladder.png",
    ):
        assert (out / f).is_file(), f
    res = json.loads((out / "ladder.json").read_text())
    pairs = {(p["a"], p["b"]): p for p in res["pairs"]}
    assert len(pairs) == 6  # 4 players: every pair once
    assert pairs[("random", "basic")]["decks"] == 24 and pairs[("basic", "s1")]["decks"] == 2
    units = pl.read_parquet(out / "units.parquet")
    assert units.height == 3 * 24 + 3 * 2
    ratings = {r["label"]: r for r in res["ratings"]}
    assert ratings["basic"]["elo"] == 0.0 and ratings["basic"]["points"] == 0.0  # the anchor
    # passive never melds (strategies/passive.py): basic outscores it by far on every deck
    assert ratings["passive"]["points"] < -500 and ratings["passive"]["points_hi"] < 0
    # the pair's mean in the table is the mean of its decks' values (i minus j)
    e = units.filter((pl.col("i") == 1) & (pl.col("j") == 2))["e"].to_numpy()
    assert pairs[("passive", "basic")]["mean"] == pytest.approx(float(e.mean()))
    assert len(list((out / "runs").glob("*.parquet"))) == 12


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--player", "basic", "--player", "basic"], "given twice"),
        (["--player", "basic", "--player", "nosuch"], "nosuch"),
        (["--player", "basic"], "at least 2 players"),
        (["--preset", "nosuch"], "--preset"),
        # a new user's finds: a three-player table gave a traceback, an unknown anchor was ignored
        (
            ["--preset", "tranca-3p", "--player", "basic", "--player", "random"],
            "--preset tranca-3p: a table of 3",
        ),
        (["--player", "basic", "--player", "random", "--anchor", "zzz"], "--anchor 'zzz' is not a player"),
    ],
)
def test_cli_ladder_errors(extra, words, tmp_path, capsys):
    status, _, err = call(["ladder", "--out", str(tmp_path / "o"), "--decks", "4", *extra], capsys)
    assert status == 2
    assert err.startswith("tranca-sim: error:") and words in err and "Traceback" not in err
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize(
    "argv, said",
    [
        # a fresh user's finds: --decks 1 named --search-decks, never given; --decks 0 another bound
        (["--decks", "1"], "--decks must be at least 2, got 1"),
        (["--decks", "0"], "--decks must be at least 2, got 0"),
        (["--search-decks", "1"], "--search-decks must be at least 2, got 1"),
    ],
)
def test_cli_ladder_deck_counts_name_the_flag_given(argv, said, tmp_path, capsys):
    status, out, err = call(["ladder", "--out", str(tmp_path / "o"), *argv], capsys)
    assert status == 2 and out == "", err
    assert err == f"tranca-sim: error: {said} (see 'tranca-sim ladder --help')\n"
    assert not (tmp_path / "o").exists()


def test_the_default_ladder_plays_every_preset():
    # the search player plays every preset (issue 23 item 2): no default player is refused
    from tranca_sim.lab.ladder.ladder import DEFAULT_PLAYERS, make_players
    from tranca_sim.rules import PRESETS

    for preset in PRESETS:
        assert len(make_players(DEFAULT_PLAYERS, preset, players_given=False)) == len(DEFAULT_PLAYERS)


def test_cli_ladder_default_players_refused_by_a_preset_say_how_to_choose(tmp_path, capsys, monkeypatch):
    # no shipped preset refuses a default player now: a stand-in check refuses the search player
    from tranca_sim import strategies

    def refuse(specs, rules):
        if any(s.name == "search" for s in specs):
            raise strategies.StrategyError(f"strategy 'search' cannot play {rules.name} (a stand-in)")

    monkeypatch.setattr(strategies, "check_rules", refuse)
    status, _, err = call(
        ["ladder", "--out", str(tmp_path / "o"), "--preset", "buraco", "--decks", "4"], capsys
    )
    assert status == 2 and "strategy 'search' cannot play buraco (a stand-in)" in err
    assert "choose the players with --player" in err
    # a fresh user's find: the player was shown as a Python tuple ('search small', 'search:...')
    assert "default player 'search small' (search:worlds=8,turns=12): " in err and "('" not in err


def test_ladder_names_a_player_as_the_command_line_writes_it():
    from tranca_sim.lab.ladder.ladder import LadderError, make_players, player_text

    assert player_text("basic:go_out=0") == "basic:go_out=0"
    assert player_text(("no out", "basic:go_out=0")) == "no out=basic:go_out=0"
    assert player_text(("basic", "basic")) == "basic"
    with pytest.raises(LadderError) as e:  # a (label, strategy) pair of the Python API
        make_players([("lock", "basic:lock_black3=1"), "random"], "tranca")
    assert str(e.value).startswith("player 'lock=basic:lock_black3=1': strategy 'basic' has no parameter")
    assert parse_player("lock=basic:lock_black3=1") == ("lock", "basic:lock_black3=1")  # as --player takes it


def test_cli_ladder_names_out_when_the_directory_is_not_empty(tmp_path, capsys):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "x.txt").write_text("keep")
    argv = ["ladder", "--out", str(tmp_path / "o"), "--decks", "4", "--player", "basic", "--player", "random"]
    status, _, err = call(argv, capsys)
    assert status == 2 and err.startswith("tranca-sim: error: --out") and "Traceback" not in err
    assert (tmp_path / "o" / "x.txt").read_text() == "keep"


def test_ladder_names_a_user_strategy_file_before_the_engine_loads(tmp_path):
    # a new user's find: any --player from a file failed with "the engine of this process is
    # already loaded", since run_ladder imported the engine before resolving the players. In a
    # fresh process the players now resolve first, so the next error is the one about --bootstrap.
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    argv = ["ladder", "--out", "o", "--bootstrap", "50", "--no-progress", "--player", "basic"]
    argv += ["--player", f"g={root / 'examples' / 'greedy.py'}:greedy"]
    p = subprocess.run(
        [sys.executable, "-m", "tranca_sim.cli", *argv],
        check=False,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 2, p.stderr
    assert "already loaded" not in p.stderr
    assert one_error_line(p.stderr) == "tranca-sim: error: --bootstrap must be at least 100 resamples, got 50"


def test_ladder_chart_value_labels_stay_inside_their_panel():
    """A fresh user's find: the value label of a player at the far left of a panel (passive's
    "-2243 [-2257, -2230]", centred on its point) ran over the spine into the player names, the
    right panel's into the left panel. Every label lies inside its panel, clear of every tick label."""
    from tranca_sim.lab.ladder.ladder_report import ladder_figure

    def row(label, elo, pts, never_won=False):
        return {
            "label": label, "strategy": label, "elo": elo, "elo_lo": elo - 14, "elo_hi": elo + 13,
            "points": pts, "points_lo": pts - 3, "points_hi": pts + 2, "decks": 100, "never_won": never_won,
        }  # fmt: skip

    result = {
        "anchor": "basic",
        "preset": "tranca",
        "decks": 20000,
        "slow_decks": 500,
        "ratings": [
            row("search large", 214, 199.5),
            row("tuned", 89, 71.3),
            row("basic", 0, 0.0),
            row("random", -676, -603.4),
            row("passive", -2243, -1710.2, never_won=True),
        ],
    }
    fig = ladder_figure(result)
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    axes = fig.axes
    ticks = [
        t.get_window_extent(r)
        for ax in axes
        for t in ax.get_yticklabels() + ax.get_xticklabels()
        if t.get_text()
    ]
    n = 0
    for ax in axes:
        box = ax.get_window_extent(r)
        for t in ax.texts:
            tb = t.get_window_extent(r)
            assert box.x0 <= tb.x0 and tb.x1 <= box.x1 and box.y0 <= tb.y0 and tb.y1 <= box.y1, t.get_text()
            assert not any(tb.overlaps(k) for k in ticks), t.get_text()
            n += 1
    assert n == 10  # 5 players, 2 panels


@pytest.mark.parametrize("with_search", [False, True])
def test_ladder_chart_has_a_footer_axis_titles_and_names_search_only_when_it_played(with_search):
    """A fresh user's find: the ladder chart said "pairs with search: 300 decks" when no search
    player played, and had neither the footer (preset, seed, version) nor the axis titles the
    experiment charts have."""
    from tranca_sim.io import package_version
    from tranca_sim.lab.ladder.ladder_report import ladder_figure, report_markdown

    def row(label, v):
        return {"label": label, "strategy": label, "elo": v, "elo_lo": v - 9, "elo_hi": v + 9,
                "points": v, "points_lo": v - 3, "points_hi": v + 3, "decks": 24}  # fmt: skip

    players = [{"label": "basic", "strategy": "basic", "slow": False}]
    players.append({"label": "s1", "strategy": "search", "slow": True} if with_search else
                   {"label": "random", "strategy": "random", "slow": False})  # fmt: skip
    result = {
        "anchor": "basic", "preset": "tranca", "seed": 20261130, "decks": 24, "slow_decks": 300,
        "players": players, "ratings": [row("basic", 0), row(players[1]["label"], -50)],
        "pairs": [{"a": "basic", "b": players[1]["label"], "decks": 300 if with_search else 24, "sd": 50.0,
                   "mean": 50.0, "lo": 40.0, "hi": 60.0}],
    }  # fmt: skip
    fig = ladder_figure(result)
    texts = [t.get_text() for t in fig.texts] + [fig._suptitle.get_text()]
    said = "pairs with search: 300 decks" in " ".join(texts)
    assert said is with_search
    foot = [t for t in fig.texts if "tranca-sim " + package_version() in t.get_text()]
    assert foot and "preset tranca" in foot[0].get_text() and "seed 20261130" in foot[0].get_text()
    for ax in fig.axes:
        assert ax.get_xlabel()
    assert fig.axes[0].get_ylabel()
    fig.canvas.draw()  # the footer lies below both panels, inside the figure
    r = fig.canvas.get_renderer()
    fb = foot[0].get_window_extent(r)
    assert fb.y0 >= 0 and all(fb.y1 <= ax.get_tightbbox(r).y0 + 1 for ax in fig.axes)
    try:
        md = report_markdown(result)
    except (KeyError, TypeError):
        md = None
    if md is not None:
        assert ("a pair with the search player" in md) is with_search
