import os

# the test session plays the engine with the search player (strategies/user.py): most test files
# play search; tests/test_engine_builds.py plays the lean engine in a subprocess
os.environ.setdefault("TRANCA_SIM_SEARCH", "1")

import pytest

from tranca_sim.rules import get_preset


@pytest.fixture(scope="session")
def tranca():
    return get_preset("tranca")


@pytest.fixture(scope="session")
def two_experiments(tmp_path_factory):
    """A tranca and a buraco experiment of two tips (8 deals a variant), without report; built once
    for the session (the tests that change one change a copy: experiment_files.copy_experiment)."""
    from experiment_files import two_tips

    from tranca_sim.lab.experiments.experiment import run_experiment

    root = tmp_path_factory.mktemp("two-experiments")
    out = {}
    for preset in ("tranca", "buraco"):
        toml = root / f"two-{preset}.toml"
        toml.write_text(two_tips(preset), encoding="utf-8")
        out[preset] = root / preset
        run_experiment(toml, out[preset], progress=False, report=False, threads=1)
    return out


@pytest.fixture(scope="session")
def small_run(tmp_path_factory):
    """A run file of 12 tranca deals, basic against random, seed 3 (read, never changed)."""
    from tranca_sim.simulate import run_simulation

    out = tmp_path_factory.mktemp("run") / "run.parquet"
    run_simulation("tranca", 12, 3, "basic", "random", out, progress=False)
    return out
