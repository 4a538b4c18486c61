"""The strategy plug-in contract: registry, parameters, what a strategy may see."""

from pathlib import Path

import numpy as np
import pytest
from numba import njit

from tranca_sim import strategies
from tranca_sim.engine.deal import _obs
from tranca_sim.engine.kernel import _simulate_nb, simulate_chunk
from tranca_sim.engine.obs import PUB_HAND_N, PUB_LEN, PUB_SEAT, Obs
from tranca_sim.engine.positions import make_position
from tranca_sim.rules import get_preset
from tranca_sim.strategies import (
    PARAM_KINDS,
    StrategyError,
    build,
    describe,
    list_strategies,
    resolve,
    strategy_params,
)


def test_generated_dispatch_is_up_to_date():
    path = Path(strategies.__file__).with_name("_dispatch.py")
    assert path.read_text() == build.render(), "run: python -m tranca_sim.strategies.build"
    lean = Path(strategies.__file__).with_name("_dispatch_lean.py")
    assert lean.read_text() == build.render_lean(), "run: python -m tranca_sim.strategies.build"


def test_registry_names_and_defaults():
    names = [s[0] for s in list_strategies()]
    assert {"random", "basic", "passive"} <= set(names)  # users may add their own
    assert len(names) == len(set(names))
    spec = resolve("basic:take_pile_min=3,wild_reserve=1")
    assert spec.param_dict["take_pile_min"] == 3.0 and spec.param_dict["wild_reserve"] == 1.0
    assert spec.param_dict["black3_lock"] == 0.0  # default kept (every tip off in the baseline)
    assert resolve(spec.text).param_dict == spec.param_dict


@pytest.mark.parametrize(
    "text, message",
    [
        ("nosuch", "unknown strategy"),
        ("basic:nosuch=1", "has no parameter"),
        ("basic:go_out=yes", "must be a number"),
        ("basic:go_out", "name=value"),
        ("random:x=1", "has no parameter"),
        ("basic:go_out=nan", "must be a number"),
        ("basic:take_pile_min=-inf", "must be a number"),
        ("basic:go_out=1.5", r"is a switch: give 0 \(off\) or 1 \(on\), got '1.5'"),
        ("basic:go_out=-1", "is a switch"),
        ("basic:go_out=0.5", r"is a switch: give 0 \(off\) or 1 \(on\), got '0.5'"),
        ("basic:wild_reserve=0.999", "is a switch"),
        ("basic:take_pile_min=2.5", "must be a whole number from 0 to 108, got '2.5'"),
        ("basic:take_pile_min=109", "must be a whole number from 0 to 108"),
        ("basic:go_out=\uff11", "must be a number"),  # a full-width digit
        ("basic:go_out=1_0", "must be a number"),
        ("basic:", "nothing after"),
        ("basic:go_out=1,go_out=0", "given twice"),
    ],
)
def test_bad_strategy_specs_are_refused(text, message):
    with pytest.raises(StrategyError, match=message):
        resolve(text)


def test_whole_values_of_integer_and_switch_parameters_are_accepted():
    spec = resolve("basic:go_out=0,wild_reserve=1.0,take_pile_min=3e0")
    assert spec.param_dict["go_out"] == 0.0 and spec.param_dict["take_pile_min"] == 3.0


def test_every_parameter_declares_a_kind_its_default_obeys():
    for name, _, param_names, _ in list_strategies():
        for p, default, _, lo, hi, kind in strategy_params(name):
            assert kind in PARAM_KINDS, (name, p)
            assert lo <= default <= hi, (name, p)
            if kind != "real":
                assert float(default).is_integer(), (name, p)
            if kind == "switch":
                assert (lo, hi) == (0, 1) and default in (0, 1), (name, p)
    kinds = {p: k for p, _, _, _, _, k in strategy_params("basic")}
    assert kinds["take_pile_min"] == "int" and kinds["go_out"] == "switch" and kinds["pile_fit"] == "real"


