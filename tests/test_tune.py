"""``tranca-sim tune`` and the ``tuned`` strategy: the declared search space, a small tuning end
to end (fresh decks for the confirmation), the CLI's errors, and ``tuned`` playing its file."""

from __future__ import annotations

import tomllib
import types
from pathlib import Path

import numpy as np
import polars as pl
import pytest
from cli_call import call, one_error_line

from tranca_sim.lab.tuning.tune import TuneConfig, TuneError, check_config, run_tune
from tranca_sim.rules import get_preset
from tranca_sim.strategies import StrategyError, resolve
from tranca_sim.strategies.search import search_space, space_of

ROOT = Path(__file__).resolve().parents[1]


# ---- the search space -------------------------------------------------------------------
def test_basic_search_space_leaves_out_handicaps_and_face_up_switches_in_tranca():
    names = [p.name for p in search_space("basic", get_preset("tranca"))]
    assert "never_pile" not in names and "never_wild" not in names and "never_out" not in names
    # mortos are face down in tranca: the two switches that read face-up mortos change nothing there
    assert "morto_seen" not in names and "aberta_rush" not in names
    # 22 parameters of basic - 3 handicaps - 2 face-up switches - the first player's redraw (tranca-sp)
    assert len(names) == 16
    assert "redraw" not in names and "redraw" in [
        p.name for p in search_space("basic", get_preset("tranca-sp"))
    ]
    aberta = [p.name for p in search_space("basic", get_preset("tranca-aberta"))]
    assert aberta == names + ["morto_seen", "aberta_rush"]


def test_basic_search_space_kinds_ranges_and_grid():
    sp = {p.name: p for p in search_space("basic")}
    assert (sp["black3_lock"].kind, sp["black3_lock"].low, sp["black3_lock"].high) == ("switch", 0, 1)
    assert (sp["take_pile_min"].kind, sp["take_pile_min"].low, sp["take_pile_min"].high) == ("int", 1, 8)
    assert sp["pile_fit"].kind == "real"
    # morto_stock is searched on the morto-timing grid: 108 never holds, 0 holds to the end
    assert sp["morto_stock"].choices == (108, 40, 35, 30, 25, 20, 15, 10, 5, 0)
    assert sp["take_pile_min"].default == 3


def _module(search=None, params=None):
    m = types.SimpleNamespace(
        NAME="fake",
        PARAMS=params
        or (
            ("a", 1.0, "", 0, 10, "int"),
            ("b", 0.0, "", 0, 1, "switch"),
            ("c", 0.5, "", 0, 1, "real"),
        ),
    )
    if search is not None:
        m.SEARCH = search
    return m


def test_search_space_without_declaration_is_every_parameter_with_its_range():
    sp = space_of(_module())
    assert [(p.name, p.kind, p.low, p.high) for p in sp] == [
        ("a", "int", 0, 10),
        ("b", "switch", 0, 1),
        ("c", "real", 0, 1),
    ]
    # a parameter without a range (the contract's default is -1e9..1e9) cannot be searched
    with pytest.raises(StrategyError, match="declare SEARCH"):
        space_of(_module(params=(("x", 1.0, "doc"),)))


@pytest.mark.parametrize(
    "search, words",
    [
        ((("zz", 0, 1),), "not a parameter"),
        ((("a", 0, 11),), "must lie in the parameter's 0 to 10"),
        ((("a", 5, 2),), "lowest <= highest"),
        ((("a", 0.5, 3),), "whole"),
        ((("b", 0, 0),), "switch"),
        ((("a", 0, 3), ("a", 1, 2)), "second time"),
        ((("a", (1, 1)),), "two or more different values"),
        ((("a", 0, 3, "no_such_rule"),), "not a rule option"),
        ((("a",),), "must be"),
    ],
)
def test_search_space_declaration_errors(search, words):
    with pytest.raises(StrategyError, match=words):
        space_of(_module(search))


