import os

# the test session plays the engine with the search player (strategies/user.py): most test files
# play search; tests/test_engine_builds.py plays the lean engine in a subprocess
os.environ.setdefault("TRANCA_SIM_SEARCH", "1")

import pytest

from tranca_sim.rules import get_preset


@pytest.fixture(scope="session")
def tranca():
    return get_preset("tranca")
