"""The strategy lab: statistics over run files (paired and duplicate designs),
experiments, charts and reports.  Plain Python on top of the engine's outputs."""
