import pytest

from tranca_sim.rules import get_preset


@pytest.fixture(scope="session")
def tranca():
    return get_preset("tranca")
