"""The three-player design (rotation) on hand-made numbers: the estimators, first places, going
out, the variance ratios, three-player matches, run plans and the experiment file's checks.

No engine here: plain numpy (the end-to-end experiment is in tests/test_lab_experiment_3p.py).
"""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pytest

from tranca_sim.lab.experiments.spec import SpecError, load_spec
from tranca_sim.lab.statistics.designs import plan_runs
from tranca_sim.lab.statistics.inference import match_win_prob
from tranca_sim.lab.statistics.rotation import rotation_units


def run3(scores, won=None, out=None, first_deal=0):
    """Deal-major columns of a three-player run: ``scores`` is one (seat 0, seat 1, seat 2) triple a
    deal; ``won`` defaults to "strictly more than both others" (docs/schema.md ``won``)."""
    s = np.asarray(scores, dtype=np.int64)
    n = len(s)
    if won is None:
        won = np.array(
            [[s[i, j] > max(s[i, k] for k in range(3) if k != j) for j in range(3)] for i in range(n)]
        )
    out = np.zeros((n, 3), bool) if out is None else np.asarray(out, bool)
    return {
        "deal_index": np.repeat(np.arange(first_deal, first_deal + n), 3),
        "side": np.tile(np.arange(3), n),
        "score": s.ravel(),
        "won": np.asarray(won, bool).ravel(),
        "went_out": out.ravel(),
    }


# two decks; in run s<k> the variant sits in seat k
S0 = run3([[120, 30, -10], [-50, 200, 10]], out=[[1, 0, 0], [0, 1, 0]])
S1 = run3([[60, 90, 0], [80, 80, 20]], out=[[0, 1, 0], [0, 0, 1]])
S2 = run3([[100, 20, 40], [0, 150, 30]], out=[[1, 0, 0], [0, 1, 0]])
CONTROL = run3([[70, 50, 10], [0, 100, 40], [5, 5, 5]])  # one deck more: it serves every variant


def test_rotation_estimators_by_hand():
    pu = rotation_units(S0, S1, S2, CONTROL)
    # margin m[k] = variant's score - mean of the two baseline players' at its table:
    # deck 0: s0 120 - (30 - 10)/2 = 110; s1 90 - (0 + 60)/2 = 60; s2 40 - (100 + 20)/2 = -20
    #         e = (110 + 60 - 20) / 3 = 50
    # deck 1: s0 -50 - (200 + 10)/2 = -155; s1 80 - (20 - 50... no: seats 2 and 0) = 80 - (20 + 80)/2 = 30;
    #         s2 30 - (0 + 150)/2 = -45; e = (-155 + 30 - 45) / 3 = -170/3
    np.testing.assert_allclose(pu.units, [50.0, -170 / 3])
    # own-score gain: the variant's score minus the control table's in the same seat
    # deck 0: (120-70, 90-50, 40-10) = (50, 40, 30) -> 40; deck 1: (-50-0, 80-100, 30-40) -> -80/3
    np.testing.assert_allclose(pu.own_units, [40.0, -80 / 3])
    assert pu.unit == "deck" and pu.n_deals == 6 and pu.b_seats == 2
    # first places: variant deck 0 in s0 and s1 -> 2; baseline: deck 0 s2 seat 0, deck 1 s0 and
    # s2 seat 1 -> 3 (deck 1 s1 is 80-80-20, a tie for first: nobody won); decided runs 3 + 2 = 5
    assert (pu.v_wins, pu.b_wins, pu.v_decided, pu.b_decided) == (2, 3, 5, 5)
    # shares: variant 2/5, a baseline seat 3/(2*5); difference 0.4 - 0.3
    assert pu.win_share_diff == pytest.approx(0.1)
    # sign test over decks of 2*(variant's firsts) - baseline's: deck 0 4-1 > 0, deck 1 0-2 < 0 -> 1 vs 1
    assert pu.win_p == pytest.approx(1.0)
    # going out: variant in deck 0 s0 and s1 of its 6 deals; baseline seats 4 of 12
    assert pu.v_out == pytest.approx(2 / 6) and pu.b_out == pytest.approx(4 / 12)
    # var_ratio_design = 3 Var(e) / Var(m): Var(e) = (50 + 170/3)^2 / 2 = (320/3)^2 / 2 = 51200/9;
    # m = [110, 60, -20, -155, 30, -45], sum m^2 = 43050, mean -10/3, SS = 43050 - 6*100/9 = 128950/3,
    # Var(m) = 25790/3; ratio = (51200/3) / (25790/3) = 51200/25790
    assert pu.var_ratio_design == pytest.approx(51200 / 25790)
    # var_ratio_own = 3 Var(g) / (Var(sV) + Var(sB)): Var(g) = (40 + 80/3)^2 / 2 = 20000/9;
    # sV = [120, 90, 40, -50, 80, 30]: sum 310, sum sq 33900, Var = (33900 - 310^2/6)/5 = 10730/3;
    # sB (control, first two decks) = [70, 50, 10, 0, 100, 40]: mean 45, SS 19100 - 12150 = 6950, Var 1390
    assert pu.var_ratio_own == pytest.approx((20000 / 3) / (10730 / 3 + 1390))
    # the match arrays: the variant and its two opponents (next seat, the one after), per rotation
    np.testing.assert_array_equal(pu.match_a, [[120, 90, 40], [-50, 80, 30]])
    np.testing.assert_array_equal(pu.match_b, [[30, 0, 100], [200, 20, 0]])
    np.testing.assert_array_equal(pu.match_c, [[-10, 60, 20], [10, 80, 150]])
    assert math.isnan(pu.var_ratio_plain)


