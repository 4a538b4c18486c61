"""Tips against players of different strength (tranca_sim.lab.ladder.tip_strength): a tip means the
same in ``tuned`` as in ``basic``, the difference-of-effects interval by hand, a tiny run end to end."""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path

import numpy as np
import pytest

from tranca_sim.engine import simulate_chunk
from tranca_sim.lab.ladder.tip_strength import TIPS, diff_interval, strategy_text

ROOT = Path(__file__).resolve().parents[1]


def _tuned_values() -> dict:
    return tomllib.loads((ROOT / "strategies/tuned/tranca.toml").read_text())["params"]


@pytest.mark.parametrize("change", [{}, {"black3_lock": 0}, {"morto_stock": 20, "morto_melds": 0}])
def test_tuned_plays_as_basic_with_its_values_so_a_tip_means_the_same(tranca, change):
    # tuned with a tip changed must play move for move as basic given tuned's whole parameter
    # file with the same change: the tip's parameter then means in tuned what it means in basic
    values = dict(_tuned_values(), **change)
    as_basic = "basic:" + ",".join(f"{k}={v:g}" for k, v in values.items())
    as_tuned = "tuned" + (":" + ",".join(f"{k}={v:g}" for k, v in change.items()) if change else "")
    x = simulate_chunk(tranca, (as_tuned, "basic"), 5, 0, 40)
    y = simulate_chunk(tranca, (as_basic, "basic"), 5, 0, 40)
    for col in ("score", "n_turns", "went_out", "morto_turn"):
        assert np.array_equal(x[col], y[col]), col


def test_tip_on_and_off_texts_follow_the_tuned_file():
    v = _tuned_values()
    assert v["black3_lock"] == 1  # the file has the lock on: tuned with the tip is tuned itself
    assert strategy_text("tuned", {"black3_lock": 1}) == "tuned"
    assert strategy_text("tuned", {"black3_lock": 0}) == "tuned:black3_lock=0"
    assert strategy_text("basic", {"clean_patience": 0}) == "basic"
    labels = [t[0] for t in TIPS]
    assert labels == ["morto timing", "black-3 lock", "clean-canasta patience"]


def test_difference_of_effects_interval_by_hand():
    # x on decks 0..3, y on decks 0..1 (a prefix). mean(y) - mean(x) = 3 - 2.5 = 0.5;
    # var(x) = 5/3, var(y) = 2, cov(x[:2], y) = ((-0.5)(-1) + (0.5)(1)) / 1 = 1;
    # Var = (5/3)/4 + 2/2 - 2 * 1 * 2 / (4 * 2) = 0.416667 + 1 - 0.5 = 0.916667
    d = diff_interval(np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0]))
    se = math.sqrt(0.916667)
    assert d["diff"] == pytest.approx(0.5)
    assert d["se"] == pytest.approx(se, rel=1e-5)
    assert d["lo"] == pytest.approx(0.5 - 1.96 * se, rel=1e-5)


def test_tiny_run_end_to_end(tmp_path):
    from tranca_sim.lab.ladder import tip_strength

    tip_strength.SEARCH = "search:worlds=1,turns=1"
    try:
        tip_strength.main(["--out", str(tmp_path / "t"), "--decks", "6", "--search-decks", "2"])
    finally:
        tip_strength.SEARCH = "search:worlds=8,turns=12"
    res = json.loads((tmp_path / "t" / "results.json").read_text())
    assert len(res["effects"]) == 12 and len(res["differences"]) == 12
    for e in res["effects"]:
        assert e["decks"] == (6 if e["setting"] == "self-play" else 2)
        assert 0 <= e["p_holm"] <= 1 and e["p_holm"] >= e["p_value"]
    for f in ("report.md", "effects.csv", "differences.csv", "tips_strength.png"):
        assert (tmp_path / "t" / f).is_file()


def test_tuned_warns_once_when_a_preset_has_no_file_of_its_own(tmp_path, capsys):
    import warnings

    from tranca_sim.cli import main
    from tranca_sim.strategies import tuned

    assert not (ROOT / "strategies/tuned/tranca-carioca.toml").exists()
    assert (ROOT / "strategies/tuned/tranca-aberta.toml").exists()
    assert (ROOT / "strategies/tuned/buraco.toml").exists()  # tuned for open Buraco (reports/tune-buraco/)
    for preset, warned in (("tranca-carioca", True), ("tranca-aberta", False), ("buraco", False)):
        tuned._warn_fallback.cache_clear()
        out = tmp_path / f"{preset}.parquet"
        argv = ["simulate", "--preset", preset, "--side-a", "tuned", "--side-b", "basic", "--deals", "4"]
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            assert main([*argv, "--out", str(out), "--no-progress", "--threads", "1"]) == 0
        err = capsys.readouterr().err
        line = f"tranca-sim: warning: strategy 'tuned' has no parameter file for preset {preset!r}"
        assert (line in err) is warned, err
        assert err.count("has no parameter file") == (1 if warned else 0)  # once, not per resolve