def test_search_space_only_and_rule_condition():
    m = _module((("a", 2, 4), ("b", 0, 1, "mortos_face_up"), ("c", (0.25, 0.5))))
    assert [p.name for p in space_of(m, get_preset("tranca"))] == ["a", "c"]
    assert [p.name for p in space_of(m, get_preset("tranca-aberta"), only=["b"])] == ["b"]
    with pytest.raises(StrategyError, match="not in the search space"):
        space_of(m, get_preset("tranca"), only=["b"])


# ---- a small tuning end to end ----------------------------------------------------------
@pytest.fixture(scope="module")
def tuned_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "t"
    cfg = TuneConfig(
        "basic",
        "tranca",
        "basic",
        budget=2 * 10 * 200,  # the least: 10 candidates a round, 2 rounds
        out=out,
        trial_deals=200,
        select_top=2,
        select_deals=200,
        confirm_deals=400,
        rounds=2,
        only=("black3_lock", "partner", "take_pile_min"),
        seed=5,
        progress=False,
    )
    return out, run_tune(cfg)


def test_tune_writes_its_directory(tuned_dir):
    out, res = tuned_dir
    assert sorted(p.name for p in out.iterdir()) == [
        "params.toml",
        "report.md",
        "trace.png",
        "trace.svg",
        "trials.parquet",
    ]
    assert (out / "trace.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    trials = pl.read_parquet(out / "trials.parquet")
    assert set(trials["stage"]) >= {"search", "selection", "confirmation", "final"}
    assert {"black3_lock", "partner", "take_pile_min", "mean", "lo", "hi", "first_deal", "decks"} <= set(
        trials.columns
    )
    report = (out / "report.md").read_text()
    assert "95% CI" in report and "fresh decks" in report
    # the parameter file is the format of strategies/tuned/<preset>.toml and names the champion
    data = tomllib.loads((out / "params.toml").read_text())
    assert data["preset"] == "tranca" and data["strategy"] == "basic"
    assert resolve("basic", **{k: repr(float(v)) for k, v in data["params"].items()}).text == res["champion"]
    assert data["confirmation"]["decks"] == 200


def test_first_candidate_is_the_start_point_at_exactly_zero(tuned_dir):
    out, _ = tuned_dir
    t = pl.read_parquet(out / "trials.parquet").filter((pl.col("stage") == "search") & (pl.col("round") == 1))
    first = t.sort("trial").row(0, named=True)
    # basic against basic on duplicate decks: the two deals of a deck are the same game with the
    # sides' names swapped, so each deck's two differences cancel: 0 exactly
    assert first["label"] == "basic" and first["mean"] == 0.0


def test_confirmation_decks_are_disjoint_from_the_tuning_decks(tuned_dir):
    out, res = tuned_dir
    t = pl.read_parquet(out / "trials.parquet")
    ranges = {}
    for row in t.iter_rows(named=True):
        ranges.setdefault((row["stage"], row["round"]), set()).add((row["first_deal"], row["decks"]))
    # every candidate of a round's search plays the same decks (common random numbers)
    for (stage, _), r in ranges.items():
        assert len(r) == 1, (stage, r)
    used = [(stage, rd, *next(iter(r))) for (stage, rd), r in ranges.items()]
    for i, a in enumerate(used):
        for b in used[i + 1 :]:
            a_deals = set(range(a[2], a[2] + a[3]))
            assert not a_deals & set(range(b[2], b[2] + b[3])), (a, b)
    assert all(r["seed"] == 5 for r in t.iter_rows(named=True))  # one master seed: the indices separate
    f = t.filter(pl.col("stage") == "final").row(0, named=True)
    assert (f["mean"], f["lo"], f["hi"]) == pytest.approx(
        (res["final"]["mean"], res["final"]["lo"], res["final"]["hi"])
    )


def test_check_config_refuses_bad_numbers():
    base = {"strategy": "basic", "preset": "tranca", "opponent": "basic"}
    with pytest.raises(TuneError, match="--budget must be at least 120000"):
        check_config(TuneConfig(**base, budget=1000))
    with pytest.raises(TuneError, match="--trial-deals must be an even"):
        check_config(TuneConfig(**base, budget=10**7, trial_deals=301))
    with pytest.raises(StrategyError, match="not in the search space"):
        check_config(TuneConfig(**base, budget=10**7, only=("never_pile",)))


@pytest.mark.parametrize(
    "argv, words",
    [
        (["--budget", "100"], ["--budget must be at least", "got 100"]),
        (["--params", "black3_lock,nope"], ["--params", "'nope'", "searchable"]),
        (["--vs", "nobody"], ["--vs nobody", "unknown strategy"]),
        (["--preset", "nope"], ["--preset:", "unknown preset 'nope'"]),
        (["--trial-deals", "3"], ["--trial-deals must be an even"]),
        (["--rule", "nope=1"], ["--rule nope=1:", "unknown rule option 'nope'"]),
        (["--rule", "max_wilds=9"], ["--rule max_wilds=9:", "max_wilds must be 0..3"]),
        (["--rule", "card_values=003"], ["--rule card_values=003:", "use n_jokers=0"]),
        # a wrong rule is named before a budget too small for it: the words in the order typed
        (["--rule", "nope=1", "--budget", "10"], ["--rule nope=1:"]),
        (["--vs", "nobody", "--budget", "10"], ["--vs nobody"]),
    ],
)
def test_cli_tune_errors(argv, words, capsys, tmp_path):
    args = ["tune", "basic", "--budget", "1000000", "--out", str(tmp_path / "o"), "--no-progress"]
    status, _, err = call(args + argv, capsys)
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tranca-sim: error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])
    assert not (tmp_path / "o").exists()