@pytest.mark.parametrize(
    "text, label",
    [
        ("basic", "basic"),
        ("basic:black3_lock=1", "basic:black3_lock=1"),
        ("basic:black3_lock=0", "basic"),  # a default given explicitly is not shown
        ("basic:go_out=0,take_pile_min=4", "basic:take_pile_min=4,go_out=0"),  # in PARAMS order
        ("random", "random"),
    ],
)
def test_labels_show_only_non_default_parameters(text, label):
    spec = resolve(text)
    assert spec.label == label
    assert describe(spec.name, spec.params[: len(spec.param_names)]) == label
    assert resolve(spec.text).param_dict == spec.param_dict  # the full text still names every value


def test_describe_an_unknown_strategy_shows_every_value():
    assert describe("gone", [1.0, 0.5], ["a", "b"]) == "gone:a=1,b=0.5"
    assert describe("gone", [1.0, 0.5]) == "gone:1,0.5"
    assert describe("gone", []) == "gone"


def test_spaces_around_names_are_ignored():
    assert resolve(" basic : go_out = 0 ").param_dict["go_out"] == 0.0


def test_parameters_change_play_without_recompiling(tranca):
    simulate_chunk(tranca, ("basic", "basic"), 3, 0, 50)
    n_sigs = len(_simulate_nb.signatures)
    a = simulate_chunk(tranca, ("basic:black3_lock=0", "basic"), 3, 0, 300)
    b = simulate_chunk(tranca, ("basic:black3_lock=1", "basic"), 3, 0, 300)
    assert len(_simulate_nb.signatures) == n_sigs  # a sweep reuses the compiled kernel
    assert a["black3_locks"][0::2].sum() < b["black3_locks"][0::2].sum()


def _position(rules):
    return make_position(
        rules,
        hands={0: "KH KD 5C", 1: "QS QH JK 7D", 2: "9C 9D", 3: "4S"},
        melds={1: ["8C 8D 8H"]},
        pile="6C 10S",
        stock="AC AD",
        mortos={0: "AS 2S 4C", 1: "JH JD 3S"},
    )


@njit
def _observe(st, rp, seat):
    # copies made under numba's runtime (the kernels themselves run without it)
    o = _obs(st, rp, seat, np.zeros(PUB_LEN, np.int32), np.zeros((2, 53), np.int16))
    return o.hand.copy(), o.pub.copy(), o.morto.copy()


def test_observation_holds_only_what_the_player_sees():
    rules = get_preset("tranca")
    st = _position(rules)
    assert Obs._fields == ("hand", "pub", "pile", "mh", "mc", "taken", "morto", "rp")
    for seat in range(4):
        hand, pub, morto = _observe(st, rules.to_array(), seat)
        np.testing.assert_array_equal(hand, st.hand[seat])  # its own hand only
        assert morto.sum() == 0  # face-down mortos are not shown
        assert pub[PUB_SEAT] == seat
        assert [pub[PUB_HAND_N + s] for s in range(4)] == [3, 4, 2, 1]  # hand sizes are public


def test_open_tranca_shows_the_mortos():
    rules = get_preset("tranca-aberta")
    _, _, morto = _observe(_position(rules), rules.to_array(), 0)
    assert morto.sum() == 6


def test_side_labels_from_run_metadata():
    from tranca_sim.cli_runs import side_labels

    defaults = [p[1] for p in strategy_params("basic")]
    changed = [1.0 if p[0] == "black3_lock" else p[1] for p in strategy_params("basic")]
    meta = {
        "strategies": [
            {"name": "basic", "params": changed, "label": "stale"},  # a built-in: today's defaults
            {"name": "mine", "params": [2.0], "param_names": ["k"], "label": "mine:k=2"},  # a user's file
        ]
    }
    assert side_labels(meta) == ["basic:black3_lock=1", "mine:k=2"]
    meta["strategies"][1] = {"name": "mine", "params": [2.0], "param_names": ["k"]}  # no stored label
    assert side_labels(meta)[1] == "mine:k=2"
    meta["strategies"][0]["params"] = defaults
    assert side_labels(meta)[0] == "basic"
    assert side_labels({"strategies": "?"}) is None
