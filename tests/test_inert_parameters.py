"""Strategy parameters that cannot change play under a preset (strategies/inert.py): an experiment
refuses them, or warns when they were only measured inert; tune does not search them; and the ones
called inert really play the same deals while the others do not."""

from __future__ import annotations

import pytest
from cli_call import call, one_error_line


def _toml(tmp_path, body: str, preset: str = "buraco"):
    f = tmp_path / "inert.toml"
    f.write_text(f'title = "t"\nquestion = "q"\npreset = "{preset}"\nbaseline = "basic"\nbatch = 4\nbudget = 8\n'
                 + body)  # fmt: skip
    return f


@pytest.mark.parametrize(
    "body",
    [
        '[[variants]]\nlabel = "lock"\nstrategy = "basic:black3_lock=1"\n',
        '[sweep]\nstrategy = "basic"\nparam = "black3_lock"\ngrid = [0, 1]\n',
    ],
    ids=["variant", "sweep"],
)
def test_experiment_refuses_black3_lock_in_buraco(tmp_path, capsys, body):
    """black3_lock does nothing in Buraco (no pile is locked, 004) but was accepted."""
    status, _, err = call(["experiment", str(_toml(tmp_path, body)), "--out", str(tmp_path / "o")], capsys)
    assert status == 2
    line = one_error_line(err)
    assert "black3_lock cannot change play under buraco" in line and "lock_by_black3 off" in line
    assert "004" in line
    assert not (tmp_path / "o").exists()


def test_experiment_accepts_black3_lock_in_tranca(tmp_path):
    from tranca_sim.lab.experiments.spec import load_spec

    spec = load_spec(_toml(tmp_path, '[[variants]]\nstrategy = "basic:black3_lock=1"\n', preset="tranca"))
    assert "black3_lock=1" in spec["variants"][0]["strategy"]


def test_experiment_warns_about_a_parameter_measured_inert(tmp_path):
    from tranca_sim.lab.experiments.spec import load_spec
    from tranca_sim.strategies.inert import InertParameterWarning

    with pytest.warns(InertParameterWarning, match="take_pile_min changed no deal under buraco"):
        load_spec(_toml(tmp_path, '[[variants]]\nstrategy = "basic:take_pile_min=5"\n'))


def test_tune_does_not_search_black3_lock_in_buraco(tmp_path, capsys):
    """`tune --params` listed black3_lock as searchable for buraco, and tune could put it in
    its winner."""
    argv = ["tune", "basic", "--preset", "buraco", "--budget", "12000", "--trial-deals", "400",
            "--out", str(tmp_path / "t")]  # fmt: skip
    status, _, err = call([*argv, "--params", "black3_lock,go_out"], capsys)
    assert status == 2
    assert "--params black3_lock,go_out: black3_lock cannot change play under buraco" in one_error_line(err)
    status, _, err = call([*argv, "--params", "nope"], capsys)
    searchable = one_error_line(err).split("searchable: ", 1)[1].split(", ")
    assert "go_out" in searchable and "black3_lock" not in searchable and "red3_pace" not in searchable
    from tranca_sim.rules import get_preset
    from tranca_sim.strategies.search import search_space

    assert "black3_lock" in [p.name for p in search_space("basic", get_preset("tranca"))]


def _digest(rules, sides, n=400):
    import hashlib

    import numpy as np

    from tranca_sim.engine import simulate_chunk

    cols = simulate_chunk(rules, sides, master_seed=11, start=0, count=n)
    h = hashlib.sha256()
    for k in sorted(cols):
        h.update(k.encode())
        h.update(np.ascontiguousarray(cols[k]).tobytes())
    return h.hexdigest()


def test_the_parameters_called_inert_play_the_same_deals_and_the_others_do_not():
    """The table of strategies/inert.py against play: each parameter it calls inert under a preset
    plays 400 deals exactly as the default (lowest and highest value); black3_lock and
    take_pile_min, inert in buraco, change play in tranca."""
    from tranca_sim.rules import PRESETS
    from tranca_sim.strategies import basic
    from tranca_sim.strategies.inert import inert_reason

    rng = {p[0]: (p[3], p[4], p[1]) for p in basic.PARAMS}
    checked = 0
    for name, rules in PRESETS.items():
        if rules.n_seats == 3:
            continue  # the same table at three: the 20,000-deal measurement of strategies/inert.py
        base = _digest(rules, ("basic", "basic"))
        for param, (lo, hi, default) in rng.items():
            if inert_reason("basic", param, rules) is None:
                continue
            for v in {lo, hi} - {default}:
                assert _digest(rules, (f"basic:{param}={v:g}", "basic")) == base, (name, param, v)
                checked += 1
    assert checked > 40
    tranca = PRESETS["tranca"]
    base = _digest(tranca, ("basic", "basic"))
    assert _digest(tranca, ("basic:black3_lock=1", "basic")) != base
    assert _digest(tranca, ("basic:take_pile_min=8", "basic")) != base