def test_cli_tune_refuses_a_directory_that_is_not_its_output(capsys, tmp_path):
    (tmp_path / "o").mkdir()
    (tmp_path / "o" / "x").write_text("keep")
    status, _, err = call(["tune", "basic", "--budget", "1000000", "--out", str(tmp_path / "o")], capsys)
    assert status == 2 and "not an earlier tune output" in err and (tmp_path / "o" / "x").read_text() == "keep"


# ---- the tuned strategy -----------------------------------------------------------------
def test_tuned_loads_its_file():
    data = tomllib.loads((ROOT / "strategies" / "tuned" / "tranca.toml").read_text())
    spec = resolve("tuned", preset="tranca")
    assert spec.name == "tuned" and spec.sid == resolve("basic").sid  # played by basic's functions
    for k, v in data["params"].items():
        assert spec.param_dict[k] == float(v), k
    assert data["command"].startswith("tranca-sim tune basic --preset tranca")
    # a preset without its own file plays tranca's values
    assert resolve("tuned", preset="tranca-carioca").param_dict == spec.param_dict
    # parameters can be changed as for basic
    assert resolve("tuned:black3_lock=0").param_dict["black3_lock"] == 0.0


def test_tuned_reads_a_new_presets_file(tmp_path, monkeypatch):
    from tranca_sim.strategies import tuned

    text = (ROOT / "strategies" / "tuned" / "tranca.toml").read_text()
    (tmp_path / "tranca.toml").write_text(text)
    (tmp_path / "tranca-aberta.toml").write_text(text.replace("morto_seen = 1", "morto_seen = 0"))
    monkeypatch.setattr(tuned, "PARAM_DIR", tmp_path)
    tuned.load.cache_clear()
    try:
        aberta = resolve("tuned", preset="tranca-aberta")
        assert aberta.param_dict["morto_seen"] == 0.0
        # named after its own preset's values: "tuned" there, a change from them named
        assert aberta.label == "tuned" and resolve(aberta, partner=0).label == "tuned:partner=0"
        assert resolve(aberta.text).label == "tuned:morto_seen=0"  # without the preset: against tranca's
        assert resolve("tuned", preset="tranca").param_dict["morto_seen"] == 1.0
        (tmp_path / "tranca-paulista.toml").write_text("[params]\nblack3_lock = 2\n")
        with pytest.raises(tuned.TunedParamsError, match="black3_lock = 2"):
            resolve("tuned", preset="tranca-paulista")
    finally:
        tuned.load.cache_clear()


