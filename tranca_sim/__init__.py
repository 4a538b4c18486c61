"""tranca-sim: a Monte Carlo strategy lab for Tranca and Buraco.

Public entry points: :func:`tranca_sim.engine.simulate_chunk`,
:func:`tranca_sim.rules.get_preset`, :func:`tranca_sim.io.load_run`.
"""

__version__ = "0.1.0"