def test_variant_equal_to_the_baseline_is_zero_on_every_deck():
    # the three runs are then one table: the margins of the three seats sum to zero
    table = run3([[130, -40, 25], [0, 0, 90], [-15, 300, 10]])
    pu = rotation_units(table, table, table, table)
    np.testing.assert_array_equal(pu.units, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(pu.own_units, [0.0, 0.0, 0.0])
    assert pu.win_share_diff == 0.0 and math.isnan(pu.win_p)  # sign test of 0 vs 0


def test_the_control_table_adds_nothing_to_the_margin():
    # the margin minus the baseline's margin in the same seat at the control table is the margin
    # itself: the control's margins c[k] - (c[k+1] + c[k+2]) / 2 sum to 0 over the three seats
    rng = np.random.default_rng(5)
    runs = [run3(rng.integers(-200, 400, size=(50, 3))) for _ in range(3)]
    control = rng.integers(-200, 400, size=(50, 3)).astype(float)
    c_margin = np.column_stack(
        [control[:, k] - (control[:, (k + 1) % 3] + control[:, (k + 2) % 3]) / 2 for k in range(3)]
    )
    np.testing.assert_allclose(c_margin.sum(axis=1), 0, atol=1e-9)  # what makes the control add nothing
    # (subtracting its mean margin from pu.units, as this test once asserted, holds for any pu.units:
    # the margins are compared with and without the control instead)
    pu = rotation_units(*runs, run3(control))
    np.testing.assert_array_equal(pu.units, rotation_units(*runs).units)


def test_rotation_units_refuse_mismatched_runs():
    with pytest.raises(ValueError, match="same deals"):
        rotation_units(S0, S1, run3([[1, 2, 3]]))
    with pytest.raises(ValueError, match="control run does not hold"):
        rotation_units(S0, S1, S2, run3([[1, 2, 3]]))
    bad = dict(S0, side=np.tile([0, 1, 1], 2))
    with pytest.raises(ValueError, match="sides A, B and C"):
        rotation_units(bad, S1, S2)


def test_three_player_matches_known_answers():
    # 600, 500, 400 a deal: after three deals 1800, 1500, 1200 -- the highest at 1500, alone: a wins
    a, b, c = np.full(20, 600.0), np.full(20, 500.0), np.full(20, 400.0)
    p, lo, hi = match_win_prob(a, b, 1500, n_matches=300, n_boot=10, c_units=c)
    assert p == 1.0 and hi == 1.0
    # each deal gives one of the three 1500: every match is one deal, a wins a third of them
    a = np.array([1500.0, 0, 0] * 100)
    b = np.array([0, 1500.0, 0] * 100)
    c = np.array([0, 0, 1500.0] * 100)
    p, lo, hi = match_win_prob(a, b, 1500, n_matches=30_000, n_boot=30, seed=2, c_units=c)
    assert abs(p - 1 / 3) < 0.01 and lo < 1 / 3 < hi  # Monte Carlo sd 0.0027
    # a tie at the top over the target plays on: deal 0 ties a and b at 1500, deal 1 gives a 100
    a, b, c = np.array([1500.0, 100.0]), np.array([1500.0, 0.0]), np.array([0.0, 0.0])
    p, _, _ = match_win_prob(a, b, 1500, n_matches=2000, n_boot=10, c_units=c)
    assert p == 1.0


def test_plan_runs_rotates_the_variant_over_the_seats():
    plans = plan_runs("rotation", [("lock", "basic:black3_lock=1")], "basic")
    v = "basic:black3_lock=1"
    assert [(p.key, p.sides, p.role) for p in plans] == [
        ("baseline", ("basic", "basic", "basic"), "control"),
        ("v01-lock.s0", (v, "basic", "basic"), "s0"),
        ("v01-lock.s1", ("basic", v, "basic"), "s1"),
        ("v01-lock.s2", ("basic", "basic", v), "s2"),
    ]


THREE = """
title = "t"
question = "q?"
preset = "tranca-3p"
baseline = "basic"
seed = 3
batch = 300
budget = 900
[[variants]]
strategy = "basic:black3_lock=1"
"""


def _write(tmp_path, text):
    p = tmp_path / "x.toml"
    p.write_text(textwrap.dedent(text), encoding="utf-8")
    return p


def test_three_players_default_to_the_rotation_design(tmp_path):
    spec = load_spec(_write(tmp_path, THREE))
    assert (
        spec["design"] == "rotation" and spec["rules"]["n_seats"] == 3 and not spec["rules"]["partnerships"]
    )
    assert spec["budget"] == 900 and spec["batch"] == 300
    # defaults are whole decks of three deals
    spec = load_spec(_write(tmp_path, THREE.replace("batch = 300\nbudget = 900\n", "")))
    assert spec["batch"] % 3 == 0 and spec["budget"] % 3 == 0


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            ('baseline = "basic"', 'baseline = "basic"\ndesign = "duplicate"'),
            "design: tranca-3p is a table of three solo players: its design is 'rotation'",
        ),
        (
            ('baseline = "basic"', 'baseline = "basic"\ndesign = "fixed-opponent"\nopponent = "random"'),
            "design: tranca-3p is a table of three solo players",
        ),
        (
            ('baseline = "basic"', 'baseline = "basic"\ndesign = "triplicate"'),
            "design: must be one of rotation for tranca-3p, got 'triplicate'",
        ),
        (("batch = 300", "batch = 400"), "batch: must be a multiple of 3 in the rotation design"),
        (("budget = 900", "budget = 1000"), "budget: must be a multiple of 3 in the rotation design"),
        (
            ('preset = "tranca-3p"', 'preset = "tranca"\ndesign = "rotation"'),
            "design: 'rotation' is the design of three solo players (tranca-3p); tranca has two sides",
        ),
        (
            ('baseline = "basic"', 'baseline = "basic"\nopponent = "random"'),
            "opponent: only the fixed-opponent design has an opponent (design is rotation)",
        ),
    ],
)
def test_bad_three_player_file_one_clear_error(tmp_path, change, message):
    p = _write(tmp_path, THREE.replace(*change))
    with pytest.raises(SpecError) as e:
        load_spec(p)
    assert str(e.value).startswith(f"{p}: ") and message in str(e.value) and "\n" not in str(e.value)


def test_deals_cap_must_be_whole_decks(tmp_path):
    p = _write(tmp_path, THREE)
    with pytest.raises(
        SpecError, match=r"--deals must be a multiple of 3 in the rotation design.*got 100; give 99 or 102"
    ):
        load_spec(p, deals_cap=100)
    assert load_spec(p, deals_cap=300)["budget"] == 300