def test_tuned_plays_basic_with_its_parameters():
    from tranca_sim.engine import simulate_chunk

    rules = get_preset("tranca")
    spec = resolve("tuned", preset="tranca")
    same = "basic:" + ",".join(f"{k}={v:g}" for k, v in spec.param_dict.items())
    a = simulate_chunk(rules, ("tuned", "basic"), master_seed=3, start=0, count=40)
    b = simulate_chunk(rules, (same, "basic"), master_seed=3, start=0, count=40)
    assert np.array_equal(a["score"], b["score"]) and np.array_equal(a["morto_turn"], b["morto_turn"])
    c = simulate_chunk(rules, ("basic", "basic"), master_seed=3, start=0, count=40)
    assert not np.array_equal(a["score"], c["score"])  # the tuned values change play
    from tranca_sim.strategies.tuned import params_row

    assert np.array_equal(params_row("tranca"), spec.params)


def test_tuned_in_simulate_and_in_an_experiment_file(tmp_path, capsys):
    status, out, err = call(
        [
            "simulate",
            "--deals",
            "20",
            "--side-a",
            "tuned",
            "--side-b",
            "basic",
            "--out",
            str(tmp_path / "r.parquet"),
        ]
        + ["--no-progress"],
        capsys,
    )
    assert status == 0, err
    assert "A = tuned; B = basic" in out
    from tranca_sim.io import load_meta

    entry = load_meta(tmp_path / "r.parquet")["strategies"][0]
    assert entry["name"] == "tuned" and entry["params"] == list(
        resolve("tuned").params[: len(entry["param_names"])]
    )
    from tranca_sim.lab.experiments.spec import load_spec

    exp = tmp_path / "e.toml"
    exp.write_text(
        'name = "t"\ntitle = "t"\nquestion = "q"\nbaseline = "tuned"\nseed = 1\nbatch = 20\nbudget = 20\n'
        '[[variants]]\nlabel = "no lock"\nstrategy = "tuned:black3_lock=0"\n'
    )
    spec = load_spec(exp)
    assert resolve(spec["baseline"]).param_dict == resolve("tuned", preset="tranca").param_dict
    assert resolve(spec["variants"][0]["strategy"]).param_dict["black3_lock"] == 0.0


def test_a_trial_played_in_pieces_equals_one_call(monkeypatch):
    """_play splits a trial into short engine calls (Ctrl-C and SIGTERM are seen between them);
    the pieces give the same paired deals as one call, and the ticks add up to the deals."""
    from tranca_sim.engine import simulate_chunk
    from tranca_sim.lab.statistics.designs import duplicate_units
    from tranca_sim.lab.tuning import tune

    rules = get_preset("tranca")
    a, b = resolve("basic"), resolve("random")
    whole = duplicate_units(
        simulate_chunk(rules, (a, b), master_seed=5, start=40, count=37),
        simulate_chunk(rules, (b, a), master_seed=5, start=40, count=37),
    )
    monkeypatch.setattr(tune, "CALL_SECONDS", 0.0)  # 8 decks first, then one deck a piece
    ticks = []
    pieces = tune._play(rules, a, b, 5, 40, 37, tick=ticks.append)
    assert ticks == [16] + [2] * 29
    assert np.array_equal(pieces.units, whole.units) and pieces.units.shape == (37,)
    assert np.array_equal(pieces.match_a, whole.match_a)
    assert (pieces.v_out, pieces.b_out, pieces.v_wins) == (whole.v_out, whole.b_out, whole.v_wins)


def test_a_long_tune_says_how_long_after_its_first_trial(capsys):
    from tranca_sim.lab.tuning import tune

    tune._say_duration(10_000, 100.0)  # 100 s: nothing to say
    assert capsys.readouterr().err == ""
    tune._say_duration(1_000_000, 100.0)  # 10,000 s = 2 h 47 min
    err = capsys.readouterr().err
    assert "about 2 h 47 min" in err and "Ctrl-C stops it" in err


def test_search_deals_cap_is_one_trial_per_candidate_of_a_small_space():
    """Deals a round's search can play: one trial per distinct candidate of a small space."""
    from types import SimpleNamespace as P

    from tranca_sim.lab.tuning.tune import search_deals_cap

    switch, ints = P(choices=None, kind="switch"), P(choices=None, kind="int", low=1, high=3)
    three, real = P(choices=(0.25, 0.5, 1.0), kind="real"), P(choices=None, kind="real", low=0, high=1)
    assert search_deals_cap([switch, switch], 20000, 2000) == 4 * 2000  # 2 x 2 candidates
    assert search_deals_cap([switch, ints, three], 100_000, 1000) == 18 * 1000  # 2 x 3 x 3
    assert search_deals_cap([switch, real], 20000, 2000) == 20000  # a real number: the budget
    assert search_deals_cap([switch, ints], 5000, 2000) == 4000  # whole trials of the budget


def test_tune_refuses_a_three_player_preset_in_one_line(tmp_path, capsys):
    """`tune basic --preset tranca-3p` crashed with `ValueError: a run must hold one side A and one
    side B row for every deal` (exit 1) after compiling; now it is refused before any deal, naming
    the presets tune supports."""
    out = tmp_path / "t3"
    status, _, err = call(
        [
            "tune",
            "basic",
            "--preset",
            "tranca-3p",
            "--budget",
            "12000",
            "--trial-deals",
            "400",
            "--out",
            str(out),
        ],
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


def _trace_data():
    """Two rounds drawn by hand: round 1's pick beats basic; round 2's best candidate is its
    opponent with the same parameters (written as a label with the defaults spelled out)."""
    from tranca_sim.strategies import resolve

    r1 = "basic:take_pile_min=5"
    same = resolve("basic:take_pile_min=5,go_out=1").text  # go_out=1 is basic's default
    rows = [
        {"round": r, "stage": "search", "trial": i, "mean": m}
        for r in (1, 2)
        for i, m in enumerate([0.0, 12.5, 30.0, -40.0])
    ]
    conf = lambda m, lbl, opp: {"mean": m, "lo": m - 4, "hi": m + 4, "p_greater": 0.5 if m < 5 else 1e-6,  # noqa: E731
                                "label": lbl, "opponent": opp, "decks": 20000}  # fmt: skip
    rounds = [
        {"round": 1, "opponent_label": "basic", "winner_label": r1, "played": 4, "trials": 4,
         "search_mean": 30.0, "selection_mean": 28.0, "confirmation": conf(27.0, r1, "basic"),
         "beats_opponent": True},
        {"round": 2, "opponent_label": r1, "winner_label": same, "played": 4, "trials": 4,
         "search_mean": 0.0, "selection_mean": 0.4, "confirmation": conf(0.1, same, r1),
         "beats_opponent": False},
    ]  # fmt: skip
    result = {"rounds": rounds, "final": conf(27.0, r1, "basic"), "preset": "tranca",
              "base_label": "basic", "champion_label": r1, "opponent_label": "basic"}  # fmt: skip
    return rows, result


def test_the_trace_labels_its_band_and_never_calls_the_opponent_a_winner():
    """tune's trace drew the confirmation's interval as an unlabelled band, and titled a round whose
    best candidate was its opponent's own parameters 'winner ...'; its legend called that point
    'winner confirmed'. The band is in the legend; the opponent itself is said to be no winner."""
    from tranca_sim.lab.tuning.tune_report import trace_figure

    fig = trace_figure(*_trace_data())
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    ax1, ax2 = fig.axes[:2]
    bands = [p for p in ax1.patches if not p.get_label().startswith("_")]
    assert bands and all(p.get_label() in legend for p in bands)  # the band has its legend entry
    assert not any("winner" in x for x in legend), legend  # the markers stand for the round's pick
    assert "winner" in ax1.get_title("left") and "beats it" in ax1.get_title("left")
    assert "opponent itself" in ax2.get_title("left") and "winner +" not in ax2.get_title("left"), ax2.get_title("left")


def test_the_opponent_itself_is_no_winner_in_the_report():
    from tranca_sim.lab.tuning.tune_report import is_the_opponent, same_parameters

    rows, result = _trace_data()
    assert same_parameters("basic", "basic:go_out=1") and not same_parameters("basic", "basic:go_out=0")
    assert not is_the_opponent(result["rounds"][0]) and is_the_opponent(result["rounds"][1])
